"""Structured input from outside is parsed only by the input gate (engine/inputgate.py).

A parser called on its own skips the gate's size, depth, alias and node-count limits: that is how the catalog
page's custom-part body (an alias bomb: 589 bytes, 213 MB saved), `plan --catalog` and lldpctl JSON 200,000 deep
(a RecursionError, a 500) got through while the spec editor, which used the gate, held. This test fails when
yaml.safe_load, yaml.load, json.loads, json.load, csv.reader or csv.DictReader is called anywhere in apps/,
engine/ or fabricdesign/ except where TRUSTED lists it: the gate itself and readers of the app's own data (files
shipped in the repository, what the app stored or cached itself, the operator's configuration). Each entry
counts its calls, so a new call in a listed file fails too until it is routed through the gate or listed here
with its reason.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARSERS = {
    ("yaml", "safe_load"),
    ("yaml", "load"),
    ("yaml", "unsafe_load"),
    ("yaml", "full_load"),
    ("json", "loads"),
    ("json", "load"),
    ("csv", "reader"),
    ("csv", "DictReader"),
}

# file -> (calls, why the text it parses is trusted)
TRUSTED: dict[str, tuple[int, str]] = {
    "engine/inputgate.py": (2, "the gate: json.loads behind its limits, csv.reader behind its row and cell limits"),
    "apps/qos/selectors.py": (2, "the configs.zip the app built and stored itself"),
    "apps/designs/orders.py": (1, "the app's own cached JSON (compute_once)"),
    "apps/exports/failures.py": (1, "the app's own cached JSON (compute_once)"),
    "apps/counters/selectors.py": (1, "the app's own cached panel facts (compute_once)"),
    "apps/exports/renderers/netbox.py": (1, "NetBox import field list shipped in the repository"),
    "apps/exports/renderers/options.py": (2, "label stocks and cord diameters shipped in the repository"),
    "apps/api/schema_examples.py": (1, "recorded API examples shipped in the repository"),
    "engine/snapshot_codec.py": (1, "a revision snapshot the app compressed and stored itself"),
    "engine/spec.py": (1, "the spec's own normalized JSON (parsed from user text by the gate first)"),
    "engine/alternatives/candidates.py": (1, "a candidate spec's own normalized JSON (made by engine/spec.py)"),
    "engine/catalog/loader.py": (1, "the catalog's data files shipped in the repository (hardware, media, counts)"),
    "engine/orders/failure_rates.py": (1, "failure-rate defaults shipped in the repository"),
    "engine/counters/thresholds.py": (1, "counter thresholds shipped in the repository"),
    "engine/presets/__init__.py": (3, "design presets shipped in the repository"),
    "engine/traffic/throughput.py": (1, "GPU rates shipped in the repository"),
    "engine/traffic/workload.py": (2, "workload presets shipped in the repository"),
    "fabricdesign/env.py": (1, "the operator's configuration file, read at startup"),
}


def _calls(path: Path) -> int:
    tree = ast.parse(path.read_text(), filename=str(path))
    aliases: dict[str, tuple[str, str]] = {}  # `from json import loads as x` -> x: ("json", "loads")
    modules: dict[str, str] = {}  # `import json as j` -> j: "json"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in {"yaml", "json", "csv"}:
            for a in node.names:
                if (node.module, a.name) in PARSERS:
                    aliases[a.asname or a.name] = (node.module, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in {"yaml", "json", "csv"}:
                    modules[a.asname or a.name] = a.name
    found = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            if (modules.get(f.value.id), f.attr) in PARSERS:
                found += 1
        elif isinstance(f, ast.Name) and f.id in aliases:
            found += 1
    return found


def parser_calls() -> Counter:
    found: Counter = Counter()
    for top in ("apps", "engine", "fabricdesign"):
        for path in sorted((ROOT / top).rglob("*.py")):
            n = _calls(path)
            if n:
                found[str(path.relative_to(ROOT))] = n
    return found


def test_user_input_is_parsed_only_through_the_gate():
    found = parser_calls()
    trusted = {path: calls for path, (calls, _why) in TRUSTED.items()}
    unexpected = {p: n for p, n in found.items() if n > trusted.get(p, 0)}
    assert unexpected == {}, "parse outside input with engine.inputgate (load_yaml/load_json/csv_rows)"


def test_every_trusted_entry_is_still_true():
    found = parser_calls()
    stale = {p: (found.get(p, 0), calls) for p, (calls, _why) in TRUSTED.items() if found.get(p, 0) != calls}
    assert stale == {}, "update TRUSTED: (calls found, calls listed)"


def test_the_lint_sees_every_spelling_of_a_call(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import json\nimport yaml as y\nfrom csv import DictReader as R\n"
        "json.loads(a)\ny.safe_load(b)\nR(c)\nyaml.safe_load(d)\n"
    )
    assert _calls(sample) == 3  # the last `yaml` is not the imported module's name here
