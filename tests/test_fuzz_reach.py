"""The fuzz run's reach rule over several xdist workers (tests/fuzz_reach.py): the union of what the workers ran
and reached is held to the same rule one process holds itself to."""

from __future__ import annotations

from tests.fuzz_reach import summary, verdict


def _out(ran, reached):
    return {"operations": ["a", "b", "c", "tokens"], "never_2xx": ["tokens"], "ran": ran, "reached": reached}


def test_operations_reached_on_different_workers_count_together():
    assert verdict([_out(["a", "b"], ["a"]), _out(["c", "tokens"], ["b", "c"])]) is None


def test_an_operation_no_worker_reached_fails_the_run_naming_it():
    assert verdict([_out(["a", "b"], ["a"]), _out(["c", "tokens"], ["c"])]) == (
        "fuzz with data: these operations never answered a 2xx: b"
    )


def test_a_partial_run_is_not_held_to_it():
    assert verdict([_out(["a"], [])]) is None
    assert verdict([]) is None


def test_the_summary_counts_the_union():
    assert summary([_out(["a", "b"], ["a"]), _out(["c"], ["c"])]) == (
        "fuzz reach over 2 workers: 3 of 4 operations ran, 2 answered a 2xx"
    )
