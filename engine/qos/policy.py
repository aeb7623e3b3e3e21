"""The QoS / congestion-control policy of a design: defaults per technology, editable through the spec's
`qos` section (`QosPolicy.from_dict`), returned as plain data (`to_dict`).

Modes (docs/qos.md explains the trade-off):
  dcqcn     PFC on the lossless priority + ECN marking on switches + DCQCN on the NICs (NVIDIA default, [CL-RoCE]).
  pfc-only  PFC on the lossless priority, no ECN/DCQCN (Meta at 400G, [Meta-RoCE] B.1).
  lossy     no PFC; ECN + DCQCN only, the NIC recovers losses (Cumulus `lossy-multi-tc` style).

Structural problems (bad types, out-of-range values, a DSCP in two classes) raise SpecError with a field
path (`qos.roce.dscp`). Choices that are legal but risky are left to checks.check_consistency (warnings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..errors import FieldError, SpecError
from . import reference as ref
from .headroom import HeadroomTerms

MODES = ("dcqcn", "pfc-only", "lossy")
ETHERNET_OSES = ("nvue", "sonic")  # the choice for models whose catalog `os` lists both (SwitchModel.os_for)
SCHEDULING = ("strict", "dwrr")
CLASS_NAMES = ("roce", "cnp", "control", "default")
ROUTING_ENGINES = ("auto", "ftree", "updn", "ar_ftree", "ar_updn", "minhop")
# Subnet-manager flavours (engine/qos/infiniband.py): upstream OpenSM (e.g. Debian's opensm 3.3.23) or NVIDIA's
# UFM / MLNX OpenSM. Upstream has no adaptive-routing engines (its `opensm -c` lists minhop, updn, dnup, file,
# ftree, lash, dor, torus-2QoS, nue, dfsssp, sssp) and no SHARP options.
SUBNET_MANAGERS = ("ufm", "opensm")
AR_ENGINES = ("ar_ftree", "ar_updn")
TECHNOLOGIES = ("ethernet", "infiniband")


# The rules of each section's fields, one table each: the parser checks with them and engine/qos/schema.py
# publishes them as JSON Schema. A rule is (kind, *arguments): ("int", lo, hi), ("float", lo, hi), ("bool",),
# ("word",), ("choice", values), ("int_list", lo, hi) (one integer or a list of distinct ones), ("names", allowed),
# ("sl2vl",) (16 VLs), ("weights",) (VL -> weight), ("speed_table",) (port speed in Gb/s -> bit times).
CLASS_FIELDS: dict[str, tuple] = {
    "dscp": ("int_list", 0, 63),
    "priority": ("int", 0, 7),
    "scheduling": ("choice", SCHEDULING),
    "weight": ("int", 0, 100),
}
ECN_FIELDS: dict[str, tuple] = {
    "min_bytes": ("int", 1, 10**9),
    "max_bytes": ("int", 1, 10**9),
    "probability": ("int", 0, 100),
    "classes": ("names", CLASS_NAMES),
}
PFC_FIELDS: dict[str, tuple] = {
    "priorities": ("int_list", 0, 7),
    "watchdog": ("bool",),
    "watchdog_poll_ms": ("int", 1, 60_000),
    "watchdog_detect_ms": ("int", 1, 60_000),
    "watchdog_restore_ms": ("int", 1, 60_000),
    "watchdog_action": ("choice", ("drop", "forward", "alert")),
    "headroom_buffer_share": ("float", 0.0, 1.0),
}
MTU_FIELDS: dict[str, tuple] = {
    "switch": ("int", 1500, 9216),
    "host": ("int", 1500, 9216),
    "roce": ("choice", (256, 512, 1024, 2048, 4096)),
}
HOST_FIELDS: dict[str, tuple] = {
    "roce_dscp": ("int", 0, 63),
    "cnp_dscp": ("int", 0, 63),
    "pfc_priorities": ("int_list", 0, 7),
    "trust": ("choice", ("dscp", "pcp")),
}
SONIC_FIELDS: dict[str, tuple] = {
    "map_name": ("word",),
    "replace_stock_map": ("bool",),
    "xon_bytes": ("int", 0, 10**8),
    "dynamic_th": ("word",),
}
INFINIBAND_FIELDS: dict[str, tuple] = {
    "subnet_manager": ("choice", SUBNET_MANAGERS),
    "routing_engine": ("choice", ROUTING_ENGINES),
    "adaptive_routing": ("bool",),
    "qos": ("bool",),
    "max_operational_vls": ("choice", (1, 2, 4, 8, 15)),
    "sl2vl": ("sl2vl",),
    "vlarb_low": ("weights",),
    "sharp": ("choice", ("auto", "on", "off")),
    "sharp_sl": ("int", 0, 15),
    "lmc": ("int", 0, 7),
}
HEADROOM_FIELDS: dict[str, tuple] = {
    "d_pause_bits": ("int", 0, 10**7),
    "ifg_bytes": ("int", 0, 1000),
    "propagation_ns_per_m": ("float", 0.1, 100.0),
    "lossless_frame_bytes": ("int", 64, 16384),
    "d_intf_bits": ("speed_table",),
    "d_resp_bits": ("speed_table",),
}
DCQCN_MASK_RULE = ("int", 0, 255)
DCQCN_VALUE_RULE = ("int", 0, 2**31 - 1)  # every rp and np field (their names: ref.DCQCN_RP, ref.DCQCN_NP)


@dataclass(frozen=True)
class TrafficClass:
    """One class end to end. `priority` is the switch priority = 802.1p PCP = egress traffic class/queue
    (identity, the NVIDIA convention SP3 -> TC3). `dscp` is what switches classify into it; the default
    class lists none: every DSCP no other class claims lands there."""

    name: str
    dscp: tuple[int, ...]
    priority: int
    scheduling: str  # strict | dwrr
    weight: int  # DWRR share in percent; 0 for strict

    def to_dict(self) -> dict:
        return {
            "dscp": list(self.dscp),
            "priority": self.priority,
            "scheduling": self.scheduling,
            "weight": self.weight,
        }


@dataclass(frozen=True)
class EcnSettings:
    min_bytes: int = ref.ECN_MIN_BYTES
    max_bytes: int = ref.ECN_MAX_BYTES
    probability: int = ref.ECN_PROBABILITY  # percent marked at max_bytes
    classes: tuple[str, ...] = ref.ECN_CLASSES  # classes whose queues mark ECN


@dataclass(frozen=True)
class PfcSettings:
    priorities: tuple[int, ...] = (ref.ROCE_PRIORITY,)  # resolved: () in lossy mode
    watchdog: bool = True
    watchdog_poll_ms: int = ref.PFC_WATCHDOG_POLL_MS
    watchdog_detect_ms: int = ref.PFC_WATCHDOG_DETECT_MS
    watchdog_restore_ms: int = ref.PFC_WATCHDOG_RESTORE_MS
    watchdog_action: str = "drop"
    headroom_buffer_share: float = ref.HEADROOM_BUFFER_SHARE


@dataclass(frozen=True)
class MtuSettings:
    switch: int = ref.SWITCH_MTU  # port MTU on switches (EOS is capped at 9214)
    host: int = ref.HOST_MTU  # netdev MTU on hosts
    roce: int = ref.ROCE_MTU  # RoCE path MTU


@dataclass(frozen=True)
class HostSettings:
    """What the hosts do; defaults follow the switch classes. Kept separate so a mismatch (e.g. host images
    that mark DSCP 24) can be expressed and caught by the checks."""

    roce_dscp: int = ref.ROCE_DSCP
    cnp_dscp: int = ref.CNP_DSCP
    pfc_priorities: tuple[int, ...] = (ref.ROCE_PRIORITY,)
    trust: str = "dscp"

    @property
    def roce_tos(self) -> int:
        # ToS byte = DSCP << 2 | ECN bits; 0b10 = ECT(0) so switches can mark CE (C.1: 26 -> ToS 106).
        return self.roce_dscp << 2 | 2


@dataclass(frozen=True)
class DcqcnSettings:
    """ConnectX DCQCN (C.2). Field names are the sysfs names under /sys/class/net/<if>/ecn/."""

    prio_mask: int = ref.DCQCN_PRIO_MASK
    rp: tuple[tuple[str, int], ...] = ref.DCQCN_RP
    np: tuple[tuple[str, int], ...] = ref.DCQCN_NP

    def to_dict(self) -> dict:
        return {"prio_mask": self.prio_mask, **dict(self.rp), **dict(self.np)}


@dataclass(frozen=True)
class SonicSettings:
    map_name: str = "AZURE"  # reuse the stock map names so existing references stay valid
    replace_stock_map: bool = True  # write all 64 DSCP entries; the stock map sends DSCP 26 to lossy TC1
    xon_bytes: int = ref.SONIC_XON_BYTES
    dynamic_th: str = ref.SONIC_DYNAMIC_TH


@dataclass(frozen=True)
class InfinibandSettings:
    subnet_manager: str = "ufm"  # ufm (NVIDIA UFM / MLNX OpenSM, as DGX SuperPODs run) | opensm (upstream)
    routing_engine: str = "auto"  # auto: ar_ftree,ar_updn with adaptive routing on UFM, else ftree,updn
    adaptive_routing: bool = True
    qos: bool = True
    max_operational_vls: int = 2
    # SL -> VL for SL0..SL15: compute data on SL0/VL0, SHARP aggregation on SL1/VL1 (separated classes).
    sl2vl: tuple[int, ...] = (0, 1) + (0,) * 14
    vlarb_low: tuple[tuple[int, int], ...] = ((0, 64), (1, 64))  # (VL, weight) equal shares
    sharp: str = "auto"  # auto | on | off; auto = on when every switch of the fabric has `sharp: true`
    sharp_sl: int = 1
    lmc: int = 0


@dataclass(frozen=True)
class QosPolicy:
    technology: str
    mode: str = "dcqcn"
    ethernet_os: str = "nvue"
    roce: TrafficClass = TrafficClass("roce", (ref.ROCE_DSCP,), ref.ROCE_PRIORITY, "dwrr", ref.ROCE_WEIGHT)
    cnp: TrafficClass = TrafficClass("cnp", (ref.CNP_DSCP,), ref.CNP_PRIORITY, "strict", 0)
    control: TrafficClass = TrafficClass("control", (ref.CONTROL_DSCP,), ref.CONTROL_PRIORITY, "strict", 0)
    default: TrafficClass = TrafficClass("default", (), 0, "dwrr", ref.DEFAULT_WEIGHT)
    ecn: EcnSettings = field(default_factory=EcnSettings)
    pfc: PfcSettings = field(default_factory=PfcSettings)
    mtu: MtuSettings = field(default_factory=MtuSettings)
    host: HostSettings = field(default_factory=HostSettings)
    dcqcn: DcqcnSettings = field(default_factory=DcqcnSettings)
    headroom: HeadroomTerms = field(default_factory=HeadroomTerms)
    sonic: SonicSettings = field(default_factory=SonicSettings)
    infiniband: InfinibandSettings = field(default_factory=InfinibandSettings)

    # --- derived views used by every renderer, so all vendors agree by construction ---
    @property
    def classes(self) -> tuple[TrafficClass, ...]:
        return (self.roce, self.cnp, self.control, self.default)

    @property
    def lossless(self) -> bool:
        return self.mode != "lossy"

    @property
    def ecn_enabled(self) -> bool:
        return self.mode in ("dcqcn", "lossy")

    @property
    def dcqcn_enabled(self) -> bool:
        return self.mode in ("dcqcn", "lossy")

    @property
    def pfc_priorities(self) -> tuple[int, ...]:
        return self.pfc.priorities if self.lossless else ()

    def dscp_to_priority(self) -> tuple[int, ...]:
        """The switch map, all 64 DSCPs: class DSCPs to their priority, every other to the default class."""
        table = [self.default.priority] * 64
        for c in (self.roce, self.cnp, self.control):
            for d in c.dscp:
                table[d] = c.priority
        return tuple(table)

    def ecn_priorities(self) -> tuple[int, ...]:
        if not self.ecn_enabled:
            return ()
        return tuple(sorted({getattr(self, n).priority for n in self.ecn.classes}))

    # --- construction ---
    @classmethod
    def defaults(cls, technology: str) -> QosPolicy:
        if technology not in TECHNOLOGIES:
            raise SpecError.at("compute_fabric.technology", f"must be one of {', '.join(TECHNOLOGIES)}")
        return cls(technology=technology)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, technology: str) -> QosPolicy:
        base = cls.defaults(technology)
        if data is None:
            return base
        p = _Parser()
        p.mapping(data, "qos")
        if p.errors:
            raise SpecError(p.errors)
        p.keys(
            data,
            "qos",
            (
                "mode",
                "ethernet_os",
                *CLASS_NAMES,
                "ecn",
                "pfc",
                "mtu",
                "host",
                "dcqcn",
                "headroom",
                "sonic",
                "infiniband",
            ),
        )
        mode = p.enum(data.get("mode", base.mode), "qos.mode", MODES)
        ethernet_os = p.enum(data.get("ethernet_os", base.ethernet_os), "qos.ethernet_os", ETHERNET_OSES)
        classes = {n: p.traffic_class(data.get(n), f"qos.{n}", getattr(base, n)) for n in CLASS_NAMES}
        if classes["roce"] and not classes["roce"].dscp:
            p.err("qos.roce.dscp", "the RoCE class needs at least one DSCP")
        if classes["cnp"] and not classes["cnp"].dscp:
            p.err("qos.cnp.dscp", "congestion notifications need a DSCP")
        if classes["default"] and classes["default"].dscp:
            p.err("qos.default.dscp", "the default class takes every DSCP no other class lists; leave it empty")
        seen: dict[int, tuple[str, TrafficClass]] = {}
        for n in ("roce", "cnp", "control"):
            tc = classes[n]
            if tc is None:
                continue
            for d in tc.dscp:
                if d in seen:
                    # name the class whose DSCPs were changed (the one the user edited), not the first listed
                    other, other_tc = seen[d]
                    edited_other = other_tc.dscp != getattr(getattr(base, other), "dscp", ())
                    edited_this = tc.dscp != getattr(getattr(base, n), "dscp", ())
                    at, clash = (other, n) if edited_other and not edited_this else (n, other)
                    p.err(f"qos.{at}.dscp", f"DSCP {d} is already in the {clash} class")
                seen[d] = (n, tc)
        roce = classes["roce"] or base.roce
        cnp = classes["cnp"] or base.cnp

        ecn = p.section(data.get("ecn"), "qos.ecn", EcnSettings(), p.rules(ECN_FIELDS))
        pfc_default = PfcSettings(priorities=(roce.priority,) if mode != "lossy" else ())
        pfc = p.section(data.get("pfc"), "qos.pfc", pfc_default, p.rules(PFC_FIELDS))
        mtu = p.section(data.get("mtu"), "qos.mtu", MtuSettings(), p.rules(MTU_FIELDS))
        host_default = HostSettings(
            roce_dscp=roce.dscp[0] if roce.dscp else ref.ROCE_DSCP,
            cnp_dscp=cnp.dscp[0] if cnp.dscp else ref.CNP_DSCP,
            pfc_priorities=pfc.priorities,
        )
        host = p.section(data.get("host"), "qos.host", host_default, p.rules(HOST_FIELDS))
        dcqcn = p.dcqcn(data.get("dcqcn"), "qos.dcqcn")
        headroom = p.headroom(data.get("headroom"), "qos.headroom")
        sonic = p.section(data.get("sonic"), "qos.sonic", SonicSettings(), p.rules(SONIC_FIELDS))
        ib = p.section(data.get("infiniband"), "qos.infiniband", InfinibandSettings(), p.rules(INFINIBAND_FIELDS))
        if ib.subnet_manager == "opensm" and ib.routing_engine in AR_ENGINES:
            p.err(
                "qos.infiniband.routing_engine",
                f"upstream OpenSM has no {ib.routing_engine} engine (UFM / MLNX OpenSM only); use ftree or updn, "
                "or set qos.infiniband.subnet_manager to ufm",
            )
        if p.errors:
            raise SpecError(p.errors)
        return cls(
            technology=technology,
            mode=mode,
            ethernet_os=ethernet_os,
            roce=roce,
            cnp=cnp,
            control=classes["control"] or base.control,
            default=classes["default"] or base.default,
            ecn=ecn,
            pfc=pfc,
            mtu=mtu,
            host=host,
            dcqcn=dcqcn,
            headroom=headroom,
            sonic=sonic,
            infiniband=ib,
        )

    def to_dict(self) -> dict:
        def plain(obj) -> dict:
            out = {}
            for f in fields(obj):
                v = getattr(obj, f.name)
                out[f.name] = list(v) if isinstance(v, tuple) else v
            return out

        ib = plain(self.infiniband)
        ib["vlarb_low"] = {str(vl): w for vl, w in self.infiniband.vlarb_low}
        return {
            "technology": self.technology,
            "mode": self.mode,
            "ethernet_os": self.ethernet_os,
            **{c.name: c.to_dict() for c in self.classes},
            "ecn": plain(self.ecn),
            "pfc": plain(self.pfc),
            "mtu": plain(self.mtu),
            "host": plain(self.host),
            "dcqcn": self.dcqcn.to_dict(),
            "headroom": self.headroom.to_dict(),
            "sonic": plain(self.sonic),
            "infiniband": ib,
        }


class _Parser:
    """Collects every FieldError so a user sees all problems at once. Validators return (ok, value)."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def err(self, path: str, message: str) -> None:
        self.errors.append(FieldError(path, message))

    def mapping(self, data: Any, path: str) -> bool:
        if not isinstance(data, Mapping):
            self.err(path, "must be a mapping")
            return False
        return True

    def keys(self, data: Mapping, path: str, allowed) -> None:
        for k in data:
            if k not in allowed:
                self.err(f"{path}.{k}", f"unknown field; expected one of {', '.join(allowed)}")

    def enum(self, value: Any, path: str, choices) -> Any:
        if value not in choices:
            self.err(path, f"must be one of {', '.join(map(str, choices))}")
            return choices[0]
        return value

    # validators: callables (value, path) -> value | _BAD
    def rule(self, kind: str, *args):
        """The validator of one rule of the field tables (CLASS_FIELDS ...)."""
        makers: dict[str, Callable[..., Callable[[Any, str], Any]]] = {
            "int": self.int_,
            "float": self.float_,
            "bool": self.bool_,
            "word": self.str_,
            "choice": self.choice,
            "int_list": self.int_list,
            "names": self.names,
            "sl2vl": self.sl2vl,
            "weights": self.weights,
        }
        return makers[kind](*args)

    def rules(self, table: Mapping[str, tuple]) -> dict:
        return {name: self.rule(*rule) for name, rule in table.items()}

    def int_(self, lo: int, hi: int):
        def check(v, path):
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                self.err(path, f"must be an integer from {lo} to {hi}")
                return _BAD
            return v

        return check

    def float_(self, lo: float, hi: float):
        def check(v, path):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                self.err(path, f"must be a number from {lo} to {hi}")
                return _BAD
            return float(v)

        return check

    def bool_(self):
        def check(v, path):
            if not isinstance(v, bool):
                self.err(path, "must be true or false")
                return _BAD
            return v

        return check

    def str_(self):
        def check(v, path):
            if not isinstance(v, str) or not v.strip() or any(c.isspace() for c in v):
                self.err(path, "must be a non-empty word")
                return _BAD
            return v

        return check

    def choice(self, choices):
        def check(v, path):
            if v not in choices or isinstance(v, bool):
                self.err(path, f"must be one of {', '.join(map(str, choices))}")
                return _BAD
            return v

        return check

    def int_list(self, lo: int, hi: int, allow_int: bool = True):
        item = self.int_(lo, hi)

        def check(v, path):
            if allow_int and isinstance(v, int) and not isinstance(v, bool):
                v = [v]
            if not isinstance(v, (list, tuple)):
                self.err(path, f"must be a list of integers from {lo} to {hi}")
                return _BAD
            out = [item(x, f"{path}[{i}]") for i, x in enumerate(v)]
            if _BAD in out:
                return _BAD
            if len(set(out)) != len(out):
                self.err(path, "lists a value twice")
                return _BAD
            return tuple(out)

        return check

    def names(self, allowed):
        def check(v, path):
            if not isinstance(v, (list, tuple)) or any(x not in allowed for x in v):
                self.err(path, f"must be a list drawn from {', '.join(allowed)}")
                return _BAD
            return tuple(dict.fromkeys(v))

        return check

    def sl2vl(self):
        def check(v, path):
            if (
                not isinstance(v, (list, tuple))
                or len(v) != 16
                or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 14 for x in v)
            ):
                self.err(path, "must list 16 VLs (0-14), one per SL 0-15")
                return _BAD
            return tuple(v)

        return check

    def weights(self):
        def check(v, path):
            if not isinstance(v, Mapping) or not v:
                self.err(path, "must map VL (0-14) to a weight (0-255)")
                return _BAD
            out = []
            for k, w in v.items():
                try:
                    vl = int(k)
                except (TypeError, ValueError):
                    vl = -1
                if not 0 <= vl <= 14 or isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= 255:
                    self.err(f"{path}.{k}", "must map VL (0-14) to a weight (0-255)")
                    return _BAD
                out.append((vl, w))
            return tuple(sorted(out))

        return check

    def section(self, data: Any, path: str, default, spec: dict):
        if data is None:
            return default
        if not self.mapping(data, path):
            return default
        self.keys(data, path, tuple(spec))
        changes = {}
        for k, check in spec.items():
            if k in data:
                v = check(data[k], f"{path}.{k}")
                if v is not _BAD:
                    changes[k] = v
        return replace(default, **changes)

    def traffic_class(self, data: Any, path: str, default: TrafficClass) -> TrafficClass | None:
        n_before = len(self.errors)
        tc = self.section(data, path, default, self.rules(CLASS_FIELDS))
        if len(self.errors) > n_before:
            return None
        if tc.scheduling == "strict" and tc.weight:
            tc = replace(tc, weight=0)
        if tc.scheduling == "dwrr" and not tc.weight:
            self.err(f"{path}.weight", "a DWRR class needs a weight from 1 to 100")
            return None
        return tc

    def dcqcn(self, data: Any, path: str) -> DcqcnSettings:
        base = DcqcnSettings()
        if data is None or not self.mapping(data, path):
            return base
        rp, np_ = dict(base.rp), dict(base.np)
        self.keys(data, path, ("prio_mask", *rp, *np_))
        mask = base.prio_mask
        if "prio_mask" in data:
            v = self.rule(*DCQCN_MASK_RULE)(data["prio_mask"], f"{path}.prio_mask")
            mask = mask if v is _BAD else v
        for table in (rp, np_):
            for k in table:
                if k in data:
                    v = self.rule(*DCQCN_VALUE_RULE)(data[k], f"{path}.{k}")
                    if v is not _BAD:
                        table[k] = v
        return DcqcnSettings(prio_mask=mask, rp=tuple(rp.items()), np=tuple(np_.items()))

    def headroom(self, data: Any, path: str) -> HeadroomTerms:
        base = HeadroomTerms()
        if data is None or not self.mapping(data, path):
            return base

        def speed_table(v, p):
            if not isinstance(v, Mapping) or not v:
                self.err(p, "must map a port speed in Gb/s to bit times")
                return _BAD
            out = []
            for k, bits in v.items():
                try:
                    speed = int(k)
                except (TypeError, ValueError):
                    speed = 0
                if speed <= 0 or isinstance(bits, bool) or not isinstance(bits, int) or bits < 0:
                    self.err(f"{p}.{k}", "must map a port speed in Gb/s to a whole number of bit times")
                    return _BAD
                out.append((speed, bits))
            return out

        def merged(v, p, current):
            table = speed_table(v, p)
            return _BAD if table is _BAD else tuple(sorted({**dict(current), **dict(table)}.items()))

        tables = [k for k, rule in HEADROOM_FIELDS.items() if rule[0] == "speed_table"]
        out = self.section(
            {k: v for k, v in data.items() if k not in tables},
            path,
            base,
            self.rules({k: rule for k, rule in HEADROOM_FIELDS.items() if k not in tables}),
        )
        for k in tables:
            if k in data:
                v = merged(data[k], f"{path}.{k}", getattr(base, k))
                if v is not _BAD:
                    out = replace(out, **{k: v})
        return out


_BAD = object()
