"""An ibsim fabric built from a plan, with deliberate mistakes, read back through libumad2sim with ibnetdiscover
and iblinkinfo (infiniband-diags). Shared by the engine test and the app tests of the as-built import.

The net file is the plan's topology.ibnetdiscover (apps/exports/renderers/topology.py) with every CA described
as a DGX describes its HCAs, "<hostname> mlx5_N" (the catalog's RDMA device map), so the import has to name
the rails the way a real fabric does. Mistakes are edits of that file:

    cross(ca1, ca2)   the two CAs' cables land on each other's switch ports
    unplug(ca)        the CA's cable is gone (both lines)
    move(ca, port)    the CA's cable sits on another port of the same switch
    narrow(ca)        the link trains at 1X (ibsim takes the enabled width from the `lid 0 <w>x<speed>` comment)
    join(s1, p1, s2, p2)  an extra cable between two switches' ports (spare ones: the plan has nothing there)
    describe_as_running()  every node described as a running fabric describes it (after the edits above):
                      a Quantum switch `MF0;<host>:MQM9700/U1`, an HCA `<host>.cm.cluster mlx5_N` (Bright/BCM
                      node names) or, where `bare` says so, `<host> mlx5_N`
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

TIMEOUT = 120
TOOLS = ("ibsim", "ibsim-run", "ibnetdiscover", "iblinkinfo")


def need_tools():
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(
            f"{', '.join(missing)} not installed (Debian: ibsim-utils, infiniband-diags; ./scripts/test installs them as root)"
        )


def net_from_plan(result) -> str:
    """The plan's ibnetdiscover file with real HCA descriptions ("<host> mlx5_N")."""
    from apps.exports.renderers.topology import iter_ibnetdiscover
    from engine.asbuilt.matching import port_aliases

    text = "".join(iter_ibnetdiscover(result))
    rdma: dict[str, str] = {}  # "<host> HCA-k" -> "<host> mlx5_N"
    for ref, names in port_aliases(result).items():
        hca = next((n for n in names if n.startswith("HCA-")), None)
        mlx = next((n for n in names if n.startswith("mlx5_")), None)
        if hca and mlx:
            rdma[f"{ref.device} {hca}"] = f"{ref.device} {mlx}"
    return re.sub(r'"([^"]+ HCA-\d+)"', lambda m: f'"{rdma.get(m.group(1), m.group(1))}"', text)


class Net:
    """A net file's CA links, editable by node description."""

    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.ca: dict[str, str] = {}  # description -> node name
        self.switch: dict[str, str] = {}
        for ln in self.lines:
            m = re.match(r'^(Ca|Switch)\t\d+ "([^"]+)"\t\t# "([^"]+)"', ln)
            if m:
                (self.ca if m.group(1) == "Ca" else self.switch)[m.group(3)] = m.group(2)

    def text(self) -> str:
        return "\n".join(self.lines)

    def _ca_line(self, desc: str) -> int:
        name = self.ca[desc]
        i = next(i for i, ln in enumerate(self.lines) if f'"{name}"\t\t# "{desc}"' in ln)
        return i + 1  # the CA's only port line follows its header

    def peer(self, desc: str) -> tuple[str, int]:
        m = re.search(r'"(S-[0-9a-f]+)"\[(\d+)\]', self.lines[self._ca_line(desc)])
        assert m
        return m.group(1), int(m.group(2))

    def _sw_line(self, sw: str, port: int, ca: str) -> int:
        return next(i for i, ln in enumerate(self.lines) if ln.startswith(f'[{port}]\t"{ca}"') and self._owner(i) == sw)

    def _owner(self, i: int) -> str:
        while not self.lines[i].startswith("Switch"):
            i -= 1
        return re.search(r'"(S-[0-9a-f]+)"', self.lines[i]).group(1)

    def cross(self, d1: str, d2: str):
        (s1, p1), (s2, p2) = self.peer(d1), self.peer(d2)
        c1, c2 = self._ca_line(d1), self._ca_line(d2)
        w1, w2 = self._sw_line(s1, p1, self.ca[d1]), self._sw_line(s2, p2, self.ca[d2])
        self.lines[c1] = self.lines[c1].replace(f'"{s1}"[{p1}]', f'"{s2}"[{p2}]')
        self.lines[c2] = self.lines[c2].replace(f'"{s2}"[{p2}]', f'"{s1}"[{p1}]')
        a, b = self.lines[w1], self.lines[w2]
        self.lines[w1] = f"[{p1}]" + b[len(f"[{p2}]") :]
        self.lines[w2] = f"[{p2}]" + a[len(f"[{p1}]") :]

    def unplug(self, desc: str):
        sw, port = self.peer(desc)
        w = self._sw_line(sw, port, self.ca[desc])
        c = self._ca_line(desc)
        for i in sorted((w, c), reverse=True):
            del self.lines[i]

    def move(self, desc: str, new_port: int):
        sw, port = self.peer(desc)
        w = self._sw_line(sw, port, self.ca[desc])
        c = self._ca_line(desc)
        self.lines[c] = self.lines[c].replace(f'"{sw}"[{port}]', f'"{sw}"[{new_port}]')
        self.lines[w] = f"[{new_port}]" + self.lines[w][len(f"[{port}]") :]

    def join(self, s1: str, p1: int, s2: str, p2: int):
        """A cable between switch `s1` port `p1` and `s2` port `p2` (switches by description)."""
        n1, n2 = self.switch[s1], self.switch[s2]
        for name, port, peer, pport, pdesc in ((n1, p1, n2, p2, s2), (n2, p2, n1, p1, s1)):
            head = next(i for i, ln in enumerate(self.lines) if ln.startswith("Switch\t") and f'"{name}"' in ln)
            self.lines.insert(head + 1, f'[{port}]\t"{peer}"[{pport}]\t\t# "{pdesc}" lid 0 4xNDR')

    def describe_as_running(self, bare: tuple[str, ...] = ()):
        """Switch and CA descriptions as a running fabric prints them; CAs of hosts in `bare` as "<host> mlx5_N"."""
        names = {d: f"MF0;{d}:MQM9700/U1" for d in self.switch}
        for d in self.ca:
            host, rdma = d.rsplit(" ", 1)
            names[d] = d if host in bare else f"{host.lower()}.cm.cluster {rdma}"
        self.lines = [
            re.sub(r'# "([^"]+)"', lambda m: f'# "{names.get(m.group(1), m.group(1))}"', ln) for ln in self.lines
        ]
        self.switch = {names[d]: n for d, n in self.switch.items()}
        self.ca = {names[d]: n for d, n in self.ca.items()}

    def narrow(self, desc: str):
        sw, port = self.peer(desc)
        for i in (self._sw_line(sw, port, self.ca[desc]), self._ca_line(desc)):
            self.lines[i] = re.sub(r"\b4x(NDR|HDR|XDR|EDR)\b", r"1x\1", self.lines[i])


def discover(net_text: str, work: Path, tag: str) -> tuple[str, str]:
    """ibsim serving `net_text`; (ibnetdiscover output, iblinkinfo output) read through libumad2sim. ibsim is
    stopped (by its pid) before returning."""
    net = work / f"{tag}.net"
    net.write_text(net_text)
    env = dict(os.environ, IBSIM_SOCKNAME=f"fd-asbuilt-{os.getpid()}-{tag}")
    first_switch = re.search(r'^Switch\t\d+ "([^"]+)"', net_text, re.M).group(1)
    env["SIM_HOST"] = first_switch
    log = open(work / f"{tag}.ibsim.log", "w")  # noqa: SIM115 - the simulator's log outlives this block; closed when it stops
    proc = subprocess.Popen(
        ["ibsim", "-s", "-n", str(net)],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail("ibsim exited: " + (work / f"{tag}.ibsim.log").read_text()[-2000:])
            p = subprocess.run(
                ["ibsim-run", "ibnetdiscover"], env=env, cwd=work, capture_output=True, text=True, timeout=TIMEOUT
            )
            if p.returncode == 0 and "Switch" in p.stdout:
                break
            if time.monotonic() > deadline:
                pytest.fail("ibsim did not come up: " + p.stderr[-2000:])
            time.sleep(0.5)
        q = subprocess.run(
            ["ibsim-run", "iblinkinfo"], env=env, cwd=work, capture_output=True, text=True, timeout=TIMEOUT
        )
        assert q.returncode == 0, q.stderr[-2000:]
        return p.stdout, q.stdout
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
