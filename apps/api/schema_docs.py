"""Descriptions the views do not give: each operation's, from docs/api.md's "Operation reference" (one text for
readers of the docs and for the schema: Swagger UI, Redoc, a generated client's docstrings), and the path
parameters', by name (the same parameter means the same thing on every path).

Why the docs and not @extend_schema(description=...): the reference is written and reviewed as prose beside the
rest of docs/api.md, and tests/apps/api/test_api_docs.py already holds that file to the schema's operationIds.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from drf_spectacular.drainage import warn

SECTION = "## Operation reference"
PATH_PARAMETERS = {
    "design_id": "The design's id (`id` of designs_list and designs_create).",
    "number": "The revision's number within the design (1, 2, ...; `number` of revisions_list).",
    "job_id": "The job's id (a UUID; the 202 answer's `id` and Location).",
    "part_id": "The custom part's id (`id` of parts_list and parts_create).",
    "token_id": "The token's id (`id` of tokens_list).",
    "username": "The account's username (the owner shares with it; a recipient gives back their own).",
    "section": "A catalog section.",
    "key": "The preset's key (`key` of presets_list).",
    "kind": "The file's kind (`kind` of revisions_downloads_list, e.g. bom.csv).",
    "name": "The configuration file's name (`name` of revisions_configs_list; configs.zip: all of them).",
    "upload_id": "The measured-results upload's id (`id` of revisions_measurements_list).",
    "snapshot_id": "The utilization snapshot's id (`id` of revisions_utilization_list).",
}
HEADING = re.compile(r"^### `([A-Za-z0-9_]+)`[ \t]*$", re.M)


def api_doc() -> Path:
    return Path(settings.BASE_DIR) / "docs" / "api.md"


def operation_descriptions(text: str) -> dict[str, str]:
    """{operationId: its paragraphs} from the reference section (up to the next `## ` heading)."""
    start = text.find(f"\n{SECTION}\n")
    if start < 0:
        return {}
    body = text[start + len(SECTION) + 2 :]
    end = re.search(r"^## ", body, re.M)
    body = body[: end.start()] if end else body
    heads = list(HEADING.finditer(body))
    found = {}
    for head, nxt in zip(heads, [*heads[1:], None], strict=True):
        found[head.group(1)] = body[head.end() : nxt.start() if nxt else len(body)].strip()
    return found


@lru_cache(maxsize=4)
def _descriptions(path: Path, mtime: float) -> dict[str, str]:
    return operation_descriptions(path.read_text(encoding="utf-8"))


def add_operation_descriptions(result, generator, request, public):
    """POSTPROCESSING_HOOK: each operation's description from docs/api.md; a warning (which fails
    `spectacular --fail-on-warn` and tests/apps/api/test_schema.py) for one described nowhere or twice."""
    path = api_doc()
    descriptions = _descriptions(path, path.stat().st_mtime) if path.exists() else {}
    for item in result.get("paths", {}).values():
        for op in item.values():
            op_id = op.get("operationId")
            text = descriptions.get(op_id)
            if not text:
                warn(f"{op_id}: no '### `{op_id}`' with a description under '{SECTION}' in docs/api.md")
                continue
            if op.get("description"):
                warn(f"{op_id}: described in code and in docs/api.md; keep only docs/api.md's text")
            op["description"] = text
            for parameter in op.get("parameters", []):
                if parameter.get("in") == "path" and not parameter.get("description"):
                    if parameter["name"] not in PATH_PARAMETERS:
                        warn(f"{op_id}: path parameter {parameter['name']} has no description in PATH_PARAMETERS")
                    else:
                        parameter["description"] = PATH_PARAMETERS[parameter["name"]]
    return result
