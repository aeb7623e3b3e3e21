"""The seed articles' 70B-on-512-GPUs example, worked through (docs/traffic.md, "Worked example").

Pure data parallelism, bf16 gradients: S = 70e9 · 2 B = 140e9 B per GPU.
Rail-aligned hierarchical all-reduce over N = 64 nodes of g = 8 GPUs: per NIC 2·(63/64)·S/8 = 34.453e9 B
(≈ 2S/g = 35 GB). At 400 Gb/s · 0.96 = 48 GB/s: 0.71777 s, 35.9 % of a 2 s step: tight (heuristic 25 %).
Memory: 70e9 · (2 + 2 + 12) B = 1.12e12 B of weights, gradients and Adam state per GPU: does not fit 80 GB.
"""

from __future__ import annotations

import json

import pytest

from engine.traffic import AnalysisSettings, analyze, parse_workloads
from tests.engine.traffic.fabrics import h100

S = 70e9 * 2
PER_NIC = 2 * 63 / 64 * S / 8


@pytest.fixture
def wl():
    return parse_workloads(["llama-70b-dp512"])[0]


@pytest.fixture
def result(wl, fabric_512):
    return analyze(wl, fabric_512)


def test_per_nic_bytes_are_about_35_gb(result):
    assert result["totals"]["per_nic_bytes"] == pytest.approx(PER_NIC, rel=1e-5)
    assert result["totals"]["per_nic_bytes"] == pytest.approx(35e9, rel=0.02)


def test_collective_takes_about_0_7_s_at_48_gb_per_s(result):
    assert result["totals"]["network_time_s"] == pytest.approx(PER_NIC / 48e9, rel=1e-5)
    assert result["totals"]["network_time_s"] == pytest.approx(0.718, abs=0.001)
    assert round(result["totals"]["network_time_s"], 1) == 0.7


def test_network_share_is_a_tight_36_percent_of_a_2_s_step(result):
    assert result["totals"]["algorithm"] == "hierarchical"  # rail-aligned collectives drive the verdict
    assert result["totals"]["network_share_no_overlap"] == pytest.approx(PER_NIC / 48e9 / 2, rel=1e-5)
    assert round(result["totals"]["network_share_no_overlap"], 2) == 0.36
    net = next(r for r in result["verdict"]["reasons"] if r["check"] == "network-share")
    assert net["status"] == "tight" and net["threshold"] == 0.25


def test_but_it_does_not_fit_in_gpu_memory(result):
    mem = result["memory"]
    assert mem["weights_bytes"] + mem["gradients_bytes"] + mem["optimizer_bytes"] == pytest.approx(70e9 * 16, rel=1e-5)
    assert mem["status"] == "does-not-fit"
    assert result["verdict"]["status"] == "does-not-fit"
    checks = {r["check"]: r["status"] for r in result["verdict"]["reasons"]}
    assert checks["memory"] == "does-not-fit" and checks["network-share"] == "tight"


def test_flat_ring_sends_the_articles_280_gb_per_nic(result):
    """Topology-unaware ring: 2·511/512·140e9 = 279.45e9 B per NIC (D.4), 5.82 s at 48 GB/s."""
    assert result["totals"]["per_nic_bytes_flat_ring"] == pytest.approx(2 * 511 / 512 * S, rel=1e-5)
    assert result["totals"]["network_time_s_flat_ring"] == pytest.approx(2 * 511 / 512 * S / 48e9, rel=1e-5)


def test_fixes_include_a_layout_that_fits_and_more_accumulation(result):
    kinds = {f["kind"]: f for f in result["fixes"]}
    assert kinds["parallel-layout"]["effect"]["status"] == "fits"
    # Doubling accumulation keeps the DP bytes and doubles the step: the share halves (35.9 % -> 17.9 %).
    ga = kinds["gradient-accumulation"]
    assert ga["effect"]["network_share_no_overlap"] == pytest.approx(PER_NIC / 48e9 / 4, rel=1e-5)


def test_overlap_hides_the_set_fraction(wl, fabric_512):
    r = analyze(wl.with_changes(overlap=0.5), fabric_512)
    assert r["totals"]["network_share_with_overlap"] == pytest.approx(PER_NIC / 48e9 / 2 / 2, rel=1e-5)
    assert r["totals"]["network_share_no_overlap"] == pytest.approx(PER_NIC / 48e9 / 2, rel=1e-5)


def test_the_realistic_layout_sends_8_2_gb_per_gpu(fabric_512):
    """TP 8 x PP 4 x DP 16, distributed optimizer: shard 70e9·2/32 = 4.375e9 B; RS + AG each send
    15/16 of it = 8.203e9 B per GPU per step (D.4: 8.2 GB)."""
    r = analyze(parse_workloads(["llama-70b-tp8-pp4-dp16"])[0], fabric_512)
    dp = sum(c["wire_bytes_per_gpu"] for c in r["collectives"] if c["dimension"] == "data")
    assert dp == pytest.approx(2 * 15 / 16 * 4.375e9, rel=1e-5)
    assert r["verdict"]["status"] == "fits"


def test_output_is_json_ready_and_deterministic(wl, fabric_512):
    a, b = analyze(wl, fabric_512), analyze(wl, fabric_512)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_nic_efficiency_is_a_setting(wl, fabric_512):
    r = analyze(wl, fabric_512, AnalysisSettings(nic_efficiency=0.92))
    assert r["totals"]["network_time_s"] == pytest.approx(PER_NIC / 46e9, rel=1e-5)


def test_share_threshold_is_a_user_setting(wl, fabric_512):
    r = analyze(wl, fabric_512, AnalysisSettings(network_share_threshold=0.4))
    net = next(x for x in r["verdict"]["reasons"] if x["check"] == "network-share")
    assert net["status"] == "fits" and "heuristic" in net["message"]


def test_faster_nics_halve_the_nic_time_until_nvlink_limits(wl):
    """800 Gb/s: NIC phase 34.45e9/96e9 = 0.359 s, but the NVLink phases move 2·7/8·140e9 = 245e9 B at
    370 GB/s = 0.662 s, which now sets the pace (phases are pipelined: time = the slower one)."""
    r = analyze(wl, h100(512, nic=800))
    assert r["totals"]["network_time_s"] == pytest.approx(2 * 7 / 8 * S / 370e9, rel=1e-5)
