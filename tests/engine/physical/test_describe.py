"""Supplier-grade BOM descriptions: vendor, part number, what it is and the ordered length, for every line kind."""

from __future__ import annotations

from engine.physical import describe
from engine.physical.catalog import load_media_catalog

MEDIA = load_media_catalog()


def test_fiber_cords_read_as_a_supplier_lists_them():
    assert (
        describe.cord(MEDIA.cords["MFP7E10"], "MFP7E10-N015", 15)
        == "NVIDIA MFP7E10-N015 MPO-12/APC multimode fiber, OM4, 15 m"
    )
    assert (
        describe.cord(MEDIA.cords["MFP7E20"], "MFP7E20-N010", 10)
        == "NVIDIA MFP7E20-N010 MPO-12/APC multimode 1:2 splitter fiber, OM4, 10 m"
    )
    assert describe.cord(MEDIA.cords["GEN-LC-SM-AB"], "X-3M", 3).startswith("Generic X-3M LC/UPC duplex single-mode")


def test_copper_aoc_trunks_panels_and_modules_name_vendor_part_and_length():
    assert (
        describe.cable(MEDIA.cables["MCP1600-E26L"], "MCP1600-C005E26L", 5)
        == "NVIDIA MCP1600-C005E26L passive copper cable (DAC), 100GbE QSFP28 to QSFP28, 26AWG, 5 m"
    )
    assert (
        describe.copper_cord(MEDIA.copper_cords["GEN-RJ45-CAT6A"], "GEN-CAT6A-3M", 3)
        == "Generic GEN-CAT6A-3M RJ45 copper patch cord, up to 10 Gb/s, 3 m"
    )
    trunk = next(iter(MEDIA.trunks.values()))
    assert describe.trunk(trunk, "T-1", 12).endswith(f"trunk, {trunk.fiber_type.upper()}, Type-{trunk.polarity}, 12 m")
    assert describe.transceiver(MEDIA.transceivers["MMS4A20"]).endswith("(OPN 980-9IAT0-00XM00)")
    assert describe.transceiver(MEDIA.transceivers["MMA1L30-CM"]).startswith("NVIDIA MMA1L30-CM QSFP28 100G CWDM4")
    cassette = next(iter(MEDIA.cassettes.values()))
    assert "duplex cassette, Base-" in describe.cassette(cassette)
    panel = next(iter(MEDIA.panels.values()))
    assert "U patch panel" in describe.panel(panel)
    adapter = next(iter(MEDIA.adapters.values()))
    assert f"adapter, Type-{adapter.type}" in describe.adapter(adapter)


def test_unconfirmed_is_the_reason_or_empty():
    assert MEDIA.transceivers["MMS4A00"].unconfirmed.startswith("OPN from third-party")
    assert MEDIA.transceivers["MMA4Z00-NS"].unconfirmed == ""
    assert MEDIA.cables["MFA1A00-C-RESELLER"].unconfirmed and not MEDIA.cables["MFA1A00-C"].unconfirmed


def test_a_bad_unconfirmed_value_is_a_catalog_error():
    import pytest

    from engine.physical.catalog import CatalogError

    bad = dict(
        sku="X1",
        vendor="x",
        form_factor="qsfp28",
        top="flat",
        ports=1,
        port_gbps=100,
        lane_gbps=25,
        pmd="100g-cwdm4",
        connector="lc",
        polish="upc",
        fiber_mode="sm",
        reach_m={"os2": 2000},
        power_w=None,
        technologies=["ethernet"],
        sources=[],
        confidence="L",
        unconfirmed=3,
    )
    with pytest.raises(CatalogError, match="unconfirmed"):
        load_media_catalog({"transceivers": [bad]})
    ok = load_media_catalog({"transceivers": [dict(bad, unconfirmed=True)]})
    assert ok.transceivers["X1"].unconfirmed == "secondary source"
