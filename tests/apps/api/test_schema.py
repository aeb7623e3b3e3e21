"""The published OpenAPI schema (docs/openapi.yaml) is generated from the code and cannot drift."""

from __future__ import annotations

from pathlib import Path

import yaml
from django.core.management import call_command

PUBLISHED = Path(__file__).resolve().parents[3] / "docs" / "openapi.yaml"
REGENERATE = (
    "DJANGO_DEBUG=true .venv/bin/python manage.py spectacular --validate --fail-on-warn --file docs/openapi.yaml"
)


def test_it_matches_the_schema_generated_from_the_code(tmp_path):
    out = tmp_path / "openapi.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert out.read_text() == PUBLISHED.read_text(), f"docs/openapi.yaml is stale; regenerate it: {REGENERATE}"


def test_the_app_serves_the_same_schema_without_login(client):
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    assert response.json() == yaml.safe_load(PUBLISHED.read_text())


def test_every_operation_has_an_operation_id_a_summary_and_the_error_shape():
    schema = yaml.safe_load(PUBLISHED.read_text())
    ids = []
    for path, item in schema["paths"].items():
        assert path.startswith("/api/v1/")
        for method, op in item.items():
            ids.append(op["operationId"])
            assert op.get("summary"), (method, path)
            for code in ("401", "429"):
                assert op["responses"][code]["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/Error"
                }, (method, path, code)
    assert len(ids) == len(set(ids))
    assert schema["components"]["securitySchemes"]["tokenAuth"] == {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "Personal API token: `Authorization: Token <key>` (create one at POST /api/v1/tokens/).",
    }


def test_the_docs_pages_load_their_assets_from_this_server(client):
    for page in ("/api/docs/", "/api/docs/redoc/"):
        response = client.get(page)
        assert response.status_code == 200
        html = response.content.decode()
        assert "/static/drf_spectacular_sidecar/" in html, page
        assert "cdn." not in html and "unpkg" not in html, page
