"""Forms of the browser UI.

The spec form is generated from engine.spec.SPEC_FIELDS, the one declarative spec schema: every
field's label, widget, help text and default comes from there, and validation is the engine's own
(`design_validate_spec`), whose SpecError paths put each message next to its field. Nothing here
redefines what a field accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import yaml
from django import forms
from django.conf import settings

from engine.catalog import load_catalog
from engine.errors import FieldError, SpecError
from engine.model import NETWORKS
from engine.orders.rule_choice import (
    AFR_HELP,
    FAILURE_RATE,
    HOURS_HELP,
    LEVEL_HELP,
    PERCENT,
    RULE_CHOICES,
    RULE_HELP,
    SPARES_HELP,
    SPARES_MAX_LENGTH,
    SPARES_PARAMS,
    spares_rule_from_inputs,
)
from engine.presets import DEFAULT_PRESET, list_presets, preset_descriptions
from engine.schema import DEFAULT_MAX_LENGTH, REQUIRED, Field
from engine.spec import SCHEMA_VERSION, SPEC_FIELDS
from engine.yamlsafe import UserYamlError, load_user_yaml

from .models import Access
from .services import design_check_spec
from .tables import CABLE_SORTS, LINK_SORTS, MAX_LIMIT

SEP = "__"  # form field names are spec paths with "." replaced (ids stay valid CSS selectors)

# Spec sections shown folded (<details>) unless they are in use or have errors.
OPTIONAL_SECTIONS = (
    "storage_fabric",
    "inband",
    "oob",
    "layout",
    "physical",
    "qos",
    "workloads",
    "exports",
    "procurement",
)
SECTION_TITLES = {
    "": "Design",
    "servers": "Servers",
    "compute_fabric": "Compute fabric",
    "storage_fabric": "Storage fabric",
    "inband": "In-band management network",
    "oob": "Out-of-band management network",
    "layout": "Layout and floor plan",
    "physical": "Physical layer",
    "qos": "QoS and congestion control",
    "workloads": "Training workloads",
    "exports": "Exported files",
    "procurement": "Ordering variants",
}
# Words in field keys that are units: "port_speed_gbps" is labelled "Port speed (Gb/s)".
_UNITS = {"gbps": "Gb/s", "kw": "kW", "mm": "mm", "m": "m"}
_ACRONYMS = {"oob": "OOB", "ufm": "UFM", "su": "SU", "pdus": "PDUs"}


@dataclass(frozen=True)
class SpecLeaf:
    """One form field of the spec: its dotted spec path and the engine's declaration."""

    path: str
    spec: Field

    @property
    def name(self) -> str:
        return self.path.replace(".", SEP)

    @property
    def section(self) -> str:
        return self.path.split(".", 1)[0] if "." in self.path or self.spec.kind == "any" else ""


def spec_leaves(tree: Mapping[str, Field] = SPEC_FIELDS, prefix: str = "") -> list[SpecLeaf]:
    """Every editable leaf of the spec tree, in declaration order (objects are flattened)."""
    out = []
    for key, spec in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        out += spec_leaves(spec.fields, path) if spec.kind == "object" else [SpecLeaf(path, spec)]
    return out


LEAVES = spec_leaves()
_BY_PATH = {leaf.path: leaf for leaf in LEAVES}


def _label(path: str) -> str:
    words = path.split(".")[-1].split("_")
    unit = _UNITS.get(words[-1]) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    words = [_ACRONYMS.get(w, w) for w in words]
    text = " ".join(words)
    text = text[:1].upper() + text[1:]
    if path.endswith(("oversubscription.leaf", "oversubscription.spine")):
        text = f"Oversubscription at the {words[-1]}"
    return f"{text} ({unit})" if unit else text


def _help(spec: Field) -> str:
    parts = [spec.help] if spec.help else []
    if spec.kind == "any":
        parts.append("YAML; leave empty for the defaults.")
    elif spec.required:
        parts.append("Required.")
    elif spec.default not in (None, "", {}):
        shown = "on" if spec.default is True else "off" if spec.default is False else spec.default
        parts.append(f"Default: {shown}.")
    if spec.minimum is not None and spec.maximum is not None:
        parts.append(f"From {_num(spec.minimum)} to {_num(spec.maximum)}.")
    elif spec.minimum is not None and spec.kind in ("int", "float"):
        parts.append(f"At least {_num(spec.minimum)}.")
    return " ".join(parts)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _datalists() -> dict[str, list[tuple[str, str]]]:
    cat = load_catalog()
    return {
        "servers": sorted((k, m.name) for k, m in cat.servers.items()),
        "switches": sorted((k, m.name) for k, m in cat.switches.items()),
    }


def _datalist_for(path: str) -> str | None:
    if path == "servers.model":
        return "catalog-servers"
    if path.endswith("switch"):
        return "catalog-switches"
    return None


def _form_field(leaf: SpecLeaf) -> forms.Field:
    spec, label = leaf.spec, _label(leaf.path)
    common: dict[str, Any] = {"label": label, "help_text": _help(spec), "required": False}
    if spec.kind == "bool":
        return forms.BooleanField(**common)
    if spec.kind == "enum":
        blank = [("", "— choose —")] if spec.required else []
        return forms.ChoiceField(choices=blank + [(c, c) for c in spec.choices], **common)
    if spec.kind == "any":
        return forms.CharField(
            widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false", "class": "code"}), strip=False, **common
        )
    if spec.kind in ("int", "float") and not spec.allow_auto:
        number_attrs = {"step": "1" if spec.kind == "int" else "any"}
        number_attrs.update({k: _num(v) for k, v in (("min", spec.minimum), ("max", spec.maximum)) if v is not None})
        return forms.CharField(widget=forms.NumberInput(attrs=number_attrs), **common)
    attrs: dict[str, Any] = {}
    if spec.kind == "str":  # the engine's bound as a browser hint; the engine's own check gives the message
        attrs["maxlength"] = spec.max_length or DEFAULT_MAX_LENGTH
    if spec.allow_auto:
        attrs["placeholder"] = "auto"
    if spec.kind == "ratio":
        attrs["placeholder"] = "1:1"
    if _datalist_for(leaf.path):
        attrs["list"] = _datalist_for(leaf.path)
    return forms.CharField(widget=forms.TextInput(attrs=attrs), **common)


def _to_text(spec: Field, value: Any) -> Any:
    """A normalized spec value as its form field's value."""
    if spec.kind == "bool":
        return bool(value)
    if value is None:
        return ""
    if spec.kind == "any":
        return _dump(value)
    return value if isinstance(value, str) else _num(value) if isinstance(value, float) else str(value)


def dotted_get(data: Mapping | None, path: str) -> Any:
    """data["a"]["b"] for path "a.b"; None where a key is missing (shared with the QoS form)."""
    for key in path.split("."):
        if not isinstance(data, Mapping) or key not in data:
            return None
        data = data[key]
    return data


def dotted_set(out: dict, path: str, value: Any) -> None:
    """out["a"]["b"] = value for path "a.b", making the parents as needed."""
    *parents, last = path.split(".")
    for key in parents:
        out = out.setdefault(key, {})
    out[last] = value


def ordered_spec(spec: Mapping, tree: Mapping[str, Field] = SPEC_FIELDS) -> dict:
    """The spec with its keys in SPEC_FIELDS order (normalized specs come sorted alphabetically)."""
    out = {k: spec[k] for k in ("schema_version",) if k in spec and tree is SPEC_FIELDS}
    for key, field in tree.items():
        if key in spec:
            value = spec[key]
            nested = field.kind == "object" and isinstance(value, Mapping)
            out[key] = ordered_spec(value, field.fields) if nested else value
    out.update({k: v for k, v in spec.items() if k not in out})
    return out


def spec_yaml(spec: Mapping) -> str:
    return _dump(ordered_spec(spec))


def _dump(value: Any) -> str:
    """YAML of a stored value. A spec saved before the depth limits (engine/schema.py) may nest deeper than
    the YAML emitter can recurse: it is shown as a comment asking for a replacement, not as a server error."""
    try:
        return yaml.safe_dump(value, sort_keys=False, allow_unicode=True)
    except RecursionError:
        return (
            "# This value is nested too deeply to show: it was saved before the spec's depth limits.\n"
            "# Replace it (the limits: docs/api.md) and save again.\n"
        )


def field_for_path(path: str, names: Mapping[str, str]) -> tuple[str | None, str]:
    """The form field a SpecError path belongs to (`names`: dotted path -> field name), and what of the path
    is left below it: "workloads[0].parallelism.tensor" -> ("workloads", "[0].parallelism.tensor")."""
    probe = path
    while probe:
        if probe in names:
            return names[probe], path[len(probe) :].lstrip(".")
        cut = max(probe.rfind("."), probe.rfind("["))
        probe = probe[:cut] if cut > 0 else ""
    return None, path


if TYPE_CHECKING:
    _Form = forms.Form  # what SpecErrorsMixin is mixed into
else:
    _Form = object


class SpecErrorsMixin(_Form):
    """add_spec_errors for a form whose field_for_path(path) names the field of an engine error path."""

    if TYPE_CHECKING:  # provided by the form class this is mixed into

        def field_for_path(self, path: str) -> tuple[str | None, str]: ...

    def add_spec_errors(self, exc: SpecError) -> None:
        """Each engine message next to the field its path names (above the form when none does)."""
        for err in exc.errors:
            name, rest = self.field_for_path(err.path)
            self.add_error(name, f"{rest}: {err.message}" if rest else err.message)


_FIELD_NAMES = {path: leaf.name for path, leaf in _BY_PATH.items()}


def _spec_value(spec: Mapping, leaf: SpecLeaf):
    """The spec's value at the leaf's path; a path the spec leaves out (a section the normalized text omits while
    it holds its defaults, such as `procurement`) shows the schema's default, not an empty field."""
    node: object = spec
    for key in leaf.path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None if leaf.spec.default is REQUIRED else leaf.spec.default
        node = node[key]
    return node


class SpecForm(SpecErrorsMixin, forms.Form):
    """Every spec field as a form field; `cleaned_spec` is the engine-normalized spec dict."""

    def __init__(self, *args, spec: Mapping | None = None, owner=None, **kwargs):
        self.owner = owner
        if spec is not None:
            kwargs.setdefault("initial", {leaf.name: _to_text(leaf.spec, _spec_value(spec, leaf)) for leaf in LEAVES})
        else:
            kwargs.setdefault(
                "initial",
                {
                    leaf.name: _to_text(leaf.spec, leaf.spec.default)
                    for leaf in LEAVES
                    if leaf.spec.default is not REQUIRED
                },
            )
        super().__init__(*args, **kwargs)
        for leaf in LEAVES:
            self.fields[leaf.name] = _form_field(leaf)
        self.cleaned_spec: dict | None = None
        self.field_warnings: dict[str | None, list[str]] = {}

    def clean(self):
        super().clean()
        data = self.cleaned_data  # what Form.clean returns; its stub allows None
        # Required sections always exist, so a missing value is reported at its own field.
        spec: dict = {key: {} for key, f in SPEC_FIELDS.items() if f.kind == "object" and f.required}
        for leaf in LEAVES:
            value = data.get(leaf.name)
            if leaf.spec.kind == "any" and value not in (None, ""):
                try:
                    value = load_user_yaml(value, max_chars=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
                except UserYamlError as exc:
                    self.add_error(leaf.name, exc.describe("not valid YAML"))
                    continue
            if isinstance(value, str) and leaf.spec.kind != "any":
                value = value.strip()
            # An empty field takes the engine's default (or is reported as required by it).
            if value not in (None, "") or leaf.spec.kind == "bool":
                dotted_set(spec, leaf.path, value)
        if self.errors:
            return data
        try:
            self.cleaned_spec, warnings = design_check_spec(spec, owner=self.owner)
        except SpecError as exc:
            self.add_spec_errors(exc)
        else:
            self.set_warnings(warnings)
        return data

    def set_warnings(self, warnings: list[FieldError]) -> None:
        """Warnings (not errors: the spec saves) shown next to the field their path names."""
        self.field_warnings = {}
        for w in warnings:
            name, rest = self.field_for_path(w.path)
            self.field_warnings.setdefault(name, []).append(f"{rest}: {w.message}" if rest else w.message)
        for name, field in self.fields.items():
            # read by designs/_field.html; Field has no such attribute, this form gives it one
            field.warnings = self.field_warnings.get(name, [])  # type: ignore[attr-defined]

    def field_for_path(self, path: str) -> tuple[str | None, str]:
        return field_for_path(path, _FIELD_NAMES)

    def sections(self) -> list[dict]:
        """Fields grouped by spec section, with whether the section starts folded."""
        groups: dict[str, list] = {}
        for leaf in LEAVES:
            groups.setdefault(leaf.section, []).append(self[leaf.name])
        out = []
        for key, fields in groups.items():
            optional = key in OPTIONAL_SECTIONS
            in_use = any(f.errors for f in fields) or (optional and self._section_in_use(key, fields))
            out.append(
                {
                    "key": key,
                    "title": SECTION_TITLES.get(key, key),
                    "fields": fields,
                    "optional": optional,
                    "open": not optional or in_use,
                }
            )
        return out

    def _section_in_use(self, key: str, fields) -> bool:
        enabled = f"{key}{SEP}enabled"
        if enabled in self.fields:
            return bool(self[enabled].value())
        return key not in ("layout", "exports", "procurement") and any(f.value() not in (None, "") for f in fields)

    @staticmethod
    def datalists() -> dict[str, list[tuple[str, str]]]:
        return _datalists()


class SpecYamlForm(forms.Form):
    """The same spec as one YAML document ("advanced"); saving it round-trips through the engine."""

    spec_yaml = forms.CharField(
        label="Spec (YAML)",
        strip=False,
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false", "class": "code"}),
        help_text="The whole spec, exactly as the form above stores it. "
        f"schema_version {SCHEMA_VERSION}; see docs/spec.schema.json.",
    )

    def __init__(self, *args, spec: Mapping | None = None, owner=None, **kwargs):
        self.owner = owner
        if spec is not None:
            kwargs.setdefault("initial", {"spec_yaml": spec_yaml(spec)})
        super().__init__(*args, **kwargs)
        self.cleaned_spec: dict | None = None
        self.warnings: list[str] = []

    def clean_spec_yaml(self):
        text = self.cleaned_data["spec_yaml"]
        try:
            # Plain data only: aliases, unknown tags, deep nesting and oversized text are refused with their
            # line and column (engine/yamlsafe.py), before anything is built from them.
            data = load_user_yaml(text, max_chars=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        except UserYamlError as exc:
            raise forms.ValidationError(exc.describe("Not valid YAML")) from None
        try:
            self.cleaned_spec, warnings = design_check_spec(data, owner=self.owner)
        except SpecError as exc:
            raise forms.ValidationError([str(e) for e in exc.errors]) from None
        self.warnings = [str(w) for w in warnings]
        return text


class NewDesignForm(forms.Form):
    """Start a design from one of the engine's presets."""

    preset = forms.ChoiceField(label="Preset", widget=forms.RadioSelect)
    name = forms.CharField(
        label="Name", required=False, max_length=200, help_text="Leave empty to use the preset's name."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["preset"]).choices = list(list_presets().items())
        self.fields["preset"].initial = DEFAULT_PRESET
        self.descriptions = preset_descriptions()


class ShareForm(forms.Form):
    username = forms.CharField(label="Username", max_length=150)
    access = forms.ChoiceField(label="Access", choices=Access.choices, initial=Access.READ)

    def clean_username(self):
        # Whether an account of that name exists is never checked here: the answer would tell anyone
        # who can share which usernames exist (apps.designs.services.design_share).
        return self.cleaned_data["username"].strip()


ORDERED = "ordered"


def _revision_or_ordered(value: str):
    return ORDERED if value == ORDERED else int(value)


class SparesRuleForm(forms.Form):
    """The spares rule, chosen as everywhere (engine/orders/rule_choice.py): a flat percent per category, or
    from failure rates. After validation `chosen_rule` is the rule, or None for the caller's default."""

    # The parameters as the API declares them (engine/orders/rule_choice.py): names, length and meaning.
    spares_rule = forms.ChoiceField(
        label="Spares rule", required=False, choices=RULE_CHOICES, initial=PERCENT, help_text=RULE_HELP
    )
    spares_percent = forms.CharField(
        label="Spares %", required=False, max_length=SPARES_MAX_LENGTH, help_text=SPARES_HELP
    )
    spares_afr_percent = forms.CharField(
        label="Annual failure rate %", required=False, max_length=SPARES_MAX_LENGTH, help_text=AFR_HELP
    )
    spares_replenish_hours = forms.CharField(
        label="Replenishment time (h)", required=False, max_length=SPARES_MAX_LENGTH, help_text=HOURS_HELP
    )
    spares_service_level_percent = forms.CharField(
        label="Service level %", required=False, max_length=SPARES_MAX_LENGTH, help_text=LEVEL_HELP
    )

    def clean(self):
        super().clean()
        data = self.cleaned_data  # what Form.clean returns; its stub allows None
        self.chosen_rule = None
        texts = {
            "percent": data.get("spares_percent", ""),
            "afr": data.get("spares_afr_percent", ""),
            "hours": data.get("spares_replenish_hours", ""),
            "level": data.get("spares_service_level_percent", ""),
        }
        try:
            # Every text given is checked, whichever rule is chosen: a bad value is never silently ignored.
            spares_rule_from_inputs(rule=FAILURE_RATE, **texts)
            spares_rule_from_inputs(rule=PERCENT, percent=texts["percent"])
            self.chosen_rule = spares_rule_from_inputs(rule=data.get("spares_rule") or PERCENT, **texts)
        except ValueError as exc:
            name, _, message = str(exc).partition(": ")
            self.add_error(name if name in self.fields else None, message or str(exc))
        return data

    def spares_query(self) -> dict:
        """The non-empty spares parameters as given (for links that carry the same rule)."""
        return {k: str(self.data.get(k, "")).strip() for k in SPARES_PARAMS if str(self.data.get(k, "")).strip()}


class CompareForm(SparesRuleForm):
    old = forms.TypedChoiceField(label="Older revision", coerce=_revision_or_ordered)
    new = forms.TypedChoiceField(label="Newer revision", coerce=int)
    field_order = ("old", "new", *SPARES_PARAMS)

    def __init__(self, *args, numbers: list[int], baseline_number: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields[
            "spares_percent"
        ].help_text += " Against the ordered baseline, empty keeps the spares it was ordered with."
        choices: list[tuple[int | str, str]] = [(n, f"r{n}") for n in numbers]
        cast(forms.ChoiceField, self.fields["new"]).choices = choices
        ordered: list[tuple[int | str, str]] = (
            [(ORDERED, f"As ordered (r{baseline_number})")] if baseline_number is not None else []
        )
        cast(forms.ChoiceField, self.fields["old"]).choices = ordered + choices
        if len(numbers) >= 2:
            self.fields["new"].initial, self.fields["old"].initial = numbers[0], numbers[1]

    def clean(self):
        data = super().clean()
        if data.get("old") is not None and data.get("old") == data.get("new"):
            raise forms.ValidationError("Pick two different revisions.")
        return data


class MarkOrderedForm(SparesRuleForm):
    """The rule the order is frozen with."""


class SparesForm(SparesRuleForm):
    """The revision page's spares table: both rules side by side, each with its inputs."""


class ElevationForm(forms.Form):
    """Which row of racks the elevation drawing shows (and from which rack position)."""

    row = forms.ChoiceField(label="Row", required=False)
    start = forms.IntegerField(label="From rack position", required=False, min_value=1, max_value=100_000)

    def __init__(self, *args, rows: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["row"]).choices = [(r, f"Row {r}") for r in rows]

    def selection(self, *, default_row) -> tuple[str | None, int]:
        """(row, start) to draw; a bad choice shows its error and falls back to `default_row()`."""
        data = self.cleaned_data if self.is_valid() else {}
        return data.get("row") or default_row(), data.get("start") or 1


DEFAULT_LIMIT = 100  # rows per table page when the query names none (the select shows it as chosen)


class TableFilterForm(forms.Form):
    """Filters of the link or cable table; `query()` gives link_page/cable_page arguments.

    Bind it with `table_query(request.GET)`, so a page opened without `limit` shows the rows per page it has."""

    q = forms.CharField(
        label="Search",
        required=False,
        max_length=100,
        help_text="Device name prefix, a device and port (SPINE-01 1/1), a rack id, or a link/cable id (L42, C7).",
    )
    network = forms.ChoiceField(label="Network", required=False)
    tier = forms.ChoiceField(label="Tier", required=False)
    rack = forms.CharField(label="Rack", required=False, max_length=32)
    device = forms.CharField(label="Device", required=False, max_length=64)
    part = forms.CharField(label="Part", required=False, max_length=64)
    order = forms.ChoiceField(label="Sort by", required=False)
    limit = forms.TypedChoiceField(
        label="Rows per page",
        required=False,
        coerce=int,
        empty_value=DEFAULT_LIMIT,  # type: ignore[arg-type]  # the stub says str; Django returns any value given
        choices=[(n, n) for n in (25, 50, 100, 250, 500)],
    )
    cursor = forms.CharField(required=False, widget=forms.HiddenInput, max_length=500)

    LINK_ONLY = ("plane", "status", "medium")
    CABLE_ONLY = ("kind",)

    def __init__(self, *args, table: str, facets: Mapping[str, list], halls: int = 1, **kwargs):
        super().__init__(*args, **kwargs)
        self.table = table
        if halls > 1:  # a one-hall revision's rows are all in hall 1 and none crosses: no choice to offer
            self.fields["hall"] = forms.IntegerField(
                label="Hall", required=False, min_value=1, max_value=halls, help_text="Either end in this hall."
            )
            self.fields["crossing"] = forms.TypedChoiceField(
                label="Between halls",
                required=False,
                choices=[("", "any"), ("true", "between two halls"), ("false", "not between halls")],
                coerce=lambda v: v == "true",
                empty_value=None,
            )
            names = list(self.fields)
            names.remove("hall")
            names.remove("crossing")
            at = names.index("rack") + 1
            self.order_fields([*names[:at], "hall", "crossing", *names[at:]])
        if table == "links":
            self.fields["plane"] = forms.IntegerField(label="Plane", required=False, min_value=0, max_value=7)
            self.fields["status"] = forms.ChoiceField(label="Loss budget", required=False)
            self.fields["medium"] = forms.ChoiceField(label="Medium", required=False)
        else:
            self.fields["kind"] = forms.ChoiceField(label="Cable type", required=False)
        for name in ("network", "tier", "status", "medium", "kind"):
            if name in self.fields:
                values = facets.get(name, [])
                if name == "network":  # the engine's order, whatever order the stored summary kept
                    values = sorted(values, key=lambda v: (NETWORKS.index(v) if v in NETWORKS else len(NETWORKS), v))
                cast(forms.ChoiceField, self.fields[name]).choices = [("", "any")] + [(v, v) for v in values]
        sorts = LINK_SORTS if table == "links" else CABLE_SORTS
        cast(forms.ChoiceField, self.fields["order"]).choices = [(s, s.replace("_", " ")) for s in sorts] + [
            (f"-{s}", f"{s.replace('_', ' ')}, descending") for s in sorts
        ]
        cast(forms.ChoiceField, self.fields["limit"]).choices = [
            (n, n) for n in (25, 50, 100, 250, 500) if n <= MAX_LIMIT
        ]

    @staticmethod
    def table_query(params):
        """The query string with the default rows per page filled in when it names none."""
        if params.get("limit"):
            return params
        data = params.copy()
        data["limit"] = str(DEFAULT_LIMIT)
        return data

    def query(self) -> dict:
        data = self.cleaned_data
        skip = {"order", "limit", "cursor"}
        filters = {k: v for k, v in data.items() if k not in skip and v not in (None, "")}
        return {
            "filters": filters,
            "cursor": data.get("cursor") or None,
            "limit": data.get("limit") or DEFAULT_LIMIT,
            "order": data.get("order") or ("link_id" if self.table == "links" else "cable_id"),
        }
