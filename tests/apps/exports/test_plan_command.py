"""`manage.py plan SPEC --out DIR`: the CLI face of the engine."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engine.catalog import load_catalog
from tests.engine.linkcheck import check_links

ROOT = Path(__file__).resolve().parents[3]

MINIMAL = """\
name: SuperPOD 4 SU
servers: {model: dgx-h100, count: 128}
compute_fabric:
  technology: infiniband      # infiniband | ethernet
  switch: qm9700
  scalable_unit: 32           # servers per SU, or auto
  oversubscription: "1:1"     # downlink : uplink bandwidth at the leaf
  tiers: auto                 # auto | 2 | 3
"""


def _run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SECRET_KEY": "cli-test"}
    return subprocess.run(
        [sys.executable, "manage.py", "plan", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_it_plans_the_minimal_spec_exactly_as_written(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(MINIMAL)
    call_command("plan", str(spec), "--out", str(tmp_path / "out"))
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    compute = summary["networks"]["compute"]
    assert summary["gpus"] == 1024 and summary["servers"] == 128
    assert compute["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert compute["links"]["node-leaf"] == 1024 and compute["links"]["leaf-spine"] == 1024
    assert compute["oversubscription"] == {"leaf": "1:1", "spine": None}
    assert compute["bisection_gbps"] == 1024 * 400 / 2
    assert (tmp_path / "out" / "cables.csv").exists()


def test_an_independent_checker_accepts_the_links_csv(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(MINIMAL)
    call_command("plan", str(spec), "--out", str(tmp_path))
    with open(tmp_path / "links.csv", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        # CSV gives text; the checker works on typed rows (plane, speed as ints, length as float).
        rows = [[*row[:2], int(row[2]), *row[3:4], int(row[4]), *row[5:13], float(row[13])] for row in reader]
    assert header[:14] == [
        "id",
        "network",
        "plane",
        "tier",
        "speed_gbps",
        "a_device",
        "a_port",
        "a_rack",
        "a_u",
        "b_device",
        "b_port",
        "b_rack",
        "b_u",
        "run_length_m",
    ]
    server = load_catalog(with_media=False).servers["dgx-h100"]
    rail_of_port = {p.name: p.rail for p in server.compute_ports}
    assert check_links(rows, rail_of_port=rail_of_port, servers=128, leaf_ratio=Fraction(1)) == []


def test_it_plans_a_preset_by_name(tmp_path):
    call_command("plan", "preset:gb200-nvl72-1su", "--out", str(tmp_path))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["gpus"] == 576


def test_a_bad_spec_names_the_field_and_exits_non_zero(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text(MINIMAL.replace("switch: qm9700", "switch: qm9999").replace('"1:1"', '"1:x"'))
    proc = _run_cli(str(spec), "--out", str(tmp_path / "out"))
    assert proc.returncode != 0
    assert "compute_fabric.oversubscription" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_bad_qos_policy_names_each_field_and_exits_non_zero_before_any_work(tmp_path):
    spec = tmp_path / "bad-qos.yaml"
    spec.write_text(MINIMAL + "qos:\n  roce: {dscp: [26, 99]}\n  rocee: {}\n  ecn: {min_bytes: lots}\n")
    proc = _run_cli(str(spec), "--out", str(tmp_path / "out"))
    assert proc.returncode == 1
    assert "the spec is not valid" in proc.stderr
    for line in (
        "qos.roce.dscp[1]: must be an integer from 0 to 63",
        "qos.rocee: unknown field",
        "qos.ecn.min_bytes: must be an integer from 1 to 1000000000",
    ):
        assert line in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_bad_physical_policy_names_the_field(tmp_path):
    spec = tmp_path / "bad-physical.yaml"
    spec.write_text(MINIMAL + "physical: {mm_fiber: om9}\n")
    with pytest.raises(CommandError, match=r"physical\.mm_fiber: must be one of"):
        call_command("plan", str(spec), "--out", str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_an_unbuildable_spec_says_why(tmp_path):
    spec = tmp_path / "big.yaml"
    spec.write_text(MINIMAL.replace("count: 128", "count: 16384"))
    with pytest.raises(CommandError) as exc:
        call_command("plan", str(spec), "--out", str(tmp_path / "out"))
    assert "compute_fabric.tiers" in str(exc.value) and "65,536" in str(exc.value)


def test_a_missing_spec_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("plan", str(tmp_path / "nope.yaml"), "--out", str(tmp_path))


def test_invalid_yaml_points_at_the_line(tmp_path):
    spec = tmp_path / "broken.yaml"
    spec.write_text("name: x\nservers: {model: dgx-h100, count: 4\n")
    with pytest.raises(CommandError, match="line"):
        call_command("plan", str(spec), "--out", str(tmp_path))


def test_it_writes_one_qos_file_per_roce_switch_and_subnet_manager_settings_for_infiniband(tmp_path):
    call_command("plan", "preset:hgx-roce-2su", "--out", str(tmp_path / "roce"))
    switches = sorted((tmp_path / "roce" / "configs" / "qos" / "switches").glob("*.nvue.txt"))
    summary = json.loads((tmp_path / "roce" / "summary.json").read_text())
    compute = summary["networks"]["compute"]["switches"]
    assert len(switches) == compute["leaf"] + compute["spine"]
    assert "nv set qos roce" in switches[0].read_text() or "dscp 26" in switches[0].read_text()
    call_command("plan", "preset:dgx-h100-superpod-4su", "--out", str(tmp_path / "ib"))
    assert list((tmp_path / "ib" / "configs" / "qos" / "subnet-manager").glob("*.opensm.conf"))


def test_it_writes_every_deliverable_the_issue_lists(tmp_path):
    call_command("plan", "preset:dgx-h100-superpod-4su", "--out", str(tmp_path))
    for name in (
        "bom.pdf",
        "bom.csv",
        "cabling-plan.pdf",
        "cables.csv",
        "links.csv",
        "labels.pdf",
        "test-sheet.pdf",
        "test-sheet.csv",
        "loss-budget.csv",
        "topology.dot",
        "topology.ibnetdiscover",
        "netbox/devices.csv",
        "netbox/interfaces.csv",
        "netbox/cables.csv",
        "summary.json",
    ):
        assert (tmp_path / name).stat().st_size > 0, name


def test_an_unknown_deliverable_is_refused_before_any_work(tmp_path):
    with pytest.raises(CommandError, match="--deliverables: unknown"):
        call_command("plan", "preset:dgx-h100-superpod-4su", "--out", str(tmp_path / "x"), "--deliverables", "bom.doc")
    assert not (tmp_path / "x").exists()


def test_it_writes_the_monitoring_files_that_promtool_accepts(tmp_path):
    import shutil

    spec = tmp_path / "spec.yaml"
    spec.write_text(MINIMAL)
    only = "monitoring/prometheus-rules.yaml,monitoring/prometheus-targets.json,monitoring/grafana-dashboard.json"
    call_command("plan", str(spec), "--out", str(tmp_path / "out"), "--deliverables", only)
    folder = tmp_path / "out" / "monitoring"
    targets = json.loads((folder / "prometheus-targets.json").read_text())
    assert len(targets) == 128 + 32 + 16  # servers, leaves, spines
    assert json.loads((folder / "grafana-dashboard.json").read_text())["panels"]
    if shutil.which("promtool") is None:
        pytest.skip("promtool not installed (apt-get install prometheus)")
    out = subprocess.run(["promtool", "check", "rules", str(folder / "prometheus-rules.yaml")], capture_output=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_bad_monitoring_setting_names_the_field_and_exits_non_zero(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(MINIMAL + "monitoring: {targets: {utilization_peak: 95}}\n")
    out = _run_cli(str(spec), "--out", str(tmp_path / "out"))
    assert out.returncode != 0
    assert "monitoring.targets.utilization_peak" in out.stderr + out.stdout


def test_the_bom_takes_the_failure_rate_spares_rule(tmp_path):
    """128 DGX H100 in 4 SUs: 48 QM9700 at 2 %/year, 2,160 h, 99 % -> lambda 0.23671, 2 spares
    (worked in tests/engine/orders/test_failure_rates.py)."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(MINIMAL)
    args = ("--spares-rule", "failure-rate", "--spares-afr-percent", "switch:2", "--spares-replenish-hours", "2160")
    out = _run_cli(
        str(spec),
        "--out",
        str(tmp_path / "out"),
        "--deliverables",
        "bom.csv",
        *args,
        "--spares-service-level-percent",
        "switch:99",
    )
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader((tmp_path / "out" / "bom.csv").open(encoding="utf-8")))
    qm = next(r for r in rows if r[0] == "order" and "MQM9700-NS2F" in r)
    assert "Poisson 99 % quantile of 0.237 expected failures (48 x 2 %/year x 2160 h / 8760 h)" in qm
    bad = _run_cli(
        str(spec),
        "--out",
        str(tmp_path / "bad"),
        "--spares-rule",
        "failure-rate",
        "--spares-service-level-percent",
        "100",
    )
    assert bad.returncode != 0 and "--spares-service-level-percent:" in bad.stderr


def test_cables_csv_is_the_schedule_with_deliverables_and_the_engine_table_without(tmp_path, monkeypatch):
    """With the deliverables, cables.csv is their schedule (the engine's columns, then the installer's), written
    once: the engine's own table is not written first and overwritten. Without them it is the engine's table."""
    import engine.outputs
    from engine.outputs import write_cables_csv

    written: list[str] = []
    real = engine.outputs.write_cables_csv

    def counting(result, fh, **kw):
        written.append("engine")
        return real(result, fh, **kw)

    monkeypatch.setattr(engine.outputs, "write_cables_csv", counting)
    call_command("plan", "preset:dgx-h100-superpod-4su", "--out", str(tmp_path / "all"))
    assert written == []
    with open(tmp_path / "all" / "cables.csv", newline="") as fh:
        schedule_header = next(csv.reader(fh))
    call_command("plan", "preset:dgx-h100-superpod-4su", "--out", str(tmp_path / "none"), "--deliverables", "none")
    assert written == ["engine"]
    with open(tmp_path / "none" / "cables.csv", newline="") as fh:
        engine_header = next(csv.reader(fh))
    assert schedule_header[: len(engine_header)] == engine_header and len(schedule_header) > len(engine_header)
    call_command("plan", "preset:dgx-h100-superpod-4su", "--out", str(tmp_path / "bom"), "--deliverables", "bom.csv")
    assert written == ["engine", "engine"] and (tmp_path / "bom" / "cables.csv").exists()
    assert write_cables_csv is real
