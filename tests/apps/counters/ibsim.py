"""A simulated InfiniBand fabric for the counter tests: ibsim serving a revision's planned ibnetdiscover file,
upstream OpenSM running on it (ibqueryerrors asks the SA), and ibsim's console to set port counters
(`PerformanceSet "node"[port] PortCounters.<field>=<value>`). Every process runs with a bounded timeout and is
stopped, by its own pid, by the context manager that started it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

TOOLS = ("ibsim", "ibsim-run", "opensm", "ibqueryerrors")
TIMEOUT = 60
RUN_TRIES = 3
SM_TIMEOUT = 240  # OpenSM's first sweep of a 1-SU fabric through ibsim, on a busy 2-core machine


def need_tools():
    missing = [t for t in TOOLS if shutil.which(t) is None and not Path(f"/usr/sbin/{t}").exists()]
    if missing:
        pytest.skip(
            f"{', '.join(missing)} not installed (Debian: ibsim-utils, opensm, infiniband-diags; "
            "./scripts/test installs them when run as root)"
        )


class SimFabric:
    def __init__(self, env: dict, work: Path, sim: subprocess.Popen):
        self.env, self.work, self.sim = env, work, sim

    def run(self, *args: str) -> str:
        """A diagnostic tool's output. A failed run is tried again, up to RUN_TRIES in all: on a loaded 2-core CI
        machine one ibqueryerrors of three against the same simulated fabric once exited non-zero with nothing on
        stderr, and the tools' queries through the simulator are not what these tests are about. Every failure is
        reported with its exit code and both streams."""
        failures = []
        for _ in range(RUN_TRIES):
            p = subprocess.run(
                ["ibsim-run", *args], env=self.env, cwd=self.work, capture_output=True, text=True, timeout=TIMEOUT
            )
            # ibqueryerrors exits 1 when it found ports with errors: its output is the answer then too
            if p.returncode == 0 or (args[0] == "ibqueryerrors" and p.returncode == 1):
                return p.stdout
            failures.append(f"exit {p.returncode}; stdout …{p.stdout[-800:]!r}; stderr …{p.stderr[-800:]!r}")
            time.sleep(1)
        pytest.fail(f"{' '.join(args)} failed {RUN_TRIES} times:\n" + "\n".join(failures))

    def console(self, command: str) -> None:
        """One ibsim console command; waits until ibsim has printed its answer."""
        log = self.work / "ibsim.log"
        before = log.read_text()
        self.sim.stdin.write(command + "\n")
        self.sim.stdin.flush()
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            new = log.read_text()[len(before) :]
            if "has been set" in new or "#" in new:
                assert "has been set" in new, f"{command!r}: {new[-500:]}"
                return
            time.sleep(0.05)
        pytest.fail(f"ibsim did not answer {command!r}")

    def set_counter(self, node: str, port: int, field: str, value: int) -> None:
        self.console(f'PerformanceSet "{node}"[{port}] PortCounters.{field}={value}')


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def sim_fabric(netfile: Path, work: Path, attach: str):
    """ibsim on `netfile` with OpenSM attached at node `attach` (its SUBNET UP awaited)."""
    need_tools()
    env = dict(
        os.environ,
        IBSIM_SOCKNAME=f"fdcounters-{os.getpid()}-{time.monotonic_ns()}",
        OSM_TMP_DIR=str(work),
        OSM_CACHE_DIR=str(work),
        SIM_HOST=attach,
    )
    log = open(work / "ibsim.log", "w")  # noqa: SIM115 - the simulator's log outlives this block; closed when it stops
    sim = subprocess.Popen(
        ["ibsim", "-s", str(netfile)],
        cwd=work,
        env=env,
        stdin=subprocess.PIPE,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    sm = None
    try:
        deadline = time.monotonic() + TIMEOUT
        while "Network simulator ready" not in (work / "ibsim.log").read_text():
            if sim.poll() is not None or time.monotonic() > deadline:
                pytest.fail("ibsim did not come up: " + (work / "ibsim.log").read_text()[-2000:])
            time.sleep(0.1)
        sm_log = work / "opensm.log"
        sm = subprocess.Popen(
            ["ibsim-run", "opensm", "-e", "-d2", "-f", str(sm_log)],  # -d2: flush each log line
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + SM_TIMEOUT
        while not (sm_log.exists() and "SUBNET UP" in sm_log.read_text()):
            if sm.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    "OpenSM did not bring the subnet up: " + (sm_log.read_text()[-2000:] if sm_log.exists() else "")
                )
            time.sleep(0.2)
        yield SimFabric(env, work, sim)
    finally:
        if sm is not None:
            _stop(sm)
        if sim.stdin:
            sim.stdin.close()
        _stop(sim)
        log.close()
