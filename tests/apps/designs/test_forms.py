"""The spec form is generated from engine.spec.SPEC_FIELDS and validated by the engine:
every field is there with its help text, every preset survives a round trip through the
form and through the YAML editor, and each engine error lands on the field its path names."""

from __future__ import annotations

import re

import pytest
import yaml
from django.urls import reverse

from apps.designs.forms import LEAVES, SpecForm, SpecYamlForm, TableFilterForm, spec_leaves
from apps.designs.services import design_create
from engine.presets import list_presets, load_preset
from engine.schema import Field
from engine.spec import SPEC_FIELDS, parse_spec

PRESETS = sorted(list_presets())


def posted(form: SpecForm, **changes) -> dict:
    """What a browser posts for an unchanged form: checked boxes as "on", empty fields left out."""
    data = {}
    for name in form.fields:
        value = form.initial.get(name)
        if value is True:
            data[name] = "on"
        elif value not in (None, "", False):
            data[name] = value
    data.update(changes)
    return data


def test_every_leaf_of_the_spec_schema_is_a_form_field_with_its_help_text():
    form = SpecForm()

    def leaves(tree, prefix=""):
        for key, field in tree.items():
            path = f"{prefix}.{key}" if prefix else key
            yield from leaves(field.fields, path) if field.kind == "object" else [(path, field)]

    for path, field in leaves(SPEC_FIELDS):
        form_field = form.fields[path.replace(".", "__")]
        assert field.help in form_field.help_text, path


def test_leaves_follow_the_schema_without_a_copy_of_it():
    tree = {
        "a": Field("int", default=1, help="A."),
        "b": Field("object", fields={"c": Field("ratio", default="1:1"), "d": Field("any", default=None)}),
    }

    assert [leaf.path for leaf in spec_leaves(tree)] == ["a", "b.c", "b.d"]
    assert len(LEAVES) == len(SpecForm().fields)


def test_fields_say_their_defaults_and_bounds():
    form = SpecForm()

    assert "Default: auto." in form.fields["compute_fabric__scalable_unit"].help_text
    assert "From 10 to 60." in form.fields["layout__rack_units"].help_text
    widget = form.fields["layout__rack_units"].widget
    assert (widget.input_type, widget.attrs) == ("number", {"step": "1", "min": "10", "max": "60"})
    assert form.fields["compute_fabric__port_speed_gbps"].label == "Port speed (Gb/s)"
    assert form.fields["compute_fabric__switch"].widget.attrs["list"] == "catalog-switches"


def test_a_blank_form_starts_from_the_schema_defaults():
    form = SpecForm()

    assert form.initial["layout__rack_units"] == "48"
    assert form.initial["storage_fabric__enabled"] is False
    assert "servers__count" not in form.initial


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_round_trips_through_the_form(preset):
    spec = parse_spec(load_preset(preset)).to_dict()

    form = SpecForm(posted(SpecForm(spec=spec)))

    assert form.is_valid(), form.errors
    assert form.cleaned_spec == spec


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_round_trips_through_the_yaml_editor(preset):
    spec = parse_spec(load_preset(preset)).to_dict()

    form = SpecYamlForm({"spec_yaml": SpecYamlForm(spec=spec).initial["spec_yaml"]})

    assert form.is_valid(), form.errors
    assert form.cleaned_spec == spec


def test_the_yaml_lists_fields_in_schema_order():
    spec = parse_spec(load_preset("dgx-h100-superpod-4su")).to_dict()

    text = SpecYamlForm(spec=spec).initial["spec_yaml"]

    assert list(yaml.safe_load(text))[:4] == ["schema_version", "name", "description", "servers"]


def test_an_empty_field_takes_the_default():
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()

    form = SpecForm(posted(SpecForm(spec=spec), layout__rack_units="", compute_fabric__tiers=""))

    assert form.is_valid(), form.errors
    assert form.cleaned_spec["layout"]["rack_units"] == 48
    assert form.cleaned_spec["compute_fabric"]["tiers"] == "auto"


def test_yaml_sections_of_the_form_are_parsed():
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()

    form = SpecForm(posted(SpecForm(spec=spec), workloads="- llama-70b-dp512\n"))

    assert form.is_valid(), form.errors
    assert form.cleaned_spec["workloads"] == ["llama-70b-dp512"]


@pytest.mark.parametrize(
    "changes, field, message",
    [
        ({"servers__count": "0"}, "servers__count", "must be at least 1"),
        ({"servers__count": "lots"}, "servers__count", "must be a whole number"),
        ({"compute_fabric__scalable_unit": "big"}, "compute_fabric__scalable_unit", 'must be a whole number or "auto"'),
        (
            {"compute_fabric__oversubscription__spine": "2"},
            "compute_fabric__oversubscription__spine",
            "must be a ratio",
        ),
        ({"layout__rack_units": "70"}, "layout__rack_units", "must be at most 60"),
        ({"name": "  "}, "name", "is required"),
        ({"physical": "media: [unclosed"}, "physical", "not valid YAML"),
        ({"physical": "- a list"}, "physical", "must be a mapping"),
    ],
)
def test_engine_errors_land_on_the_field_their_path_names(changes, field, message):
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()

    form = SpecForm(posted(SpecForm(spec=spec), **changes))

    assert not form.is_valid()
    assert any(message in e for e in form.errors[field]), form.errors


@pytest.mark.parametrize(
    "qos, message",
    [
        ("roce: {dscp: [26, 99]}\n", "roce.dscp[1]: must be an integer from 0 to 63"),
        ("rocee: {dscp: 26}\n", "rocee: unknown field"),
        ("ecn: {min_bytes: lots}\n", "ecn.min_bytes: must be an integer from 1 to 1000000000"),
        ("- mode: lossy\n", "must be a mapping"),
    ],
)
def test_a_bad_qos_policy_in_its_yaml_box_is_an_error_at_the_qos_field(qos, message):
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()

    form = SpecForm(posted(SpecForm(spec=spec), qos=qos))

    assert not form.is_valid()
    assert any(message in e for e in form.errors["qos"]), form.errors
    assert {s["key"]: s["open"] for s in form.sections()}["qos"]


def test_a_bad_physical_policy_in_its_yaml_box_is_an_error_at_the_physical_field():
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()

    form = SpecForm(posted(SpecForm(spec=spec), physical="tiers: {leaf-spine: {medium: carrier-pigeon}}\n"))

    assert not form.is_valid()
    assert any(e.startswith("tiers.leaf-spine.medium: must be one of") for e in form.errors["physical"]), form.errors


def test_a_valid_qos_policy_is_stored_as_written():
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()

    form = SpecForm(posted(SpecForm(spec=spec), qos="mode: pfc-only\nroce: {dscp: 24}\n"))

    assert form.is_valid(), form.errors
    assert form.cleaned_spec["qos"] == {"mode": "pfc-only", "roce": {"dscp": 24}}


def test_the_yaml_editor_reports_a_bad_qos_policy_with_its_path():
    spec = {**parse_spec(load_preset("hgx-roce-2su")).to_dict(), "qos": {"roce": {"dscp": [99]}}}

    form = SpecYamlForm({"spec_yaml": yaml.safe_dump(spec)})

    assert not form.is_valid()
    assert form.errors["spec_yaml"] == ["qos.roce.dscp[0]: must be an integer from 0 to 63"]


def test_the_edit_page_shows_a_bad_qos_policy_next_to_the_qos_field_and_saves_nothing(client, users):
    design = design_create(user=users.alice, spec=load_preset("hgx-roce-2su"))
    client.force_login(users.alice)

    r = client.post(
        reverse("designs:edit", args=[design.pk]),
        posted(SpecForm(spec=design.spec), qos="roce: {dscp: [99]}\n", save="1"),
    )

    assert r.status_code == 400
    errors = re.search(r'<ul class="errorlist" id="id_qos_errors"[^>]*>(.*?)</ul>', r.content.decode(), re.DOTALL)
    assert errors and "roce.dscp[0]: must be an integer from 0 to 63" in errors.group(1)
    design.refresh_from_db()
    assert design.spec["qos"] is None


def test_an_error_deep_inside_a_yaml_section_names_the_rest_of_its_path():
    form = SpecForm()

    assert form.field_for_path("workloads[0].parallelism.tensor") == ("workloads", "[0].parallelism.tensor")
    assert form.field_for_path("compute_fabric.oversubscription.leaf") == ("compute_fabric__oversubscription__leaf", "")
    assert form.field_for_path("colour") == (None, "colour")


def test_optional_sections_start_folded_unless_in_use():
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()  # in-band and OOB on, storage off

    sections = {s["key"]: s for s in SpecForm(spec=spec).sections()}

    assert sections["compute_fabric"]["open"] and not sections["compute_fabric"]["optional"]
    assert sections["inband"]["open"] and sections["oob"]["open"]
    assert not sections["storage_fabric"]["open"] and not sections["layout"]["open"]


def test_a_section_with_an_error_opens():
    spec = parse_spec(load_preset("hgx-roce-2su")).to_dict()
    form = SpecForm(posted(SpecForm(spec=spec), layout__aisle_mm="5"))
    form.is_valid()

    assert {s["key"]: s["open"] for s in form.sections()}["layout"]


def test_the_table_filter_form_gives_link_page_arguments():
    form = TableFilterForm(
        {"network": "compute", "plane": "0", "q": " DGX ", "order": "-length_m"},
        table="links",
        facets={"network": ["compute"], "tier": [], "status": [], "medium": []},
    )

    assert form.is_valid(), form.errors
    assert form.query() == {
        "filters": {"network": "compute", "plane": 0, "q": "DGX"},
        "cursor": None,
        "limit": 100,
        "order": "-length_m",
    }
