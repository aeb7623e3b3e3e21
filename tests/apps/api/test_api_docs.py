"""docs/api.md documents every operation of the schema.

GIVEN the schema the code generates (docs/openapi.yaml, itself checked against the code by test_schema.py)
WHEN its operationIds are compared with docs/api.md
THEN each has a row of the "Operations" table with its method, path and summary, and every row names an operation
     the schema has. (Each operation's description is its text in the "Operation reference", which the schema
     takes from this file: tests/apps/api/test_schema_descriptions.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "api.md"


SCHEMA = yaml.safe_load((ROOT / "docs" / "openapi.yaml").read_text())


def _operation_ids() -> set[str]:
    return {op["operationId"] for item in SCHEMA["paths"].values() for op in item.values() if "operationId" in op}


def _operations_table(text: str) -> set[str]:
    section = re.search(r"^## Operations\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "docs/api.md has no '## Operations' section"
    return set(re.findall(r"^\| `([A-Za-z0-9_]+)` \|", section.group(1), re.M))


def test_every_operation_is_documented():
    text = DOC.read_text()
    named = set(re.findall(r"`([A-Za-z0-9_]+)`", text))
    missing = sorted(_operation_ids() - named)
    assert not missing, f"docs/api.md does not name these operations (add a row to '## Operations'): {missing}"


def test_the_operations_table_names_only_operations_of_the_schema():
    table = _operations_table(DOC.read_text())
    assert table, "the Operations table has no rows"
    stale = sorted(table - _operation_ids())
    assert not stale, f"docs/api.md's Operations table names operations the schema does not have: {stale}"


def test_each_row_gives_the_method_path_and_summary_of_its_operation():
    section = re.search(r"^## Operations\n(.*?)(?=^## )", DOC.read_text(), re.S | re.M).group(1)
    rows = {
        op_id: (method, path, what)
        for op_id, method, path, what in re.findall(r"^\| `(\w+)` \| `([A-Z]+) ([^`]+)` \| (.*) \|$", section, re.M)
    }
    for path, item in SCHEMA["paths"].items():
        for method, op in item.items():
            expected = (method.upper(), path.removeprefix("/api/v1"), op["summary"])
            assert rows.get(op["operationId"]) == expected, f"docs/api.md's row of {op['operationId']}"
