"""Parsing workload profiles: presets, overrides and field-path errors."""

from __future__ import annotations

import pytest

from engine.errors import SpecError
from engine.traffic import list_workload_presets, parse_workloads

MINIMAL = {"name": "w", "parameters": "7B", "layers": 32, "hidden_size": 4096, "sequence_length": 4096}


def _paths(exc):
    return {e.path for e in exc.value.errors}


def test_every_preset_parses():
    names = list(list_workload_presets())
    assert {"gpt3-175b-hpn", "llama3-405b-8k", "llama3-405b-16k", "llama3-405b-long-context", "llama-70b-dp512"} <= set(
        names
    )
    assert [w.name for w in parse_workloads(names)] == names


def test_a_preset_with_overrides_merges_nested_fields():
    wl = parse_workloads([{"preset": "llama-70b-dp512", "name": "mine", "parallelism": {"data": 256}}])[0]
    assert (wl.name, wl.parallelism.data, wl.parallelism.tensor, wl.gpus) == ("mine", 256, 1, 256)
    assert wl.preset == "llama-70b-dp512" and wl.parameters == 70e9


def test_number_suffixes_are_read():
    assert parse_workloads([MINIMAL])[0].parameters == 7e9


def test_gpu_count_must_match_the_layout():
    with pytest.raises(SpecError) as e:
        parse_workloads([{**MINIMAL, "parallelism": {"tensor": 8, "data": 4}, "gpus": 64}])
    assert "workloads[0].parallelism.data" in _paths(e)


def test_layout_larger_than_the_design_names_the_field():
    with pytest.raises(SpecError) as e:
        parse_workloads(["llama-70b-dp512"], design_gpus=256)
    assert _paths(e) == {"workloads[0].parallelism.data"}
    assert "more than the design's 256" in str(e.value)


def test_tensor_parallel_must_divide_the_heads():
    with pytest.raises(SpecError) as e:
        parse_workloads([{**MINIMAL, "attention_heads": 32, "parallelism": {"tensor": 3}}])
    assert "workloads[0].parallelism.tensor" in _paths(e)


def test_bad_fields_are_all_reported_with_paths():
    bad = {
        **MINIMAL,
        "precision": {"gradients": "fp4"},
        "layers": 0,
        "colour": "red",
        "parallelism": {"tensor": "eight"},
    }
    with pytest.raises(SpecError) as e:
        parse_workloads([MINIMAL, bad])
    assert {
        "workloads[1].precision.gradients",
        "workloads[1].layers",
        "workloads[1].colour",
        "workloads[1].parallelism.tensor",
    } <= _paths(e)


def test_unknown_preset_is_an_error():
    with pytest.raises(SpecError) as e:
        parse_workloads(["gpt-5"])
    assert _paths(e) == {"workloads[0].preset"}


def test_duplicate_names_are_rejected():
    with pytest.raises(SpecError) as e:
        parse_workloads(["llama-70b-dp512", "llama-70b-dp512"])
    assert "workloads[1].name" in _paths(e)


def test_rank_order_accepts_short_names_and_rejects_incomplete_ones():
    wl = parse_workloads([{**MINIMAL, "parallelism": {"rank_order": "tp-cp-pp-dp"}}])[0]
    assert wl.parallelism.rank_order == ("tensor", "context", "pipeline", "data")
    with pytest.raises(SpecError) as e:
        parse_workloads([{**MINIMAL, "parallelism": {"rank_order": "tp-dp"}}])
    assert "workloads[0].parallelism.rank_order" in _paths(e)


def test_optimizer_state_defaults_to_mixed_precision_adam():
    """Adam: fp32 master + two fp32 moments = 12 B; with bf16 weights and grads 16 B/param (D.2)."""
    from engine.traffic.workload import optimizer_bytes

    wl = parse_workloads([MINIMAL])[0]
    assert optimizer_bytes(wl) == 12
    assert optimizer_bytes(wl.with_changes(optimizer=6.0)) == 6.0


def test_none_means_no_workloads():
    assert parse_workloads(None) == []
