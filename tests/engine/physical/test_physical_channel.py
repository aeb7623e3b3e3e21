"""Channels: polarity, gender, polish, connector family, fiber mode, lane maps.

Drawing convention:  [X] transceiver receptacle (pinned), -B- Type-B cord (female both
ends), |A| panel with a Type-A adapter, =B= Type-B trunk (male both ends).
"""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.physical import (
    Face,
    build_channel,
    check_channel,
    lane_map,
    mated_pairs,
    select_media,
)
from tests.engine.physical.builders import (
    CX7_OSFP,
    CX7_OSFP_200,
    CX8_OSFP,
    DGX_CAGE,
    Q3400_CAGE,
    QM9700_CAGE,
    policy,
    req,
)

PANELS = policy(leaf_spine={"cabling": "panels"}, node_leaf={"cabling": "panels"})
DIRECT = policy()


def dr4_panel_channel(catalog, run=100):
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, run), PANELS, catalog)
    return build_channel(choice, True, PANELS)


def element(channel, eid):
    return next(i for i, e in enumerate(channel.elements) if e.id == eid)


def mutate(channel, eid, **changes):
    i = element(channel, eid)
    els = channel.elements
    return replace(channel, elements=(*els[:i], replace(els[i], **changes), *els[i + 1 :]))


def rules_of(issues):
    return {(i.rule, i.element_id) for i in issues}


def test_a_dr4_link_through_two_panels_is_sound(catalog):
    """
    [module-A]-B-|A|=B=|A|-B-[module-B]     400G DR4, Type-B cords and trunk (NVIDIA)
    Tx 1-4 leave A and land on Rx 12..9 at B; positions 5-8 stay dark.
    """
    ch = dr4_panel_channel(catalog)
    assert [e.kind for e in ch.elements] == ["interface", "cord", "adapter", "trunk", "adapter", "cord", "interface"]
    assert check_channel(ch) == []
    assert len(mated_pairs(ch)) == 4  # NVIDIA's "4 ferrule-to-ferrule connections" [S9]
    lanes = {(lp.lane, lp.tx_pos, lp.rx_pos) for lp in lane_map(ch) if lp.direction == "a->b"}
    assert lanes == {(0, 1, 12), (1, 2, 11), (2, 3, 10), (3, 4, 9)}
    used = {p for lp in lane_map(ch) for p in (lp.tx_pos, lp.rx_pos)}
    assert used.isdisjoint({5, 6, 7, 8})
    assert all(lp.rx_lane == lp.lane for lp in lane_map(ch))


def test_the_lane_map_follows_every_element_of_the_channel(catalog):
    ch = dr4_panel_channel(catalog)
    lp = next(lp for lp in lane_map(ch) if lp.direction == "a->b" and lp.lane == 0)
    # position after: cord (1->12), adapter A (12), trunk B (12->1), adapter A, cord (1->12)
    assert lp.path == (1, 12, 12, 1, 1, 12)


def test_a_direct_single_type_b_cord_is_the_reference_case(catalog):
    """[module-A]-B-[module-B]"""
    ch = build_channel(select_media(req(QM9700_CAGE, QM9700_CAGE, 40), DIRECT, catalog), False, DIRECT)
    assert [e.kind for e in ch.elements] == ["interface", "cord", "interface"]
    assert check_channel(ch) == []


def test_it_flags_apc_meeting_upc(catalog):
    """[module-A APC]-B(UPC)-|A|=B=|A|-B-[module-B]: the cord's UPC face meets APC at the module."""
    ch = dr4_panel_channel(catalog)
    cord = ch.elements[element(ch, "cord-A")]
    upc = Face(cord.a.family, cord.a.gender, "upc", cord.a.mode)
    issues = check_channel(mutate(ch, "cord-A", a=upc, b=upc))
    assert ("polish", "cord-A") in rules_of(issues)
    assert "APC meets UPC" in next(i.message for i in issues if i.rule == "polish")


def test_it_flags_pin_to_pin_mating(catalog):
    """[module-A pinned]-(pinned cord)-...: two guide-pinned ends damage each other."""
    ch = dr4_panel_channel(catalog)
    cord = ch.elements[element(ch, "cord-A")]
    male = Face(cord.a.family, "pinned", cord.a.polish, cord.a.mode)
    issues = check_channel(mutate(ch, "cord-A", a=male, b=male))
    assert {i.rule for i in issues} == {"gender"}
    assert {i.element_id for i in issues} == {"cord-A"}
    assert "pinned meets pinned" in issues[0].message


def test_it_flags_unpinned_trunk_meeting_unpinned_cords(catalog):
    ch = dr4_panel_channel(catalog)
    trunk = ch.elements[element(ch, "trunk")]
    female = Face(trunk.a.family, "unpinned", trunk.a.polish, trunk.a.mode)
    issues = check_channel(mutate(ch, "trunk", a=female, b=female))
    assert rules_of(issues) == {("gender", "trunk")}


def test_a_type_a_trunk_breaks_polarity_and_is_named(catalog):
    """
    [module-A]-B-|A|=A=|A|-B-[module-B]: two reversals cancel, Tx 1 lands on Tx 1.
    """
    issues = check_channel(mutate(dr4_panel_channel(catalog), "trunk", polarity="A"))
    assert rules_of(issues) == {("polarity", "trunk")}
    assert "expected Type-B" in issues[0].message


def test_it_flags_mpo16_meeting_mpo12(catalog):
    ch = dr4_panel_channel(catalog)
    cord = ch.elements[element(ch, "cord-B")]
    f16 = Face("mpo-16", cord.a.gender, cord.a.polish, cord.a.mode)
    issues = check_channel(mutate(ch, "cord-B", a=f16, b=f16, fibers=16))
    assert ("connector-family", "cord-B") in rules_of(issues)


def test_an_mpo12_adapter_cannot_hold_mpo16_connectors(catalog):
    ch = dr4_panel_channel(catalog)
    issues = check_channel(mutate(ch, "panel-A", family="mpo-16"))
    assert rules_of(issues) == {("connector-family", "panel-A")}


def test_it_flags_multimode_cord_on_single_mode_optics(catalog):
    ch = dr4_panel_channel(catalog)
    cord = ch.elements[element(ch, "cord-A")]
    mm = Face(cord.a.family, cord.a.gender, cord.a.polish, "mm")
    issues = check_channel(mutate(ch, "cord-A", a=mm, b=mm))
    assert rules_of(issues) == {("fiber-mode", "cord-A")}


def test_a_type_c_cord_is_never_used_for_parallel_optics(catalog):
    issues = check_channel(mutate(dr4_panel_channel(catalog), "cord-A", polarity="C"))
    assert ("polarity-type", "cord-A") in rules_of(issues)


def test_an_8_fiber_cord_cannot_carry_an_8_lane_mpo16_optic(catalog):
    ch = dr4_panel_channel(catalog)
    # Positions 5-8 carry no fiber in an 8-fiber (Base-8) cord: an 8-lane module's Tx 5-8 are lost.
    els = ch.elements
    ma = replace(els[0], lanes=(0, 4), tx=(1, 5), rx=(12, 8))
    mb = replace(els[-1], lanes=(0, 4), tx=(1, 5), rx=(12, 8))
    issues = check_channel(replace(ch, elements=(ma, *els[1:-1], mb)))
    assert issues and issues[0].rule == "polarity" and issues[0].element_id == "cord-A"


def test_a_splitter_leg_carries_two_lanes_to_a_200g_port(catalog):
    """
                         leg 1 -> [NIC A: lanes 0,1]
    [switch port]-splitter
                         leg 2 -> [NIC B: lanes 0,1]
    Switch lanes 0,1 go to leg 1 and lanes 2,3 to leg 2 (leg positions are a gap: assumed).
    """
    choice = select_media(req(QM9700_CAGE, CX7_OSFP_200, 20, tier="node-leaf"), DIRECT, catalog)
    assert choice.breakout == "split-1:2" and choice.cable_kind == "splitter"
    assert choice.cable_carries_links == 2 and choice.fibers_per_link == 4
    for leg, switch_lanes in ((1, (0, 1)), (2, (2, 3))):
        ch = build_channel(choice, False, DIRECT, leg=leg)
        assert check_channel(ch) == []
        a_to_b = [lp for lp in lane_map(ch) if lp.direction == "a->b"]
        assert [lp.lane for lp in a_to_b] == list(switch_lanes)
        assert [lp.rx_lane for lp in a_to_b] == [0, 1]


def test_a_splitter_channel_oriented_nic_first_is_sound(catalog):
    choice = select_media(req(CX7_OSFP_200, QM9700_CAGE, 20, tier="node-leaf"), DIRECT, catalog)
    assert choice.split_end == "b"
    for leg in (1, 2):
        assert check_channel(build_channel(choice, False, DIRECT, leg=leg)) == []


def test_a_splitter_through_panels_is_sound(catalog):
    """[switch]-B-|A|=B=|A|-splitter leg-[NIC]"""
    choice = select_media(req(QM9700_CAGE, CX7_OSFP_200, 20, tier="node-leaf"), PANELS, catalog)
    for leg in (1, 2):
        ch = build_channel(choice, True, PANELS, leg=leg)
        assert [e.kind for e in ch.elements][-2] == "splitter"
        assert check_channel(ch) == []


def test_an_fr4_link_over_cassettes_is_sound_on_every_port(catalog):
    """[FR4]-LC(A-B)-[cassette port k]=B=[cassette port P+1-k]-LC(A-B)-[FR4]  (method U1)"""
    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 12})
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, 800), pol, catalog)
    assert choice.pmd == "400gbase-fr4" and choice.structured.cassette is not None
    for port in range(1, 7):
        ch = build_channel(choice, True, pol, port=port)
        assert check_channel(ch) == [], port
        assert ch.elements[4].port == 7 - port


def test_a_duplex_cord_without_the_crossover_breaks_polarity(catalog):
    ch = build_channel(select_media(req(QM9700_CAGE, QM9700_CAGE, 800), DIRECT, catalog), False, DIRECT)
    assert check_channel(ch) == []
    issues = check_channel(mutate(ch, "cord", polarity="A-A"))
    assert rules_of(issues) == {("polarity", "cord")}


def test_type_b_adapters_at_both_panels_also_keep_polarity(catalog):
    pol = policy(leaf_spine={"cabling": "panels", "adapter_type": "B"})
    ch = build_channel(select_media(req(QM9700_CAGE, QM9700_CAGE, 100), pol, catalog), True, pol)
    assert ch.elements[2].polarity == "B"
    assert check_channel(ch) == []
    # ... but one Type-A and one Type-B adapter break it, and the odd one out is named.
    issues = check_channel(mutate(ch, "panel-B", polarity="A"))
    assert rules_of(issues) == {("polarity", "panel-B")}


def test_xdr_and_mpo16_channels_are_sound(catalog):
    for a, b in ((Q3400_CAGE, Q3400_CAGE), (Q3400_CAGE, CX8_OSFP)):
        for pol, structured in ((DIRECT, False), (PANELS, True)):
            ch = build_channel(select_media(req(a, b, 200), pol, catalog), structured, pol)
            assert check_channel(ch) == []
    from engine.physical import CageEnd

    sn = CageEnd("switch", "osfp", "finned", False, 800, 100)
    for pol, structured in ((DIRECT, False), (PANELS, True)):
        choice = select_media(req(sn, sn, 300, tech="ethernet"), pol, catalog)
        assert choice.connector == "mpo-16"
        ch = build_channel(choice, structured, pol)
        assert check_channel(ch) == []
        assert len(lane_map(ch)) == 16


# ---- mutation tests: change one element of a valid channel, a check must catch it ----

VALID_CASES = [
    ("dr4-direct", QM9700_CAGE, QM9700_CAGE, 40, False),
    ("dr4-panels", QM9700_CAGE, QM9700_CAGE, 100, True),
    ("sr4-direct", DGX_CAGE, QM9700_CAGE, 20, False),
    ("sr4-panels", DGX_CAGE, QM9700_CAGE, 20, True),
    ("split-direct", QM9700_CAGE, CX7_OSFP_200, 20, False),
    ("split-panels", QM9700_CAGE, CX7_OSFP_200, 20, True),
    ("fr4-direct", QM9700_CAGE, QM9700_CAGE, 800, False),
    ("fr4-panels", QM9700_CAGE, QM9700_CAGE, 800, True),
    ("xdr-panels", Q3400_CAGE, CX8_OSFP, 200, True),
    ("twin-to-single", QM9700_CAGE, CX7_OSFP, 60, False),
]


def _valid_channels(catalog):
    for name, a, b, run, structured in VALID_CASES:
        pol = PANELS if structured else DIRECT
        choice = select_media(req(a, b, run, tier="leaf-spine" if structured else "node-leaf"), pol, catalog)
        for leg in (1, 2) if choice.breakout == "split-1:2" else (1,):
            yield name, build_channel(choice, structured, pol, leg=leg)


def _mutations(ch):
    """Every single-element mutation: cable type, gender, polish, fiber mode."""
    other_polish = {"apc": "upc", "upc": "apc"}
    other_mode = {"sm": "mm", "mm": "sm"}
    other_gender = {"pinned": "unpinned", "unpinned": "pinned"}
    for i, el in enumerate(ch.elements):
        if el.kind in ("cord", "trunk", "adapter"):
            lc = (el.a or el.b or Face("mpo-12", "", "", "")).family == "lc"
            for pol in (
                ("A-A",) if lc else ("A", "C") if el.kind != "adapter" else ("B" if el.polarity == "A" else "A",)
            ):
                if pol != el.polarity:
                    yield f"{el.id} polarity {pol}", i, replace(el, polarity=pol)
        faces = {k: getattr(el, k) for k in ("a", "b") if getattr(el, k) is not None}
        if not faces or el.kind == "interface":
            continue
        for field, change in (
            ("polish", lambda f: replace(f, polish=other_polish[f.polish])),
            ("mode", lambda f: replace(f, mode=other_mode[f.mode])),
            ("gender", lambda f: replace(f, gender=other_gender.get(f.gender, f.gender))),
        ):
            mutated = {k: change(f) for k, f in faces.items()}
            if field == "gender" and all(f.gender == "none" for f in faces.values()):
                continue
            yield f"{el.id} {field}", i, replace(el, **mutated)


def test_every_single_element_mutation_of_a_valid_channel_is_caught(catalog):
    checked = 0
    for name, ch in _valid_channels(catalog):
        assert check_channel(ch) == [], name
        for what, i, el in _mutations(ch):
            bad = replace(ch, elements=(*ch.elements[:i], el, *ch.elements[i + 1 :]))
            issues = check_channel(bad)
            assert issues, f"{name}: mutation '{what}' went unnoticed"
            assert el.id in {x.element_id for x in issues}, f"{name}: '{what}' blamed {[x.element_id for x in issues]}"
            checked += 1
    assert checked > 100


# ---- property test: every generated channel passes ---------------------------------

CAGES = st.sampled_from([DGX_CAGE, QM9700_CAGE, CX7_OSFP, CX7_OSFP_200])


@settings(max_examples=150, deadline=None)
@given(
    a=CAGES,
    b=CAGES,
    run=st.floats(min_value=0.3, max_value=2000, allow_nan=False),
    structured=st.booleans(),
    base=st.sampled_from([8, 12]),
    adapter=st.sampled_from(["A", "B"]),
    leg=st.sampled_from([1, 2]),
    port=st.integers(min_value=1, max_value=6),
)
def test_every_generated_channel_passes(catalog, a, b, run, structured, base, adapter, leg, port):
    from engine.physical import MediaSelectionError

    tier = {"cabling": "panels" if structured else "direct", "trunk_base": base, "adapter_type": adapter}
    pol = policy(leaf_spine=tier)
    try:
        choice = select_media(req(a, b, run), pol, catalog)
    except MediaSelectionError:
        return
    if not choice.optical:
        return
    if choice.structured and choice.structured.cassette:
        port = min(port, choice.structured.cassette.lc_ports)
    ch = build_channel(choice, structured, pol, leg=leg if choice.breakout == "split-1:2" else 1, port=port)
    assert check_channel(ch) == []
    assert all(lp.rx_lane == lp.lane or choice.breakout == "split-1:2" for lp in lane_map(ch))
    assert all(lp.rx_lane >= 0 for lp in lane_map(ch))


def test_copper_channels_have_no_optical_checks(catalog):
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, 1, aligned=True), DIRECT, catalog)
    ch = build_channel(choice, False, DIRECT)
    assert ch.kind == "copper" and check_channel(ch) == [] and lane_map(ch) == ()


def test_panel_channel_needs_panel_parts(catalog):
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, 100), DIRECT, catalog)
    with pytest.raises(ValueError, match="cabling set to 'panels'"):
        build_channel(choice, True, DIRECT)


def test_bad_leg_or_port_gets_a_clear_message(catalog):
    choice = select_media(req(QM9700_CAGE, CX7_OSFP_200, 20, tier="node-leaf"), DIRECT, catalog)
    with pytest.raises(ValueError, match="leg must be 1 or 2"):
        build_channel(choice, False, DIRECT, leg=3)
    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 12})
    fr4 = select_media(req(QM9700_CAGE, QM9700_CAGE, 800), pol, catalog)
    with pytest.raises(ValueError, match=r"port must be 1..6"):
        build_channel(fr4, True, pol, port=7)
