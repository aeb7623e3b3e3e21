"""Changing oversubscription, accumulation, layout or the fabric moves the figures as the formulas say."""

from __future__ import annotations

import pytest

from engine.traffic import analyze, parse_workloads
from tests.engine.traffic.fabrics import h100

PER_NIC = 2 * 63 / 64 * 140e9 / 8  # 70B pure DP on 64 nodes (test_seed_example.py)


def _wl(name="llama-70b-dp512", **over):
    return parse_workloads([{"preset": name, **over}])[0]


def _coll(r, name):
    return next(c for c in r["collectives"] if c["name"] == name)


class TestOversubscription:
    """DP group of 64 nodes over 2 SUs of 32 nodes. Uniform-peer share leaving the SU:
    f = (N - q)/(N - 1) = (64 - 32)/63 = 0.50794. Leaf ratio R stretches the collective by f·R when > 1."""

    def test_non_blocking_leaf_costs_nothing(self):
        r = analyze(_wl(), h100(512, leaf=1.0))
        assert _coll(r, "dp-gradient-all-reduce")["placement"]["stretch"] == 1.0

    def test_4_to_1_leaf_stretches_by_f_times_4(self):
        """f·R = 32/63·4 = 2.0317: time 0.71777 s -> 1.4583 s."""
        r = analyze(_wl(), h100(512, leaf=4.0))
        dp = _coll(r, "dp-gradient-all-reduce")
        assert dp["placement"]["share_leaving_su"] == pytest.approx(32 / 63, rel=1e-5)
        assert dp["placement"]["stretch"] == pytest.approx(128 / 63, rel=1e-5)
        assert dp["placement"]["limiting_tier"] == "leaf"
        assert r["totals"]["network_time_s"] == pytest.approx(PER_NIC / 48e9 * 128 / 63, rel=1e-5)

    def test_mild_oversubscription_below_the_local_share_is_absorbed(self):
        """f·R = 0.508·1.5 = 0.76 < 1: the uplinks keep up, no stretch."""
        r = analyze(_wl(), h100(512, leaf=1.5))
        assert r["totals"]["network_time_s"] == pytest.approx(PER_NIC / 48e9, rel=1e-5)

    def test_group_inside_one_su_ignores_the_leaf_ratio(self):
        """256 GPUs = 32 nodes = one SU: nothing crosses a leaf uplink."""
        r = analyze(_wl(parallelism={"data": 256}), h100(512, leaf=4.0))
        dp = _coll(r, "dp-gradient-all-reduce")
        assert dp["placement"]["scalable_units"] == 1 and dp["placement"]["stretch"] == 1.0
        assert r["placement"]["groups"]["data"]["crosses"] == ["node"]

    def test_crossing_pods_multiplies_leaf_and_spine_ratios(self):
        """Pods of 2 SUs (512 GPUs), 1024-GPU DP group: N = 128 nodes, 64 per pod.
        f_pod = (128 - 64)/127 = 0.50394; leaf 1:1, spine 3:1 -> stretch 1.5118."""
        r = analyze(_wl(parallelism={"data": 1024}), h100(1024, pod_sus=2, leaf=1.0, spine=3.0))
        dp = _coll(r, "dp-gradient-all-reduce")
        assert dp["placement"]["pods"] == 2
        assert dp["placement"]["stretch"] == pytest.approx(64 / 127 * 3, rel=1e-5)
        assert dp["placement"]["limiting_tier"] == "spine"
        assert r["placement"]["groups"]["data"]["crosses"] == ["node", "leaf", "spine"]
        assert r["placement"]["groups"]["data"]["oversubscription"] == 3.0

    def test_bisection_offered_falls_with_the_ratio_on_the_path(self):
        """Offered = 512/2 · 400 Gb/s / R_leaf; the design figure is passed through."""
        one = analyze(_wl(), h100(512, leaf=1.0))["placement"]["bisection"]
        four = analyze(_wl(), h100(512, leaf=4.0))["placement"]["bisection"]
        assert one["offered_gbps"] == pytest.approx(256 * 400, rel=1e-6)
        assert four["offered_gbps"] == pytest.approx(256 * 100, rel=1e-6)
        # Average need: 256 GPUs x 34.45e9 B·8 / 2 s = 256 x 137.8 Gb/s.
        assert one["required_average_gbps"] == pytest.approx(256 * PER_NIC * 8 / 1e9 / 2, rel=1e-5)

    def test_oversubscription_fix_reports_the_non_blocking_effect(self):
        r = analyze(_wl(), h100(512, leaf=4.0))
        fix = next(f for f in r["fixes"] if f["kind"] == "oversubscription")
        assert fix["effect"]["network_time_s"] == pytest.approx(PER_NIC / 48e9, rel=1e-5)

    def test_uplink_load_is_nic_load_times_share_times_ratio(self):
        """NIC load = 34.45e9 / (50e9 · 2 s) = 0.34453; leaf uplinks: × 32/63 × 4 = 0.70001."""
        r = analyze(_wl(), h100(512, leaf=4.0))
        loads = r["totals"]["link_load"]
        assert loads["nic"] == pytest.approx(PER_NIC / 100e9, rel=1e-5)
        assert loads["leaf_uplinks"] == pytest.approx(PER_NIC / 100e9 * 32 / 63 * 4, rel=1e-5)

    @pytest.mark.parametrize("ratio", [1.0, 1.5, 63 / 32, 2.0, 3.0, 4.0, 8.0])
    def test_exposed_time_and_share_follow_max_1_f_times_r(self, ratio):
        """Done-when: oversubscription moves the exposed network time as the formula says. With overlap 0.5:
        exposed = PER_NIC/48 GB/s · max(1, f·R) · (1 - 0.5), f = 32/63; share = exposed / 2 s. Up to
        R = 63/32 the uplinks keep up (no change), beyond it time grows linearly with R."""
        r = analyze(_wl(overlap=0.5), h100(512, leaf=ratio))
        stretch = max(1.0, 32 / 63 * ratio)
        t = r["totals"]
        assert t["network_time_s"] == pytest.approx(PER_NIC / 48e9 * stretch, rel=1e-5)
        assert t["exposed_network_time_s"] == pytest.approx(PER_NIC / 48e9 * stretch * 0.5, rel=1e-5)
        assert t["network_share_with_overlap"] == pytest.approx(PER_NIC / 48e9 * stretch * 0.5 / 2, rel=1e-5)
        assert t["network_share_no_overlap"] == pytest.approx(PER_NIC / 48e9 * stretch / 2, rel=1e-5)

    def test_enough_oversubscription_turns_a_tight_share_into_does_not_fit(self):
        """1:1 -> 35.9 % (tight); 8:1 -> 35.9 % · 256/63 = 145.8 %: the exposed time exceeds the 2 s step."""

        def share_check(ratio):
            r = analyze(_wl(), h100(512, leaf=ratio))
            return next(x for x in r["verdict"]["reasons"] if x["check"] == "network-share")

        assert share_check(1.0)["status"] == "tight"
        worst = share_check(8.0)
        assert worst["value"] == pytest.approx(PER_NIC / 48e9 / 2 * 256 / 63, rel=1e-5)
        assert worst["status"] == "does-not-fit"

    @pytest.mark.parametrize("spine", [1.0, 1.5, 2.0, 3.0, 7.0])
    def test_spine_ratio_stretches_a_pod_crossing_group_by_f_pod_times_r(self, spine):
        """1024-GPU DP group over 2 pods of 512: f_pod = 64/127; stretch = max(1, f_pod · R_spine)."""
        r = analyze(_wl(parallelism={"data": 1024}), h100(1024, pod_sus=2, spine=spine))
        per_nic = 2 * 127 / 128 * 140e9 / 8
        stretch = max(1.0, 64 / 127 * spine)
        assert _coll(r, "dp-gradient-all-reduce")["placement"]["stretch"] == pytest.approx(stretch, rel=1e-5)
        assert r["totals"]["network_time_s"] == pytest.approx(per_nic / 48e9 * stretch, rel=1e-5)


class TestGradientAccumulation:
    @pytest.mark.parametrize("m", [1, 2, 8, 32, 64])
    def test_dp_bytes_per_step_stay_so_dp_bytes_per_token_fall_as_1_over_m(self, fabric_512, m):
        """Done-when: the DP sync runs once per optimizer step (D.3), so accumulating m micro-batches divides the
        DP bytes per token (and per sample) by m. TP 8 x PP 4 x DP 16, distributed optimizer: RS + AG of the
        4.375e9 B shard, DP peers one per node (k = 1, N = 16): 2 · 15/16 · 4.375e9 B per NIC whatever m is."""
        r = analyze(_wl("llama-70b-tp8-pp4-dp16", micro_batches=m), fabric_512)
        dp = sum(c["per_nic_bytes"] for c in r["collectives"] if c["dimension"] == "data")
        tokens = r["totals"]["tokens_per_step"]
        assert dp == pytest.approx(2 * 15 / 16 * 4.375e9, rel=1e-5)
        assert tokens == m * 4096 * 16
        assert dp / tokens == pytest.approx(2 * 15 / 16 * 4.375e9 / (m * 4096 * 16), rel=1e-5)

    def test_accumulating_8_micro_batches_cuts_dp_traffic_by_87_5_percent(self, fabric_512):
        """The seed articles' claim, as the formula gives it: the same 8 micro-batches as one step of m = 8
        instead of 8 steps of m = 1 send 1/8 of the DP bytes, 87.5 % less."""

        def dp_bytes(m):
            r = analyze(_wl("llama-70b-tp8-pp4-dp16", micro_batches=m), fabric_512)
            return sum(c["wire_bytes_per_gpu"] for c in r["collectives"] if c["dimension"] == "data")

        assert 1 - dp_bytes(8) / (8 * dp_bytes(1)) == pytest.approx(0.875, rel=1e-6)

    @pytest.mark.parametrize("m", [1, 2, 4, 8])
    def test_dp_share_of_the_step_falls_as_1_over_m(self, m):
        """Pure DP 70B: the step grows with m (2 s per micro-batch), the DP time stays 0.718 s, so the share is
        35.9 % / m."""
        r = analyze(_wl(micro_batches=m, target_step_time_s=2.0 * m), h100(512))
        assert r["totals"]["network_time_s"] == pytest.approx(PER_NIC / 48e9, rel=1e-5)
        assert r["totals"]["network_share_no_overlap"] == pytest.approx(PER_NIC / 48e9 / 2 / m, rel=1e-5)

    def test_dp_bytes_stay_while_tp_and_pp_bytes_grow_with_micro_batches(self, fabric_512):
        base = analyze(_wl("llama-70b-tp8-pp4-dp16"), fabric_512)
        more = analyze(_wl("llama-70b-tp8-pp4-dp16", micro_batches=64), fabric_512)
        for name in ("dp-gradient-reduce-scatter", "dp-parameter-all-gather"):
            assert _coll(more, name)["wire_bytes_per_gpu"] == _coll(base, name)["wire_bytes_per_gpu"]
        for name in ("tp-all-reduce", "pp-send-recv"):
            assert _coll(more, name)["wire_bytes_per_gpu"] == pytest.approx(
                2 * _coll(base, name)["wire_bytes_per_gpu"], rel=1e-5
            )

    def test_pipeline_bubble_shrinks_with_more_micro_batches(self, fabric_512):
        """(p-1)/(m+p-1): p = 4, m = 32 -> 3/35; m = 64 -> 3/67."""
        assert analyze(_wl("llama-70b-tp8-pp4-dp16"), fabric_512)["totals"][
            "pipeline_bubble_fraction"
        ] == pytest.approx(3 / 35, rel=1e-5)
        assert analyze(_wl("llama-70b-tp8-pp4-dp16", micro_batches=64), fabric_512)["totals"][
            "pipeline_bubble_fraction"
        ] == pytest.approx(3 / 67, rel=1e-5)


class TestLayout:
    @pytest.mark.parametrize("t, p, d", [(1, 1, 512), (2, 1, 256), (4, 2, 64), (8, 1, 64), (1, 8, 64), (8, 4, 16)])
    def test_bytes_follow_the_layout(self, fabric_512, t, p, d):
        """Done-when: the parallel layout moves the figures as D.1/D.3 say (70B, b = 1, s = 4096, h = 8192, m = 1,
        rank order tp-cp-dp-pp, 8 GPUs per node):
        DP shard S = 70e9·2/(t·p); DP peers per node k = 8/t, N = d/k nodes; per NIC 2(N-1)/N·S/k.
        TP: 4·(80/p) all-reduces of b·s·h·2 B. PP: 2 messages of b·s·h·2/t B per micro-batch."""
        r = analyze(_wl(parallelism={"tensor": t, "pipeline": p, "data": d}), fabric_512)
        S = 70e9 * 2 / (t * p)
        k = 8 // t
        N = d // k
        dp = _coll(r, "dp-gradient-all-reduce")
        assert dp["message_bytes"] == pytest.approx(S, rel=1e-5)
        assert (dp["placement"]["members_per_nvlink_domain"], dp["placement"]["nvlink_domains"]) == (k, N)
        assert dp["per_nic_bytes"] == pytest.approx(2 * (N - 1) / N * S / k, rel=1e-5)
        names = {c["name"] for c in r["collectives"]}
        assert ("tp-all-reduce" in names) == (t > 1) and ("pp-send-recv" in names) == (p > 1)
        if t > 1:
            tp = _coll(r, "tp-all-reduce")
            assert tp["ops_per_step"] == pytest.approx(4 * 80 / p, rel=1e-9)
            assert tp["message_bytes"] == pytest.approx(4096 * 8192 * 2, rel=1e-5)
        if p > 1:
            pp = _coll(r, "pp-send-recv")
            assert pp["ops_per_step"] == 2
            assert pp["message_bytes"] == pytest.approx(4096 * 8192 * 2 / t, rel=1e-5)

    def test_deeper_pipeline_halves_the_per_nic_dp_bytes(self, fabric_512):
        """Per NIC 2(N-1)/N·P·2/(8·p) does not depend on t while TP stays in the node, and halves (up to the
        (N-1)/N factor) with every doubling of p."""
        per_nic = {
            p: analyze(_wl(parallelism={"tensor": 8, "pipeline": p, "data": 64 // p}), fabric_512)["totals"][
                "per_nic_bytes_hierarchical"
            ]
            for p in (1, 2, 4)
        }
        dp = {p: 2 * (64 // p - 1) / (64 // p) * 70e9 * 2 / (8 * p) for p in (1, 2, 4)}
        for p in (1, 2, 4):
            pp_bytes = 0 if p == 1 else 2 * 4096 * 8192 * 2 / 8
            assert per_nic[p] == pytest.approx(dp[p] + pp_bytes, rel=1e-5)

    def test_tensor_parallel_inside_the_node_cuts_the_dp_shard_by_t(self, fabric_512):
        """TP 8 shrinks S by 8, and the DP peers (8 ranks apart) get one per node: per NIC
        2·63/64·(140e9/8) = 34.45e9 B — the same per-NIC bytes as pure DP, but 1/8 of the memory."""
        r = analyze(_wl(parallelism={"tensor": 8, "data": 64}), fabric_512)
        dp = _coll(r, "dp-gradient-all-reduce")
        assert dp["message_bytes"] == pytest.approx(140e9 / 8, rel=1e-5)
        assert dp["per_nic_bytes"] == pytest.approx(PER_NIC, rel=1e-5)

    def test_rank_order_decides_which_group_leaves_the_node(self, fabric_512):
        """PP 8 innermost puts pipeline stages on one node (NVLink) and DP peers 8 apart."""
        r = analyze(_wl(parallelism={"pipeline": 8, "data": 64, "rank_order": "pp-tp-cp-dp"}), fabric_512)
        assert _coll(r, "pp-send-recv")["scope"] == "nvlink"
        r2 = analyze(_wl(parallelism={"pipeline": 8, "data": 64}), fabric_512)
        assert _coll(r2, "pp-send-recv")["scope"] == "scale-out"

    def test_dp_group_inside_one_node_never_touches_the_nic(self, fabric_512):
        r = analyze(_wl(parallelism={"pipeline": 64, "data": 8}, layers=80), fabric_512)
        assert _coll(r, "dp-gradient-all-reduce")["scope"] == "nvlink"
        assert _coll(r, "dp-gradient-all-reduce")["per_nic_bytes"] == 0

    def test_gradient_compression_divides_dp_bytes(self, fabric_512):
        r = analyze(_wl(gradient_compression=4), fabric_512)
        assert r["totals"]["per_nic_bytes"] == pytest.approx(PER_NIC / 4, rel=1e-5)

    def test_fp32_gradients_double_dp_bytes(self, fabric_512):
        r = analyze(_wl(precision={"gradients": "fp32"}), fabric_512)
        assert r["totals"]["per_nic_bytes"] == pytest.approx(2 * PER_NIC, rel=1e-5)

    def test_zero3_gathers_parameters_twice_per_micro_batch(self, fabric_512):
        """dp_sharding full, m = 2: RS 2x, AG 4x per step (3 parameter-sized transfers per micro-batch)."""
        r = analyze(_wl(dp_sharding="full", micro_batches=2), fabric_512)
        assert _coll(r, "dp-gradient-reduce-scatter")["ops_per_step"] == 2
        assert _coll(r, "dp-parameter-all-gather")["ops_per_step"] == 4


class TestExpertsAndNvl72:
    def test_all_to_all_bytes_follow_tokens_top_k_and_hidden(self, fabric_512):
        """8 experts, top-2, EP 8 over DP 8 ranks that sit one per node (TP 8 fills the node):
        buffer = b·s/t·k·h·2 = 4096/8·2·8192·2 = 16.78e6 B; each rank sends 7/8 of it, all off-node;
        per MoE layer per micro-batch 4 all-to-alls; 80 layers / 1 stage, 1 micro-batch -> 320 ops."""
        wl = _wl(
            parallelism={"tensor": 8, "data": 8, "expert": 8},
            moe={"experts": 8, "top_k": 2},
            ffn_hidden_size=2048,
            dp_sharding="optimizer",
        )
        r = analyze(wl, h100(512, memory=1000))
        a2a = _coll(r, "ep-all-to-all")
        assert a2a["message_bytes"] == pytest.approx(4096 / 8 * 2 * 8192 * 2, rel=1e-5)
        assert a2a["ops_per_step"] == 320
        assert a2a["per_nic_bytes"] == pytest.approx(7 / 8 * a2a["message_bytes"] * 320, rel=1e-5)
        # Derived expert weights: layers · experts · 2 · h · ffn = 80·8·2·8192·2048 = 21.47e9.
        assert wl.expert_parameters == 80 * 8 * 2 * 8192 * 2048

    def test_expert_parallel_must_divide_data_parallel(self):
        from engine.errors import SpecError

        with pytest.raises(SpecError) as e:
            _wl(parallelism={"data": 512, "expert": 3}, moe={"experts": 3})
        assert "workloads[0].parallelism.expert" in {x.path for x in e.value.errors}

    def test_nvl72_keeps_nine_dp_peers_per_domain(self):
        """72-GPU NVLink domain, TP 8, DP 72 (576 GPUs = 8 racks): DP ranks 8 apart, 9 per domain, N = 8.
        Per NIC 2·7/8·S/9 with S = 70e9·2/8 = 17.5e9 B."""
        from engine.traffic import FabricFacts

        facts = FabricFacts(
            gpus=576,
            gpus_per_node=72,
            nvlink_domain_gpus=72,
            gpu_memory_gb=186,
            nic_gbps_per_gpu=400,
            gpus_per_su=576,
            tier_ratios={"leaf": 1.0},
        )
        r = analyze(_wl(parallelism={"tensor": 8, "data": 72}), facts)
        dp = _coll(r, "dp-gradient-all-reduce")
        assert dp["placement"]["members_per_nvlink_domain"] == 9
        assert dp["per_nic_bytes"] == pytest.approx(2 * 7 / 8 * 17.5e9 / 9, rel=1e-5)


class TestCharts:
    def test_network_share_grows_with_data_parallel_size_at_fixed_batch(self, fabric_512):
        r = analyze(_wl("llama-70b-tp8-pp4-dp16"), fabric_512)
        s = r["charts"]["network_share_vs_data_parallel"]
        assert s["x"] == [1, 2, 4, 8, 16] and len(s["no_overlap"]) == len(s["x"])
        assert all(a < b for a, b in zip(s["no_overlap"], s["no_overlap"][1:]))
        assert s["no_overlap"][s["x"].index(16)] == r["totals"]["network_share_no_overlap"]

    def test_step_breakdown_adds_up_to_the_step(self, fabric_512):
        r = analyze(_wl("llama-70b-tp8-pp4-dp16"), fabric_512)
        bars = r["charts"]["step_time_breakdown"]["bars"]
        assert sum(b["exposed_seconds"] for b in bars) == pytest.approx(2.0, rel=1e-4)
        assert {b["label"] for b in bars} >= {"compute and other", "dp", "tp", "pp"}
