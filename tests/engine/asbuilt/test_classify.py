"""Classification rules without tools: CSV observations against a small InfiniBand plan.

link A  DGX-SU01-N01 OSFP1P1 -- CF-SU01-L01 1/1
link B  DGX-SU01-N01 OSFP1P2 -- CF-SU01-L02 1/1
"""

from __future__ import annotations

import pytest

from engine.asbuilt.classify import accumulate, classify
from engine.asbuilt.fixlist import device_places, fix_list, iter_fix_csv
from engine.asbuilt.matching import PortMatcher
from engine.asbuilt.parsers import parse
from engine.asbuilt.plan import planned_fabric
from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec

from .test_matching import IB_16

HEAD = "device,port,neighbor_device,neighbor_port\n"


@pytest.fixture(scope="module")
def fabric():
    return planned_fabric(compute_design(parse_spec(IB_16), load_catalog()))


def run(fabric, *csvs):
    m = PortMatcher(fabric.links, fabric.aliases)
    observed, covered = accumulate([parse("csv", HEAD + c) for c in csvs], m)
    c = classify(fabric.links, observed, m, covered)
    return c, fix_list(c.findings, fabric.cables, device_places(fabric.links))


def test_links_of_devices_no_file_covered_are_unseen_not_missing(fabric):
    c, fixes = run(fabric, "DGX-SU01-N01,OSFP1P1,CF-SU01-L01,1/1\n")
    assert c.counts["ok"] == 1 and fixes and all(f.kind == "missing" for f in fixes)
    # The file speaks for N01 (its `device` column): N01's other 7 links are missing; L01's other links and
    # everything else were not looked at.
    assert c.counts["missing"] == 7 and c.counts["unseen"] == len(fabric.links) - 1 - 7


def test_a_cable_on_a_device_the_plan_does_not_know_is_miswired_and_a_stray_one_unexpected(fabric):
    c, fixes = run(fabric, "DGX-SU01-N01,OSFP1P1,mystery-switch,7\nhost-x,eth0,host-y,eth1\n")
    assert c.counts["miswired"] == 1 and c.counts["unexpected"] == 1
    moved = next(f for f in fixes if f.kind == "miswired")
    assert moved.action.startswith("move C000001 from mystery-switch:7 to ")
    stray = next(f for f in fixes if f.kind == "unexpected")
    assert stray.cable_id == "" and "host-x:eth0" in stray.action and "not in the plan" in stray.action
    lines = list(iter_fix_csv(fixes))
    assert lines[0].startswith("problem,class,rack,cable_id") and len(lines) == len(fixes) + 1


def test_a_later_file_replaces_what_an_earlier_one_said_about_its_devices(fabric):
    crossed = "DGX-SU01-N01,OSFP1P1,CF-SU01-L02,1/1\nDGX-SU01-N01,OSFP1P2,CF-SU01-L01,1/1\n"
    fixed = "DGX-SU01-N01,OSFP1P1,CF-SU01-L01,1/1\nDGX-SU01-N01,OSFP1P2,CF-SU01-L02,1/1\n"
    c, _ = run(fabric, crossed)
    assert c.counts["swapped"] == 2
    c, _ = run(fabric, crossed, fixed)
    assert c.counts["swapped"] == 0 and c.counts["ok"] == 2


def test_speed_below_the_plan_is_degraded(fabric):
    text = "device,port,neighbor_device,neighbor_port,speed_gbps\nDGX-SU01-N01,OSFP1P1,CF-SU01-L01,1/1,200\n"
    m = PortMatcher(fabric.links, fabric.aliases)
    observed, covered = accumulate([parse("csv", text)], m)
    c = classify(fabric.links, observed, m, covered)
    assert c.counts["degraded"] == 1
    f = next(f for f in c.findings if f.kind == "degraded")
    assert f.detail == "up at 200 Gb/s instead of 400 Gb/s"
