"""docs/api.md documents every operation of the schema.

GIVEN the schema the code generates (docs/openapi.yaml, itself checked against the code by test_schema.py)
WHEN its operationIds are compared with docs/api.md
THEN each is named there in backticks (its own section, or a row of the "Operations" table), and every row of
     that table names an operation the schema has. A new endpoint passes by naming its operationId in the section
     that documents it.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "api.md"


def _operation_ids() -> set[str]:
    schema = yaml.safe_load((ROOT / "docs" / "openapi.yaml").read_text())
    return {op["operationId"] for item in schema["paths"].values() for op in item.values() if "operationId" in op}


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
