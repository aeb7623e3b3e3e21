"""Done-when of the as-built import on Ethernet: lldpd in network namespaces, one per device of a 2-server RoCE
plan, joined by veth pairs named as the plan's ports (engine.ifnames: swpNsM on the Cumulus leaves and spine,
the design's port names on the hosts); `lldpctl -f json` of every namespace is one upload. One pair of cables
is crossed; the fix list names exactly that pair; rewired and imported again, it is clear.

    DGX-SU01-N01 OSFP1P1 -> CF-SU01-L02 swp1s0 and OSFP1P2 -> CF-SU01-L01 swp1s0   (planned L01 / L02)

Needs root (namespaces, veth) and lldpd; skipped with the reason otherwise. Every lldpd is stopped by its pid
and every namespace deleted by the fixture that made it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from engine.asbuilt.classify import accumulate, classify
from engine.asbuilt.fixlist import device_places, fix_list
from engine.asbuilt.matching import PortMatcher
from engine.asbuilt.parsers import parse_lldpctl
from engine.asbuilt.plan import planned_fabric
from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec

pytestmark = pytest.mark.slow

ROCE_2 = {
    "name": "roce 2",
    "servers": {"model": "dgx-h100", "count": 2},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "scalable_unit": 2},
}
TIMEOUT = 60


def _need():
    if os.geteuid() != 0:
        pytest.skip("needs root: network namespaces and veth pairs (CI runs the tests as root)")
    missing = [t for t in ("lldpd", "lldpcli", "lldpctl", "ip") if shutil.which(t) is None]
    if missing:
        pytest.skip(
            f"{', '.join(missing)} not installed (Debian: lldpd, iproute2; ./scripts/test installs lldpd as root)"
        )


def _ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=TIMEOUT)


class Lab:
    """Namespaces, veth pairs and lldpd daemons for one wiring; stop() undoes all of it."""

    def __init__(self, tmp, devices):
        # lldpd's unprivileged half must reach its socket: pytest's tmp folders are root-only (0700), so the
        # sockets and logs live in a world-searchable folder of their own, removed by stop().
        self.tmp = Path(tempfile.mkdtemp(prefix="fd-lldpd-", dir="/run" if os.path.isdir("/run") else None))
        self.tmp.chmod(0o755)
        self.logs = tmp
        self.ns = {d: f"fd{os.getpid() % 100000}n{i}" for i, d in enumerate(sorted(devices))}
        self.procs: list[subprocess.Popen] = []
        self.made: list[str] = []

    def start(self, wiring):
        """wiring: [((device, ifname), (device, ifname)), ...]"""
        for ns in self.ns.values():
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        for i, ((da, ia), (db, ib)) in enumerate(wiring):
            ta, tb = f"fdv{os.getpid() % 10000}a{i}", f"fdv{os.getpid() % 10000}b{i}"
            _ip("link", "add", ta, "type", "veth", "peer", "name", tb)
            for tmp_name, dev, name in ((ta, da, ia), (tb, db, ib)):
                _ip("link", "set", tmp_name, "netns", self.ns[dev])
                _ip("-n", self.ns[dev], "link", "set", tmp_name, "name", name)
                _ip("-n", self.ns[dev], "link", "set", name, "up")
        for dev, ns in self.ns.items():
            sock = str(self.tmp / f"{ns}.sock")
            # The name and a 1 s transmit interval are set by lldpd's own start-up configuration (-O), read
            # before it starts sending: set afterwards with lldpcli, some daemons came up half-configured.
            conf = self.tmp / f"{ns}.conf"
            conf.write_text(f"configure system hostname {dev}\nconfigure lldp tx-interval 1\n")
            conf.chmod(0o644)
            log = open(self.logs / f"{ns}.log", "w")
            self.procs.append(
                subprocess.Popen(
                    ["ip", "netns", "exec", ns, "lldpd", "-d", "-O", str(conf), "-u", sock],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )

    def dumps(self, expected: dict[str, int]) -> str:
        """{device: lldpctl -f json} once every device sees its expected number of named neighbours."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            out = {}
            for dev, ns in self.ns.items():
                p = subprocess.run(
                    ["ip", "netns", "exec", ns, "lldpctl", "-u", str(self.tmp / f"{ns}.sock"), "-f", "json"],
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT,
                )
                out[dev] = json.loads(p.stdout or "{}")
            seen = {
                dev: len(parse_lldpctl(json.dumps(d), device=dev).links) if d.get("lldp") else 0
                for dev, d in out.items()
            }
            names_ok = all(dev in json.dumps(out) for dev in self.ns)
            if seen == expected and names_ok:
                return json.dumps(out)
            assert time.monotonic() < deadline, f"LLDP did not settle: {seen} != {expected}"
            time.sleep(0.5)

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []
        for ns in self.made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=TIMEOUT)
        self.made = []
        shutil.rmtree(self.tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def plan():
    return planned_fabric(compute_design(parse_spec(ROCE_2), load_catalog()))


def _wiring(fabric, cross: bool):
    names = fabric.aliases
    ends = [
        ((lk.a_device, names[(lk.a_device, lk.a_port)][-1]), (lk.b_device, names[(lk.b_device, lk.b_port)][-1]))
        for lk in fabric.links
    ]
    if cross:
        (a0, b0), (a1, b1) = ends[0], ends[1]
        ends[0], ends[1] = (a0, b1), (a1, b0)
    return ends


def _import(fabric, bundles):
    matcher = PortMatcher(fabric.links, fabric.aliases)
    observed, covered = accumulate([parse_lldpctl(b) for b in bundles], matcher)
    c = classify(fabric.links, observed, matcher, covered)
    return c, fix_list(c.findings, fabric.cables, device_places(fabric.links))


def test_lldpd_over_veth_pairs_finds_the_swapped_pair_and_the_rewired_fabric_clears_it(plan, tmp_path):
    _need()
    devices = {d for lk in plan.links for d in (lk.a_device, lk.b_device)}
    per_device = {d: sum((lk.a_device, lk.b_device).count(d) for lk in plan.links) for d in devices}
    lab = Lab(tmp_path, devices)
    try:
        lab.start(_wiring(plan, cross=True))
        crossed = lab.dumps(per_device)
    finally:
        lab.stop()
    c, fixes = _import(plan, [crossed])
    assert c.counts["swapped"] == 2 and c.counts["ok"] == len(plan.links) - 2
    assert sum(c.counts[k] for k in ("degraded", "miswired", "missing", "unexpected")) == 0
    l0, l1 = plan.links[0], plan.links[1]
    assert [f.kind for f in fixes] == ["swapped", "swapped"] and {f.problem for f in fixes} == {1}
    assert {f.cable_id for f in fixes} == {l0.cables[-1], l1.cables[-1]} or {f.cable_id for f in fixes} == {
        l0.cables[0],
        l1.cables[0],
    }
    assert all(
        f.action.startswith(f"swap {fixes[0].cable_id} and {fixes[1].cable_id}")
        or f.action.startswith(f"swap {fixes[1].cable_id} and {fixes[0].cable_id}")
        for f in fixes
    )

    lab = Lab(tmp_path, devices)
    try:
        lab.start(_wiring(plan, cross=False))
        rewired = lab.dumps(per_device)
    finally:
        lab.stop()
    c, fixes = _import(plan, [crossed, rewired])
    assert fixes == [] and c.counts["ok"] == len(plan.links)
