"""Run Debian's promtool (package `prometheus`; scripts/test installs it as root) on generated files."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed (apt-get install prometheus)")


def promtool(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def check_expressions(exprs: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    """promtool parses every expression: each becomes a recording rule of a throwaway rules file."""
    doc = {
        "groups": [{"name": "parse", "rules": [{"record": f"check:expr_{i}", "expr": e} for i, e in enumerate(exprs)]}]
    }
    path = tmp_path / "expressions.yaml"
    path.write_text(yaml.safe_dump(doc))
    return promtool("check", "rules", str(path))
