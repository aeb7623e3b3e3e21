"""The shipped presets against their reference architectures (issue 38).

Specification:
- every InfiniBand fabric has a subnet manager: a switch with one on board (QM9700), a fabric-manager appliance,
  or a warning naming the switch and the settings that add one (B300 XDR on Q3400);
- GB200 NVL72 OOB reaches every compute-tray and NVLink-switch-tray BMC: 18 + 9 per rack;
- the B300 Spectrum-X preset has the RA's storage fabric;
- UFM manages both InfiniBand fabrics (H100-RA Tables 1 and 7, the "+4" cables): each appliance has a compute
  and a storage leaf link, its UFM-side module "verify" on both;
- a BlueField-3 end (it "only accepts QSFP112s") never gets a QSFP28 part: the B200/B300 presets run in-band at
  the RA's 200G on SN5600 with QSFP112 optics; at 100G on an SN4600C (no QSFP112 part for 100G) the link is
  refused with the cage named, where a NIC without that rule takes the QSFP28 parts;
- storage-appliance optics say "verify" (the appliance vendor picks the NIC);
- each preset holds the counts its reference gives (compute switches and links, fabric managers, OOB ports).
"""

from __future__ import annotations

from collections import Counter

import pytest
import yaml

from engine.catalog import DATA_DIR, load_catalog
from engine.pipeline import compute_design
from engine.presets import list_presets, load_preset
from engine.spec import parse_spec


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def presets(catalog):
    return {key: compute_design(parse_spec(load_preset(key)), catalog) for key in list_presets()}


def _sm_warnings(result):
    return [w for w in result.warnings if "no subnet manager" in w]


def test_the_b300_xdr_fabric_without_an_on_board_subnet_manager_is_warned_about(presets):
    (warning,) = _sm_warnings(presets["dgx-b300-xdr-8su"])
    assert warning.startswith("compute fabric: no subnet manager. NVIDIA Quantum-X800 Q3400-RA has no on-board")
    assert "compute_fabric.fabric_managers" in warning and "OpenSM" in warning
    for key in ("dgx-h100-superpod-4su", "dgx-h200-superpod-4su", "dgx-b200-superpod-4su", "gb200-nvl72-1su"):
        assert _sm_warnings(presets[key]) == [], key  # QM9700: on-board SM (and UFM where the RA has it)


def test_an_externally_managed_switch_needs_a_fabric_manager(catalog):
    spec = load_preset("dgx-h100-superpod-4su")
    spec["compute_fabric"] |= {"switch": "qm9790", "fabric_managers": 0}
    assert len(_sm_warnings(compute_design(parse_spec(spec), catalog))) == 1
    spec["compute_fabric"]["fabric_managers"] = 4
    assert _sm_warnings(compute_design(parse_spec(spec), catalog)) == []


def test_gb200_oob_reaches_every_compute_and_nvlink_switch_tray_bmc(presets):
    r = presets["gb200-nvl72-1su"]
    bmc = Counter(
        r.devices[lk.a].name for lk in r.links if lk.tier == "device-oob" and r.devices[lk.a].role == "server"
    )
    assert len(bmc) == 8 and set(bmc.values()) == {18 + 9}  # 8 racks, each 18 compute + 9 NVLink-switch trays
    assert sum(bmc.values()) == 216


def test_the_b300_spectrum_x_preset_has_the_ras_storage_fabric(presets):
    storage = presets["dgx-b300-spectrum-x-4su"].summary["networks"]["storage"]
    assert storage["links"]["node-leaf"] == 256 * 2  # both BlueField-3 storage ports of each of 256 nodes
    assert storage["switch_models"]["leaf"] == "sn5600"


@pytest.mark.parametrize("key", ["dgx-h100-superpod-4su", "dgx-h200-superpod-4su"])
def test_ufm_manages_the_compute_and_the_storage_infiniband_fabric(presets, key):
    r = presets[key]
    storage = r.summary["networks"]["storage"]["links"]
    assert storage["ufm-leaf"] == 4  # A.8: 4 appliances at 4 SU on leaf ports, "+4" in Table 7 as in Table 1
    assert storage["node-leaf"] + storage["ufm-leaf"] == 2 * 127 + 4
    ends = Counter((lk.network, r.devices[lk.a].name) for lk in r.links if lk.tier == "ufm-leaf")
    assert ends == {(net, f"UFM-{i:02d}"): 1 for net in ("compute", "storage") for i in range(1, 5)}
    line = next(ln for ln in r.summary["bom"] if ln["sku"] == "MMA4Z00-NS400")
    assert line["quantity"] == 8  # one UFM-side module per link, both fabrics
    assert "UFM-side module not named by NVIDIA text" in line["unconfirmed"]


def _bf3_ends(result):
    """(link index, plug form factor at the BlueField-3 end) of every link with a part."""
    media = result.catalog.media
    for i, (link, choice) in enumerate(zip(result.links, result.physical.choices)):
        if choice is None or not link.a_port.startswith("bf3-"):
            continue
        if choice.a_module:
            yield i, media.transceivers[choice.a_module].form_factor
        else:
            fam = media.cables.get(choice.cable_family)
            yield i, fam.end_a.form_factor if fam is not None else "?"


def test_a_bluefield3_end_never_gets_a_qsfp28_part(presets):
    for key, result in presets.items():
        ends = list(_bf3_ends(result))
        assert all(ff == "qsfp112" for _, ff in ends), (key, Counter(ff for _, ff in ends))


def test_the_b200_and_b300_in_band_runs_the_ras_200g_on_sn5600(presets):
    for key in ("dgx-b200-superpod-4su", "dgx-b300-spectrum-x-4su", "dgx-b300-xdr-8su"):
        r = presets[key]
        inband = r.summary["networks"]["inband"]
        assert (inband["port_speed_gbps"], inband["switch_models"]["leaf"]) == (200, "sn5600"), key
        assert r.summary["networks"]["oob"]["switch_models"]["spine"] == "sn4600c", key  # the 100G OOB uplinks
        assert r.summary["completeness"]["complete"], key


def _b200_at_100g(nic_rule: bool):
    raw = yaml.safe_load((DATA_DIR / "servers.yaml").read_text())["servers"]["dgx-b200"]
    for group in ("storage", "inband"):
        raw[group] = {k: v for k, v in raw[group].items() if nic_rule or k not in ("nic", "accepts")}
    raw["inband"]["speed_gbps"] = 100
    spec = load_preset("dgx-b200-superpod-4su")
    spec["servers"]["model"] = "lab-b200-100g"
    spec["inband"]["switch"] = "sn4600c"
    spec["oob"].pop("aggregation_switch")
    return compute_design(parse_spec(spec), load_catalog({"servers": {"lab-b200-100g": raw}}))


def test_a_bluefield3_in_band_port_at_100g_is_refused_naming_the_cage():
    missing = {(m["network"], m["tier"]): m for m in _b200_at_100g(True).summary["completeness"]["missing"]}
    assert set(missing) == {("inband", "node-leaf")} and missing[("inband", "node-leaf")]["links"] == 254
    reason = missing[("inband", "node-leaf")]["reason"]
    assert "server BlueField-3 qsfp112 (flat, accepts only QSFP112) 100G" in reason
    assert "a QSFP28 cable or module that its cage would hold is refused" in reason
    # the same ports on a NIC without the rule take the QSFP28 parts: the refusal is the BlueField-3 rule alone
    assert _b200_at_100g(False).summary["completeness"]["complete"]


def test_storage_appliance_optics_say_verify(presets):
    line = next(ln for ln in presets["dgx-h100-superpod-4su"].summary["bom"] if ln["sku"] == "MMA1Z00-NS400")
    assert "16 of these sit in storage appliances" in line["unconfirmed"]  # 8 appliances x 2 ports


# Compute fabric counts per preset from its reference (fabrics-qos-traffic.md A.2/A.3/A.6/A.8; parts-beyond-ndr.md
# section 6): servers, leaves, spines, node-leaf links, leaf-spine links, fabric-manager links.
REFERENCE_COUNTS = {
    "dgx-h100-superpod-4su": (127, 32, 16, 1016, 1024, 4),  # H100-RA 1-4 SU table, 4 UFM
    "dgx-h200-superpod-4su": (127, 32, 16, 1016, 1024, 4),  # same ports and SU rules as H100 (A.1)
    "dgx-b200-superpod-4su": (127, 32, 16, 1016, 1024, 4),  # B200-RA: 1,020 compute+UFM, 1,024 leaf-spine
    "dgx-b300-spectrum-x-4su": (256, 64, 32, 4096, 4096, 0),  # B300-RA Table 3, 4 SU (cables x 2 planes)
    "dgx-b300-xdr-8su": (576, 64, 36, 4608, 4608, 0),  # B300-XDR-RA: 72 nodes/SU, 8 x 800G each
    "gb200-nvl72-1su": (8, 18, 16, 576, 576, 0),  # A.6 derived sketch: 576 endpoints, 18 leaves
}


@pytest.mark.parametrize("key", sorted(REFERENCE_COUNTS))
def test_each_preset_holds_its_references_compute_counts(presets, key):
    r = presets[key]
    c = r.summary["networks"]["compute"]
    got = (
        r.summary["servers"],
        c["switches"]["leaf"],
        c["switches"]["spine"],
        c["links"]["node-leaf"],
        c["links"]["leaf-spine"],
        c["links"]["ufm-leaf"],
    )
    assert got == REFERENCE_COUNTS[key]


def test_the_oob_aggregation_switch_is_a_setting_that_leaves_older_specs_unchanged(catalog):
    h100 = load_preset("dgx-h100-superpod-4su")
    assert "aggregation_switch" not in parse_spec(h100).to_dict()["oob"]  # unset: the spec text (and hash) as before
    r = compute_design(parse_spec(h100), catalog)
    assert r.summary["networks"]["oob"]["switch_models"]["spine"] == "sn4600c"  # the in-band switch, as before
    from engine.errors import SpecError

    bad = load_preset("dgx-h100-superpod-4su")
    bad["oob"]["aggregation_switch"] = "no-such-switch"
    with pytest.raises(SpecError, match=r"oob.aggregation_switch"):
        compute_design(parse_spec(bad), catalog)
