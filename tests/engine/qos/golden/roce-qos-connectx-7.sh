#!/bin/bash
# fabricdesign RoCE host QoS for connectx-7 ports at 400G, mode dcqcn.
# Run at every boot (mlnx_qos and sysfs settings are not persistent), e.g. from a systemd oneshot unit.
# Override the port list: IFACES="eth2 eth3" ./roce-qos.sh
set -euo pipefail
IFACES=${IFACES:-"eth2 eth3 eth4 eth5"}

# RoCE data DSCP 26 (ToS 106 = DSCP<<2 | ECT(0)); CNP DSCP 48, 802.1p 6.
# NCCL does not use rdma_cm: set NCCL_IB_TC=106 in the job environment (or /etc/nccl.conf).
grep -qs '^NCCL_IB_TC=' /etc/nccl.conf || echo 'NCCL_IB_TC=106' >> /etc/nccl.conf

for IF in $IFACES; do
  DEV=$(basename "$(ls -d /sys/class/net/$IF/device/infiniband/* | head -n1)")
  ip link set dev "$IF" mtu 9000
  mlnx_qos -i "$IF" --trust dscp
  mlnx_qos -i "$IF" --pfc 0,0,0,1,0,0,0,0
  mlnx_qos -i "$IF" --cable_len 3
  mlnx_qos -i "$IF" --dscp2prio set,26,3
  mlnx_qos -i "$IF" --dscp2prio set,48,6
  cma_roce_tos -d "$DEV" -t 106
  cma_roce_mode -d "$DEV" -p 1 -m 2   # RoCE v2 for rdma_cm
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/0; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/0
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/1; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/1
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/2; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/2
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/3; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/3
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/4; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/4
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/5; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/5
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/6; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/6
  echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/7; echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/7
  echo 48 > /sys/class/net/$IF/ecn/roce_np/cnp_dscp
  echo 6 > /sys/class/net/$IF/ecn/roce_np/cnp_802p_prio
  echo 2 > /sys/class/net/$IF/ecn/roce_np/min_time_between_cnps
  echo 300 > /sys/class/net/$IF/ecn/roce_rp/rpg_time_reset
  echo 32767 > /sys/class/net/$IF/ecn/roce_rp/rpg_byte_reset
  echo 1 > /sys/class/net/$IF/ecn/roce_rp/rpg_threshold
  echo 0 > /sys/class/net/$IF/ecn/roce_rp/rpg_max_rate
  echo 5 > /sys/class/net/$IF/ecn/roce_rp/rpg_ai_rate
  echo 50 > /sys/class/net/$IF/ecn/roce_rp/rpg_hai_rate
  echo 11 > /sys/class/net/$IF/ecn/roce_rp/rpg_gd
  echo 50 > /sys/class/net/$IF/ecn/roce_rp/rpg_min_dec_fac
  echo 1 > /sys/class/net/$IF/ecn/roce_rp/rpg_min_rate
  echo 0 > /sys/class/net/$IF/ecn/roce_rp/rate_to_set_on_first_cnp
  echo 1019 > /sys/class/net/$IF/ecn/roce_rp/dce_tcp_g
  echo 1 > /sys/class/net/$IF/ecn/roce_rp/dce_tcp_rtt
  echo 4 > /sys/class/net/$IF/ecn/roce_rp/rate_reduce_monitor_period
  echo 1023 > /sys/class/net/$IF/ecn/roce_rp/initial_alpha_value
  echo 0 > /sys/class/net/$IF/ecn/roce_rp/clamp_tgt_rate
  echo 1 > /sys/class/net/$IF/ecn/roce_rp/clamp_tgt_rate_after_time_inc
done
