"""Host (ConnectX) script: trust DSCP, PFC vector, DSCP->priority, RoCE ToS, DCQCN, MTU.

mlnx_qos settings and sysfs values do not survive a reboot (MLNX_EN docs, C.1): run the script from a
systemd oneshot unit at boot. DCQCN values are the ConnectX firmware defaults (C.2) written explicitly so
an edited policy takes effect; in pfc-only mode DCQCN is switched off on every priority (Meta at 400G).
"""

from __future__ import annotations

from .inputs import HostInfo
from .policy import QosPolicy


def render(policy: QosPolicy, host: HostInfo) -> str:
    h = policy.host
    pfc_vec = ",".join("1" if p in h.pfc_priorities and policy.lossless else "0" for p in range(8))
    tos = h.roce_tos
    lines = [
        "#!/bin/bash",
        f"# fabricdesign RoCE host QoS for {host.nic} ports at {host.speed_gbps}G, mode {policy.mode}.",
        "# Run at every boot (mlnx_qos and sysfs settings are not persistent), e.g. from a systemd oneshot unit.",
        '# Override the port list: IFACES="eth2 eth3" ./roce-qos.sh',
        "set -euo pipefail",
        f'IFACES=${{IFACES:-"{" ".join(host.ports)}"}}',
        "",
        (
            f"# RoCE data DSCP {h.roce_dscp} (ToS {tos} = DSCP<<2 | ECT(0)); CNP DSCP {h.cnp_dscp}, 802.1p "
            f"{policy.cnp.priority}."
        ),
        f"# NCCL does not use rdma_cm: set NCCL_IB_TC={tos} in the job environment (or /etc/nccl.conf).",
        f"grep -qs '^NCCL_IB_TC=' /etc/nccl.conf || echo 'NCCL_IB_TC={tos}' >> /etc/nccl.conf",
        "",
        "for IF in $IFACES; do",
        '  DEV=$(basename "$(ls -d /sys/class/net/$IF/device/infiniband/* | head -n1)")',
        f'  ip link set dev "$IF" mtu {policy.mtu.host}',
        f'  mlnx_qos -i "$IF" --trust {h.trust}',
        f'  mlnx_qos -i "$IF" --pfc {pfc_vec}',
    ]
    if host.cable_m is not None:
        # mlx5 sizes the NIC's receive headroom from the cable length (metres).
        lines.append(f'  mlnx_qos -i "$IF" --cable_len {max(1, int(-(-host.cable_m // 1)))}')
    # ConnectX default dscp2prio is DSCP>>3 (C.1); set the class DSCPs explicitly so they match the switches.
    lines.append(f'  mlnx_qos -i "$IF" --dscp2prio set,{h.roce_dscp},{policy.roce.priority}')
    lines.append(f'  mlnx_qos -i "$IF" --dscp2prio set,{h.cnp_dscp},{policy.cnp.priority}')
    lines.append(f'  cma_roce_tos -d "$DEV" -t {tos}')
    lines.append('  cma_roce_mode -d "$DEV" -p 1 -m 2   # RoCE v2 for rdma_cm')
    ecn = "/sys/class/net/$IF/ecn"
    if policy.dcqcn_enabled:
        mask = policy.dcqcn.prio_mask
        for p in range(8):
            on = 1 if mask >> p & 1 else 0
            lines.append(f"  echo {on} > {ecn}/roce_np/enable/{p}; echo {on} > {ecn}/roce_rp/enable/{p}")
        lines.append(f"  echo {h.cnp_dscp} > {ecn}/roce_np/cnp_dscp")
        lines.append(f"  echo {policy.cnp.priority} > {ecn}/roce_np/cnp_802p_prio")
        for name, value in policy.dcqcn.np:
            lines.append(f"  echo {value} > {ecn}/roce_np/{name}")
        for name, value in policy.dcqcn.rp:
            lines.append(f"  echo {value} > {ecn}/roce_rp/{name}")
    else:
        lines.append("  # pfc-only: no DCQCN on any priority (the switches do not mark ECN)")
        lines.append(
            f"  for P in 0 1 2 3 4 5 6 7; do echo 0 > {ecn}/roce_np/enable/$P; echo 0 > {ecn}/roce_rp/enable/$P; done"
        )
    lines.append("done")
    return "\n".join(lines) + "\n"
