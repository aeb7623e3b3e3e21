"""Bounded input (issue 20), engine side: the spec schema's bounds, the user-YAML loader, the save-time guard
(catalog keys, feasibility, size), the workloads' throughput warning and the CSV cell helper.

Each reported case is one test; tests/apps/api/test_abuse.py replays them through the API, the form and the CLI.
"""

from __future__ import annotations

import pytest

from engine.catalog import load_catalog
from engine.csvcells import line_may_need_neutralizing, neutralize, neutralize_row, strip_prefix
from engine.errors import SpecError
from engine.guard import Limits, check_spec
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.schema import ANY_MAX_DEPTH
from engine.spec import load_spec_text, parse_spec, spec_json_schema
from engine.yamlsafe import MAX_DEPTH, UserYamlError, load_user_yaml

SMALL = {
    "name": "small",
    "servers": {"model": "dgx-h100", "count": 32},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}


def spec(**sections):
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in SMALL.items()}
    for key, value in sections.items():
        out[key] = {**out[key], **value} if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def errors_of(data) -> dict[str, str]:
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    return {e.path: e.message for e in info.value.errors}


def check_errors(data, limits=None) -> dict[str, str]:
    with pytest.raises(SpecError) as info:
        check_spec(parse_spec(data), load_catalog(), limits)
    return {e.path: e.message for e in info.value.errors}


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"x": value}
    return value


# --- schema: counts, texts, nesting ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, section, value",
    [
        ("inband.management_servers", "inband", {"enabled": True, "management_servers": 1_000_000_000}),
        ("storage_fabric.appliances", "storage_fabric", {"enabled": True, "appliances": 1_000_000_000}),
    ],
)
def test_a_billion_appliances_is_refused_by_the_schema(path, section, value):
    assert errors_of(spec(**{section: value}))[path].startswith("must be at most")


def test_a_name_longer_than_its_column_is_refused():
    assert "at most 200 characters" in errors_of(spec(name="n" * 201))["name"]
    assert parse_spec(spec(name="n" * 200)).name == "n" * 200


@pytest.mark.parametrize("field", ["name", "description", "layout.site"])
@pytest.mark.parametrize(
    "bad, what", [("a\x00b", "NUL"), ("a\ud800b", "unpaired surrogate"), ("a\x07b", "control character")]
)
def test_nul_surrogates_and_controls_are_refused_in_every_text_field(field, bad, what):
    data = spec(layout={"site": bad}) if field == "layout.site" else spec(**{field: bad})
    assert what in errors_of(data)[field]


def test_a_nul_inside_a_free_form_section_is_refused_with_its_path():
    assert "NUL" in errors_of(spec(workloads=[{"name": "a\x00"}]))["workloads[0].name"]
    assert "key" in errors_of(spec(physical={"a\x00": 1}))["physical"]


def test_a_site_that_does_not_fit_the_rack_column_or_netbox_is_refused():
    assert "at most 16" in errors_of(spec(layout={"site": "S" * 25}))["layout.site"]
    assert "letters, digits" in errors_of(spec(layout={"site": "=1+2"}))["layout.site"]
    assert parse_spec(spec(layout={"site": "DC-1_b"})).layout.site == "DC-1_b"


def test_workloads_nested_900_deep_are_refused_without_recursing():
    errs = errors_of(spec(workloads=[nested(900)]))
    ((path, message),) = errs.items()
    assert path.startswith("workloads[0].x") and f"deeper than {ANY_MAX_DEPTH}" in message


def test_free_form_sections_hold_only_bounded_plain_data():
    assert "finite" in errors_of(spec(workloads=[{"x": float("nan")}]))["workloads[0].x"]
    assert "too large" in errors_of(spec(qos={"x": 10**400}))["qos.x"]
    assert "plain data" in errors_of(spec(workloads=[{1, 2}]))["workloads[0]"]
    assert "values" in errors_of(spec(workloads=[[0] * 1_000] * 30))["workloads"]
    assert "at most 1,000" in errors_of(spec(workloads=[[0] * 30_000]))["workloads[0]"]


def test_the_json_schema_publishes_the_text_bounds():
    props = spec_json_schema()["properties"]
    assert props["name"]["maxLength"] == 200
    site = props["layout"]["properties"]["site"]
    assert site["maxLength"] == 16 and site["pattern"].startswith("^")
    assert props["inband"]["properties"]["management_servers"]["maximum"] == 100_000


# --- YAML from users ---------------------------------------------------------------------------------

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"


def test_aliases_are_refused_with_line_and_column():
    with pytest.raises(UserYamlError) as info:
        load_user_yaml(BOMB)
    assert (info.value.line, info.value.column) == (1, 4) and "anchors" in info.value.message
    with pytest.raises(UserYamlError, match="aliases"):
        load_user_yaml("a: *x\n")


def test_the_468_byte_alias_bomb_under_workloads_is_refused():
    lines = [
        "name: x",
        "servers: {model: dgx-h100, count: 8}",
        "compute_fabric: {technology: infiniband, switch: qm9700}",
        "workloads:",
    ]
    lines.append("  - &l0 [" + ", ".join(["lol"] * 10) + "]")
    for i in range(1, 8):
        lines.append(f"  - &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    with pytest.raises(SpecError) as info:
        load_spec_text("\n".join(lines))
    assert "line 5, column 5" in str(info.value)


def test_deep_nesting_is_refused_before_python_recursion_runs_out():
    for text in ("[" * 500 + "]" * 500, "\n".join("  " * i + "a:" for i in range(500)) + " 1"):
        with pytest.raises(UserYamlError, match=f"deeper than {MAX_DEPTH}") as info:
            load_user_yaml(text)
        assert info.value.line is not None
    assert load_user_yaml("[" * 30 + "]" * 30) is not None


@pytest.mark.parametrize(
    "text, tag",
    [
        ("a: !!set {x, y}", "set"),
        ("a: !!binary aGk=", "binary"),
        ("a: !!python/name:os.system x", "python"),
        ("a: !custom 1", "custom"),
        ("a: !!timestamp 2024-01-01", "timestamp"),
    ],
)
def test_only_the_json_types_tags_are_allowed(text, tag):
    with pytest.raises(UserYamlError, match="not allowed") as info:
        load_user_yaml(text)
    assert tag in info.value.message and info.value.line == 1


def test_plain_yaml_still_reads_and_dates_stay_text():
    assert load_user_yaml("a: 2024-01-01\nb: [1, 2.5, true, null, '!!x']\n") == {
        "a": "2024-01-01",
        "b": [1, 2.5, True, None, "!!x"],
    }


def test_oversized_text_and_control_characters_are_refused():
    with pytest.raises(UserYamlError, match="limit"):
        load_user_yaml("a: 1\n" * 100, max_chars=50)
    with pytest.raises(UserYamlError) as info:
        load_user_yaml("a: 1\nb: x\x00y\n")
    assert (info.value.line, info.value.column) == (2, 5)


# --- the save-time guard: catalog keys, feasibility, size -----------------------------------------------


def test_unknown_catalog_keys_are_all_named_at_save():
    errs = check_errors(
        spec(
            servers={"model": "dgx-nope"},
            compute_fabric={"switch": "sw-nope"},
            oob={"enabled": True, "switch": "oob-nope"},
        )
    )
    assert set(errs) == {"servers.model", "compute_fabric.switch", "oob.switch"}
    assert "unknown server model 'dgx-nope'" in errs["servers.model"]


def test_an_unknown_workload_preset_is_refused_at_save():
    errs = check_errors(spec(workloads=["no-such-preset"]))
    assert any(p.startswith("workloads[0]") for p in errs)


def test_a_spec_that_cannot_be_built_is_refused_at_save_with_its_field():
    errs = check_errors(spec(servers={"count": 16_384}))
    assert "compute_fabric.tiers" in errs and "65,536 ports per plane" in errs["compute_fabric.tiers"]


def test_the_estimate_is_exact_for_the_fabrics_and_close_for_oob():
    for key in ("dgx-h100-superpod-4su", "hgx-roce-2su"):
        data = {
            **load_preset(key),
            "storage_fabric": {"enabled": True, "appliances": 10},
            "inband": {"enabled": True, "management_servers": 4},
            "oob": {"enabled": True},
        }
        s = parse_spec(data)
        est = check_spec(s, load_catalog()).estimate
        result = compute_design(s)
        for net in ("compute", "storage", "inband"):
            assert est.per_network[net]["links"] == sum(1 for lk in result.links if lk.network == net), (key, net)
        assert abs(est.links - len(result.links)) <= 0.05 * len(result.links)
        assert abs(est.devices - len(result.devices)) <= 0.05 * len(result.devices)


def test_the_default_limits_admit_131072_gpus_and_refuse_far_more():
    big = {
        "name": "128K",
        "servers": {"model": "dgx-b300", "count": 16_384},
        "compute_fabric": {"technology": "infiniband", "switch": "q3400"},
        "storage_fabric": {"enabled": True, "switch": "q3400", "appliances": 64},
        "oob": {"enabled": True},
    }
    est = check_spec(parse_spec(big), load_catalog()).estimate
    assert est.per_network["compute"]["links"] == 397_184
    # The in-band network at this size (two 100G ports per server plus uplinks) adds about 66,000 links.
    assert est.links + 70_000 < Limits().max_links and est.devices + 1_000 < Limits().max_devices
    errs = check_errors(big, Limits(max_links=400_000))
    assert "limit is 400,000" in errs["servers.count"]


def test_the_default_limits_admit_the_campus_designs_and_refuse_more():
    """The 1,048,576-GPU campus design (one Q3400 plane, spine 3:1) and the largest non-blocking one with OOB
    (745,920 GPUs) are admitted; two planes of a million GPUs (about 6.3 million links) are refused."""

    def fabric(servers: int, **extra) -> dict:
        compute = {"technology": "infiniband", "switch": "q3400", **extra}
        return {"name": "campus", "servers": {"model": "dgx-b300", "count": servers}, "compute_fabric": compute}

    campus = fabric(131_072, oversubscription={"leaf": "1:1", "spine": "3:1"})
    non_blocking = {**fabric(93_240), "oob": {"enabled": True}}
    for spec_data, compute_links in ((campus, 2_462_944), (non_blocking, 2_238_336)):
        est = check_spec(parse_spec(spec_data), load_catalog(), Limits()).estimate
        assert est.per_network["compute"]["links"] == compute_links
        assert est.links <= Limits().max_links and est.devices <= Limits().max_devices

    errs = check_errors(fabric(131_072, planes=2), Limits())
    assert "(DESIGN_MAX_LINKS)" in errs["servers.count"]


def test_the_pipeline_runs_the_guard_before_building():
    with pytest.raises(SpecError) as info:
        compute_design(parse_spec(spec()), limits=Limits(max_links=10))
    assert info.value.errors[0].path == "servers.count"


# --- workloads -------------------------------------------------------------------------------------------


def test_a_step_time_implying_twice_llama3s_rate_is_a_warning_at_its_field():
    wl = {"preset": "llama-70b-dp512", "target_step_time_s": 2}
    data = spec(servers={"count": 64}, workloads=[wl])
    warnings = check_spec(parse_spec(data), load_catalog()).warnings
    (w,) = warnings
    assert w.path == "workloads[0].target_step_time_s"
    assert "TFLOP/s per GPU" in w.message and "430" in w.message and "Llama 3" in w.message
    slow = spec(servers={"count": 64}, workloads=[{**wl, "target_step_time_s": 10}])
    assert check_spec(parse_spec(slow), load_catalog()).warnings == ()


def test_a_model_without_a_published_rate_is_checked_only_with_the_setting():
    data = spec(
        servers={"model": "dgx-b200", "count": 64},
        workloads={"profiles": [{"preset": "llama-70b-dp512", "target_step_time_s": 2}]},
    )
    assert check_spec(parse_spec(data), load_catalog()).warnings == ()
    data["workloads"]["settings"] = {"achievable_tflops_per_gpu": 500}
    (w,) = check_spec(parse_spec(data), load_catalog()).warnings
    assert w.path == "workloads.profiles[0].target_step_time_s" and "your setting" in w.message


def test_a_workload_without_a_step_time_is_analysed_without_the_share_checks():
    # The shipped preset publishes no step time; its data-parallel size scaled down to the small design.
    wl = {"preset": "gpt3-175b-hpn", "parallelism": {"data": 4}}
    result = compute_design(parse_spec(spec(workloads=[wl])))
    (analysis,) = result.summary["workloads"].values()
    share = next(r for r in analysis["verdict"]["reasons"] if r["check"] == "network-share")
    assert share["status"] == "not-evaluated"
    assert analysis["throughput"]["implied_tflops_per_gpu"] is None


# --- CSV cells -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cell, out",
    [
        ("=1+2", "'=1+2"),
        ("+A1", "'+A1"),
        ("-cmd", "'-cmd"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("-1.5", "-1.5"),
        ("+3", "+3"),
        ("-2e-3", "-2e-3"),
        (-1.5, -1.5),
        (-3, -3),
        ("DC1.A01", "DC1.A01"),
        ("", ""),
        (None, None),
    ],
)
def test_formula_cells_get_a_leading_quote_and_numbers_stay(cell, out):
    assert neutralize(cell) == out
    if isinstance(out, str):
        assert strip_prefix(out) == cell


def test_the_line_scan_finds_every_formula_cell():
    row = ["DC1-A", "x", "=1"]
    assert line_may_need_neutralizing(",".join(row))
    assert not line_may_need_neutralizing("DC1-A,x-y,C000001,1.5")
    assert neutralize_row(row) == ["DC1-A", "x", "'=1"]


def test_a_custom_server_key_too_long_for_the_device_name_column_is_refused_at_save():
    import yaml

    from engine.catalog import DATA_DIR

    body = yaml.safe_load((DATA_DIR / "servers.yaml").read_text())["servers"]["dgx-h100"]
    key = "x" * 60
    catalog = load_catalog({"servers": {key: body}})
    with pytest.raises(SpecError) as info:
        check_spec(parse_spec(spec(servers={"model": key})), catalog)
    assert info.value.errors[0].path == "servers.model" and "at most 64" in info.value.errors[0].message
