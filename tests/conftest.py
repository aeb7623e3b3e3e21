"""Fixtures shared by every Django test.

This module is also loaded for tests/engine, which must run without Django
(`pytest -p no:django tests/engine`): import Django lazily inside fixtures,
and add nothing autouse that touches the database or settings.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from tests import fuzz_reach
from tests.parallel import ParallelConfigError, slow_modules_first, worker_environment, xdist_frames


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config, specs):
    """Before the xdist workers start: give each its own Redis databases and var folder (tests/parallel.py)."""
    for index, spec in enumerate(specs):
        try:
            spec.env.update(worker_environment(os.environ, index, len(specs)))
        except ParallelConfigError as e:
            raise pytest.UsageError(str(e)) from None


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller keeps each worker's fuzz reach (tests/fuzz_reach.py)."""
    out = getattr(node, "workeroutput", {}).get(fuzz_reach.KEY)
    if out is not None:
        node.config.stash.setdefault(_FUZZ_OUTPUTS, []).append(out)


_FUZZ_OUTPUTS = pytest.StashKey[list]()


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workeroutput"):  # an xdist worker: send its fuzz reach to the controller
        out = fuzz_reach.worker_output()
        if out is not None:
            config.workeroutput[fuzz_reach.KEY] = out
    elif not os.environ.get("PYTEST_XDIST_WORKER"):
        outputs = config.stash.get(_FUZZ_OUTPUTS, [])
        if outputs:
            session.config.get_terminal_writer().line(fuzz_reach.summary(outputs))
        missing = fuzz_reach.verdict(outputs)
        if missing:
            session.config.get_terminal_writer().line(f"FAILED {missing}", red=True)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        slow_modules_first(items)


_DEFAULT_RECURSION_LIMIT = sys.getrecursionlimit()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # An xdist worker runs each test under execnet's and xdist's frames, which one process does not have: the
    # recursion limit grows by as many, so a test has the stack headroom it has in one process
    # (tests/apps/api/test_abuse.py opens a spec stored 900 levels deep, close to Python's default limit).
    if os.environ.get("PYTEST_XDIST_WORKER") and sys.getrecursionlimit() == _DEFAULT_RECURSION_LIMIT:
        sys.setrecursionlimit(_DEFAULT_RECURSION_LIMIT + xdist_frames())


@dataclass(frozen=True)
class Users:
    """The shared cast for permission tests:

    alice   owns the designs under test
    bob     collaborates on alice's designs
    charlie is an outsider with no access to them
    """

    alice: Any
    bob: Any
    charlie: Any


@pytest.fixture
def users(db) -> Users:
    from django.contrib.auth import get_user_model

    user_model = get_user_model()
    return Users(
        **{
            # No password: hashing costs ~0.1 s each. Log in with client.force_login().
            name: user_model.objects.create_user(username=name, email=f"{name}@example.com")
            for name in ("alice", "bob", "charlie")
        }
    )


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()
