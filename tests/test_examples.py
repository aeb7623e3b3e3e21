"""Example pictures land in docs/examples/ only when asked for."""

from __future__ import annotations

from tests.examples import DOCS_EXAMPLES, examples_dir


def test_an_ordinary_run_writes_outside_the_work_tree(monkeypatch):
    monkeypatch.delenv("FABRICDESIGN_WRITE_EXAMPLES", raising=False)
    folder = examples_dir()
    assert folder.is_dir()
    assert DOCS_EXAMPLES.parents[1] not in folder.parents


def test_asked_for_they_refresh_docs_examples(monkeypatch):
    monkeypatch.setenv("FABRICDESIGN_WRITE_EXAMPLES", "1")
    assert examples_dir() == DOCS_EXAMPLES
