"""PFC headroom per port: IEEE 802.1Qbb Annex N delay terms (fabrics-qos-traffic.md C.3).

Headroom is what still arrives on a lossless priority after the receiver decides to send XOFF:

    bits = D-Max-Frame + D-Pause + 2 x L x propagation x R + D-Intf + D-Resp + D-Max-No-Drop-Frame
    bytes = ceil(bits / 8)

with every term in bit times (BT) at line rate R. D-Intf and D-Resp are published per speed only up to
100G (D-Resp also at 400G). A speed missing from the table takes the *time* of the nearest lower listed
speed (the first listed speed when none is lower), converted to bits at its own rate: slower generations
have the longer PHY and reaction times, so this errs on the side of more headroom. Both tables are
overridable per speed (`qos.headroom.d_intf_bits`, `qos.headroom.d_resp_bits`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from . import reference as ref


@dataclass(frozen=True)
class HeadroomTerms:
    """Inputs of the formula that do not come from the port. Tuples (not dicts) so the value is hashable."""

    d_pause_bits: int = ref.D_PAUSE_BITS
    ifg_bytes: int = ref.IFG_PREAMBLE_BYTES
    propagation_ns_per_m: float = ref.PROPAGATION_NS_PER_M
    lossless_frame_bytes: int = ref.LOSSLESS_FRAME_BYTES
    d_intf_bits: tuple[tuple[int, int], ...] = tuple(sorted(ref.D_INTF_BITS.items()))
    d_resp_bits: tuple[tuple[int, int], ...] = tuple(sorted(ref.D_RESP_BITS.items()))

    def to_dict(self) -> dict:
        return {
            "d_pause_bits": self.d_pause_bits,
            "ifg_bytes": self.ifg_bytes,
            "propagation_ns_per_m": self.propagation_ns_per_m,
            "lossless_frame_bytes": self.lossless_frame_bytes,
            "d_intf_bits": {str(s): b for s, b in self.d_intf_bits},
            "d_resp_bits": {str(s): b for s, b in self.d_resp_bits},
        }


@dataclass(frozen=True)
class Headroom:
    """`terms` rows are (name, bits, bytes); `total_bytes` = ceil(sum of bits / 8), not the sum of rounded rows."""

    total_bytes: int
    terms: tuple[tuple[str, int, int], ...]

    @property
    def total_bits(self) -> int:
        return sum(t[1] for t in self.terms)


def per_speed_bits(table: tuple[tuple[int, int], ...] | Mapping[int, int], speed_gbps: int) -> tuple[int, bool]:
    """Bits of a per-speed term at `speed_gbps`, and whether the figure is listed (False: derived by time)."""
    rows = sorted(table.items()) if isinstance(table, Mapping) else list(table)
    for speed, bits in rows:
        if speed == speed_gbps:
            return bits, True
    lower = [r for r in rows if r[0] < speed_gbps]
    base_speed, base_bits = lower[-1] if lower else rows[0]
    # Same time as the base speed, in bits at this rate: bits x (R / R_base). Exact in integers for Gb/s rates.
    return math.ceil(base_bits * speed_gbps / base_speed), False


def headroom_bytes(speed_gbps: int, cable_m: float, mtu_bytes: int, terms: HeadroomTerms | None = None) -> Headroom:
    """Headroom for one lossless priority on one port. Memoised on (speed, cable to 0.1 m, MTU, terms)."""
    return _headroom(int(speed_gbps), round(float(cable_m), 1), int(mtu_bytes), terms or HeadroomTerms())


@lru_cache(maxsize=65536)
def _headroom(speed: int, cable_m: float, mtu: int, t: HeadroomTerms) -> Headroom:
    # 1 ns at R Gb/s is R bits; round trip = 2 x L x ns/m.
    cable_bits = math.ceil(2 * cable_m * t.propagation_ns_per_m * speed - 1e-9)
    intf, _ = per_speed_bits(t.d_intf_bits, speed)
    resp, _ = per_speed_bits(t.d_resp_bits, speed)
    rows = (
        ("D-Max-Frame", (mtu + t.ifg_bytes) * 8),
        ("D-Pause", t.d_pause_bits),
        ("D-Cable x2", cable_bits),
        ("D-Intf", intf),
        ("D-Resp", resp),
        ("D-Max-No-Drop-Frame", (t.lossless_frame_bytes + t.ifg_bytes) * 8),
    )
    total_bits = sum(b for _, b in rows)
    return Headroom(total_bytes=math.ceil(total_bits / 8), terms=tuple((n, b, math.ceil(b / 8)) for n, b in rows))


def bytes_to_us(n_bytes: float, speed_gbps: int) -> float:
    """Microseconds to send `n_bytes` at line rate (C.4): bytes x 8 / (Gb/s x 1000)."""
    return n_bytes * 8 / (speed_gbps * 1000)
