"""Devices added by column (Builder.devices_by_column, issue 41: the servers of a 128K-GPU design) are those
Builder.device makes one by one, on the shapes the bench designs do not draw: two tiers (no pod), a last SU
left partly empty, fields left at their defaults."""

from __future__ import annotations

import pytest

from engine.catalog import load_catalog
from engine.pipeline import _server_prefix, _servers
from engine.presets import load_preset
from engine.spec import parse_spec
from engine.topology.builder import Builder
from engine.topology.compute import plan_compute
from tests.engine.conftest import deep_merge


def test_by_column_matches_one_by_one():
    one, by_column = Builder(), Builder()
    one.device("X", "ufm", "ufm", network="compute")
    by_column.device("X", "ufm", "ufm", network="compute")
    made = by_column.devices_by_column(
        ["A", "B", "C"], "leaf", "sw", {"su": [1, 1, 2], "power_kw": [0.5, None, 2.0]}, plane=1
    )
    expected = [
        one.device(nm, "leaf", "sw", su=su, power_kw=kw, plane=1)
        for nm, su, kw in zip("ABC", [1, 1, 2], [0.5, None, 2.0])
    ]
    assert made == expected == [1, 2, 3]
    assert by_column.devices == one.devices
    assert [hash(d) for d in by_column.devices] == [hash(d) for d in one.devices]
    assert by_column.devices_by_column([], "leaf", "sw") == []


@pytest.mark.parametrize(
    ("each", "same", "error"),
    [({"su": [1]}, {}, ValueError), ({}, {"idx": 3}, TypeError), ({"su": [1, 2]}, {"su": 1}, TypeError)],
)
def test_by_column_refuses_what_device_would_not_take(each, same, error):
    with pytest.raises(error):
        Builder().devices_by_column(["A", "B"], "leaf", "sw", each, **same)


@pytest.mark.parametrize(
    ("preset", "count"),
    [("dgx-h100-superpod-4su", 123), ("hgx-roce-2su", 37), ("dgx-h100-superpod-4su", 128)],
)
def test_servers_are_named_and_numbered_as_one_by_one(preset, count):
    catalog = load_catalog()
    spec = parse_spec(deep_merge(load_preset(preset), {"servers": {"count": count}}))
    plan, server = plan_compute(spec, catalog), catalog.server(spec.servers.model)
    b = Builder()
    assert _servers(b, count, plan, server) == list(range(count))
    one, su = Builder(), plan.su_size
    for n in range(count):  # the former one-by-one wiring
        one.device(
            f"{_server_prefix(server.key)}-SU{n // su + 1:02d}-N{n % su + 1:02d}",
            "server",
            server.key,
            su=n // su + 1,
            pod=(n // su) // plan.su_per_pod + 1 if plan.tiers == 3 else 0,
            rack_units=server.rack_units,
            power_kw=server.power_kw,
        )
    assert b.devices == one.devices
