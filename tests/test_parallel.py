"""tests/parallel.py: what each pytest-xdist worker gets of its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.parallel import ROOT, ParallelConfigError, worker_environment

CI = {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "REDIS_URL": "redis://127.0.0.1:6379/1"}


def test_the_first_worker_keeps_the_configured_redis_databases():
    env = worker_environment(CI, 0, 2)
    assert (env["CELERY_BROKER_URL"], env["REDIS_URL"]) == (CI["CELERY_BROKER_URL"], CI["REDIS_URL"])


def test_each_further_worker_takes_the_next_databases_of_the_same_span():
    envs = [worker_environment(CI, i, 3) for i in range(3)]
    assert [(e["CELERY_BROKER_URL"][-2:], e["REDIS_URL"][-2:]) for e in envs] == [
        ("/0", "/1"),
        ("/2", "/3"),
        ("/4", "/5"),
    ]


def test_databases_far_apart_still_never_overlap_between_workers():
    env = {"CELERY_BROKER_URL": "redis://h/0", "REDIS_URL": "redis://h/2"}
    used = [
        {int(e["CELERY_BROKER_URL"].rsplit("/", 1)[1]), int(e["REDIS_URL"].rsplit("/", 1)[1])}
        for e in (worker_environment(env, i, 4) for i in range(4))
    ]
    assert all(a.isdisjoint(b) for i, a in enumerate(used) for b in used[i + 1 :]), used


def test_a_url_without_a_database_is_database_0_and_keeps_its_password_and_query():
    env = worker_environment({"REDIS_URL": "redis://:pw@h:6380?socket_timeout=2"}, 1, 2)
    assert env["REDIS_URL"] == "redis://:pw@h:6380/1?socket_timeout=2"


def test_other_brokers_are_left_alone():
    env = worker_environment({"CELERY_BROKER_URL": "amqp://guest@h//", "REDIS_URL": ""}, 1, 2)
    assert set(env) == {"FABRICDESIGN_VAR_DIR"}


def test_too_many_workers_for_redis_is_a_clear_error_naming_the_urls():
    with pytest.raises(ParallelConfigError, match=r"up to 17 .*REDIS_URL=redis://h/13.*fewer workers"):
        worker_environment({"CELERY_BROKER_URL": "redis://h/12", "REDIS_URL": "redis://h/13"}, 0, 3)


def test_each_worker_has_a_var_folder_of_its_own_under_the_configured_one(tmp_path):
    assert worker_environment({"FABRICDESIGN_VAR_DIR": str(tmp_path)}, 1, 2)["FABRICDESIGN_VAR_DIR"] == str(
        tmp_path / "test-workers" / "gw1"
    )
    assert worker_environment({}, 0, 2)["FABRICDESIGN_VAR_DIR"] == str(ROOT / "var" / "test-workers" / "gw0")


def test_settings_use_this_worker_s_var_folder_and_a_single_process_the_configured_one():
    from django.conf import settings

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    var = Path(settings.VAR_DIR)
    if worker:
        assert (var.parent.name, var.name) == ("test-workers", worker)
    else:
        assert "test-workers" not in var.parts


def test_an_xdist_worker_raises_the_recursion_limit_by_the_frames_it_adds_and_one_process_keeps_it():
    import sys

    from tests.conftest import _DEFAULT_RECURSION_LIMIT
    from tests.parallel import xdist_frames

    if os.environ.get("PYTEST_XDIST_WORKER"):
        assert xdist_frames() > 0
        assert sys.getrecursionlimit() == _DEFAULT_RECURSION_LIMIT + xdist_frames()
    else:
        assert (xdist_frames(), sys.getrecursionlimit()) == (0, _DEFAULT_RECURSION_LIMIT)
