"""The media catalog: data with sources, validation, user-supplied parts."""

import pytest

from engine.physical import CatalogError, load_media_catalog, sku_for_length

ACME_SR4 = {
    "sku": "ACME-QDD-400G-SR4",
    "vendor": "acme",
    "form_factor": "qsfp-dd",
    "top": "flat",
    "ports": 1,
    "port_gbps": 400,
    "lane_gbps": 100,
    "pmd": "400gbase-sr4",
    "connector": "mpo-12",
    "polish": "upc",
    "fiber_mode": "mm",
    "reach_m": {"om4": 100},
    "power_w": 10,
    "technologies": ["ethernet"],
    "sources": ["vendor datasheet"],
    "confidence": "M",
}


def test_it_loads_every_issue_listed_pmd(catalog):
    for pmd in (
        "100gbase-dr",
        "400gbase-dr4",
        "400gbase-dr4-2",
        "400gbase-fr4",
        "400gbase-sr4",
        "400gbase-sr8",
        "800gbase-dr8",
        "800g-2xdr4",
        "800g-2xsr4",
        "800g-2xfr4",
        "800gbase-dr4",
        "1.6t-2xdr4",
    ):
        assert pmd in catalog.pmds
    dr4 = catalog.pmds["400gbase-dr4"]
    assert (dr4.lanes, dr4.fibers_per_port, dr4.connector, dr4.il_limit("os2"), dr4.reach_for("os2")) == (
        4,
        8,
        "mpo-12",
        3.0,
        500,
    )
    assert dr4.tx_positions == (1, 2, 3, 4) and dr4.rx_positions == (12, 11, 10, 9)


def test_every_entry_keeps_its_sources_and_confidence(catalog):
    for section in (
        "pmds",
        "transceivers",
        "cables",
        "cords",
        "trunks",
        "adapters",
        "panels",
        "cassettes",
        "cabling_requirements",
    ):
        for entry in getattr(catalog, section).values():
            assert entry.confidence, (section, entry)
            assert isinstance(entry.sources, tuple)
    assert "S9" in catalog.cabling_requirements["nvidia"].sources


def test_nvidia_parts_carry_part_numbers_power_and_lengths(catalog):
    nm = catalog.transceivers["MMS4X00-NM"]
    assert (nm.opn, nm.ports, nm.top, nm.power_w) == ("980-9I30G-00NM00", 2, "finned", 17)
    assert catalog.cables["MCP4Y10"].lengths_m == (0.5, 1, 1.5, 2)
    assert catalog.cords["MFP7E10"].lengths_m == (3, 5, 7, 10, 15, 20, 30, 50)


def test_the_version_carries_a_content_hash(catalog):
    other = load_media_catalog({"transceivers": [ACME_SR4]})
    assert catalog.version.startswith("2025.12+") and len(catalog.version.split("+")[1]) == 10
    assert other.version != catalog.version
    assert load_media_catalog().version == catalog.version


def test_users_can_add_a_vendor_part(catalog):
    cat = load_media_catalog({"transceivers": [ACME_SR4]})
    assert cat.transceivers["ACME-QDD-400G-SR4"].reach_for("om4") == 100
    assert "ACME-QDD-400G-SR4" not in catalog.transceivers


def test_a_user_part_with_an_existing_sku_needs_replaces(catalog):
    nm = dict(ACME_SR4, sku="MMS4X00-NM")
    with pytest.raises(CatalogError, match="duplicate sku 'MMS4X00-NM'"):
        load_media_catalog({"transceivers": [nm]})
    cat = load_media_catalog({"transceivers": [dict(nm, replaces=True)]})
    assert cat.transceivers["MMS4X00-NM"].vendor == "acme"


@pytest.mark.parametrize(
    "change, message",
    [
        ({"reach_m": {"om4": -1}}, r"extra: transceivers\[0\]: field 'reach_m.om4' must be >= 0"),
        ({"form_factor": "cfp8"}, r"field 'form_factor' must be one of"),
        ({"pmd": "no-such-pmd"}, r"'ACME-QDD-400G-SR4': field 'pmd' names unknown PMD 'no-such-pmd'"),
        ({"colour": "blue"}, r"unknown field\(s\) \['colour'\]"),
        ({"connector": "lc"}, r"connector/fiber_mode do not match PMD"),
        ({"confidence": "very"}, r"field 'confidence' must be one of"),
    ],
)
def test_bad_user_entries_raise_clear_errors(change, message):
    with pytest.raises(CatalogError, match=message):
        load_media_catalog({"transceivers": [dict(ACME_SR4, **change)]})


def test_missing_sources_are_rejected():
    entry = {k: v for k, v in ACME_SR4.items() if k != "sources"}
    with pytest.raises(CatalogError, match="field 'sources' is required"):
        load_media_catalog({"transceivers": [entry]})


def test_unknown_sections_are_rejected():
    with pytest.raises(CatalogError, match="unknown section 'optics'"):
        load_media_catalog({"optics": []})


def test_sku_patterns_render_nvidia_length_codes():
    assert sku_for_length("MCP4Y10-N{nv}", 0.5) == "MCP4Y10-N00A"
    assert sku_for_length("MCP4Y10-N{nv}", 1.5) == "MCP4Y10-N01A"
    assert sku_for_length("MFP7E10-N{nv}", 30) == "MFP7E10-N030"
    assert sku_for_length("GEN-{fibers}F-{m}M", 12.0, fibers=24) == "GEN-24F-12M"
