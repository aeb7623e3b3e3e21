"""The memory-fit check, and its activation estimate, which is NOT from the reference.

The reference (fabrics-qos-traffic.md D.2) gives bytes per parameter (16 B for mixed-precision Adam) but no
activation-memory formula or figure. The estimate follows Korthikanti et al. 2022, "Reducing Activation
Recomputation in Large Transformer Models" (arXiv 2205.05198), sections 4-5; its coefficients are settings
(docs/traffic.md "Memory", docs/data-gaps.md "Training-traffic analysis").
"""

from __future__ import annotations

import pytest

from engine.errors import SpecError
from engine.traffic import AnalysisSettings, analyze, parse_workloads
from tests.engine.traffic.fabrics import h100

SBH_70B = 4096 * 8192  # b·s·h of the 70B presets (b = 1, s = 4096, h = 8192)


def _wl(name="llama-70b-dp512", **over):
    return parse_workloads([{"preset": name, **over}])[0]


def _mem(wl, settings=None, fabric=None):
    return analyze(wl, fabric or h100(512), settings)["memory"]


class TestKorthikantiEstimate:
    def test_default_is_34_sbh_per_layer(self):
        """Pure DP (t = p = 1), selective recomputation: 80 layers · 34 · s·b·h = 91.27e9 B."""
        mem = _mem(_wl())
        assert mem["activations_bytes"] == pytest.approx(80 * 34 * SBH_70B, rel=1e-5)
        assert mem["activations_source"].startswith("estimate: Korthikanti")

    def test_sequence_parallel_splits_all_34_over_t(self):
        """TP 8 + SP, PP 4, m = 32: first stage holds min(m, p) = 4 micro-batches of 20 layers, 34/8 · sbh each."""
        mem = _mem(_wl("llama-70b-tp8-pp4-dp16"))
        assert mem["micro_batches_in_flight"] == 4
        assert mem["activations_bytes"] == pytest.approx(20 * 4 * 34 / 8 * SBH_70B, rel=1e-5)

    def test_without_sequence_parallelism_10_of_the_34_stay_whole(self):
        """Korthikanti 4.2.1: s·b·h·(10 + 24/t) per layer with TP alone."""
        mem = _mem(_wl("llama-70b-tp8-pp4-dp16", parallelism={"sequence_parallel": False}))
        assert mem["activations_bytes"] == pytest.approx(20 * 4 * (10 + 24 / 8) * SBH_70B, rel=1e-5)

    def test_full_recomputation_keeps_each_layer_input_plus_one_working_set(self):
        """2·s·b·h per layer (t = 1) for 80 layers, plus one layer's 34·s·b·h while it is recomputed."""
        mem = _mem(_wl(activation_checkpointing="full"))
        assert mem["activations_bytes"] == pytest.approx((80 * 2 + 34) * SBH_70B, rel=1e-5)

    def test_fp32_activations_double_the_estimate(self):
        mem = _mem(_wl(precision={"activations": "fp32"}))
        assert mem["activations_bytes"] == pytest.approx(2 * 80 * 34 * SBH_70B, rel=1e-5)


class TestActivationSettings:
    def test_coefficient_is_a_setting(self):
        """A user's own figure (e.g. from a memory profile) replaces Korthikanti's 34 proportionally."""
        mem = _mem(_wl(), AnalysisSettings(activation_bytes_per_sbh=17))
        assert mem["activations_bytes"] == pytest.approx(80 * 17 * SBH_70B, rel=1e-5)

    def test_replicated_part_is_a_setting(self):
        s = AnalysisSettings(activation_replicated_sbh=2)
        mem = _mem(_wl("llama-70b-tp8-pp4-dp16", parallelism={"sequence_parallel": False}), s)
        assert mem["activations_bytes"] == pytest.approx(20 * 4 * (2 + 32 / 8) * SBH_70B, rel=1e-5)

    def test_attention_scores_count_only_without_recomputation(self):
        """Unfused attention stores 5·a·s²·b bytes per layer (Korthikanti); the default 0 assumes fused attention.
        70B: a = 64, s = 4096 -> 5·64·4096² = 5.369e9 B per layer, only with activation_checkpointing none."""
        s = AnalysisSettings(attention_score_bytes=5)
        none = _mem(_wl(activation_checkpointing="none"), s)
        assert none["activations_bytes"] == pytest.approx(80 * (34 * SBH_70B + 5 * 64 * 4096**2), rel=1e-5)
        assert _mem(_wl(activation_checkpointing="none"))["activations_bytes"] == pytest.approx(
            80 * 34 * SBH_70B, rel=1e-5
        )
        assert _mem(_wl(), s)["activations_bytes"] == pytest.approx(80 * 34 * SBH_70B, rel=1e-5)

    def test_settings_are_validated_and_read_from_a_mapping(self):
        with pytest.raises(SpecError):
            AnalysisSettings(activation_bytes_per_sbh=-1)
        with pytest.raises(SpecError) as e:
            AnalysisSettings(activation_bytes_per_sbh=8, activation_replicated_sbh=10)
        assert e.value.errors[0].path == "settings.activation_replicated_sbh"
        s = AnalysisSettings.from_mapping({"activation_bytes_per_sbh": 20, "attention_score_bytes": 5})
        assert (s.activation_bytes_per_sbh, s.attention_score_bytes) == (20.0, 5.0)

    @pytest.mark.parametrize("value", ["nan", "inf", float("nan"), float("-inf")])
    def test_a_setting_that_is_not_a_finite_number_is_a_field_error(self, value):
        with pytest.raises(SpecError) as e:
            AnalysisSettings.from_mapping({"activation_bytes_per_sbh": value})
        assert e.value.errors[0].path == "settings.activation_bytes_per_sbh"

    def test_output_names_the_defaults_that_are_not_from_the_reference(self):
        r = analyze(_wl(), h100(512))
        assert set(r["outside_reference"]) == {
            "activation_bytes_per_sbh",
            "activation_replicated_sbh",
            "attention_score_bytes",
        }
        assert r["settings"]["activation_bytes_per_sbh"] == 34.0
        mem_reason = next(x for x in r["verdict"]["reasons"] if x["check"] == "memory")
        assert "not from the reference" in mem_reason["message"]


class TestMeasuredActivations:
    def test_a_measured_figure_replaces_the_estimate(self):
        mem = _mem(_wl("llama-70b-tp8-pp4-dp16", activation_memory_gb=30))
        assert mem["activations_bytes"] == 30e9
        assert mem["activations_source"].startswith("measured")

    def test_an_estimate_alone_over_the_gpu_is_tight_but_a_measured_one_does_not_fit(self):
        """Static part 10.4 GB; estimated activations pushed to 6 x 34 exceed 80 GB -> tight (recomputation may
        save it); the same total as a measured figure -> does-not-fit."""
        wl = _wl("llama-70b-tp8-pp4-dp16")
        est = _mem(wl, AnalysisSettings(activation_bytes_per_sbh=34 * 8))
        assert est["fraction_of_gpu_memory"] > 1 and est["status"] == "tight"
        meas = _mem(wl.with_changes(activation_memory_gb=est["activations_bytes"] / 1e9))
        assert meas["total_bytes"] == pytest.approx(est["total_bytes"], rel=1e-5)
        assert meas["status"] == "does-not-fit"

    def test_negative_measured_figure_is_a_field_error(self):
        with pytest.raises(SpecError) as e:
            _wl(activation_memory_gb=-1)
        assert e.value.errors[0].path == "workloads[0].activation_memory_gb"

    @pytest.mark.parametrize("value", [float("nan"), float("inf"), "nan"])
    def test_a_measured_figure_that_is_not_finite_is_a_field_error(self, value):
        with pytest.raises(SpecError) as e:
            _wl(activation_memory_gb=value)
        assert e.value.errors[0].path == "workloads[0].activation_memory_gb"


def test_weights_gradients_and_adam_state_are_16_bytes_per_parameter():
    """Reference D.2: 16 B per parameter with bf16 weights and gradients and mixed-precision Adam."""
    mem = _mem(_wl())
    assert mem["weights_bytes"] + mem["gradients_bytes"] + mem["optimizer_bytes"] == pytest.approx(70e9 * 16, rel=1e-5)
