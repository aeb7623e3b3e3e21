"""The fuzz run's reach check across xdist workers (tests/apps/api/test_fuzz.py).

Under `./scripts/test` the schemathesis items are handed out one at a time to several workers, so no one process
sees every operation run and test_every_operation_was_reached_with_a_2xx skips itself. Each worker therefore
sends what it ran and what answered a 2xx to the controller through xdist's workeroutput channel, and the
controller applies the same rule to the union once every worker is down: every operation ran, and every one but
the documented NEVER_2XX answered a 2xx at least once. A miss fails the run (exit status 1) and says which.
"""

from __future__ import annotations

import sys

FUZZ_MODULE = "tests.apps.api.test_fuzz"
KEY = "fuzz_reach"


def worker_output() -> dict | None:
    """What this worker's fuzz items ran and reached (None when it ran none)."""
    fuzz = sys.modules.get(FUZZ_MODULE)
    if fuzz is None or not fuzz.RAN:
        return None
    operations = {
        op.definition.raw["operationId"] for op in (r.ok() for r in fuzz.schema.get_all_operations()) if op is not None
    }
    return {
        "operations": sorted(operations),
        "never_2xx": sorted(fuzz.NEVER_2XX),
        "ran": sorted(fuzz.RAN),
        "reached": sorted(fuzz.REACHED),
    }


def summary(outputs: list[dict]) -> str:
    """One line for the run's end: how many operations the workers ran and reached."""
    ran = set().union(*(o["ran"] for o in outputs))
    reached = set().union(*(o["reached"] for o in outputs))
    return (
        f"fuzz reach over {len(outputs)} workers: {len(ran)} of {len(outputs[0]['operations'])} operations ran, "
        f"{len(reached)} answered a 2xx"
    )


def verdict(outputs: list[dict]) -> str | None:
    """None when the union of the workers' outputs reaches every operation (or the fuzz items did not all run,
    e.g. under -k); otherwise what is missing."""
    if not outputs:
        return None
    operations = set(outputs[0]["operations"])
    ran = set().union(*(o["ran"] for o in outputs))
    if ran != operations:
        return None  # a partial run (-k, a test path): nothing to hold it to
    reached = set().union(*(o["reached"] for o in outputs))
    missing = sorted(operations - reached - set(outputs[0]["never_2xx"]))
    if not missing:
        return None
    return "fuzz with data: these operations never answered a 2xx: " + ", ".join(missing)
