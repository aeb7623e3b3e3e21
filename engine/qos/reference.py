"""Every built-in QoS figure, with its source tag from fabrics-qos-traffic.md kept next to it.

Tags: [CL-RoCE] Cumulus Linux RoCE guide (C.1, H); [SONiC-QoS] sonic-buildimage qos_config.j2 (C.1, H);
[C.2] ConnectX mlxconfig dump (H); [C.3] IEEE 802.1Qbb Annex N via Cisco C11-542809 (M);
[ROCm-EOS] AMD ROCm RoCE guide for Arista EOS (C.1, H for that guide); [Meta-RoCE] (B.1, M).
Figures marked "gap" are not in the reference: they are documented, user-settable defaults (docs/qos.md).
"""

from __future__ import annotations

# --- C.1 traffic classes (NVIDIA Cumulus `nv set qos roce`, also the Broadcom Thor2 / ConnectX default) ---
ROCE_DSCP = 26  # [CL-RoCE] DSCP 26 -> SP3 -> TC3
ROCE_PRIORITY = 3  # [CL-RoCE] PFC on SP3, rx+tx
CNP_DSCP = 48  # [CL-RoCE] DSCP 48 -> SP6 -> TC6; [C.2] CNP_DSCP 48
CNP_PRIORITY = 6  # [CL-RoCE] TC6 strict; [C.2] CNP_802P_PRIO 6
ROCE_WEIGHT = 50  # [CL-RoCE] TC3 DWRR 50%
DEFAULT_WEIGHT = 50  # [CL-RoCE] TC0 (everything else) DWRR 50%
# gap: the reference names no "control" class for switches. CS7 (56) lands on SP7 in Cumulus' default
# DSCP>>3 map [CL-RoCE]; Meta gives control/CTS packets a high-priority queue [Meta-RoCE, Llama3].
CONTROL_DSCP = 56
CONTROL_PRIORITY = 7

# --- C.1 ECN on the RoCE queue ---
ECN_MIN_BYTES = 150_000  # [CL-RoCE] min 150,000 B (shown as 146.48 KB; Spectrum-4 programs 159,744 B)
ECN_MAX_BYTES = 1_500_000  # [CL-RoCE] max 1,500,000 B (1.43 MB)
ECN_PROBABILITY = 100  # [CL-RoCE] probability 100%
ECN_CLASSES = ("roce", "default")  # [CL-RoCE] ECN on TC 0,3
SONIC_STOCK_WRED = (1_048_576, 2_097_152, 5)  # [SONiC-QoS] AZURE_LOSSLESS min/max/probability (replaced by ours)

# --- C.1 SONiC stock DSCP_TO_TC_MAP|AZURE [SONiC-QoS]: only the entries the reference lists; every other
# DSCP -> TC1. Kept to explain (and check) why the stock map is replaced: DSCP 26 lands in lossy TC1.
SONIC_STOCK_DSCP_TO_TC = {3: 3, 4: 4, 5: 2, 8: 0, 46: 5, 48: 6}
SONIC_STOCK_OTHER_TC = 1
SONIC_STOCK_PFC_ENABLE = (3, 4)  # [SONiC-QoS] pfc_enable "3,4"
# Stock BUFFER_PG keys per port (sonic-buildimage files/build_templates/buffers_config.j2): the lossless PGs
# as one range key "<port>|3-4" and "<port>|0" -> "ingress_lossy_profile". A fragment must reuse the range
# key: `config load` merges key by key, so a separate "<port>|3" would sit beside (overlap) the stock "3-4".
SONIC_STOCK_LOSSLESS_PG_KEY = "3-4"
SONIC_STOCK_LOSSY_PROFILE = "ingress_lossy_profile"

# --- C.1 MTU ---
SWITCH_MTU = 9216  # [C.1 Cisco blueprint] mtu 9216; C.3 sizes D-Max-Frame on a 9216 B frame
EOS_MAX_MTU = 9214  # [ROCm-EOS] MTU 9214 (EOS' largest L3 MTU; 9216 is rejected)
HOST_MTU = 9000  # gap: common host jumbo MTU; RoCE path MTU 4096 needs a netdev MTU >= 4200 or so
ROCE_MTU = 4096  # [C.3] "4,200 B RoCE frame (4096 MTU)"

# --- C.2 DCQCN defaults on ConnectX (per port), sysfs names under /sys/class/net/<if>/ecn/roce_rp|roce_np ---
DCQCN_RP = (
    ("rpg_time_reset", 300),  # us between rate increases
    ("rpg_byte_reset", 32767),  # bytes between rate increases
    ("rpg_threshold", 1),  # stage count before fast recovery ends
    ("rpg_max_rate", 0),  # 0 = line rate
    ("rpg_ai_rate", 5),  # Mb/s additive increase
    ("rpg_hai_rate", 50),  # Mb/s hyper-additive increase
    ("rpg_gd", 11),  # rate cut gain, log2
    ("rpg_min_dec_fac", 50),  # % smallest per-CNP rate cut
    ("rpg_min_rate", 1),  # Mb/s
    ("rate_to_set_on_first_cnp", 0),
    ("dce_tcp_g", 1019),  # alpha update gain
    ("dce_tcp_rtt", 1),  # alpha update period
    ("rate_reduce_monitor_period", 4),  # us
    ("initial_alpha_value", 1023),
    ("clamp_tgt_rate", 0),  # False
    ("clamp_tgt_rate_after_time_inc", 1),  # True
)
DCQCN_NP = (("min_time_between_cnps", 2),)  # us (notification point)
DCQCN_PRIO_MASK = 255  # ROCE_CC_PRIO_MASK 255: CC on all priorities

# --- C.3 PFC headroom delay terms (bit times, BT) ---
IFG_PREAMBLE_BYTES = 20  # 9216 B + 20 B = 73,888 BT
D_PAUSE_BITS = 672  # the PAUSE frame itself
PROPAGATION_NS_PER_M = 5.0  # "about 5 ns/m in fibre" (Cisco: 4.76 copper, 5.13 SMF per m)
LOSSLESS_FRAME_BYTES = 4200  # D-Max-No-Drop-Frame: 4,200 B RoCE frame (4096 MTU) -> 33,760 BT with IFG
D_INTF_BITS = {10: 8_192, 25: 6_144, 40: 24_576, 100: 122_880}  # 802.3 PHY/MAC bound; not found for 400G
D_RESP_BITS = {10: 30_720, 25: 40_960, 40: 60_416, 100: 201_728, 400: 463_360}  # sender reaction time

# --- C.4 ---
US_PER_BYTE_AT_1G = 8 / 1000  # t(us) = bytes x 8 / (rate in Gb/s x 1000)
ECN_MAX_US_CEILING = 240.0  # the largest ECN max in any C.4 template (Cisco 3000 KB at 100G); above is "not sane"

# --- gaps with a documented default (docs/qos.md "data gaps") ---
PFC_WATCHDOG_POLL_MS = 100  # gap: vendor defaults differ; 100 ms poll, 200 ms detect/restore is common
PFC_WATCHDOG_DETECT_MS = 200
PFC_WATCHDOG_RESTORE_MS = 200
HEADROOM_BUFFER_SHARE = 0.5  # gap: warn when lossless headroom takes over half of the packet buffer
SONIC_XON_BYTES = 18_432  # gap: 2 x 9216 B frames; SONiC lossless profile "xon"
SONIC_DYNAMIC_TH = "0"  # gap: lossless PG alpha (vendor templates use 0 on Spectrum, -3 elsewhere)
