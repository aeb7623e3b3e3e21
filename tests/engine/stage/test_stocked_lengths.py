"""Every cable is the shortest stocked length that covers its run (issue 38).

Specification, over every cable row of every shipped preset whose link has that one cable:
- the ordered length is never shorter than the run (the run already holds the service slack);
- it is at most one published stocked step longer than needed: among the stocked lengths published for the
  part number (every catalog family rendering the same part-number pattern, e.g. NVIDIA's and the resellers'
  MFA1A00-C lengths), no more than one lies between the run and the ordered length;
- a made-to-order length is used only past every stocked length, rounded up by one made-to-order step;
- runs of 30 m or less never get a 50 m AOC (the 30 m MFA1A00-C030 is stocked: BasePOD RA Table 4.2).
"""

from __future__ import annotations

from bisect import bisect_left

import pytest

from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.presets import list_presets, load_preset
from engine.spec import parse_spec

EPS = 1e-6


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def presets(catalog):
    return {key: compute_design(parse_spec(load_preset(key)), catalog) for key in list_presets()}


def _stocked_by_pattern(media) -> dict[str, tuple[float, ...]]:
    out: dict[str, set] = {}
    for fam in (*media.cables.values(), *media.cords.values(), *media.copper_cords.values()):
        out.setdefault(fam.sku_pattern, set()).update(fam.lengths_m)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _direct_rows(result):
    """(preset cable row, run, choice) for every cable that is its links' only cable. A cable shared by links (a
    twin-port DAC, a 1:2 splitter) is cut for its cage's longest run, the run its medium was chosen for: NVIDIA
    wants a twin-port module's cables of about equal length (skew, optics-and-cabling.md D4)."""
    ph = result.physical
    index = {link.id: i for i, link in enumerate(result.links)}
    for row in ph.cable_rows:
        idx = [index[lid] for lid in row[6]]
        if any(len(ph.cables[i]) != 1 for i in idx):
            continue
        choice = ph.choices[idx[0]]
        run = max(result.lengths_m[i] for i in idx)
        if choice.cable_carries_links > 1:
            run = max(run, choice.run_length_m)
        yield row, run, choice


def test_no_cable_is_shorter_than_its_run_or_more_than_one_stocked_step_longer(presets, catalog):
    stocked = _stocked_by_pattern(catalog.media)
    step = 1.0  # physical.made_to_order_step_m default (the presets do not set it)
    checked = 0
    for key, result in presets.items():
        for row, run, choice in _direct_rows(result):
            kind, part, ordered = row[1], row[2], row[3]
            lengths = stocked[choice.cable_sku_pattern]
            assert ordered >= run - EPS, (key, part, ordered, run)
            need = bisect_left(lengths, run - EPS)  # index of the shortest stocked length covering the run
            if ordered in lengths:
                assert lengths.index(ordered) <= need + 1, (key, kind, part, ordered, run, lengths)
            else:
                assert choice.cable_made_to_order and run > lengths[-1] + EPS, (key, part, ordered, run, lengths)
                assert ordered - run < step + EPS, (key, part, ordered, run)
            checked += 1
    assert checked > 30_000  # every preset's direct cables, not a sample


def test_runs_of_30_m_or_less_never_get_a_50_m_aoc(presets):
    for key, result in presets.items():
        for row, run, _choice in _direct_rows(result):
            if row[1] == "aoc" and row[3] >= 50:
                assert run > 30, (key, row[2], run)


def test_made_to_order_cords_appear_only_where_no_family_stocks_a_covering_length(presets, catalog):
    """B300 XDR leaf-spine runs of 31-37 m took 11 cut-to-length generic cords in 1 m steps beside NVIDIA's
    stocked MFP7E30; they now take the stocked 50 m MFP7E30-N050, one part for the length class."""
    bom = {ln["sku"]: ln for ln in presets["dgx-b300-xdr-8su"].summary["bom"]}
    generic = sorted(s for s in bom if s.startswith("GEN-MPO12-SM"))
    stocked = {f"GEN-MPO12-SM-APC-B-FF-8F-{m:g}M" for m in catalog.media.cords["GEN-MPO12-SM-B"].lengths_m}
    assert generic and set(generic) <= stocked, generic
    assert bom["MFP7E30-N050"]["quantity"] > 0


def test_a_generic_cord_prints_the_supplier_grade_specification_its_loss_budget_assumes(presets, catalog):
    for key, result in presets.items():
        for line in result.summary["bom"]:
            if not line["sku"].startswith("GEN-MPO12"):
                continue
            d = line["description"]
            for words in ("MPO-12 APC (8 degree) both ends", "female (unpinned)", "polarity Type-B", "8 fibers"):
                assert words in d, (key, line["sku"], words)
            # the grade the loss budget uses for MPO mated pairs (physical.loss: low-loss, 0.35 dB [S9])
            assert "insertion loss <= 0.35 dB per mated pair (low-loss grade)" in d, (key, d)
            assert "jacket: specify" in d and ("OS2" in d or "OM4" in d), (key, d)
    spec = load_preset("dgx-b300-xdr-8su") | {"physical": {"loss": {"connector_grade": {"mpo": "standard"}}}}
    bom = compute_design(parse_spec(spec), catalog).summary["bom"]
    generic = [ln["description"] for ln in bom if ln["sku"].startswith("GEN-MPO12")]
    assert generic and all("<= 0.75 dB per mated pair (standard grade)" in d for d in generic)
