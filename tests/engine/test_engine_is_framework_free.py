"""The engine must stay importable and runnable without Django, DRF or Celery (house style: only
dataclasses cross the engine boundary; the web app adapts them)."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import engine

ENGINE_DIR = Path(engine.__file__).resolve().parent
REPO_ROOT = ENGINE_DIR.parent
FRAMEWORKS = ("django", "rest_framework", "celery")


def engine_modules() -> list[str]:
    """Every module and package under engine/, found by walking the package (new modules are picked up)."""
    names = ["engine"]
    for info in pkgutil.walk_packages([str(ENGINE_DIR)], prefix="engine."):
        names.append(info.name)
    return sorted(names)


def test_it_finds_the_core_modules_when_walking_the_package():
    mods = set(engine_modules())
    for expected in (
        "engine.spec",
        "engine.pipeline",
        "engine.catalog",
        "engine.topology.compute",
        "engine.placement",
        "engine.runlength",
        "engine.verify",
        "engine.summary",
    ):
        assert expected in mods


def test_it_imports_every_engine_module_without_loading_a_web_framework():
    mods = engine_modules()
    code = (
        "import importlib, sys\n"
        f"mods = {mods!r}\n"
        "for m in mods:\n"
        "    importlib.import_module(m)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {set(FRAMEWORKS)!r})\n"
        "assert not bad, bad\n"
        "print(len(mods))\n"
    )
    # A clean interpreter: this test process may already hold Django (e.g. under the full suite).
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip()) == len(mods)


def test_it_runs_a_design_in_a_clean_interpreter_without_a_web_framework():
    code = (
        "import sys\n"
        "from engine.spec import parse_spec\n"
        "from engine.catalog import load_catalog\n"
        "from engine.pipeline import compute_design\n"
        "r = compute_design(parse_spec({'name': 'x', 'servers': {'model': 'dgx-h100', 'count': 32},\n"
        "    'compute_fabric': {'technology': 'infiniband', 'switch': 'qm9700'}}), load_catalog(with_media=False))\n"
        f"assert not any(m.split('.')[0] in {set(FRAMEWORKS)!r} for m in sys.modules)\n"
        "print(len(r.links))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip()) == 512


_IMPORT = re.compile(r"^\s*(?:import|from)\s+(django|rest_framework|celery)\b", re.MULTILINE)


def test_no_engine_source_file_imports_a_web_framework():
    """Also catches imports hidden in functions or behind flags, which the import test cannot see."""
    offenders = []
    for path in sorted(ENGINE_DIR.rglob("*.py")):
        for m in _IMPORT.finditer(path.read_text(encoding="utf-8")):
            line = path.read_text(encoding="utf-8")[: m.start()].count("\n") + 1
            offenders.append(f"{path.relative_to(REPO_ROOT)}:{line}: {m.group(0).strip()}")
        text = path.read_text(encoding="utf-8")
        for name in FRAMEWORKS:
            if re.search(rf"""(?:import_module|__import__)\(\s*['"]{name}""", text):
                offenders.append(f"{path.relative_to(REPO_ROOT)}: dynamic import of {name}")
    assert offenders == []
