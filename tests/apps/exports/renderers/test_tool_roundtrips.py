"""Round trips through the real tools Debian ships (installed by ./scripts/test when run as root):

* ibsim (ibsim-utils) loads topology.ibnetdiscover and ibnetdiscover (infiniband-diags) run through it
  rediscovers every InfiniBand link of the plan;
* upstream OpenSM (opensm) with the generated conf and the root-node file filled from the discovered GUIDs
  routes the simulated fabric with ftree and reaches SUBNET UP;
* Graphviz (graphviz) draws the PTM topology.dot without a warning.

A 4-SU DGX H100 SuperPOD (48 + 18 IB switches, 1,020 + 262 CAs). Every process has a bounded timeout and is
stopped by the fixture that started it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from apps.exports.renderers import write_deliverables
from engine.catalog import load_catalog
from engine.ibnetdiscover import parse_ibnetdiscover, root_guids
from engine.ifnames import ib_port_number
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.qos import render_root_nodes
from engine.qos_stage import build_qos
from engine.spec import parse_spec

pytestmark = pytest.mark.slow

IB_TOOLS = ("ibsim", "ibsim-run", "ibnetdiscover", "opensm", "ibswitches")
TIMEOUT = 120  # seconds, per tool run


def _need(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(
            f"{', '.join(missing)} not installed (Debian: ibsim-utils, opensm, infiniband-diags, graphviz; "
            "./scripts/test installs them when run as root)"
        )


@pytest.fixture(scope="module")
def h100(tmp_path_factory):
    spec = load_preset("dgx-h100-superpod-4su")
    spec["qos"] = {"infiniband": {"subnet_manager": "opensm"}}
    result = compute_design(parse_spec(spec), load_catalog())
    out = tmp_path_factory.mktemp("h100")
    write_deliverables(result, out, only=["topology.dot", "topology.ibnetdiscover"])
    return result, out


@pytest.fixture(scope="module")
def sim(h100, tmp_path_factory):
    """ibsim serving the planned IB fabrics on a private socket; stopped (by its pid) afterwards."""
    _need(*IB_TOOLS)
    _, out = h100
    work = tmp_path_factory.mktemp("ibsim")
    env = dict(os.environ, IBSIM_SOCKNAME=f"fabricdesign-{os.getpid()}", OSM_TMP_DIR=str(work), OSM_CACHE_DIR=str(work))
    log = open(work / "ibsim.log", "w")  # noqa: SIM115 - the simulator's log outlives this block; closed when it stops
    proc = subprocess.Popen(
        ["ibsim", "-s", "-n", str(out / "topology.ibnetdiscover")],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:  # ready once a client can discover through it
            if proc.poll() is not None:
                pytest.fail("ibsim exited: " + (work / "ibsim.log").read_text()[-2000:])
            probe = subprocess.run(
                ["ibsim-run", "ibswitches"], env=env, cwd=work, capture_output=True, text=True, timeout=TIMEOUT
            )
            if probe.returncode == 0 and "Switch" in probe.stdout:
                break
            if time.monotonic() > deadline:
                pytest.fail("ibsim did not come up: " + probe.stderr[-2000:])
            time.sleep(0.5)
        yield env, work
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _run(args, env, cwd, **kw):
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, **kw)


def _planned(result, network):
    """The plan's IB links of one network, by (node description, IB port number) as the file describes them:
    switches by name, a server's n-th compute port (in port-name order) as the CA "<name> HCA-<n>" port 1."""
    devs = result.devices
    ib = [lk for lk in result.links if lk.network in ("compute", "storage")]  # a host's CAs count over both
    links = [lk for lk in ib if lk.network == network]
    ports_of: dict = {}
    for lk in ib:
        for e, p in ((lk.a, lk.a_port), (lk.b, lk.b_port)):
            if devs[e].role not in ("leaf", "spine", "core"):
                ports_of.setdefault(e, set()).add(p)
    hca: dict = {}
    for d, ports in ports_of.items():
        for k, p in enumerate(
            sorted(ports, key=lambda s: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", s)])
        ):
            hca[(d, p)] = k + 1

    def end(d, p):
        if devs[d].role in ("leaf", "spine", "core"):
            return (devs[d].name, ib_port_number(p))
        return (f"{devs[d].name} HCA-{hca[(d, p)]}", 1)

    return {frozenset((end(lk.a, lk.a_port), end(lk.b, lk.b_port))) for lk in links}


def _discover(env, work, attach: str) -> str:
    p = _run(["ibsim-run", "ibnetdiscover"], dict(env, SIM_HOST=attach), work)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


def _node_of(out: Path, device: str) -> str:
    topo = parse_ibnetdiscover((out / "topology.ibnetdiscover").read_text())
    return topo.by_description()[device].name


@pytest.mark.parametrize(
    "network, first_switch, switches, cas",
    [
        ("compute", "CF-S01", 48, 1020),
        ("storage", "SF-S01", 18, None),
    ],
)
def test_ibsim_loads_the_plan_and_ibnetdiscover_rediscovers_every_link(h100, sim, network, first_switch, switches, cas):
    result, out = h100
    env, work = sim
    found = parse_ibnetdiscover(_discover(env, work, _node_of(out, first_switch)))
    planned = _planned(result, network)
    assert found.described_links() == planned
    kinds = [n.kind for n in found.nodes.values()]
    assert kinds.count("Switch") == switches
    if cas is not None:
        assert kinds.count("Ca") == cas and len(planned) == 2044
    # The switch header carries the catalog's reported port count, not the highest cabled port.
    assert {n.ports for n in found.nodes.values() if n.kind == "Switch"} == {64}


def test_upstream_opensm_routes_the_simulated_fabric_with_ftree(h100, sim):
    result, out = h100
    env, work = sim
    plan = build_qos(result, load_catalog())
    fabric = next(f for f in plan.ib_fabrics if f.name == "compute")
    files = dict(plan.files)
    conf = files["qos/subnet-manager/compute.opensm.conf"]
    # Install step: the root-node file from the GUIDs an as-built discovery found, where the conf points.
    found = parse_ibnetdiscover(_discover(env, work, _node_of(out, "CF-S01")))
    guids = root_guids(found, fabric.root_switches)
    assert len(guids) == 16
    roots = work / "compute.root_guids.conf"
    roots.write_text(render_root_nodes(fabric, guids)[1])
    assert "#node" not in roots.read_text()
    conf = conf.replace("root_guid_file /etc/opensm/compute.root_guids.conf", f"root_guid_file {roots}")
    (work / "opensm.conf").write_text(conf)
    log = work / "opensm.log"
    p = _run(
        ["ibsim-run", "opensm", "-F", str(work / "opensm.conf"), "--once", "-e", "-f", str(log)],
        dict(env, SIM_HOST=_node_of(out, "CF-S01")),
        work,
    )
    text = log.read_text()
    assert "Unrecognized" not in p.stdout + p.stderr + text
    assert "ftree tables configured on all switches" in text, text[-3000:]
    assert "SUBNET UP" in text


def test_root_node_file_resolves_with_ibswitches(h100, sim):
    """The resolve command written in the root-node file finds every root switch's GUID on the fabric."""
    result, out = h100
    env, work = sim
    fabric = next(f for f in build_qos(result, load_catalog()).ib_fabrics if f.name == "storage")
    name, text = render_root_nodes(fabric)
    path = work / Path(name).name
    path.write_text(text)
    cmd = next(ln for ln in text.splitlines() if ln.startswith("#   for n in"))[4:]
    cmd = cmd.rstrip("\\") + next(ln for ln in text.splitlines() if ln.startswith("#     '"))[5:]
    p = _run(["ibsim-run", "bash", "-c", cmd], dict(env, SIM_HOST=_node_of(out, "SF-S01")), work)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith("0x")]
    found = parse_ibnetdiscover(_discover(env, work, _node_of(out, "SF-S01")))
    want = root_guids(found, fabric.root_switches)
    assert sorted(lines) == sorted(f"{g} # {n}" for n, g in want.items()) and len(lines) == 9


def test_dot_draws_the_ptm_file_without_a_warning(h100, tmp_path):
    _need("dot")
    _, out = h100
    p = subprocess.run(
        ["dot", "-Tsvg", str(out / "topology.dot"), "-o", str(tmp_path / "t.svg")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert p.returncode == 0 and p.stderr == "", p.stderr[:2000]
    assert (tmp_path / "t.svg").stat().st_size > 0
    # An Ethernet design's broken-out cages (swpNsM) draw as cleanly.
    eth = compute_design(parse_spec(load_preset("hgx-roce-2su")), load_catalog())
    write_deliverables(eth, tmp_path, only=["topology.dot"])
    assert "s1" in (tmp_path / "topology.dot").read_text()
    p = subprocess.run(
        ["dot", "-Tsvg", str(tmp_path / "topology.dot"), "-o", str(tmp_path / "e.svg")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert p.returncode == 0 and p.stderr == "", p.stderr[:2000]
