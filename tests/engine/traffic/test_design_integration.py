"""FabricFacts from a design summary, and analyze_design_workloads as the pipeline will call it."""

from __future__ import annotations

import json

import pytest

from engine.errors import SpecError
from engine.traffic import AnalysisSettings, FabricFacts, analyze_design_workloads

SERVER = {"gpus": 8, "nvlink_domain_gpus": 8, "gpu_memory_gb": 80}


def _summary(gpus=1024, tiers=2, leaf="1:1", spine=None, su=32, sus=4, pods=0):
    return {
        "gpus": gpus,
        "networks": {
            "compute": {
                "tiers": tiers,
                "scalable_unit": su,
                "scalable_units": sus,
                "pods": pods,
                "oversubscription": {"leaf": leaf, "spine": spine},
                "injection_gbps_per_gpu": 400.0,
                "bisection_gbps": gpus * 400 / 2,
            }
        },
    }


def test_facts_from_a_two_tier_summary():
    f = FabricFacts.from_summary(_summary(leaf="2:1"), 8, 8, 80)
    assert (f.gpus, f.gpus_per_su, f.gpus_per_pod, f.nic_gbps_per_gpu) == (1024, 256, 0, 400.0)
    assert f.tier_ratios == {"leaf": 2.0}


def test_facts_from_a_three_tier_summary_take_su_per_pod():
    s = _summary(gpus=8192, tiers=3, spine="3:1", sus=32, pods=3)
    assert FabricFacts.from_summary(s, 8, 8, 80).gpus_per_pod == 11 * 256  # ceil(32/3) SUs
    f = FabricFacts.from_summary(s, 8, 8, 80, su_per_pod=16)
    assert f.gpus_per_pod == 16 * 256 and f.tier_ratios == {"leaf": 1.0, "spine": 3.0}


def test_nvl72_summary_counts_racks_as_servers():
    f = FabricFacts.from_summary(_summary(gpus=576, su=8, sus=1), 72, 72, 186)
    assert (f.gpus_per_su, f.nvlink_domain_gpus) == (576, 72)


def test_analyze_design_workloads_returns_one_analysis_per_name():
    out = analyze_design_workloads(
        ["llama-70b-dp512", {"preset": "llama-70b-tp8-pp4-dp16", "name": "tp8"}], _summary(), SERVER
    )
    assert list(out) == ["llama-70b-dp512", "tp8"]
    assert out["llama-70b-dp512"]["verdict"]["status"] == "does-not-fit"
    json.dumps(out)


def test_settings_come_from_the_spec_or_the_caller():
    spec = {"profiles": ["llama-70b-dp512"], "settings": {"network_share_threshold": 0.5}}
    out = analyze_design_workloads(spec, _summary(), SERVER)
    assert out["llama-70b-dp512"]["settings"]["network_share_threshold"] == 0.5
    out = analyze_design_workloads(
        ["llama-70b-dp512"], _summary(), SERVER, settings=AnalysisSettings(nic_efficiency=0.92)
    )
    assert out["llama-70b-dp512"]["settings"]["nic_efficiency"] == 0.92


def test_bad_settings_name_the_field():
    with pytest.raises(SpecError) as e:
        analyze_design_workloads({"profiles": [], "settings": {"link_load_threshold": 3}}, _summary(), SERVER)
    assert e.value.errors[0].path == "workloads.settings.link_load_threshold"


def test_workload_bigger_than_the_design_is_a_spec_error():
    with pytest.raises(SpecError) as e:
        analyze_design_workloads(["llama3-405b-8k"], _summary(), SERVER)
    assert e.value.errors[0].path == "workloads[0].parallelism.data"


def test_accepts_the_catalog_server_model():
    from engine.catalog import load_catalog

    server = load_catalog().server("dgx-h100")
    out = analyze_design_workloads(["llama-70b-dp512"], _summary(), server)
    assert out["llama-70b-dp512"]["fabric"]["gpu_memory_gb"] == 80


def test_no_workloads_gives_an_empty_mapping():
    assert analyze_design_workloads(None, _summary(), SERVER) == {}
