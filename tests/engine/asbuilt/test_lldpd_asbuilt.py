"""Done-when of the as-built import on Ethernet: lldpd in network namespaces, one per device of a 2-server RoCE
plan, joined by veth pairs named as the plan's ports (engine.ifnames: swpNsM on the Cumulus leaves and spine,
the design's port names on the hosts); `lldpctl -f json` of every namespace is one upload. One pair of cables
crossed at a server, one at a leaf, and one extra cable joins two leaves; the fix list has one swap at each
device where the crossed cables meet and the extra cable in the design's port names with its racks, the same
from the hosts' and switches' lldpd (`lldpctl -f json`) as from the switches' NVUE (`nv show interface -o json`,
which on Cumulus Linux reports what its lldpd hears); rewired and imported again, it is clear.

    DGX-SU01-N01 OSFP1P1 -> CF-SU01-L02 swp1s0 and OSFP1P2 -> CF-SU01-L01 swp1s0   crossed at N01
    CF-SU01-L03 swp1s0 -> DGX-SU01-N02 OSFP2P1 and swp1s1 -> DGX-SU01-N01 OSFP2P1  crossed at L03 (1/1, 1/2)
    CF-SU01-L05 swp5s0 -- CF-SU01-L06 swp5s0                                        extra (5/1 -- 5/1)

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
from engine.asbuilt.parsers import parse_lldpctl, parse_nvue
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
            log = open(self.logs / f"{ns}.log", "w")  # noqa: SIM115 - lldpd writes it for as long as it runs
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
        at = {end: i for i, (a, b) in enumerate(ends) for end in (a, b)}
        for p, q in (
            (("DGX-SU01-N01", "OSFP1P1"), ("DGX-SU01-N01", "OSFP1P2")),
            (("CF-SU01-L03", "swp1s0"), ("CF-SU01-L03", "swp1s1")),
        ):
            i, j = at[p], at[q]
            ends[i] = tuple(q if e == p else e for e in ends[i])  # type: ignore[assignment]
            ends[j] = tuple(p if e == q else e for e in ends[j])  # type: ignore[assignment]
        ends.append((("CF-SU01-L05", "swp5s0"), ("CF-SU01-L06", "swp5s0")))
    return ends


def _import(fabric, observations):
    matcher = PortMatcher(fabric.links, fabric.aliases, spare=fabric.spare)
    observed, covered = accumulate(observations, matcher)
    c = classify(fabric.links, observed, matcher, covered)
    return c, fix_list(c.findings, fabric.cables, device_places(fabric.links))


def _nvue(bundle: str, switches) -> list[tuple[str, str]]:
    """Each switch's `nv show interface -o json` (its interfaces' lldp.neighbor objects: chassis system-name,
    port name/type/description) made from what that switch's lldpd heard."""
    out = []
    for dev, dump in json.loads(bundle).items():
        if dev not in switches:
            continue
        ifaces = dump["lldp"]["interface"]
        items = [kv for x in ifaces for kv in x.items()] if isinstance(ifaces, list) else list(ifaces.items())
        nv = {}
        for ifname, entry in items:
            ((peer, _),) = entry["chassis"].items()
            pid = entry["port"]["id"]
            port = {"name": pid["value"], "type": pid["type"], "description": entry["port"].get("descr", "")}
            nv[ifname] = {"type": "swp", "lldp": {"neighbor": {peer: {"chassis": {"system-name": peer}, "port": port}}}}
        out.append((dev, json.dumps(nv)))
    return out


def test_lldpd_over_veth_pairs_gives_one_swap_where_the_cables_meet_and_the_rewired_fabric_clears_it(plan, tmp_path):
    _need()
    devices = {d for lk in plan.links for d in (lk.a_device, lk.b_device)}
    wiring = _wiring(plan, cross=True)
    per_device = {d: sum((a[0], b[0]).count(d) for a, b in wiring) for d in devices}
    lab = Lab(tmp_path, devices)
    try:
        lab.start(wiring)
        crossed = lab.dumps(per_device)
    finally:
        lab.stop()
    switches = {d for d in devices if d.startswith("CF-")}
    nvue = [parse_nvue(text, device=dev) for dev, text in _nvue(crossed, switches)]
    answers = []
    for observations in ([parse_lldpctl(crossed)], nvue):
        c, fixes = _import(plan, observations)
        assert (c.counts["swapped"], c.counts["unexpected"], c.counts["ok"]) == (4, 1, len(plan.links) - 4)
        assert c.counts["degraded"] == c.counts["miswired"] == c.counts["missing"] == 0
        answers.append([f.to_dict() for f in fixes])
    assert answers[0] == answers[1]
    rows = {f["class"] + f["a_device"]: f for f in answers[0]}
    assert len(answers[0]) == 3

    server = rows["swappedDGX-SU01-N01"]
    assert server["action"] == (
        "swap the cords at DGX-SU01-N01 OSFP1P1 and OSFP1P2 (DC1.B01-01): C000001 belongs on OSFP1P1, C000002 on OSFP1P2"
    )
    place = {lk.b_device: f"{lk.b_rack}-{lk.b_u:02d}" for lk in plan.links}
    leaf = rows["swappedCF-SU01-L03"]
    assert leaf["action"] == (
        f"swap the cords at CF-SU01-L03 1/1 and 1/2 ({place['CF-SU01-L03']}): C000003 belongs on 1/1, C000011 on 1/2"
    )
    assert (server["rack"], leaf["rack"]) == ("DC1.B01", "DC1.B02")
    extra = rows["unexpectedCF-SU01-L05"]
    assert (extra["a_port"], extra["b_device"], extra["b_port"]) == ("5/1", "CF-SU01-L06", "5/1")
    assert (extra["a_rack"], extra["b_rack"], extra["rack"]) == ("DC1.B02", "DC1.B02", "DC1.B02")
    assert extra["action"] == (
        f"remove the cable between {place['CF-SU01-L05']}:5/1 and {place['CF-SU01-L06']}:5/1: not in the plan"
    )

    # Done on site, the two swaps leave every cord where its labels say (as planted: crossed at N01 and at L03).
    cord_at = {}
    for cab in plan.cables.values():
        cord_at[(cab.a_device, cab.a_port)] = cord_at[(cab.b_device, cab.b_port)] = cab.cable_id
    for p, q in (
        (("DGX-SU01-N01", "OSFP1P1"), ("DGX-SU01-N01", "OSFP1P2")),
        (("CF-SU01-L03", "1/1"), ("CF-SU01-L03", "1/2")),
    ):
        cord_at[p], cord_at[q] = cord_at[q], cord_at[p]
    for row in (server, leaf):
        p, q = (row["a_device"], row["a_port"]), (row["b_device"], row["b_port"])
        cord_at[p], cord_at[q] = cord_at[q], cord_at[p]
    for cab in plan.cables.values():
        assert cord_at[(cab.a_device, cab.a_port)] == cord_at[(cab.b_device, cab.b_port)] == cab.cable_id

    lab = Lab(tmp_path, devices)
    try:
        lab.start(_wiring(plan, cross=False))
        rewired = lab.dumps({d: sum((lk.a_device, lk.b_device).count(d) for lk in plan.links) for d in devices})
    finally:
        lab.stop()
    c, fixes = _import(plan, [parse_lldpctl(crossed), parse_lldpctl(rewired)])
    assert fixes == [] and c.counts["ok"] == len(plan.links)
