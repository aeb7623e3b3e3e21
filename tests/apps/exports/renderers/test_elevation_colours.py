"""The PDF rack elevations colour a device by the role the design stored, as the browser's elevations do
(apps/designs/diagrams.py), never by its name: a switch whose name has no fabric prefix is still a switch."""

from __future__ import annotations

import dataclasses

from reportlab.graphics.shapes import Rect

from apps.exports.renderers._view import DesignView
from apps.exports.renderers.diagrams import _fill, _fill_level, elevation_racks, elevations, rack_contents


def _renamed(result):
    """The design with every device renamed DEV<n>: nothing left in a name says what the device is."""
    devices = tuple(dataclasses.replace(d, name=f"DEV{d.idx}") for d in result.devices)
    return dataclasses.replace(result, devices=devices)


def test_an_elevation_box_takes_its_colour_from_the_device_role(design):
    view = DesignView(_renamed(design))
    racks = elevation_racks(view)
    contents = rack_contents(view, racks)
    roles = {d.name: d.role for d in view.devices}
    drawn = [item for items in contents.values() for item in items]
    assert {role for *_, role in drawn} >= {"server", "leaf"}
    for _low, _height, name, _model, role in drawn:
        assert role == roles.get(name, "patch panel")
    assert _fill_level("leaf") == _fill_level("spine") == _fill_level("oob") == 1
    assert _fill_level("server") == _fill_level("ufm") == _fill_level("pdu") == 0
    assert _fill_level("patch panel") == 2
    switch_colour = _fill(1)
    fills = [s.fillColor for d in elevations(view, racks, 800, 500) for s in d.contents if isinstance(s, Rect)]
    switches_placed = sum(1 for low, _h, _n, _m, role in drawn if low >= 1 and _fill_level(role) == 1)
    assert switches_placed and sum(1 for f in fills if f == switch_colour) == switches_placed
