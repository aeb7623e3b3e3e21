"""No function grows past the house limits (complexity 15, as ruff's C901 counts it; 120 lines) unless
docs/allowances.md lists it, and that list only shrinks: a listed function may not grow past its listed
figures, and one that has come within the limits (or is gone) must leave the list."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ALLOWANCES = ROOT / "docs" / "allowances.md"
MAX_COMPLEXITY = 15
MAX_LINES = 120
RUFF = Path(sys.executable).with_name("ruff")

ROW = re.compile(
    r"^\|\s*(?P<file>[\w/.-]+\.py)\s*\|\s*`?(?P<func>[\w.]+)`?\s*\|\s*(?P<cx>\d+|-)\s*\|\s*(?P<lines>\d+|-)\s*\|"
)


def allowances() -> dict[tuple[str, str], tuple[int | None, int | None]]:
    out = {}
    for line in ALLOWANCES.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            key = (m["file"], m["func"])
            assert key not in out, f"{key} is listed twice in {ALLOWANCES.name}"
            cx, lines = (None if v == "-" else int(v) for v in (m["cx"], m["lines"]))
            out[key] = (cx, lines)
    return out


def _functions(path: Path) -> dict[int, tuple[str, int]]:
    """{line of the def: (qualified name, lines from the def to its last line)} for every function in a file."""
    found: dict[int, tuple[str, int]] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found[child.lineno] = (name, child.end_lineno - child.lineno + 1)
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def measured() -> dict[tuple[str, str], tuple[int | None, int | None]]:
    """Every function over a limit: {(file, qualified name): (complexity or None, lines or None)}."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    files = [f for f in files if "/migrations/" not in f and (ROOT / f).is_file()]
    over: dict[tuple[str, str], list[int | None]] = {}
    defs = {f: _functions(ROOT / f) for f in files}
    for f, funcs in defs.items():
        for name, lines in funcs.values():
            if lines > MAX_LINES:
                over.setdefault((f, name), [None, None])[1] = lines
    # ruff's own count, so that this test and CI's C901 never disagree; --ignore-noqa sees the allowed ones too.
    report = subprocess.run(
        [str(RUFF), "check", "--select", "C901", "--ignore-noqa", "--exit-zero", "--output-format", "json", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for d in json.loads(report):
        f = Path(d["filename"]).resolve().relative_to(ROOT).as_posix()
        row = d["location"]["row"]
        name, _ = defs[f][row] if row in defs.get(f, {}) else _functions(ROOT / f)[row]
        cx = int(re.search(r"\((\d+) > \d+\)", d["message"])[1])
        over.setdefault((f, name), [None, None])[0] = cx
    return {k: (v[0], v[1]) for k, v in over.items()}


@pytest.fixture(scope="module")
def figures():
    if not RUFF.exists():
        pytest.skip(f"ruff is not installed beside {sys.executable}")
    return measured(), allowances()


def test_the_complexity_limit_is_the_one_ruff_enforces():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(rf"^max-complexity = {MAX_COMPLEXITY}$", text, re.M)
    assert '"C901"' in text


def test_no_function_is_over_the_limits_outside_the_allowances(figures):
    over, allowed = figures
    new = []
    for key, (cx, lines) in sorted(over.items()):
        a_cx, a_lines = allowed.get(key, (None, None))
        if cx is not None and (a_cx is None or cx > a_cx):
            new.append(f"{key[0]}: {key[1]} has complexity {cx} (allowed {a_cx or MAX_COMPLEXITY})")
        if lines is not None and (a_lines is None or lines > a_lines):
            new.append(f"{key[0]}: {key[1]} has {lines} lines (allowed {a_lines or MAX_LINES})")
    assert new == [], "split these into named stages (docs/allowances.md lists only what is shrinking)"


def test_every_allowance_is_still_needed(figures):
    over, allowed = figures
    stale = []
    for key, (a_cx, a_lines) in sorted(allowed.items()):
        cx, lines = over.get(key, (None, None))
        if a_cx is not None and cx is None:
            stale.append(f"{key[0]}: {key[1]} is within complexity {MAX_COMPLEXITY} now: '-' in its column")
        if a_lines is not None and lines is None:
            stale.append(f"{key[0]}: {key[1]} is within {MAX_LINES} lines now: '-' in its column")
        if a_cx is None and a_lines is None:
            stale.append(f"{key[0]}: {key[1]} needs no allowance: remove its row")
    assert stale == [], "the allowance list only shrinks: update docs/allowances.md"


def test_every_allowed_complex_function_says_so_where_it_is_defined(figures):
    """ruff's `# noqa: C901` and the list agree (RUF100 reports a noqa no longer needed)."""
    _, allowed = figures
    missing = []
    for (f, name), (a_cx, _) in sorted(allowed.items()):
        if a_cx is None:
            continue
        short = name.rsplit(".", 1)[-1]
        text = (ROOT / f).read_text(encoding="utf-8")
        if not re.search(rf"def {short}\(.*# noqa: C901", text):
            missing.append(f"{f}: {name}")
    assert missing == [], "add `# noqa: C901` on the def line"


def test_every_file_allowed_local_imports_still_has_one():
    """pyproject.toml lists, file by file, where a function-local import (PLC0415) is still allowed; a file
    that no longer has one leaves the list."""
    if not RUFF.exists():
        pytest.skip(f"ruff is not installed beside {sys.executable}")
    ignores = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"][
        "per-file-ignores"
    ]
    listed = sorted(f for f, codes in ignores.items() if "PLC0415" in codes and not any(c in f for c in "*?["))
    report = subprocess.run(
        [str(RUFF), "check", "--isolated", "--select", "PLC0415", "--exit-zero", "--output-format", "json", *listed],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    still = {Path(d["filename"]).resolve().relative_to(ROOT).as_posix() for d in json.loads(report)}
    assert [f for f in listed if f not in still] == [], "no local import left: remove its PLC0415 entry"
