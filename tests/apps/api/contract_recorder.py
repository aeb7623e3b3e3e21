"""Every answer an API view gives in the API tests, held against docs/openapi.yaml: its status is declared for the
operation, a 304 only where the operation declares If-None-Match, a 412 only where it declares If-Match, and the
ETag, Location and Retry-After headers it sends are declared on that status.

tests/apps/api/conftest.py turns it on for every test of the directory, so the recorded run of the existing API
tests is the check: a view that answers a status or honours a header the schema does not declare fails the test
that saw it (at its teardown, naming the operation). Answers from outside DRF views (Django's 404 for an unknown
URL, gunicorn) are not seen here; tests/apps/api/test_request_line_limit.py covers gunicorn's.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

SCHEMA_FILE = Path(__file__).resolve().parents[3] / "docs" / "openapi.yaml"
CHECKED_HEADERS = ("ETag", "Location", "Retry-After")


@lru_cache(maxsize=1)
def _operations() -> dict[tuple[str, str], dict]:
    schema = yaml.safe_load(SCHEMA_FILE.read_text())
    return {(path, method): op for path, item in schema["paths"].items() for method, op in item.items()}


def _schema_path(route: str) -> str:
    """A Django route ("api/v1/designs/<int:design_id>/") as the schema names it ("/api/v1/designs/{design_id}/")."""
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def violations(request, response) -> list[str]:
    """What the answer does that the schema does not declare; [] when it is declared (or not an API operation)."""
    match = getattr(request, "resolver_match", None)
    if match is None or not match.route.startswith("api/v1/"):
        return []
    path, method = _schema_path(match.route), request.method.lower()
    op = _operations().get((path, method))
    if op is None:  # a method the path does not take (405), the API's catch-all 404, HEAD and OPTIONS
        ok = method in ("head", "options") or response.status_code in (404, 405)
        return [] if ok else [f"{method.upper()} {path}: no such operation in the schema"]
    name, status = op["operationId"], str(response.status_code)
    declared = op["responses"].get(status)
    if declared is None:
        return [f"{name} answered {status}, which it does not declare ({', '.join(op['responses'])})"]
    params = {p["name"] for p in op.get("parameters", []) if p["in"] == "header"}
    out = []
    for code, header in (("304", "If-None-Match"), ("412", "If-Match")):
        if status == code and header not in params:
            out.append(f"{name} answered {code} to {header}, a header it does not declare")
    headers = declared.get("headers", {})
    out += [
        f"{name} sent {h} with its {status}, which the schema does not declare"
        for h in CHECKED_HEADERS
        if response.has_header(h) and h not in headers
    ]
    return out


__all__ = ["violations"]
