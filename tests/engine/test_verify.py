"""verify(): a broken invariant is an EngineInvariantError that names what broke, never a silent result.

Each test takes a correct 4-SU SuperPOD draft and breaks one link by hand:

    node N01 ──OSFP1──► leaf L01 port 1/1      becomes      leaf L01 port 99/1   (no such port)
"""

from __future__ import annotations

import pytest

from engine.catalog import load_catalog
from engine.errors import EngineInvariantError
from engine.pipeline import start_design
from engine.spec import parse_spec
from engine.summary import tier_runs
from engine.verify import verify
from tests.engine.conftest import MINIMAL


@pytest.fixture(scope="module")
def draft():
    return start_design(parse_spec(MINIMAL), load_catalog())


@pytest.fixture(params=[False, True], ids=["grouped-here", "given-runs"])
def runs(request):
    """verify groups the links by (network, tier) itself, or slices them by the runs finish_design works out."""
    return request.param


def check(draft, links, runs=False):
    return verify(
        devices=draft.devices,
        links=links,
        switches=draft.catalog.switches,
        compute_plan=draft.plan,
        server_model=draft.server,
        n_servers=draft.n_servers,
        gpus=draft.n_servers * draft.server.gpus,
        runs=tier_runs(links) if runs else None,
    )


def first(draft, tier: str) -> int:
    return next(i for i, lk in enumerate(draft.links) if lk.tier == tier)


def test_a_correct_design_passes_every_check(draft, runs):
    assert "ports-within-radix" in check(draft, draft.links, runs)
    assert check(draft, draft.links, runs) == check(draft, draft.links)


def test_a_switch_port_the_switch_does_not_have_is_named(draft):
    links = list(draft.links)
    i = first(draft, "node-leaf")
    links[i] = links[i]._replace(b_port="99/1")
    leaf = draft.devices[links[i].b]
    with pytest.raises(EngineInvariantError, match=rf"^{leaf.name} port 99/1 does not exist on a {leaf.model} at "):
        check(draft, links)


def test_the_first_bad_port_in_link_order_is_the_one_named(draft):
    links = list(draft.links)
    i, j = first(draft, "node-leaf"), first(draft, "leaf-spine")
    links[j] = links[j]._replace(b_port="98/1")
    links[i] = links[i]._replace(b_port="97/1")
    with pytest.raises(EngineInvariantError, match=r" port 97/1 does not exist"):
        check(draft, links)


def test_a_speed_the_switch_has_no_ports_for_is_named(draft):
    links = list(draft.links)
    i = first(draft, "leaf-spine")
    links[i] = links[i]._replace(speed_gbps=7)
    with pytest.raises(EngineInvariantError, match=r"has no 7 Gb/s ports"):
        check(draft, links)


@pytest.mark.parametrize("marks", [True, False], ids=["marks", "dict"])
def test_a_port_used_by_two_links_is_named(draft, monkeypatch, marks):
    """Check 1 counts distinct link ends with a byte per (device, port name), or a dict per name past verify._MARKS_MAX."""
    if not marks:
        monkeypatch.setattr("engine.verify._MARKS_MAX", 0)
    links = list(draft.links)
    i, j = first(draft, "node-leaf"), first(draft, "leaf-spine")
    links[j] = links[j]._replace(b=links[i].b, b_port=links[i].b_port)
    leaf = draft.devices[links[i].b]
    with pytest.raises(EngineInvariantError, match=rf"^port {leaf.name} {links[i].b_port} is used by 2 links$"):
        check(draft, links)


def test_a_link_to_a_device_that_does_not_exist_is_refused(draft):
    links = list(draft.links)
    i = first(draft, "leaf-spine")
    links[i] = links[i]._replace(b=len(draft.devices))
    with pytest.raises(EngineInvariantError, match=r"^a link names a device that does not exist$"):
        check(draft, links)


def test_a_leaf_missing_an_uplink_stripes_unevenly(draft, runs):
    """Check 4 counts each leaf's links per spine; the leaf that lost one is named, with its counts."""
    links = list(draft.links)
    i = first(draft, "leaf-spine")
    leaf = draft.devices[links[i].a]
    del links[i]
    with pytest.raises(EngineInvariantError, match=rf"^{leaf.name} stripes leaf-spine links unevenly: \["):
        check(draft, links, runs)


def test_a_tier_split_over_two_runs_is_checked_whole(draft, runs):
    """A leaf-spine link moved behind the node-leaf links: its tier comes in two runs, joined before the checks."""
    links = list(draft.links)
    i = first(draft, "leaf-spine")
    links.insert(first(draft, "node-leaf"), links.pop(i))
    assert check(draft, links, runs) == check(draft, draft.links)
