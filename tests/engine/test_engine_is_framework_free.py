"""The engine, and the deliverables package that renders its results, must stay importable and runnable without
Django, DRF or Celery, and import nothing of the apps above them (house style: only dataclasses cross the engine
boundary; the web app adapts them). The layers: engine <- deliverables <- apps; the engine imports neither."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ENGINE_DIR = Path(engine.__file__).resolve().parent
REPO_ROOT = ENGINE_DIR.parent
FRAMEWORKS = ("django", "rest_framework", "celery")
# package -> the top-level packages of this repository it must not import (frameworks aside)
PACKAGES = {"engine": ("apps", "fabricdesign", "deliverables"), "deliverables": ("apps", "fabricdesign")}


def package_modules(package: str = "engine") -> list[str]:
    """Every module and package under a top-level package, found by walking it (new modules are picked up)."""
    names = [package]
    for info in pkgutil.walk_packages([str(REPO_ROOT / package)], prefix=f"{package}."):
        names.append(info.name)
    return sorted(names)


def engine_modules() -> list[str]:
    return package_modules("engine")


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


def test_it_finds_the_renderers_when_walking_the_deliverables():
    assert {"deliverables.registry", "deliverables.bom", "deliverables.labels"} <= set(package_modules("deliverables"))


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_it_imports_every_module_without_loading_a_web_framework_or_an_app(package):
    mods = package_modules(package)
    banned = set(FRAMEWORKS) | set(PACKAGES[package])
    code = (
        "import importlib, sys\n"
        f"mods = {mods!r}\n"
        "for m in mods:\n"
        "    importlib.import_module(m)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {banned!r})\n"
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


def _source_imports(package: str) -> list[str]:
    """`file:line: import` of every import of a banned package in the package's source, function-local ones and
    dynamic ones included (the import test cannot see an import behind a flag)."""
    banned = "|".join((*FRAMEWORKS, *PACKAGES[package]))
    static = re.compile(rf"^\s*(?:import|from)\s+({banned})\b", re.MULTILINE)
    dynamic = re.compile(rf"""(?:import_module|__import__)\(\s*['"]({banned})\b""")
    offenders = []
    for path in sorted((REPO_ROOT / package).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in static.finditer(text):
            offenders.append(
                f"{path.relative_to(REPO_ROOT)}:{text[: m.start()].count(chr(10)) + 1}: {m.group(0).strip()}"
            )
        for m in dynamic.finditer(text):
            offenders.append(f"{path.relative_to(REPO_ROOT)}: dynamic import of {m.group(1)}")
    return offenders


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_source_file_imports_a_web_framework_or_a_layer_above(package):
    """Also catches imports hidden in functions or behind flags, which the import test cannot see."""
    assert _source_imports(package) == []


def test_the_source_check_sees_a_lazy_import_of_an_app(tmp_path, monkeypatch):
    (tmp_path / "deliverables").mkdir()
    (tmp_path / "deliverables" / "late.py").write_text(
        "def f():\n    from apps.exports.services import DELIVERABLES\n    importlib.import_module('django.conf')\n"
    )
    monkeypatch.setattr(f"{__name__}.REPO_ROOT", tmp_path)
    assert _source_imports("deliverables") == [
        "deliverables/late.py:2: from apps",
        "deliverables/late.py: dynamic import of django",
    ]
