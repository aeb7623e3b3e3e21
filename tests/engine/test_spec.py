"""The design spec: parsing, defaults, shorthands, and field-level errors with dotted paths."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from engine.errors import SpecError
from engine.schema import Field, normalize
from engine.spec import Ratio, load_spec_text, parse_spec, spec_json_schema
from tests.engine.conftest import DELETE, MINIMAL, MINIMAL_YAML, build, spec

REPO_ROOT = Path(__file__).resolve().parents[2]
PRESET_DIR = REPO_ROOT / "engine" / "presets"
PUBLISHED_SCHEMA = REPO_ROOT / "docs" / "spec.schema.json"
DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")


def errors_of(data) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as exc:
        parse_spec(data)
    return [(e.path, e.message) for e in exc.value.errors]


def paths_of(data) -> list[str]:
    return [p for p, _ in errors_of(data)]


# --- the minimal spec ------------------------------------------------------------------------


def test_it_accepts_the_minimal_spec_exactly_as_written():
    s = load_spec_text(MINIMAL_YAML)
    assert s.name == "SuperPOD 4 SU"
    assert (s.servers.model, s.servers.count) == ("dgx-h100", 128)
    cf = s.compute
    assert (cf.technology, cf.switch, cf.scalable_unit) == ("infiniband", "qm9700", 32)
    assert cf.leaf_ratio == Ratio(1, 1) and cf.spine_ratio == Ratio(1, 1)
    assert cf.tiers is None  # auto
    # Defaults the minimal spec leaves out.
    assert (cf.planes, cf.port_speed_gbps, cf.reserved_node_slots, cf.fabric_managers) == (1, None, 0, 0)
    assert (cf.spine_switch, cf.core_switch) == (None, None)
    assert not s.storage.enabled and not s.inband.enabled and not s.oob.enabled
    assert s.layout.servers_per_rack is None and s.layout.racks_per_row is None
    assert s.layout.network_racks == "end-of-row"


def test_it_parses_json_text_too():
    assert load_spec_text(json.dumps(MINIMAL)).normalized == load_spec_text(MINIMAL_YAML).normalized


def test_it_round_trips_the_normalized_spec():
    s = parse_spec(MINIMAL)
    again = parse_spec(s.to_dict())  # to_dict() carries schema_version, which parse_spec accepts
    assert again == s
    assert s.to_dict()["schema_version"] == 1


def test_an_unset_monitoring_section_leaves_the_hash_as_it_was_before_the_section_existed():
    """Designs stored before `monitoring` was added are found again by compute de-duplication (same text);
    a spec that sets it hashes differently."""
    plain = parse_spec(MINIMAL)
    assert "monitoring" not in json.loads(plain.normalized)
    assert parse_spec(plain.to_dict()) == plain
    watched = parse_spec({**MINIMAL, "monitoring": {}})
    assert "monitoring" in json.loads(watched.normalized)


def test_it_reports_bad_yaml_with_line_and_column():
    with pytest.raises(SpecError) as exc:
        load_spec_text("name: x\nservers: {model: dgx-h100, count: [\n")
    (err,) = exc.value.errors
    assert err.path == ""
    assert "line" in err.message and "column" in err.message


# --- oversubscription shorthand ------------------------------------------------------------------


def test_it_reads_a_single_ratio_as_the_leaf_ratio_with_a_non_blocking_spine():
    short = parse_spec(spec(compute_fabric={"oversubscription": "3:1", "scalable_unit": DELETE}))
    long = parse_spec(spec(compute_fabric={"oversubscription": {"leaf": "3:1"}, "scalable_unit": DELETE}))
    assert short.compute.leaf_ratio == Ratio(3, 1)
    assert short.compute.spine_ratio == Ratio(1, 1)
    assert short.normalized == long.normalized


def test_it_reads_leaf_and_spine_ratios_separately():
    s = parse_spec(spec(compute_fabric={"oversubscription": {"leaf": "5:3", "spine": "2:1"}}))
    assert (s.compute.leaf_ratio, s.compute.spine_ratio) == (Ratio(5, 3), Ratio(2, 1))
    assert str(s.compute.leaf_ratio) == "5:3"


def test_it_accepts_decimal_ratios_and_spaces():
    s = parse_spec(spec(compute_fabric={"oversubscription": " 1.5 : 1 "}))
    assert s.compute.leaf_ratio == Ratio(1.5, 1)
    assert s.to_dict()["compute_fabric"]["oversubscription"]["leaf"] == "1.5:1"


# --- unknown, missing and mistyped fields ---------------------------------------------------------


@pytest.mark.parametrize(
    "data, path",
    [
        (spec(colour="blue"), "colour"),
        (spec(compute_fabric={"leaf_switch": "qm9700"}), "compute_fabric.leaf_switch"),
        (
            spec(compute_fabric={"oversubscription": {"leaf": "1:1", "core": "2:1"}}),
            "compute_fabric.oversubscription.core",
        ),
        (spec(servers={"gpus": 8}), "servers.gpus"),
        (spec(layout={"racks": 4}), "layout.racks"),
        (spec(storage_fabric={"enable": True}), "storage_fabric.enable"),
        (spec(oob={"pdus": 2}), "oob.pdus"),
    ],
)
def test_it_rejects_an_unknown_field_naming_its_path_and_the_known_ones(data, path):
    (err,) = errors_of(data)
    assert err[0] == path
    assert "unknown field" in err[1] and "known:" in err[1]


@pytest.mark.parametrize(
    "drop, path",
    [
        ({"name": DELETE}, "name"),
        ({"servers": DELETE}, "servers"),
        ({"compute_fabric": DELETE}, "compute_fabric"),
        ({"servers": {"model": DELETE}}, "servers.model"),
        ({"servers": {"count": DELETE}}, "servers.count"),
        ({"compute_fabric": {"technology": DELETE}}, "compute_fabric.technology"),
        ({"compute_fabric": {"switch": DELETE}}, "compute_fabric.switch"),
        ({"name": None}, "name"),  # null counts as missing for a non-nullable field
    ],
)
def test_it_names_each_missing_required_field(drop, path):
    assert errors_of(spec(**drop)) == [(path, "is required")]


def test_it_reports_every_problem_at_once():
    data = spec(name=DELETE, servers={"count": 0}, compute_fabric={"planes": 3, "oversubscription": "x"}, extra=1)
    assert sorted(paths_of(data)) == sorted(
        ["extra", "name", "servers.count", "compute_fabric.planes", "compute_fabric.oversubscription.leaf"]
    )


@pytest.mark.parametrize("ratio", ["0:1", "1:0", "3", "a:b", "-1:1", "3:1:1", "", "1/1", 3, 1.5, ["3:1"], True])
def test_it_rejects_a_bad_ratio_at_the_leaf_ratio_path(ratio):
    assert errors_of(spec(compute_fabric={"oversubscription": ratio})) == [
        ("compute_fabric.oversubscription.leaf", 'must be a ratio such as "1:1" or "3:1"')
    ]


def test_it_rejects_an_unquoted_yaml_ratio_that_yaml_reads_as_a_number():
    """YAML 1.1 reads an unquoted 3:1 as the base-60 integer 181; the user must get a path, not a crash."""
    text = MINIMAL_YAML.replace('oversubscription: "1:1"', "oversubscription: 3:1")
    with pytest.raises(SpecError) as exc:
        load_spec_text(text)
    assert [e.path for e in exc.value.errors] == ["compute_fabric.oversubscription.leaf"]


@pytest.mark.parametrize(
    "overrides, path, message",
    [
        ({"servers": {"count": "many"}}, "servers.count", "must be a whole number"),
        ({"servers": {"count": 1.5}}, "servers.count", "must be a whole number"),
        ({"servers": {"count": True}}, "servers.count", "must be a whole number"),
        ({"servers": {"count": 0}}, "servers.count", "must be at least 1"),
        ({"servers": {"count": 1_000_001}}, "servers.count", "must be at most 1000000"),
        ({"servers": "dgx-h100"}, "servers", "must be a mapping of fields"),
        ({"name": 5}, "name", "must be a non-empty text"),
        ({"name": "   "}, "name", "must be a non-empty text"),
        ({"compute_fabric": {"technology": "ib"}}, "compute_fabric.technology", "must be one of infiniband, ethernet"),
        ({"compute_fabric": {"planes": 3}}, "compute_fabric.planes", "must be at most 2"),
        ({"compute_fabric": {"planes": "auto"}}, "compute_fabric.planes", "must be a whole number"),
        ({"compute_fabric": {"tiers": 1}}, "compute_fabric.tiers", "must be at least 2"),
        ({"compute_fabric": {"tiers": 4}}, "compute_fabric.tiers", "must be at most 3"),
        ({"compute_fabric": {"tiers": "AUTO"}}, "compute_fabric.tiers", 'must be a whole number or "auto"'),
        ({"compute_fabric": {"scalable_unit": 0}}, "compute_fabric.scalable_unit", "must be at least 1"),
        ({"compute_fabric": {"reserved_node_slots": -1}}, "compute_fabric.reserved_node_slots", "must be at least 0"),
        ({"storage_fabric": {"enabled": "yes"}}, "storage_fabric.enabled", "must be true or false"),
        (
            {"storage_fabric": {"oversubscription": "4:0"}},
            "storage_fabric.oversubscription",
            'must be a ratio such as "1:1" or "3:1"',
        ),
        (
            {"layout": {"network_racks": "top-of-rack"}},
            "layout.network_racks",
            "must be one of end-of-row, middle-of-row",
        ),
        ({"layout": {"rack_units": 61}}, "layout.rack_units", "must be at most 60"),
        ({"layout": {"racks_per_row": 1}}, "layout.racks_per_row", "must be at least 2"),
        ({"oob": "on"}, "oob", "must be a mapping of fields"),
        ({"physical": [1, 2]}, "physical", "must be a mapping"),
    ],
)
def test_it_rejects_a_wrong_type_or_range_at_its_path(overrides, path, message):
    assert errors_of(spec(**overrides)) == [(path, message)]


def test_it_rejects_a_spec_that_is_not_a_mapping():
    for data in (None, [], "name: x", 3):
        assert errors_of(data) == [("", "must be a mapping of fields")]


# --- auto --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "section, field, attr",
    [
        ("compute_fabric", "scalable_unit", ("compute", "scalable_unit")),
        ("compute_fabric", "tiers", ("compute", "tiers")),
        ("compute_fabric", "port_speed_gbps", ("compute", "port_speed_gbps")),
        ("layout", "servers_per_rack", ("layout", "servers_per_rack")),
        ("layout", "racks_per_row", ("layout", "racks_per_row")),
    ],
)
def test_it_turns_auto_into_none_whether_written_or_defaulted(section, field, attr):
    written = parse_spec(spec(**{section: {field: "auto"}}))
    omitted = parse_spec(spec(**{section: {field: DELETE}}))
    for s in (written, omitted):
        assert getattr(getattr(s, attr[0]), attr[1]) is None
    assert written.normalized == omitted.normalized
    assert written.to_dict()[section][field] == "auto"


def test_it_keeps_an_explicit_number_where_auto_is_allowed():
    s = parse_spec(spec(compute_fabric={"tiers": 3, "scalable_unit": 16, "port_speed_gbps": 400}))
    assert (s.compute.tiers, s.compute.scalable_unit, s.compute.port_speed_gbps) == (3, 16, 400)


def test_it_resolves_auto_scalable_unit_to_fill_the_leaf():
    """auto SU at 1:1 on a 64-port QM9700: 32 down, so 32 DGX H100 per SU."""
    result = build(compute_fabric={"scalable_unit": "auto"})
    assert result.summary["networks"]["compute"]["scalable_unit"] == 32


# --- every error carries a dotted path -------------------------------------------------------------

BAD_SPECS = [
    spec(servers={"model": 7, "count": -3}, compute_fabric={"switch": ""}),
    spec(compute_fabric={"oversubscription": {"leaf": "1:0", "spine": "x"}}),
    spec(storage_fabric={"appliances": -1, "ports_per_appliance": 0}),
    spec(inband={"management_servers": "two"}),
    spec(layout={"rack_power_kw": 0, "aisle_mm": 10, "tray_drop_m": "high"}),
    spec(unknown={"deeper": 1}),
]
# Specs that parse but cannot be built: the topology code must name the field too.
UNBUILDABLE = [
    (spec(servers={"model": "dgx-z900"}), "servers.model"),
    (spec(compute_fabric={"switch": "sn5600"}), "compute_fabric.switch"),  # ethernet switch, infiniband fabric
    (spec(compute_fabric={"spine_switch": "no-such-switch"}), "compute_fabric.spine_switch"),
    (spec(compute_fabric={"switch": "sn4600c", "technology": "ethernet"}), "compute_fabric.switch"),  # no 400G
    (spec(compute_fabric={"scalable_unit": 65}), "compute_fabric.scalable_unit"),
    (spec(compute_fabric={"fabric_managers": 4}), "compute_fabric.fabric_managers"),  # no reserved slot
    (spec(compute_fabric={"port_speed_gbps": 800}), "compute_fabric.port_speed_gbps"),
    (spec(compute_fabric={"tiers": 2}, servers={"count": 4096}), "compute_fabric.tiers"),
    (spec(inband={"enabled": True, "switch": "qm9700"}), "inband.switch"),
    (spec(storage_fabric={"enabled": True, "switch": "sn2201"}), "storage_fabric.switch"),
    (spec(layout={"servers_per_rack": 7}), "layout.servers_per_rack"),
    (spec(layout={"rack_power_kw": 5}), "layout.rack_power_kw"),
]


@pytest.mark.parametrize("data", BAD_SPECS)
def test_every_parse_error_carries_a_dotted_field_path(data):
    with pytest.raises(SpecError) as exc:
        parse_spec(data)
    assert exc.value.errors
    for err in exc.value.errors:
        assert DOTTED.match(err.path), err
        assert err.message
        assert f"{err.path}: {err.message}" in str(exc.value)


@pytest.mark.parametrize("data, path", UNBUILDABLE)
def test_every_build_error_carries_the_dotted_path_of_the_field_to_change(data, path):
    with pytest.raises(SpecError) as exc:
        build(data)
    assert [e.path for e in exc.value.errors] == [path]
    assert exc.value.errors[0].message


# --- JSON Schema --------------------------------------------------------------------------------


def _validator():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")
    schema = spec_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def preset_files() -> list[Path]:
    return sorted(PRESET_DIR.glob("*.yaml")) if PRESET_DIR.is_dir() else []


def test_the_json_schema_accepts_the_minimal_spec():
    v = _validator()
    assert list(v.iter_errors(MINIMAL)) == []


@pytest.mark.skipif(not preset_files(), reason="engine/presets has no preset files")
@pytest.mark.parametrize("path", preset_files(), ids=lambda p: p.stem)
def test_the_json_schema_and_the_parser_accept_every_preset(path):
    import yaml

    data = yaml.safe_load(path.read_text())
    assert [e.message for e in _validator().iter_errors(data)] == []
    parse_spec(data)


@pytest.mark.parametrize(
    "data",
    [
        spec(colour="blue"),
        spec(compute_fabric={"oversubscription": "a:b"}),
        spec(compute_fabric={"planes": 3}),
        spec(compute_fabric={"tiers": "AUTO"}),
        spec(servers={"count": DELETE}),
        spec(layout={"network_racks": "top-of-rack"}),
    ],
)
def test_the_json_schema_rejects_what_the_parser_rejects(data):
    assert list(_validator().iter_errors(data))
    with pytest.raises(SpecError):
        parse_spec(data)


def test_the_json_schema_accepts_both_oversubscription_forms():
    v = _validator()
    assert list(v.iter_errors(spec(compute_fabric={"oversubscription": "3:1"}))) == []
    assert list(v.iter_errors(spec(compute_fabric={"oversubscription": {"leaf": "3:1", "spine": "2:1"}}))) == []


@pytest.mark.skipif(not PUBLISHED_SCHEMA.is_file(), reason="docs/spec.schema.json is not in this checkout")
def test_the_published_schema_file_matches_the_code():
    assert json.loads(PUBLISHED_SCHEMA.read_text()) == spec_json_schema()


# --- edge cases that were engine bugs once (non-finite numbers, schema version, zero ratio terms) ---


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_it_rejects_a_non_finite_number_for_an_int_field_at_its_path(value):
    assert errors_of(spec(compute_fabric={"scalable_unit": value})) == [
        ("compute_fabric.scalable_unit", 'must be a whole number or "auto"')
    ]


def test_it_rejects_yaml_infinity_for_the_server_count():
    with pytest.raises(SpecError):
        load_spec_text(MINIMAL_YAML.replace("count: 128", "count: .inf"))


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_it_rejects_a_non_finite_rack_power_at_its_path(value):
    assert paths_of(spec(layout={"rack_power_kw": value})) == ["layout.rack_power_kw"]


def test_it_rejects_a_spec_for_another_schema_version():
    assert paths_of(spec(schema_version=99)) == ["schema_version"]


@pytest.mark.parametrize("ratio", ["0:1", "1:0"])
def test_the_json_schema_rejects_a_ratio_with_a_zero_term(ratio):
    data = spec(compute_fabric={"oversubscription": ratio})
    with pytest.raises(SpecError):
        parse_spec(data)
    assert list(_validator().iter_errors(data))


def test_it_reports_the_maximum_for_a_huge_server_count():
    assert errors_of(spec(servers={"count": 10**30})) == [("servers.count", "must be at most 1000000")]


# --- qos and physical: free-form in the schema, checked by their own parsers when the spec is parsed ---


@pytest.mark.parametrize("technology, switch", [("infiniband", "qm9700"), ("ethernet", "sn5600")])
def test_a_bad_dscp_in_the_qos_policy_is_a_spec_error_at_its_path(technology, switch):
    data = spec(compute_fabric={"technology": technology, "switch": switch}, qos={"roce": {"dscp": [26, 99]}})
    assert errors_of(data) == [("qos.roce.dscp[1]", "must be an integer from 0 to 63")]


@pytest.mark.parametrize(
    "qos, path",
    [
        ({"rocee": {"dscp": 26}}, "qos.rocee"),
        ({"ecn": {"min_bytes": 150000, "minimum": 1}}, "qos.ecn.minimum"),
        ({"technology": "infiniband"}, "qos.technology"),  # what GET …/qos/ answers is not a spec value
    ],
)
def test_an_unknown_qos_key_is_a_spec_error_at_its_path(qos, path):
    (err,) = errors_of(spec(qos=qos))
    assert err[0] == path and err[1].startswith("unknown field")


@pytest.mark.parametrize(
    "qos, path, message",
    [
        ({"ecn": {"min_bytes": "lots"}}, "qos.ecn.min_bytes", "must be an integer from 1 to 1000000000"),
        ({"pfc": {"watchdog": "yes"}}, "qos.pfc.watchdog", "must be true or false"),
        ({"mode": "lossless"}, "qos.mode", "must be one of dcqcn, pfc-only, lossy"),
        ({"mtu": [9216]}, "qos.mtu", "must be a mapping"),
        ([{"mode": "lossy"}], "qos", "must be a mapping"),
        ("dcqcn", "qos", "must be a mapping"),
    ],
)
def test_a_wrong_type_in_the_qos_policy_is_a_spec_error_at_its_path(qos, path, message):
    assert errors_of(spec(qos=qos)) == [(path, message)]


def test_qos_errors_come_with_every_other_error_at_once():
    data = spec(
        servers={"count": 0}, qos={"roce": {"dscp": [99]}, "ecn": {"min_bytes": "lots"}}, physical={"mm_fiber": "om9"}
    )
    assert sorted(paths_of(data)) == ["physical.mm_fiber", "qos.ecn.min_bytes", "qos.roce.dscp[0]", "servers.count"]


def test_the_qos_policy_waits_for_a_valid_technology():
    assert paths_of(spec(compute_fabric={"technology": "ib"}, qos={"roce": {"dscp": [99]}})) == [
        "compute_fabric.technology"
    ]


def test_a_valid_qos_policy_is_kept_exactly_as_written():
    written = {"mode": "pfc-only", "roce": {"dscp": 24}, "headroom": {"d_intf_bits": {"400": 500000}}}
    s = parse_spec(spec(qos=written))
    assert s.qos == written
    assert s.to_dict()["qos"] == written
    assert parse_spec(spec(qos={})).qos == {}
    assert parse_spec(spec(qos=None)).qos is None


@pytest.mark.parametrize(
    "physical, path",
    [
        ({"tiers": {"leaf-spine": {"medium": "carrier-pigeon"}}}, "physical.tiers.leaf-spine.medium"),
        ({"colour": "blue"}, "physical.colour"),
        ({"loss": {"splices_per_channel": "two"}}, "physical.loss.splices_per_channel"),
        ({"labels": {"own_end_first": "yes"}}, "physical.labels.own_end_first"),
    ],
)
def test_a_bad_physical_policy_is_a_spec_error_at_its_path(physical, path):
    (err,) = errors_of(spec(physical=physical))
    assert err[0] == path and err[1]


def test_a_valid_physical_policy_is_kept_exactly_as_written():
    written = {"default_tier": {"cabling": "panels"}, "loss": {"connector_grade": {"mpo": "standard"}}}
    assert parse_spec(spec(physical=written)).physical == written


def test_a_ratio_the_schema_did_not_check_is_refused_by_its_text():
    with pytest.raises(ValueError, match="not a ratio: '3-1'"):
        Ratio.parse("3-1")


def test_a_map_field_declared_without_its_values_field_is_a_schema_bug():
    with pytest.raises(TypeError, match="declares no `values` field"):
        normalize({"tags": Field("map")}, {"tags": {"a": "b"}})


# --- exports -----------------------------------------------------------------------------------


def test_netbox_version_defaults_to_the_current_netbox_series():
    assert parse_spec(MINIMAL).exports.netbox_version == "4.6"
    assert parse_spec(MINIMAL).to_dict()["exports"] == {"netbox_version": "4.6"}


def test_netbox_version_takes_an_earlier_series():
    assert parse_spec(spec(exports={"netbox_version": "4.4"})).exports.netbox_version == "4.4"


def test_an_unknown_netbox_version_is_refused_at_its_path():
    assert paths_of(spec(exports={"netbox_version": "3.7"})) == ["exports.netbox_version"]
