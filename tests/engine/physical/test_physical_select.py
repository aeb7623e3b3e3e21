"""Media selection per cage."""

import pytest

from engine.physical import (
    CageEnd,
    MediaPolicy,
    MediaSelectionError,
    cable_for_run,
    check_cage_consistency,
    default_top,
    select_media,
)
from tests.engine.physical.builders import (
    CX7_OSFP,
    CX7_OSFP_200,
    CX8_OSFP,
    DGX_CAGE,
    LIQUID_SWITCH_CAGE,
    Q3400_CAGE,
    QM9700_CAGE,
    policy,
    req,
)

P = MediaPolicy()


def test_a_twin_port_dac_is_used_between_aligned_switch_cages_within_2m(catalog):
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, 1.2, aligned=True), P, catalog)
    assert (c.medium, c.cable_sku, c.ordered_length_m) == ("dac", "MCP4Y10-N01A", 1.5)
    assert c.cable_carries_links == 2 and c.a_module is None


def test_active_copper_comes_next_then_optics(catalog):
    acc = select_media(req(QM9700_CAGE, QM9700_CAGE, 2.2, aligned=True), P, catalog)
    assert (acc.medium, acc.cable_sku) == ("acc", "MCA4J80-N003")
    assert acc.a_power_w == 1.5
    optic = select_media(req(QM9700_CAGE, QM9700_CAGE, 5.5, aligned=True), P, catalog)
    assert optic.medium == "fiber-mm"


def test_a_twin_port_dac_never_puts_two_rails_on_one_leaf(catalog):
    """
    DGX cage OSFP1: port 1 -> leaf rail 0, port 2 -> leaf rail 1 (not cage-aligned).
    A straight twin-port DAC would land both rails on one leaf cage, so optics are used,
    each port with its own MPO cord.
    """
    c = select_media(req(DGX_CAGE, QM9700_CAGE, 1.0, tier="node-leaf", aligned=False), P, catalog)
    assert c.medium == "fiber-mm" and c.cable_carries_links == 1
    assert (c.a_module, c.b_module) == ("MMA4Z00-NS-FLT", "MMA4Z00-NS")
    with pytest.raises(MediaSelectionError, match="different far-end cages"):
        select_media(req(DGX_CAGE, QM9700_CAGE, 1.0, tier="node-leaf"), policy(node_leaf={"medium": "copper"}), catalog)


def test_flat_top_modules_in_servers_and_liquid_cooled_switches_finned_in_air_cooled(catalog):
    c = select_media(req(DGX_CAGE, QM9700_CAGE, 20, tier="node-leaf"), P, catalog)
    assert c.a_module.endswith("-FLT") and not c.b_module.endswith("-FLT")
    liquid = select_media(req(LIQUID_SWITCH_CAGE, LIQUID_SWITCH_CAGE, 20), P, catalog)
    assert liquid.a_module.endswith("-FLT") and liquid.b_module.endswith("-FLT")
    assert default_top("server") == "flat" and default_top("switch") == "finned"
    assert default_top("switch", liquid_cooled=True) == "flat"


@pytest.mark.parametrize(
    "run, medium, module",
    [
        (30, "fiber-mm", "MMA4Z00-NS"),
        (50, "fiber-mm", "MMA4Z00-NS"),
        (51, "fiber-sm", "MMS4X00-NS"),  # 100 m part before the 500 m part
        (100, "fiber-sm", "MMS4X00-NS"),
        (101, "fiber-sm", "MMS4X00-NM"),
        (500, "fiber-sm", "MMS4X00-NM"),
        (501, "fiber-sm", "MMS4X50-NM"),  # 2xFR4, 2 km
    ],
)
def test_multimode_then_100m_then_500m_then_2km_parts_by_run_length(catalog, run, medium, module):
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, run), P, catalog)
    assert (c.medium, c.a_module, c.b_module) == (medium, module, module)
    assert c.ordered_length_m >= run


def test_lengths_round_up_to_a_stocked_length_never_down(catalog):
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, 20.5), P, catalog)
    assert c.ordered_length_m == 30 and c.cable_sku == "MFP7E10-N030"  # NVIDIA part on a tie
    assert cable_for_run(c, 4.2, P) == ("MFP7E10-N005", 5.0)
    with pytest.raises(MediaSelectionError):
        cable_for_run(c, 51, P)


def test_twin_port_to_single_port_breakout_is_limited_by_the_single_port_part(catalog):
    """800G twin-port -> 2 x 400G: a straight cord per port to single-port CX-7 optics."""
    c = select_media(req(QM9700_CAGE, CX7_OSFP, 80, tier="node-leaf"), P, catalog)
    assert c.breakout == "twin-to-single"
    assert (c.a_module, c.b_module) == ("MMS4X00-NS", "MMS4X00-NS400")
    assert c.a_links_per_module == 2 and c.b_links_per_module == 1
    with pytest.raises(MediaSelectionError, match="reach 100 m"):
        select_media(req(QM9700_CAGE, CX7_OSFP, 150, tier="node-leaf"), P, catalog)


def test_1_to_2_splitter_fibers_feed_200g_ports_within_50m(catalog):
    c = select_media(req(QM9700_CAGE, CX7_OSFP_200, 30, tier="node-leaf"), P, catalog)
    assert c.breakout == "split-1:2" and c.cable_family == "MFP7E20"
    assert c.a_links_per_module == 4  # a twin-port module serves 4 x 200G links
    assert c.b_power_w == 6.5  # NS400-T in 200G mode
    assert c.link_gbps == 200 and c.lanes_per_link == 2
    sm = select_media(
        req(QM9700_CAGE, CX7_OSFP_200, 30, tier="node-leaf"), policy(node_leaf={"medium": "single-mode"}), catalog
    )
    assert sm.cable_family == "MFP7E40" and sm.b_power_w == 5
    with pytest.raises(MediaSelectionError, match=r"node-leaf.*60 m"):
        select_media(req(QM9700_CAGE, CX7_OSFP_200, 60, tier="node-leaf"), P, catalog)


def test_a_700m_run_with_only_500m_optics_fails_clearly(catalog):
    with pytest.raises(MediaSelectionError) as exc:
        select_media(req(DGX_CAGE, QM9700_CAGE, 700, tier="node-leaf"), P, catalog)
    msg = str(exc.value)
    assert msg.startswith("tier node-leaf: no medium fits a 700 m run")
    assert "reach 500 m" in msg


def test_a_tier_can_be_pinned_to_single_mode_or_optical(catalog):
    sm = select_media(
        req(QM9700_CAGE, QM9700_CAGE, 1, aligned=True), policy(leaf_spine={"medium": "single-mode"}), catalog
    )
    assert sm.medium == "fiber-sm"
    opt = select_media(
        req(QM9700_CAGE, QM9700_CAGE, 1, aligned=True), policy(leaf_spine={"medium": "optical"}), catalog
    )
    assert opt.medium == "fiber-mm"
    with pytest.raises(MediaSelectionError, match="excluded by the tier's medium pin"):
        select_media(req(QM9700_CAGE, QM9700_CAGE, 20), policy(leaf_spine={"medium": "copper"}), catalog)


def test_per_medium_reach_limits_tighten_the_catalog(catalog):
    pol = MediaPolicy.from_dict({"reach_limits_m": {"dac": 1.0, "fiber-mm": 30}})
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, 1.5, aligned=True), pol, catalog)
    assert c.medium == "acc"
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, 40), pol, catalog)
    assert c.medium == "fiber-sm"


def test_xdr_uses_lacc_copper_or_single_mode_dr4_never_dac_or_multimode(catalog):
    # NVIDIA: XDR uses LACC copper, single-mode transceivers and fibers only (parts-beyond-ndr.md section 4).
    c = select_media(req(Q3400_CAGE, Q3400_CAGE, 1, aligned=True), P, catalog)
    assert (c.medium, c.cable_family, c.cable_sku) == ("acc", "MCA4K50-9IAM5", "980-9IAM5-00X001")
    c = select_media(req(Q3400_CAGE, Q3400_CAGE, 2.5, aligned=True), P, catalog)
    assert c.cable_sku == "980-9IAM3-00X02A"
    c = select_media(req(Q3400_CAGE, Q3400_CAGE, 4, aligned=True), P, catalog)
    assert (c.medium, c.pmd, c.a_module) == ("fiber-sm", "800gbase-dr4", "MMS4A00")
    c = select_media(req(Q3400_CAGE, Q3400_CAGE, 1, aligned=False), P, catalog)
    assert (c.medium, c.a_module) == ("fiber-sm", "MMS4A00")
    c = select_media(req(Q3400_CAGE, CX8_OSFP, 30, tier="node-leaf"), P, catalog)
    assert c.b_module == "MMS4A20"
    with pytest.raises(MediaSelectionError, match="cannot downshift"):
        select_media(req(Q3400_CAGE, CX7_OSFP, 30, tier="node-leaf"), P, catalog)


def test_copper_splitter_to_two_single_port_nics_needs_cage_alignment(catalog):
    c = select_media(req(QM9700_CAGE, CX7_OSFP, 2.5, tier="node-leaf", aligned=True), P, catalog)
    assert (c.medium, c.cable_family, c.cable_carries_links) == ("dac", "MCP7Y00", 2)
    c = select_media(req(QM9700_CAGE, CX7_OSFP, 2.5, tier="node-leaf", aligned=False), P, catalog)
    assert c.medium == "fiber-mm"


def test_discontinued_parts_are_skipped_unless_allowed(catalog):
    bf3 = CageEnd("server", "qsfp112", "flat", False, 400, 100)
    c = select_media(req(QM9700_CAGE, bf3, 2, aligned=True), P, catalog)
    assert c.medium == "fiber-mm" and c.b_module == "MMA1Z00-NS400"
    allowed = MediaPolicy.from_dict({"allow_discontinued": True})
    assert select_media(req(QM9700_CAGE, bf3, 2, aligned=True), allowed, catalog).cable_family == "MCP7Y10"


def test_rj45_links_use_copper_patch_cords(catalog):
    rj = CageEnd("switch", "rj45", "flat", False, 1, 1)
    c = select_media(req(rj, rj, 12, tier="oob", tech="ethernet"), P, catalog)
    assert (c.medium, c.cable_sku, c.ordered_length_m) == ("copper-rj45", "GEN-CAT6A-15M", 15)


def test_selection_is_pure_and_memoizable(catalog):
    from functools import lru_cache

    cached = lru_cache(maxsize=None)(select_media)
    r = req(DGX_CAGE, QM9700_CAGE, 20, tier="node-leaf")
    first = cached(r, P, catalog)
    assert cached(req(DGX_CAGE, QM9700_CAGE, 20, tier="node-leaf"), MediaPolicy(), catalog) is first
    assert select_media(r, P, catalog) == first


def test_both_ports_of_a_twin_port_module_must_share_the_cable_type(catalog):
    straight = select_media(req(QM9700_CAGE, CX7_OSFP, 20, tier="node-leaf"), P, catalog)
    split = select_media(req(QM9700_CAGE, CX7_OSFP_200, 20, tier="node-leaf"), P, catalog)
    assert check_cage_consistency((straight, straight)) == []
    assert any("mixes cable types" in p for p in check_cage_consistency((straight, split)))


def test_panel_mode_resolves_trunk_adapter_and_panel_parts(catalog):
    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 12})
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, 300), pol, catalog)
    sp = c.structured
    assert sp.trunk.family == "GEN-TRUNK-MPO12-SM" and sp.trunk_gender == "pinned"
    assert sp.adapter.sku == "GEN-ADP-MPO12-A" and sp.trunk_base == 12
    assert c.ordered_length_m == 3  # the equipment cord, not the run
    assert c.fibers_per_link == 8 and c.fibers_installed_per_link == 12


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"form_factor": "cfp8"}, "CageEnd.form_factor: must be one of"),
        ({"top": "round"}, "CageEnd.top: must be one of"),
        ({"lanes_gbps": 0}, "CageEnd.lanes_gbps: must be a positive integer"),
    ],
)
def test_bad_cages_get_a_clear_message(kwargs, message):
    base = {
        "device_kind": "switch",
        "form_factor": "osfp",
        "top": "finned",
        "twin_port": True,
        "port_speed_gbps": 400,
        "lanes_gbps": 100,
    }
    with pytest.raises(ValueError, match=message):
        CageEnd(**{**base, **kwargs})


def test_a_negative_run_is_rejected():
    with pytest.raises(ValueError, match="run_length_m"):
        req(QM9700_CAGE, QM9700_CAGE, -1)


def test_the_modules_of_a_cage_pair_are_filtered_once_whatever_the_run_length(catalog):
    """An optical request's transceivers are those that fit its two cages, whatever its run length: a design asks
    for one cage pair at hundreds of lengths, so the filter runs once per (catalog, cages, technology, split,
    allow_discontinued) and its answer gives every length the choice a fresh filter gives."""
    from engine.physical import select

    runs = [5.5, 20.0, 33.0, 90.0, 107.0, 480.0]
    fresh = []
    for run in runs:
        select._fitting_modules.cache_clear()
        fresh.append(select_media(req(Q3400_CAGE, Q3400_CAGE, run, aligned=True), P, catalog))
    select._fitting_modules.cache_clear()
    before = select._fitting_modules.misses
    kept = [select_media(req(Q3400_CAGE, Q3400_CAGE, run, aligned=True), P, catalog) for run in runs]
    assert kept == fresh
    assert {c.medium for c in kept} >= {"fiber-sm"}
    assert select._fitting_modules.misses == before + 1
    # a policy that allows discontinued parts has a filter of its own for the same cage pair
    allowed = MediaPolicy.from_dict({"allow_discontinued": True})
    again = select_media(req(Q3400_CAGE, Q3400_CAGE, 107.0, aligned=True), allowed, catalog)
    assert select._fitting_modules.misses == before + 2
    select._fitting_modules.cache_clear()
    assert again == select_media(req(Q3400_CAGE, Q3400_CAGE, 107.0, aligned=True), allowed, catalog)


def test_the_filters_go_with_their_catalog():
    """The filters are memoized per catalog and held weakly: a catalog built for one design (a user's custom
    parts) is not kept alive by them."""
    import gc
    import weakref

    from engine.catalog import load_catalog
    from engine.physical import select

    media = load_catalog({"servers": {}}).media
    select_media(req(Q3400_CAGE, Q3400_CAGE, 90.0, aligned=True), P, media)
    select_media(req(QM9700_CAGE, QM9700_CAGE, 1.2, aligned=True), P, media)
    assert media in select._fitting_modules.memos and media in select._fitting_cables.memos
    gone = weakref.ref(media)
    del media
    gc.collect()
    assert gone() is None


def test_the_copper_cables_of_a_cage_pair_are_filtered_once_whatever_the_run_length(catalog):
    """_select_copper's cables are those whose plugs fit the two cages (either way round), whatever the run length:
    filtered once per cage pair, technology, medium pin and allow_discontinued; every length gets the choice, and a
    refused request the message, that a fresh filter gives."""
    from engine.physical import select

    def both(run, aligned=True, pol=P):
        select._fitting_cables.cache_clear()
        fresh = select_media(req(QM9700_CAGE, QM9700_CAGE, run, aligned=aligned), pol, catalog)
        return fresh, select_media(req(QM9700_CAGE, QM9700_CAGE, run, aligned=aligned), pol, catalog)

    for run in (1.2, 2.2, 5.5, 30.0):
        fresh, kept = both(run)
        assert kept == fresh
    select._fitting_cables.cache_clear()
    before = select._fitting_cables.misses
    copper = policy(leaf_spine={"medium": "copper"})
    messages = []
    for _ in range(2):  # the second request reads the kept filter
        with pytest.raises(MediaSelectionError) as exc:
            select_media(req(QM9700_CAGE, QM9700_CAGE, 1.0, aligned=False), copper, catalog)
        messages.append(str(exc.value))
    assert messages[0] == messages[1] and "different far-end cages" in messages[0]
    assert select._fitting_cables.misses == before + 1
