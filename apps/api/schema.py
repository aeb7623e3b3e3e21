"""OpenAPI details drf-spectacular cannot infer: the token scheme and the error responses.

Every operation gets the error answers it can give, all in the one Error shape, so clients and
the fuzzer (tests/apps/api/test_fuzz.py) know every status code the API may answer with.
"""

from __future__ import annotations

import re
from decimal import Decimal

from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.openapi import AutoSchema

from engine.spec import CATALOG_KEY_PATTERN

from .schema_components import add_typed_components

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "description": "What went wrong: a code for machines, a message for people, and the fields at fault.",
            "required": ["code", "message", "fields"],
            "properties": {
                "code": {"type": "string", "description": "Stable machine-readable code, e.g. invalid_spec."},
                "message": {"type": "string", "description": "What went wrong, for a person."},
                "fields": {
                    "type": "array",
                    "description": "One entry per bad field: {path, line?, column?, message}.",
                    "items": {
                        "type": "object",
                        "required": ["path", "message"],
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Where: a dotted field path in the spec's syntax (`a.b[0].c`), a query "
                                "parameter, a header, or an upload's column name (empty: the whole row or input).",
                            },
                            "line": {
                                "type": "integer",
                                "minimum": 1,
                                "description": "Text inputs (CSV uploads): the line, the header being line 1.",
                            },
                            "column": {
                                "type": "integer",
                                "minimum": 1,
                                "description": "Text inputs: the character position in the line, where known.",
                            },
                            "message": {"type": "string", "description": "What is wrong there, for a person."},
                        },
                        "additionalProperties": False,
                    },
                },
            },
        }
    },
}

ERRORS = {
    "400": "Malformed or invalid request (see error.fields).",
    "401": "No valid credentials: send 'Authorization: Token <key>'.",
    "403": "Not allowed (for a session: a missing CSRF token; creating a token with a token).",
    "404": "No such object, or not visible to you.",
    "405": "Method not allowed on this path.",
    "409": "Conflicts with the current state.",
    "412": "If-Match names an ETag the object no longer has.",
    "413": "Request body too large.",
    "415": "Unsupported Content-Type.",
    "422": "Idempotency-Key reused with a different request.",
    "429": "Rate limit reached (per user, across all tokens and the browser session); retry after the "
    "Retry-After header's seconds.",
    "501": "Not available in this build.",
}


# On every answer (apps/api/ratelimit.py).
RATE_LIMIT_HEADERS = {
    "X-RateLimit-Limit": {
        "schema": {"type": "integer"},
        "description": "Requests allowed per window, per user (all tokens and the session).",
    },
    "X-RateLimit-Remaining": {"schema": {"type": "integer"}, "description": "Requests left in this window."},
    "X-RateLimit-Reset": {
        "schema": {"type": "integer"},
        "description": "Unix time (seconds) at which this window ends.",
    },
}


RETRY_AFTER_JOB = {
    "schema": {"type": "integer", "minimum": 1},
    "description": "While the job is queued or running: seconds to wait before polling it again.",
}
ETAG_HEADER = {
    "schema": {"type": "string"},
    "description": "The object's current ETag: send it as If-Match with your next write of it.",
}
PRECONDITION_ETAG_HEADER = {
    "schema": {"type": "string"},
    "description": "The object's current ETag (none when there is no such object): read it again, then retry.",
}
READ_ETAG_HEADER = {
    "schema": {"type": "string"},
    "description": "A strong ETag of this answer: send it as If-None-Match to revalidate your copy (304).",
}


class ApiAutoSchema(AutoSchema):
    """Names nested serializers after their view: RevisionBomApi.OutputSerializer -> RevisionBomOutput.

    One Input/Output pair per view (house style) would otherwise give dozens of "Output" components.
    """

    def get_serializer_name(self, serializer, direction):
        qualname = type(serializer).__qualname__
        if "." not in qualname:
            return super().get_serializer_name(serializer, direction)
        return "".join(re.sub(r"(Api|Serializer)$", "", part) for part in qualname.split("."))

    def get_description(self):
        # A view's docstring explains the code to its maintainers; what a client reads comes from docs/api.md
        # (apps/api/schema_docs.py). @extend_schema(description=...) still lands here, and the hook warns about it.
        return ""


class TokenAuthenticationScheme(OpenApiAuthenticationExtension):
    """Two ways to send the one token: either scheme satisfies every operation."""

    target_class = "apps.api.auth.TokenAuthentication"
    name = ("tokenAuth", "bearerAuth")

    def get_security_definition(self, auto_schema):
        return [
            {
                "type": "apiKey",
                "in": "header",
                "name": "Authorization",
                "description": "Personal API token: `Authorization: Token <key>` (create one at POST /api/v1/tokens/).",
            },
            {
                "type": "http",
                "scheme": "bearer",
                "description": "The same personal API token as `Authorization: Bearer <key>` (generated clients' default).",
            },
        ]


def decimal_pattern(max_digits: int, places: int, min_value, max_value) -> str:
    """The decimal strings a DRF DecimalField with these bounds accepts (no sign when the minimum is not negative,
    at most the whole digits and places it allows; a maximum of 10^k caps the whole part at k digits or 10^k)."""
    whole = max_digits - places
    frac = rf"(?:\.[0-9]{{1,{places}}})?" if places else ""
    body = rf"[0-9]{{1,{whole}}}{frac}"
    if max_value is not None and max_value > 0:
        top = Decimal(max_value)
        k = len(str(int(top))) - 1
        if top == 10**k and k < whole:
            zeros = rf"(?:\.0{{1,{places}}})?" if places else ""
            body = rf"(?:1{'0' * k}{zeros}|[0-9]{{1,{k}}}{frac})"
    sign = "-?" if min_value is None or Decimal(min_value) < 0 else ""
    return rf"^{sign}{body}$"


# The spares_percent grammar (apps/api/spares_params.py): a percentage for every category or category:percentage
# pairs ("*": every other category), each 0-1000 with up to three decimals.
_PERCENT = decimal_pattern(7, 3, 0, 1000)[1:-1]
_CATEGORY = r"(?:\*|[a-z][a-z0-9_-]{0,31})"
SPARES_PERCENT_PATTERN = rf"^(?:{_PERCENT}|{_CATEGORY}:{_PERCENT}(?:,{_CATEGORY}:{_PERCENT})*)$"


class DecimalFieldSchema(OpenApiSerializerFieldExtension):
    """Decimal inputs as the strings the field accepts: drf-spectacular's own pattern allows a sign and an empty
    string whatever the bounds, so a client's validator would pass what the server refuses."""

    target_class = "rest_framework.fields.DecimalField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        f = self.target
        schema = {"type": "string", "format": "decimal"}
        if f.max_digits is not None and f.decimal_places is not None:
            schema["pattern"] = decimal_pattern(f.max_digits, f.decimal_places, f.min_value, f.max_value)
        return schema


class StrictSerializerSchema(OpenApiSerializerExtension):
    """A StrictSerializer refuses fields it does not declare (400): its request schema says so."""

    target_class = "apps.api.serializers.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_basic_serializer(self.target, direction)
        if direction == "request":
            schema["additionalProperties"] = False
        return schema


def _codes(path: str, method: str, op: dict) -> list[str]:
    codes = ["401", "403", "405", "429"]
    if "{" in path:
        codes.append("404")
    if op.get("parameters") or op.get("requestBody") or method in ("post", "put", "patch"):
        codes.append("400")
    if method in ("post", "put", "patch"):
        codes += ["413", "415"]
    return codes


# Rules of request bodies a serializer states in code (validate()), said in the schema too.
_PART_NUMBERS: dict = {}  # (keys of 1-64 characters: OpenAPI 3.0 has no propertyNames)
COMPONENT_RULES = {
    # spec or preset, not both (not "neither": a oneOf of required lists makes openapi-python-client write
    # code that does not compile; that half is an allowance of the schemathesis run)
    "DesignListInputRequest": {"not": {"required": ["spec", "preset"]}},
    # name, spec or both
    "PatchedDesignDetailInputRequest": {"minProperties": 1},
    "PriceListInputRequest": {"properties": {"prices": {**_PART_NUMBERS, "maxProperties": 10000}}},
    # the percent rule as apps/api/results.py writes it: the spares_percent grammar, normalized
    "RevisionBomOutput": {"properties": {"spares_percent": {"pattern": SPARES_PERCENT_PATTERN}}},
    # a custom part's key: what apps/catalog/services.py checks (a media part's must also equal its body's own)
    "PartInputRequest": {"properties": {"key": {"pattern": rf"^(?:{CATALOG_KEY_PATTERN})$"}}},
    "LeadTimesIoRequest": {"properties": {"lead_times": {**_PART_NUMBERS, "maxProperties": 2000}}},
    "PatchedLeadTimesIoRequest": {
        "required": ["lead_times"],
        "properties": {"lead_times": {**_PART_NUMBERS, "maxProperties": 2000}},
    },
}


def _merge(schema: dict, rules: dict) -> None:
    for key, value in rules.items():
        if isinstance(value, dict) and isinstance(schema.get(key), dict):
            _merge(schema[key], value)
        else:
            schema[key] = value


def add_error_responses(result, generator, request, public):  # noqa: C901
    """POSTPROCESSING_HOOK: the Error component, the typed components (apps/api/schema_components.py), and the
    error answers of every operation."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    add_typed_components(result)
    for name, rules in COMPONENT_RULES.items():
        if name in result["components"]["schemas"]:
            _merge(result["components"]["schemas"][name], rules)
    result["components"]["headers"] = RATE_LIMIT_HEADERS
    ref = {"$ref": "#/components/schemas/Error"}
    # a GET of an object whose writes take If-Match answers its ETag
    etag_paths = {
        path
        for path, item in result.get("paths", {}).items()
        for op in item.values()
        if any(p.get("name") == "If-Match" for p in op.get("parameters", []))
    }
    for path, item in result.get("paths", {}).items():
        for method, op in item.items():
            responses = op.setdefault("responses", {})
            for code in ("201", "202"):
                if code in responses and (method == "post" or code == "202"):
                    responses[code]["headers"] = {
                        "Location": {
                            "schema": {"type": "string", "format": "uri"},
                            "description": "URL of the created object (201) or of the job to poll (202).",
                        }
                    }
            if "202" in responses:
                responses["202"]["headers"]["Retry-After"] = RETRY_AFTER_JOB
            if op.get("operationId") == "jobs_retrieve":
                responses["200"]["headers"] = {"Retry-After": RETRY_AFTER_JOB}
            if any(p.get("name") == "If-Match" for p in op.get("parameters", [])) or path in etag_paths:
                for code in ("200", "201"):
                    if code in responses:
                        responses[code].setdefault("headers", {})["ETag"] = ETAG_HEADER
            if any(p.get("name") == "If-Match" for p in op.get("parameters", [])) and "412" in responses:
                responses["412"].setdefault("headers", {})["ETag"] = PRECONDITION_ETAG_HEADER
            if path.endswith(("/downloads/{kind}", "/jobs/{job_id}/file")) and "200" in responses:
                responses["200"]["headers"] = {
                    "Content-Disposition": {
                        "schema": {"type": "string"},
                        "description": 'attachment; filename="<design>-r<n>-<kind>"',
                    }
                }
            if any(p.get("name") == "If-None-Match" for p in op.get("parameters", [])):
                # a conditional read (apps.common.http_cache): its 200 carries the tag, its 304 the same tag
                for code in ("200", "304"):
                    if code in responses:
                        responses[code].setdefault("headers", {})["ETag"] = READ_ETAG_HEADER
            if op.get("operationId") == "designs_compute" and "200" in responses:
                responses["200"]["headers"] = {
                    "Location": {
                        "schema": {"type": "string", "format": "uri"},
                        "description": "URL of the revision that already has this computation.",
                    }
                }
            for code in _codes(path, method, op):
                responses.setdefault(code, {"description": ERRORS[code]})
            responses["429"]["headers"] = {
                "Retry-After": {
                    "schema": {"type": "integer"},
                    "description": "Seconds until the rate limit lets the user in again.",
                }
            }
            # Every answer carries them (docs/api.md); listed here once, not on each of ~600 answers.
            responses["429"]["headers"].update(
                {name: {"$ref": f"#/components/headers/{name}"} for name in RATE_LIMIT_HEADERS}
            )
            for code, resp in responses.items():
                if re.fullmatch(r"[45]\d\d", code):
                    resp.setdefault("description", ERRORS.get(code, "Error."))
                    resp["content"] = {"application/json": {"schema": ref}}
            op["responses"] = dict(sorted(responses.items()))
    return result
