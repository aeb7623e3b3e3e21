"""What each field of the QoS field tables (engine/qos/policy.py) means, for the published schema.

The tables say what a value may be; this says what it does, with its unit. The schema builder
(engine/qos/schema.py) puts the two together, so every field a client sees is described once, here.
Meanings follow docs/qos.md; defaults are left to the effective policy, which states every one.
"""

from __future__ import annotations

# Fields of each traffic class (roce, cnp, control, default).
CLASS_HELP = {
    "dscp": "DSCP values the switches classify into this class (the default class takes every DSCP no other class "
    "lists).",
    "priority": "Switch priority of the class: its 802.1p PCP and egress traffic class (queue).",
    "scheduling": "Egress scheduling: strict priority, or dwrr (a weighted share of the bandwidth, ETS).",
    "weight": "DWRR share of the bandwidth in percent; ignored for strict.",
}

SECTION_HELP: dict[str, dict[str, str]] = {
    "ecn": {
        "min_bytes": "Queue depth where ECN marking starts, bytes.",
        "max_bytes": "Queue depth where marking reaches `probability`, bytes.",
        "probability": "Percent of packets marked at `max_bytes`.",
        "classes": "Traffic classes whose queues mark ECN.",
    },
    "pfc": {
        "priorities": "Priorities PFC makes lossless; unset, the RoCE class's priority (none in lossy mode).",
        "watchdog": "Run the PFC watchdog, which breaks a pause that lasts too long (a stuck NIC, a PFC storm).",
        "watchdog_poll_ms": "How often the watchdog checks the queues, ms.",
        "watchdog_detect_ms": "How long a queue stays paused before the watchdog acts, ms.",
        "watchdog_restore_ms": "How long after the pauses stop the watchdog restores the queue, ms.",
        "watchdog_action": "What the watchdog does to a stalled queue: drop, forward or alert (EOS knows drop and "
        "notify-only; the other two become notify-only).",
        "headroom_buffer_share": "Warn when a switch's PFC headroom takes more than this share of its packet buffer.",
    },
    "mtu": {
        "switch": "Port MTU on the switches, bytes; the PFC headroom's largest frame is sized on it.",
        "host": "Netdev MTU on the hosts, bytes.",
        "roce": "RoCE path MTU, bytes.",
    },
    "host": {
        "roce_dscp": "DSCP the hosts mark RoCE traffic with; unset, the RoCE class's first DSCP.",
        "cnp_dscp": "DSCP the hosts send congestion notifications (CNPs) with; unset, the CNP class's.",
        "pfc_priorities": "Priorities of the hosts' PFC (mlnx_qos --pfc); unset, the switches' PFC priorities.",
        "trust": "What the hosts classify traffic by (mlnx_qos --trust): dscp or pcp.",
    },
    "headroom": {
        "d_pause_bits": "D-Pause: the PAUSE frame itself, bit times.",
        "ifg_bytes": "Interframe gap and preamble per frame, bytes.",
        "propagation_ns_per_m": "Propagation delay of the cable, ns per metre of run.",
        "lossless_frame_bytes": "D-Max-No-Drop-Frame: the lossless frame the sender has already started, bytes.",
        "d_intf_bits": "D-Intf: PHY/MAC latency per port speed; a speed not listed takes the nearest lower one's.",
        "d_resp_bits": "D-Resp: the sender's reaction time per port speed; a speed not listed takes the nearest lower "
        "one's.",
    },
    "sonic": {
        "map_name": "Name of the DSCP_TO_TC_MAP written (the stock name keeps other references valid).",
        "replace_stock_map": "Write all 64 DSCP entries rather than keep SONiC's stock map, which sends DSCP 26 to "
        "lossy TC1 and also makes priorities 3 and 4 lossless.",
        "xon_bytes": "xon of the lossless buffer profile, bytes.",
        "dynamic_th": "dynamic_th (alpha) of the lossless buffer profile, as SONiC writes it.",
    },
    "infiniband": {
        "subnet_manager": "Subnet-manager flavour: ufm (NVIDIA UFM / MLNX OpenSM: adaptive-routing engines, SHARP "
        "options) or opensm (upstream OpenSM: neither).",
        "routing_engine": "OpenSM routing engine; auto = ar_ftree,ar_updn with adaptive routing on UFM, else "
        "ftree,updn (OpenSM tries a list in order).",
        "adaptive_routing": "Adaptive routing: with routing_engine auto on UFM, the ar_* engines; upstream OpenSM "
        "has none.",
        "qos": "Write the subnet manager's QoS settings (qos TRUE: qos_max_vls, qos_sl2vl, qos_vlarb_low).",
        "max_operational_vls": "Operational VLs (max_op_vls, and qos_max_vls with qos on).",
        "sl2vl": "SL-to-VL map (qos_sl2vl): compute data on SL0, SHARP aggregation on its own SL and VL.",
        "vlarb_low": "Low-priority VL arbitration table (qos_vlarb_low).",
        "sharp": "SHARP in-network aggregation: auto (on when every switch model of the fabric supports it), on or "
        "off.",
        "sharp_sl": "Service level of SHARP aggregation traffic.",
        "lmc": "LID mask control: 2^LMC LIDs per port.",
    },
}

# ConnectX DCQCN parameters, by their sysfs names under /sys/class/net/<if>/ecn/roce_rp|roce_np (reference C.2).
DCQCN_HELP = {
    "prio_mask": "ROCE_CC_PRIO_MASK: bit mask of priorities with congestion control (255 = all).",
    "rpg_time_reset": "µs between rate increases.",
    "rpg_byte_reset": "Bytes between rate increases.",
    "rpg_threshold": "Stage count before fast recovery ends.",
    "rpg_max_rate": "Maximum rate, Mb/s; 0 = line rate.",
    "rpg_ai_rate": "Additive increase, Mb/s.",
    "rpg_hai_rate": "Hyper-additive increase, Mb/s.",
    "rpg_gd": "Rate cut gain, as log2.",
    "rpg_min_dec_fac": "Smallest rate cut per CNP, %.",
    "rpg_min_rate": "Minimum sending rate, Mb/s.",
    "rate_to_set_on_first_cnp": "Rate set on the first CNP (0 = not used).",
    "dce_tcp_g": "Alpha update gain.",
    "dce_tcp_rtt": "Alpha update period.",
    "rate_reduce_monitor_period": "Rate-reduction monitoring period, µs.",
    "initial_alpha_value": "Initial alpha.",
    "clamp_tgt_rate": "Clamp the target rate: 0 = false, 1 = true.",
    "clamp_tgt_rate_after_time_inc": "Clamp the target rate after a time-based increase: 0 = false, 1 = true.",
    "min_time_between_cnps": "µs between CNPs (notification point).",
}
