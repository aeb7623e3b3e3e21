"""The QoS policy form: every setting of engine.qos.policy.QosPolicy a user sets, as a real form.

Fields are declared here (label, help text, which widget) but what a value may be is the engine's to say:
the form only turns text into numbers and lists, then `QosPolicy.from_dict` validates the whole policy and
each SpecError path (qos.roce.dscp, qos.dcqcn.rpg_gd, qos.headroom.d_intf_bits.400) is shown next to its
field. Text that is not a number is passed on as typed, so the engine's message says what it wants.

Help texts and defaults come from docs/qos.md and shared/reference/fabrics-qos-traffic.md section C (their
source tags in brackets); figures the reference lacks say so ("data gap").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.datastructures import MultiValueDict

from apps.designs.forms import SpecErrorsMixin, dotted_get, dotted_set, field_for_path
from apps.designs.sources import cite
from engine.errors import SpecError
from engine.qos.field_help import DCQCN_HELP
from engine.qos.policy import (
    CLASS_NAMES,
    ETHERNET_OSES,
    MODES,
    ROUTING_ENGINES,
    SCHEDULING,
    SUBNET_MANAGERS,
    DcqcnSettings,
    QosPolicy,
)

SEP = "__"  # form field names are policy paths with "." replaced (ids stay valid CSS selectors)

MODE_CHOICES = {
    "dcqcn": "ECN + DCQCN, PFC as a backstop (NVIDIA's default)",
    "pfc-only": "PFC only, no ECN or DCQCN (Meta at 400G)",
    "lossy": "Lossy: ECN + DCQCN, no PFC",
}
# The trade-off, from docs/qos.md "Modes: the trade-off" ([CL-RoCE], [Meta-RoCE] B.1, C.4).
MODE_HELP = {
    "dcqcn": "Switches mark ECN at 150 KB / 1.5 MB on the RoCE and default queues and NICs run DCQCN, so senders "
    "slow down before queues reach the PFC point: PFC stays a rare backstop and pause spreading "
    "(head-of-line blocking, congestion trees, PFC storms) stays small. The cost: DCQCN has many "
    "parameters and collective traffic is hard to tune (B.1). At 400G/800G the 150 KB minimum is "
    "only 3 / 1.5 µs of line rate (C.4), so marking starts early.",
    "pfc-only": "One lossless queue and no DCQCN, as in Meta's 400G production: congestion is left to the "
    "collective library (NCCL receiver-driven admission) and deep-buffer spine switches. Simpler, and "
    "it avoids DCQCN's throughput loss on bursty collectives, but it leans on PFC: a hot spot pauses "
    "upstream links and a stuck NIC can halt a path, so the PFC watchdog is essential.",
    "lossy": "No PFC, so no headroom, no pause spreading and no deadlock risk; ECN and DCQCN still run. Every "
    "drop costs a NIC retransmission (go-back-N on ConnectX), which hurts tail latency under incast. "
    "Choose it only when the NICs and the workload tolerate loss.",
}

CLASS_TITLES = {
    "roce": (
        "RoCE data (lossless)",
        (
            "DSCP 26 → priority 3, DWRR 50% is the NVIDIA and Broadcom default [CL-RoCE]; Cisco AI blueprints "
            "often mark 24."
        ),
    ),
    "cnp": ("Congestion notifications (CNP)", "DSCP 48 → priority 6, strict [CL-RoCE][C.2]."),
    "control": (
        "Control",
        (
            "The reference names no switch control class: CS7 (56) → priority 7, strict, is a documented "
            "default (data gap). Leave DSCP empty for none."
        ),
    ),
    "default": ("Default (everything else)", "Takes every DSCP no other class lists; priority 0, DWRR 50% [CL-RoCE]."),
}


@dataclass(frozen=True)
class QosField:
    """One setting: its path under `qos`, how it is edited, and what the user is told."""

    path: str
    kind: str  # choice | int | float | bool | ints | names | word | table
    label: str
    help: str = ""
    choices: tuple = ()
    follow: bool = False  # empty = follow the traffic classes (stored only when it differs)

    @property
    def name(self) -> str:
        return self.path.replace(".", SEP)

    @property
    def section(self) -> str:
        head = self.path.split(".", 1)[0]
        return "general" if head in ("mode", "ethernet_os") else "classes" if head in CLASS_NAMES else head


def _class_fields(name: str) -> list[QosField]:
    title = CLASS_TITLES[name][0]
    out = []
    if name != "default":
        out.append(QosField(f"{name}.dscp", "ints", f"{title}: DSCP", "One DSCP or a comma-separated list, 0-63."))
    out += [
        QosField(
            f"{name}.priority",
            "choice",
            f"{title}: priority",
            "Switch priority = 802.1p PCP = egress traffic class (SP3 → TC3).",
            tuple(range(8)),
        ),
        QosField(
            f"{name}.scheduling",
            "choice",
            f"{title}: scheduling",
            "strict, or a DWRR (ETS) share of the bandwidth.",
            SCHEDULING,
        ),
        QosField(
            f"{name}.weight",
            "int",
            f"{title}: ETS weight (%)",
            "DWRR share in percent; the DWRR weights should add up to 100. Ignored for strict.",
        ),
    ]
    return out


def _dcqcn_fields() -> list[QosField]:
    base = DcqcnSettings()
    defaults = {"prio_mask": base.prio_mask, **dict(base.rp), **dict(base.np)}
    return [
        QosField(f"dcqcn.{k}", "int", k, f"{DCQCN_HELP.get(k, '')} Default {v} [C.2].".strip())
        for k, v in defaults.items()
    ]


FIELDS: tuple[QosField, ...] = (
    QosField("mode", "choice", "Mode", "", tuple(MODES)),
    QosField(
        "ethernet_os",
        "choice",
        "Switch OS for NVIDIA Spectrum",
        "Cumulus NVUE or SONiC config for switches whose catalog entry runs both (NVIDIA Spectrum); a switch that runs one OS (Arista: EOS) gets that one.",
        ETHERNET_OSES,
    ),
    *[f for n in CLASS_NAMES for f in _class_fields(n)],
    QosField(
        "ecn.min_bytes",
        "int",
        "ECN min threshold (bytes)",
        "Queue depth where marking starts. Default 150,000 B [CL-RoCE]; Spectrum-4 programs it as 159,744 B.",
    ),
    QosField(
        "ecn.max_bytes",
        "int",
        "ECN max threshold (bytes)",
        "Queue depth where marking reaches the probability below. Default 1,500,000 B [CL-RoCE]. The checks "
        "warn above 240 µs of line rate (the deepest C.4 template) or a minimum under 1 µs.",
    ),
    QosField(
        "ecn.probability",
        "int",
        "ECN marking probability (%)",
        "Percent marked at the max threshold. Default 100 [CL-RoCE].",
    ),
    QosField(
        "ecn.classes",
        "names",
        "Queues that mark ECN",
        "Default RoCE and default (ECN on TC 0,3 [CL-RoCE]). Without RoCE, DCQCN never gets a signal.",
        CLASS_NAMES,
    ),
    QosField(
        "pfc.priorities",
        "ints",
        "PFC priorities",
        "Lossless priorities. Leave empty to follow the RoCE class (none in lossy mode).",
        follow=True,
    ),
    QosField(
        "pfc.watchdog",
        "bool",
        "PFC watchdog",
        "Breaks a pause that lasts too long (a stuck NIC, a PFC storm); essential without DCQCN.",
    ),
    QosField(
        "pfc.watchdog_poll_ms",
        "int",
        "Watchdog poll (ms)",
        "Default 100 ms: vendor defaults differ and the reference gives none (data gap).",
    ),
    QosField("pfc.watchdog_detect_ms", "int", "Watchdog detect (ms)", "Default 200 ms (data gap)."),
    QosField("pfc.watchdog_restore_ms", "int", "Watchdog restore (ms)", "Default 200 ms (data gap)."),
    QosField(
        "pfc.watchdog_action",
        "choice",
        "Watchdog action",
        "What a stuck queue gets: drop (default), forward or alert.",
        ("drop", "forward", "alert"),
    ),
    QosField(
        "pfc.headroom_buffer_share",
        "float",
        "Headroom share of the buffer",
        "Warn when a switch's PFC headroom exceeds this share of its packet buffer (0-1; default 0.5, a data gap).",
    ),
    QosField(
        "mtu.switch",
        "int",
        "Switch MTU (bytes)",
        "Default 9216 [C.1]; EOS is capped at 9214. D-Max-Frame of the headroom is sized on it.",
    ),
    QosField(
        "mtu.host",
        "int",
        "Host MTU (bytes)",
        "Default 9000 (data gap). It must carry the 4,200 B RoCE frame, and host MTU + 18 B must fit the switch MTU.",
    ),
    QosField(
        "mtu.roce",
        "choice",
        "RoCE path MTU (bytes)",
        "Default 4096, a 4,200 B frame on the wire [C.3].",
        (256, 512, 1024, 2048, 4096),
    ),
    QosField(
        "host.roce_dscp",
        "int",
        "Hosts mark RoCE with DSCP",
        "Leave empty to follow the RoCE class (its first DSCP). `cma_roce_tos` and NCCL_IB_TC are derived from it.",
        follow=True,
    ),
    QosField("host.cnp_dscp", "int", "Hosts send CNPs with DSCP", "Leave empty to follow the CNP class.", follow=True),
    QosField(
        "host.pfc_priorities",
        "ints",
        "Host PFC priorities",
        "mlnx_qos --pfc. Leave empty to follow the switches' PFC priorities.",
        follow=True,
    ),
    QosField("host.trust", "choice", "Host trust", "mlnx_qos --trust: dscp (default) or pcp.", ("dscp", "pcp")),
    *_dcqcn_fields(),
    QosField("headroom.d_pause_bits", "int", "D-Pause (bit times)", "The PAUSE frame itself: 672 BT [C.3]."),
    QosField("headroom.ifg_bytes", "int", "IFG and preamble (bytes)", "Per frame: 20 B [C.3]."),
    QosField(
        "headroom.propagation_ns_per_m",
        "float",
        "Propagation (ns per metre)",
        "About 5 ns/m in fibre [C.3] (Cisco: 4.76 copper, 5.13 single-mode).",
    ),
    QosField(
        "headroom.lossless_frame_bytes",
        "int",
        "D-Max-No-Drop-Frame (bytes)",
        "The RoCE frame the sender has already started: 4,200 B for a 4096 MTU [C.3].",
    ),
    QosField(
        "headroom.d_intf_bits",
        "table",
        "D-Intf per speed (speed: bit times)",
        "PHY/MAC latency "
        "[C.3]: listed for 10/25/40/100G only. A speed not listed takes the time of the nearest lower listed "
        "speed (data gap). Entries merge with the defaults.",
    ),
    QosField(
        "headroom.d_resp_bits",
        "table",
        "D-Resp per speed (speed: bit times)",
        "The sender's reaction "
        "time [C.3]: listed for 10-100G and 400G. Other speeds as for D-Intf. Entries merge with the "
        "defaults.",
    ),
    QosField(
        "sonic.map_name", "word", "SONiC map name", "DSCP_TO_TC_MAP name; the stock AZURE keeps other references valid."
    ),
    QosField(
        "sonic.replace_stock_map",
        "bool",
        "Replace SONiC's stock DSCP map",
        "The stock map sends DSCP 26 "
        "to lossy TC1 and turns PFC on for 3 and 4 [SONiC-QoS]; replacing it writes all 64 entries.",
    ),
    QosField("sonic.xon_bytes", "int", "SONiC xon (bytes)", "Lossless profile xon: 18,432 B = 2 × 9216 (data gap)."),
    QosField("sonic.dynamic_th", "word", "SONiC dynamic_th", 'Lossless PG alpha: "0" (data gap).'),
    QosField(
        "infiniband.subnet_manager",
        "choice",
        "Subnet manager",
        "ufm: NVIDIA UFM / MLNX OpenSM (adaptive "
        "routing engines, SHARP options); opensm: upstream OpenSM (ftree/updn, no SHARP options).",
        SUBNET_MANAGERS,
    ),
    QosField(
        "infiniband.routing_engine",
        "choice",
        "Routing engine",
        "auto: ar_ftree,ar_updn with adaptive routing on UFM, ftree,updn otherwise (OpenSM tries the list in order).",
        ROUTING_ENGINES,
    ),
    QosField("infiniband.adaptive_routing", "bool", "Adaptive routing", ""),
    QosField("infiniband.qos", "bool", "Subnet-manager QoS", "Write SL2VL and VL arbitration (qos TRUE)."),
    QosField("infiniband.max_operational_vls", "choice", "Operational VLs", "Default 2 (data gap).", (1, 2, 4, 8, 15)),
    QosField(
        "infiniband.sl2vl",
        "ints",
        "SL to VL (16 values)",
        "VL for SL 0-15: compute on SL0 → VL0, SHARP on SL1 → VL1, so the classes are separated.",
    ),
    QosField(
        "infiniband.vlarb_low",
        "table",
        "VL arbitration, low (VL: weight)",
        "Default 0: 64, 1: 64, equal shares (data gap).",
    ),
    QosField(
        "infiniband.sharp",
        "choice",
        "SHARP",
        "auto: on when every switch model of the fabric supports it.",
        ("auto", "on", "off"),
    ),
    QosField(
        "infiniband.sharp_sl",
        "int",
        "SHARP service level",
        "Default 1 (data gap; a public UFM configuration uses ib_qpc_sl 1).",
    ),
    QosField("infiniband.lmc", "int", "LMC", "LID mask control: 2^LMC LIDs per port. Default 0."),
)
BY_PATH = {f.path: f for f in FIELDS}
_FIELD_NAMES = {path: f.name for path, f in BY_PATH.items()}

SECTIONS = {
    "general": "Congestion control",
    "classes": "Traffic classes, DSCP and ETS",
    "ecn": "ECN marking",
    "pfc": "PFC and watchdog",
    "mtu": "MTU",
    "host": "Hosts (ConnectX)",
    "dcqcn": "DCQCN on the NICs",
    "headroom": "PFC headroom terms",
    "sonic": "SONiC",
    "infiniband": "InfiniBand subnet manager",
}
# Sections that only matter for one technology: folded when the design has none of it.
ETHERNET_ONLY = ("general", "classes", "ecn", "pfc", "mtu", "host", "dcqcn", "headroom", "sonic")
INFINIBAND_ONLY = ("infiniband",)

_INT = re.compile(r"^[+-]?\d+$")


def _number(text: str, kind: str) -> Any:
    """A typed number, or the text itself so the engine reports it ("must be an integer from 0 to 63")."""
    t = text.strip().replace(",", "") if kind != "ints" else text.strip()
    if _INT.match(t):
        return int(t)
    if kind == "float":
        try:
            return float(t)
        except ValueError:
            return text
    return text


def _to_text(f: QosField, value: Any) -> Any:
    """A policy value as its form field's value."""
    if f.kind == "bool":
        return bool(value)
    if value is None:
        return ""
    if f.kind == "names":
        return list(value) if isinstance(value, (list, tuple)) else []
    if f.kind == "ints":
        return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    if f.kind == "table":
        return ", ".join(f"{k}: {v}" for k, v in value.items()) if isinstance(value, Mapping) else str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and f.kind != "float" else repr(value)
    return str(value)


def _from_text(f: QosField, value: Any) -> Any:
    """A form value as the policy value the engine parses."""
    if f.kind in ("bool", "names"):
        return value
    if f.kind == "choice":
        return int(value) if _INT.match(value) else value
    text = value.strip()
    if f.kind == "word":
        return text
    if f.kind == "ints":
        items = [t for t in re.split(r"[,\s]+", text) if t]
        return [_number(t, "int") for t in items]
    if f.kind == "table":
        out: dict = {}
        for item in (t for t in re.split(r"[,;\n]+", text) if t.strip()):
            key, sep, val = item.partition(":")
            if not sep:
                return text  # not "key: value" pairs: the engine says what it wants
            out[key.strip()] = _number(val, "int")
        return out
    return _number(text, f.kind)


class _EngineChoiceField(forms.ChoiceField):
    """A select whose value the engine judges (its message then names the choices), not Django."""

    def valid_value(self, value: object) -> bool:  # noqa: ARG002 - the engine judges every value
        return True


def _form_field(f: QosField) -> forms.Field:
    common: dict[str, Any] = {"label": f.label, "help_text": cite(f.help), "required": False}
    if f.kind == "bool":
        return forms.BooleanField(**common)
    if f.kind == "choice":
        labels = MODE_CHOICES if f.path == "mode" else {}
        widget = forms.RadioSelect if f.path == "mode" else forms.Select
        return _EngineChoiceField(choices=[(str(c), labels.get(c, str(c))) for c in f.choices], widget=widget, **common)
    if f.kind == "names":
        return forms.MultipleChoiceField(
            choices=[(c, c) for c in f.choices], widget=forms.CheckboxSelectMultiple, **common
        )
    if f.kind in ("int", "float"):
        return forms.CharField(widget=forms.NumberInput(attrs={"step": "1" if f.kind == "int" else "any"}), **common)
    return forms.CharField(**common)


class QosPolicyForm(SpecErrorsMixin, forms.Form):
    """The policy as a form; `cleaned_qos` is the `qos` value it describes, already validated by the engine.

    `stored` is the spec's current `qos` value (it decides which follow-the-classes fields start empty);
    `policy` the effective policy that fills the fields. With `disabled`, every field is read-only.
    `technologies` are those the design's RDMA fabrics use: sections for the others start folded.
    """

    def __init__(
        self,
        *args: Any,
        technology: str,
        stored: Any = None,
        policy: QosPolicy | None = None,
        disabled: bool = False,
        technologies: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> None:
        self.technology = technology
        self.technologies = set(technologies or (technology,))
        if policy is not None:
            current = policy.to_dict()
            kwargs.setdefault(
                "initial",
                {
                    f.name: ""
                    if f.follow and dotted_get(stored, f.path) is None
                    else _to_text(f, dotted_get(current, f.path))
                    for f in FIELDS
                },
            )
        super().__init__(*args, **kwargs)
        derived = policy or QosPolicy.defaults(technology)
        for f in FIELDS:
            field = self.fields[f.name] = _form_field(f)
            field.disabled = disabled
            if f.follow:
                shown = _to_text(f, dotted_get(derived.to_dict(), f.path))
                field.widget.attrs["placeholder"] = f"follows the classes: {shown or 'none'}"
        self.cleaned_qos: dict | None = None
        self.cleaned_policy: QosPolicy | None = None

    @classmethod
    def from_stored(cls, stored: Any, *, technology: str, **kwargs: Any) -> QosPolicyForm:
        """A bound form showing a stored value that does not parse: what it holds, over the defaults, with
        the engine's errors next to the fields (nothing of it is lost until the form is saved)."""
        base = QosPolicy.defaults(technology).to_dict()
        data: dict[str, list] = {}
        for f in FIELDS:
            raw = dotted_get(stored, f.path)
            if f.follow and raw is None:
                continue
            value = _to_text(f, raw if raw is not None else dotted_get(base, f.path))
            if f.kind == "names":
                data[f.name] = value
            elif f.kind != "bool" or value:
                data[f.name] = ["on" if f.kind == "bool" else value]
        form = cls(MultiValueDict(data), technology=technology, stored=stored, **kwargs)
        form.is_valid()
        # What the fields cannot show (a wrong type, an unknown key) is still reported, once.
        try:
            QosPolicy.from_dict(stored, technology)
        except SpecError as exc:
            for err in exc.errors:
                name, rest = qos_field_for_path(err.path)
                message = f"{rest}: {err.message}" if rest else err.message
                shown = list(form.errors.get(name or "__all__", []))
                if message not in shown:
                    form.add_error(name, message)
        return form

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what Form.clean returns; its stub allows None
        qos: dict = {}
        for f in FIELDS:
            if f.name not in data:  # Django already reported it (e.g. not one of the choices)
                continue
            value = data[f.name]
            if f.follow and value in ("", None):
                continue
            if f.kind in ("int", "float", "word") and value in ("", None):
                continue  # empty: the default
            dotted_set(qos, f.path, _from_text(f, value))
        if self.errors:
            return data
        try:
            self.cleaned_policy = QosPolicy.from_dict(qos, self.technology)
        except SpecError as exc:
            self.add_spec_errors(exc)
        else:
            self.cleaned_qos = qos
        return data

    def field_for_path(self, path: str) -> tuple[str | None, str]:
        return qos_field_for_path(path)

    def sections(self) -> list[dict]:
        """Fields grouped by section; sections the design's technology does not use start folded."""
        groups: dict[str, list] = {}
        for f in FIELDS:
            groups.setdefault(f.section, []).append(self[f.name])
        unused = set()
        if "ethernet" not in self.technologies:
            unused |= set(ETHERNET_ONLY)
        if "infiniband" not in self.technologies:
            unused |= set(INFINIBAND_ONLY)
        out = []
        for key, fields in groups.items():
            errors = any(bf.errors for bf in fields)
            out.append(
                {
                    "key": key,
                    "title": SECTIONS[key],
                    "fields": fields,
                    "folded": key in unused,
                    "open": errors or (key not in unused and key not in ("dcqcn", "headroom", "sonic")),
                }
            )
        return out

    def class_rows(self) -> list[dict]:
        """The traffic classes as table rows: title, note and the bound fields of each column."""
        rows = []
        for n in CLASS_NAMES:
            cols = {
                c: self[f"{n}{SEP}{c}"] if f"{n}{SEP}{c}" in self.fields else None
                for c in ("dscp", "priority", "scheduling", "weight")
            }
            rows.append({"name": n, "title": CLASS_TITLES[n][0], "note": cite(CLASS_TITLES[n][1]), **cols})
        return rows


def qos_field_for_path(path: str) -> tuple[str | None, str]:
    """The form field a SpecError path (qos.roce.dscp[1]) belongs to, and what of the path is left below it."""
    name, rest = field_for_path(path.removeprefix("qos."), _FIELD_NAMES)
    return (name, rest) if name is not None else (None, path)
