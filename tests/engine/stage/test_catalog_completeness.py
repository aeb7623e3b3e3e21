"""Every cage of every shipped design gets a part; a design whose cages no part fits says so.

Specification (issue 17): the shipped presets and an Ethernet storage fabric on SN5600 compute with no link
without a part; the BOM's part numbers and descriptions are the catalog's supplier-grade ones; a custom switch
with a cage no part fits leaves the BOM incomplete, counted per network and tier, until a fitting part is added.
"""

from __future__ import annotations

import pytest

from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.presets import list_presets, load_preset
from engine.spec import parse_spec

LAB_SWITCH = {
    "name": "Lab OSFP 100G switch",
    "vendor": "lab",
    "os": {"nvue": "swp"},
    "technology": ["ethernet"],
    "cages": 32,
    "form_factor": "osfp",
    "top": "finned",
    "speeds": {100: 1},
    "lanes_gbps": 100,
    "rack_units": 1,
    "sources": ["user"],
}
LAB_MODULE = {
    "sku": "LAB-OSFP-100G-DR",
    "vendor": "lab",
    "description": "OSFP 100G DR transceiver, 500 m, LC",
    "form_factor": "osfp",
    "top": "finned",
    "ports": 1,
    "port_gbps": 100,
    "lane_gbps": 100,
    "pmd": "100gbase-dr",
    "connector": "lc",
    "polish": "upc",
    "fiber_mode": "sm",
    "reach_m": {"os2": 500},
    "power_w": 4,
    "technologies": ["ethernet"],
    "sources": [],
    "confidence": "L",
}
LAB_SPEC = {
    "name": "lab in-band",
    "servers": {"model": "hgx-8gpu", "count": 16},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
    "inband": {"enabled": True, "switch": "lab-osfp100"},
    "oob": {"enabled": False},
}


def missing_by_tier(result) -> dict:
    return {(m["network"], m["tier"]): m["links"] for m in result.summary["completeness"]["missing"]}


@pytest.fixture(scope="module")
def presets():
    catalog = load_catalog()
    return {key: compute_design(parse_spec(load_preset(key)), catalog) for key in list_presets()}


def test_every_preset_gives_every_link_a_part(presets):
    for key, r in presets.items():
        c = r.summary["completeness"]
        assert (key, c["complete"], c["links_without_part"], c["missing"]) == (key, True, 0, [])
        assert r.summary["loss_budget"]["no_medium"] == 0
        assert all(choice is not None for choice in r.physical.choices), key


def storage_design(ratio: str):
    return compute_design(
        parse_spec(
            {
                "name": "Ethernet storage",
                "servers": {"model": "hgx-8gpu", "count": 512},
                "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
                "storage_fabric": {
                    "enabled": True,
                    "technology": "ethernet",
                    "switch": "sn5600",
                    "appliances": 16,
                    "oversubscription": ratio,
                },
            }
        )
    )


def test_an_ethernet_storage_fabric_on_sn5600_at_200g_gets_splitters_and_qsfp112_modules():
    """The issue's fabric: 512 x hgx-8gpu, storage at 200G on SN5600 (4:3, 16 appliances)."""
    r = storage_design("4:3")
    assert r.summary["completeness"]["complete"] is True
    node = {
        (c.a_module, c.b_module, c.cord.family if c.cord else c.cable_family)
        for lk, c in zip(r.links, r.physical.choices)
        if lk.network == "storage" and lk.tier == "node-leaf"
    }
    # a server's 200G QSFP112 port takes MMA1Z00-NS400 in its 2-lane mode on a 1:2 splitter from the
    # switch's twin-port OSFP (parts-beyond-ndr.md section 3); the splitter is NVIDIA's, or the generic build
    assert {x[:2] for x in node} == {("MMA1Z00-NS400", "MMA4Z00-NS")}
    assert {x[2] for x in node} <= {"MFP7E20", "GEN-MPO12-MM-SPLIT"}
    # one splitter carries the two links of one switch-side connector
    rows = [row for row in r.physical.cable_rows if row[8] == "storage" and row[1] == "splitter"]
    assert sum(len(row[6]) for row in rows) == 2 * len(rows)
    # leaf-spine: the two 200G ports of one module connector share one cord (or a twin-port copper cable
    # the four ports of a cage), never two cords
    ls = [row for row in r.physical.cable_rows if row[8] == "storage" and row[7] == "leaf-spine"]
    assert all(len(row[6]) == (4 if row[1] in ("dac", "acc") else 2) for row in ls)
    bom = {line["sku"]: line for line in r.summary["bom"]}
    assert bom["MMA1Z00-NS400"]["watts"] == 5.0 * bom["MMA1Z00-NS400"]["quantity"]  # 5 W max at 200G


def test_quarter_rate_leaves_send_an_even_number_of_links_to_each_spine():
    """Two 200G ports share a module connector: each leaf's uplinks to a spine come in connector pairs."""
    from collections import Counter

    r = storage_design("4:3")
    per = Counter((lk.a, lk.b) for lk in r.links if lk.network == "storage" and lk.tier == "leaf-spine")
    assert per and all(n % 2 == 0 for n in per.values())


def test_a_storage_fabric_whose_ports_cannot_pair_names_the_connectors_no_part_can_join():
    """At 2:1 a 256-port leaf has an odd number of uplinks, so some pairs of ports that share one module
    connector go to two spines: no NVIDIA part joins them, and the BOM says so. Every other link has a part."""
    r = storage_design("2:1")
    missing = missing_by_tier(r)
    assert set(missing) == {("storage", "leaf-spine")}
    reason = r.summary["completeness"]["missing"][0]["reason"]
    assert "go to different far connectors" in reason and "400G" in reason


def test_bom_lines_carry_supplier_descriptions_and_orderable_numbers(presets):
    from engine.physical.catalog import load_media_catalog

    media = load_media_catalog()
    for key, r in presets.items():
        for line in r.summary["bom"]:
            d, sku = line["description"], line["sku"]
            if line["category"] in ("switch", "appliance"):
                continue
            assert sku in d, (key, line)
            if line["category"] == "transceiver":
                t = media.transceivers[sku]
                assert d.startswith(f"NVIDIA {sku} ") and (not t.opn or f"OPN {t.opn}" in d), (key, line)
            else:
                # a generic cord's length is followed by the specification a cable house quotes from
                assert d.split("; supplier spec:")[0].endswith(" m"), (key, line)
                assert not d.startswith(("cord ", "dac ", "acc ", "rj45 ")), (key, line)


# The reference tables' parts, line by line (parts-beyond-ndr.md sections 1-5, optics-and-cabling.md D3/D4):
# the NVIDIA transceivers and cable families each preset's BOM holds, with the exact descriptions.
EXPECTED_NVIDIA_TRANSCEIVERS = {
    "dgx-h100-superpod-4su": {
        "MMA1Z00-NS400": "NVIDIA MMA1Z00-NS400 QSFP112 400G SR4 transceiver, 850 nm, MPO-12/APC, 50 m OM4; 200G on "
        "a 1:2 fiber (OPN 980-9I693-00NS00)",
        "MMA4Z00-NS": "NVIDIA MMA4Z00-NS Twin-port OSFP 2x400G SR4, 30 m OM3 / 50 m OM4, finned (OPN 980-9I510-00NS00)",
        "MMA4Z00-NS-FLT": "NVIDIA MMA4Z00-NS-FLT Twin-port OSFP 2x400G SR4, 50 m, flat-top (DGX) "
        "(OPN 980-9I51A-00NS00)",
        "MMA4Z00-NS400": "NVIDIA MMA4Z00-NS400 Single-port OSFP 400G SR4, 30 m OM3 / 50 m OM4, flat-top "
        "(OPN 980-9I51S-00NS00)",
    },
    "dgx-b300-xdr-8su": {
        "MMS4A00": "NVIDIA MMS4A00 1.6T twin-port OSFP 2x800G DR4 (200G/lane) transceiver, 500 m, 2 x MPO-12/APC, "
        "finned (IHS) (OPN 980-9IAH1-00XM00)",
        "MMS4A20": "NVIDIA MMS4A20 800G single-port OSFP DR4 (200G/lane) transceiver, 500 m, MPO-12/APC, flat-top "
        "(ConnectX-8) (OPN 980-9IAT0-00XM00)",
        # issue 38: in-band at the RA's 200G on SN5600, BlueField-3 QSFP112 optics on 1:2 fibers
        "MMA1Z00-NS400": "NVIDIA MMA1Z00-NS400 QSFP112 400G SR4 transceiver, 850 nm, MPO-12/APC, 50 m OM4; 200G on "
        "a 1:2 fiber (OPN 980-9I693-00NS00)",
        "MMA4Z00-NS": "NVIDIA MMA4Z00-NS Twin-port OSFP 2x400G SR4, 30 m OM3 / 50 m OM4, finned (OPN 980-9I510-00NS00)",
    },
}
EXPECTED_CABLE_DESCRIPTIONS = {
    "MFP7E10-N015": "NVIDIA MFP7E10-N015 MPO-12/APC multimode fiber, OM4, 15 m",
    "MFP7E30-N030": "NVIDIA MFP7E30-N030 MPO-12/APC single-mode fiber, OS2, 30 m",
    "MCP1600-C005E26L": "NVIDIA MCP1600-C005E26L passive copper cable (DAC), 100GbE QSFP28 to QSFP28, 26AWG, 5 m",
    "MCP1600-C002E30N": "NVIDIA MCP1600-C002E30N passive copper cable (DAC), 100GbE QSFP28 to QSFP28, 30AWG, 2 m",
    "MFA1A00-C010": "NVIDIA MFA1A00-C010 active optical cable (AOC), 100GbE QSFP28 to QSFP28, 10 m",
    "MFA1A00-C050": "NVIDIA MFA1A00-C050 active optical cable (AOC), 100GbE QSFP28 to QSFP28, 50 m",
    "MCP4Y10-N002": "NVIDIA MCP4Y10-N002 Passive DAC, twin-port 2x400G OSFP to twin-port OSFP, straight, 2 m",
}
UNCONFIRMED = {"MMS4A00", "MMS4A20", "MFA1A00-C015", "MFA1A00-C050"}


def test_bom_part_numbers_and_descriptions_match_the_reference_tables(presets):
    for key, want in EXPECTED_NVIDIA_TRANSCEIVERS.items():
        got = {
            line["sku"]: line["description"]
            for line in presets[key].summary["bom"]
            if line["category"] == "transceiver"
        }
        assert got == want, key
    seen = {}
    for r in presets.values():
        for line in r.summary["bom"]:
            if line["sku"] in EXPECTED_CABLE_DESCRIPTIONS:
                seen[line["sku"]] = line["description"]
    assert seen == EXPECTED_CABLE_DESCRIPTIONS


def test_unconfirmed_numbers_are_marked_and_do_not_make_the_bom_incomplete(presets):
    xdr = presets["dgx-b300-xdr-8su"].summary
    flagged = {u["sku"] for u in xdr["completeness"]["unconfirmed"]}
    assert {"MMS4A00", "MMS4A20"} <= flagged and xdr["completeness"]["complete"] is True
    for r in presets.values():
        for line in r.summary["bom"]:
            if line["sku"] in UNCONFIRMED:
                assert line["unconfirmed"], line
            if line["sku"].startswith(("MFP7E10", "MCP1600")):
                assert line["unconfirmed"] == "", line
    # the UFM-side module is a user-settable default, flagged
    h100 = presets["dgx-h100-superpod-4su"].summary
    ufm = next(u for u in h100["completeness"]["unconfirmed"] if u["sku"] == "MMA4Z00-NS400")
    assert "physical.ufm_module" in ufm["reason"]


def test_the_ufm_module_is_a_user_setting():
    spec = load_preset("dgx-h100-superpod-4su")
    spec["physical"] = {"ufm_module": "MMA1Z00-NS400"}
    r = compute_design(parse_spec(spec))
    ufm_links = [c for lk, c in zip(r.links, r.physical.choices) if lk.tier == "ufm-leaf"]
    assert ufm_links and {c.a_module for c in ufm_links} | {c.b_module for c in ufm_links} >= {"MMA1Z00-NS400"}
    from engine.errors import SpecError

    spec["physical"] = {"ufm_module": "NO-SUCH-MODULE"}
    with pytest.raises(SpecError, match=r"physical.ufm_module"):
        compute_design(parse_spec(spec))


def test_discontinued_splitters_are_skipped_unless_allowed():
    from engine.physical import CageEnd, MediaPolicy, MediaRequest, select_media

    media = load_catalog().media
    qm = CageEnd("switch", "osfp", "finned", True, 400, 100)
    bf3 = CageEnd("server", "qsfp112", "flat", False, 400, 100)
    req = MediaRequest("node-leaf", "ethernet", qm, bf3, True, 2.0)
    assert select_media(req, MediaPolicy(), media).cable_family != "MCP7Y10"
    assert select_media(req, MediaPolicy.from_dict({"allow_discontinued": True}), media).cable_family == "MCP7Y10"


def test_a_custom_switch_no_part_fits_leaves_the_bom_incomplete_until_a_fitting_part_is_added():
    r = compute_design(parse_spec(LAB_SPEC), load_catalog({"switches": {"lab-osfp100": LAB_SWITCH}}))
    c = r.summary["completeness"]
    assert c["complete"] is False and c["links_without_part"] == sum(missing_by_tier(r).values()) > 0
    assert set(missing_by_tier(r)) == {("inband", "node-leaf"), ("inband", "leaf-spine")}
    assert all("osfp" in m["reason"] for m in c["missing"])
    fixed = compute_design(
        parse_spec(LAB_SPEC),
        load_catalog({"switches": {"lab-osfp100": LAB_SWITCH}, "media": {"transceivers": [LAB_MODULE]}}),
    )
    assert fixed.summary["completeness"]["complete"] is True
    assert any(line["sku"] == "LAB-OSFP-100G-DR" for line in fixed.summary["bom"])
