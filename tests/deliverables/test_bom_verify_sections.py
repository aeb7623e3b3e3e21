"""Every bom file section carries a line's "verify before ordering" note wherever the line appears (issue 38).

bom.csv repeats each part in its order, network and su sections; bom.pdf in its order summary, network tables
and per-SU tables. A part whose number or figure needs checking (summary bom[].unconfirmed) says so in every one
of them, not only in the order section. The per-network and per-SU shares of a switch line are the same orderable
part numbers as the order's (never the model name), and a switch without a published maximum power reads
"unknown" on the page, never 0.
"""

from __future__ import annotations

import csv

from .conftest import PdfText


def _rows(design):
    from deliverables.bom import iter_bom_csv

    return list(csv.DictReader(line for line in iter_bom_csv(design) if not line.startswith("#")))


def test_every_csv_section_carries_the_verify_note_of_its_lines(direct_design):
    verify = {ln["sku"] for ln in direct_design.summary["bom"] if ln.get("unconfirmed")}
    assert {"Q3400-P2C-OPN-UNPUBLISHED", "MMS4A00"} <= verify
    seen = set()
    for row in _rows(direct_design):
        if row["sku"] in verify and row["section"] in ("order", "network", "su"):
            assert "[verify before ordering: " in row["description"], row
            seen.add(row["section"])
        elif row["sku"] and row["section"] in ("order", "network", "su"):
            assert "verify before ordering" not in row["description"], row
    assert seen == {"order", "network", "su"}


def test_switch_shares_per_network_and_su_name_the_orderable_part_numbers(direct_design):
    rows = _rows(direct_design)
    order = {r["sku"]: int(r["quantity"]) for r in rows if r["section"] == "order" and r["category"] == "switch"}
    network: dict = {}
    for r in rows:
        if r["section"] == "network" and r["category"] == "switch":
            network[r["sku"]] = network.get(r["sku"], 0) + int(r["quantity"])
    assert network == order  # every switch placed in its network under the same part number, none "unassigned"
    assert not any(r["network"] == "unassigned" for r in rows if r["section"] == "network")
    assert "Q3400" not in order and "SN2201" not in order


def test_the_pdf_marks_verify_lines_in_every_table_and_prints_unknown_power(direct_design, tmp_path):
    from deliverables.bom import render_bom_pdf

    path = tmp_path / "bom.pdf"
    with open(path, "wb") as fh:
        render_bom_pdf(direct_design, fh)
    text = PdfText(path)
    pages = {}
    for page, _x, _y, fragment, *_ in text.items:
        pages.setdefault(page, []).append(fragment)
    joined = {p: " ".join(f) for p, f in pages.items()}
    marked = [p for p, t in joined.items() if "Q3400-P2C-OPN-UNPUBLISHED" in t and "verify before ordering" in t]
    assert len(marked) >= 3  # order summary, compute network table, per-SU table
    assert any("unknown" in t for t in joined.values())


def test_a_revision_stored_before_orderable_numbers_still_splits_its_switches_by_network(direct_design):
    """A revision computed before issue 38 named its switch lines by model ("Q3400", "SN2201", "SN4600C"); its
    snapshot is what it is, and bom.csv still places those lines in their networks (none "unassigned")."""
    from dataclasses import replace

    from deliverables.bom import bom_of

    legacy = {"Q3400-P2C-OPN-UNPUBLISHED": "Q3400", "920-9N110-00F1-0C0": "SN2201", "920-9N302-00F7-0C2": "SN4600C"}
    summary = dict(direct_design.summary)
    summary["bom"] = [ln | {"sku": legacy.get(ln["sku"], ln["sku"])} for ln in summary["bom"]]
    old = replace(direct_design, summary=summary)
    b = bom_of(old)
    assert "unassigned" not in b.by_network
    assert b.by_network["compute"][("switch", "Q3400")] == 100
