"""Server-drawn SVG for the result page: the fabric diagram and rack elevations.

The fabric diagram needs only the revision's summary (docs/summary.md). Big fabrics are
summarised: every tier is drawn, but only a handful of scalable units (the rest are counted).

Rack elevations need device positions, which are not stored per device: they are derived from
the revision's link rows, whose two ends carry device, rack and rack unit. One aggregate query
per row of racks (grouped by rack and device, over the per-rack indexes) keeps this fast at
400,000 links; a page shows at most RACKS_PER_VIEW racks of one row. A device's kind and height are the
ones the revision stored (its snapshot's devices: role and rack units), never guessed from its name or read
from today's catalog; a revision without a readable snapshot draws its devices as "other", one unit high.

Every text that reaches the SVG goes through `escape`, so the result is marked safe for templates.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from math import ceil
from typing import Any

from django.db.models import Count, F, Min
from django.utils.safestring import SafeString, mark_safe

from engine.model import NETWORKS, TIERS
from engine.placement import row_name

from .models import LinkRecord, Revision, SnapshotState

RACKS_PER_VIEW = 16
MAX_SU_COLUMNS = 6  # scalable units drawn side by side before the rest are summarised

NETWORK_TITLES = {
    "compute": "Compute fabric",
    "storage": "Storage fabric",
    "inband": "In-band management",
    "oob": "Out-of-band management",
}
KIND_TITLES = {
    "server": "Server",
    "leaf": "Leaf switch",
    "spine": "Spine switch",
    "core": "Core switch",
    "oob": "OOB switch",
    "oob-agg": "OOB aggregation",
    "ufm": "UFM appliance",
    "storage": "Storage appliance",
    "mgmt": "Management server",
    "pdu": "PDU (0U)",
    "other": "Other",
}
# The diagrams' classes (fd-*) are styled by static/css/diagrams.css, which the revision page links:
# the Content-Security-Policy allows no <style> element in the page.


class _Svg:
    """A tiny SVG writer: shapes in, one escaped document out."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.width = self.height = 0.0

    def _grow(self, x: float, y: float) -> None:
        self.width, self.height = max(self.width, x), max(self.height, y)

    def rect(self, x: float, y: float, w: float, h: float, cls: str, title: str | None = None, rx: float = 3) -> None:
        self._grow(x + w, y + h)
        tip = f"<title>{escape(title)}</title>" if title else ""
        self.parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" class="{cls}">{tip}</rect>'
        )

    def text(self, x: float, y: float, s: str, cls: str = "fd-t", anchor: str = "middle") -> None:
        # No font metrics on the server: about 0.6 em per character is enough to size the canvas.
        width = len(s) * (7.5 if cls in ("fd-h", "fd-t") else 6.2)
        self._grow(x + (width if anchor == "start" else width / 2 if anchor == "middle" else 0), y + 4)
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" class="{cls}" text-anchor="{anchor}">{escape(s)}</text>')

    def line(self, x1: float, y1: float, x2: float, y2: float, cls: str = "fd-edge") -> None:
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="{cls}"/>')

    def render(self, label: str, pad: float = 12) -> SafeString:
        w, h = ceil(self.width + pad), ceil(self.height + pad)
        return mark_safe(
            f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(label)}" '
            f'width="{w}" height="{h}" viewBox="0 0 {w} {h}"><title>{escape(label)}</title>'
            f"{''.join(self.parts)}</svg>"
        )


ROLES = ("leaf", "spine", "core")


def in_order(mapping: Mapping | None, canonical: tuple = ()) -> list[tuple[str, Any]]:
    """A summary mapping's items in the engine's order. PostgreSQL's jsonb does not keep key order
    (it stores shorter keys first), so "oob" would come before "compute" and "ufm-leaf" first."""
    rank = {k: i for i, k in enumerate(canonical)}
    return sorted((mapping or {}).items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))


def networks_in_order(summary: Mapping) -> list[tuple[str, Mapping]]:
    return in_order(summary.get("networks"), NETWORKS)


def _n(x: Any) -> str:
    return f"{x:,}" if isinstance(x, int) else str(x)


# --- Fabric diagram ---------------------------------------------------------


def _su_columns(n_su: int, limit: int) -> list[tuple[str, int]]:
    """("su", index) for SUs drawn, ("gap", how many) where the middle ones are summarised."""
    if n_su <= limit:
        return [("su", i) for i in range(n_su)]
    head = limit - 2
    return [("su", i) for i in range(head)] + [("gap", n_su - head - 1), ("su", n_su - 1)]


def _uplink_x(spine_boxes: list[tuple[float, float, int, float, float]], plane: int, cx: float) -> float:
    """Where a leaf's uplink meets its own plane's spine block: in the block of the spine group above the leaf (or
    the nearest), at the leaf's relative place across that group, so no line ends between two planes' blocks."""
    own = [b for b in spine_boxes if b[2] == plane] or spine_boxes

    def distance(b: tuple[float, float, int, float, float]) -> float:
        return 0.0 if b[3] <= cx <= b[3] + b[4] else min(abs(cx - b[3]), abs(cx - b[3] - b[4]))

    sx, sw_, _p, gx, gw = min(own, key=distance)
    share = min(max((cx - gx) / gw, 0.0), 1.0) if gw else 0.5
    return sx + 4 + (sw_ - 8) * share


def fabric_svg(summary: Mapping) -> SafeString | None:  # noqa: C901
    """The compute fabric by tier: core, spines (per pod), each SU's rail leaves, and its servers."""
    net = (summary.get("networks") or {}).get("compute")
    if not net or not net.get("scalable_units"):
        return None
    sw, links, models = net.get("switches") or {}, net.get("links") or {}, net.get("switch_models") or {}
    tiers, planes, n_su = net.get("tiers") or 2, net.get("planes") or 1, net["scalable_units"]
    su_size, servers = net.get("scalable_unit") or 0, summary.get("servers") or 0
    pods = max(1, net.get("pods") or 1) if tiers == 3 else 1
    su_per_pod = ceil(n_su / pods)
    rails = max(1, (sw.get("leaf") or 0) // max(1, n_su * planes))
    # A 3-tier fabric draws pod 1 in detail and sums up the other pods in one column.
    cols = _su_columns(su_per_pod if tiers == 3 else n_su, MAX_SU_COLUMNS - (1 if pods > 1 else 0))
    if pods > 1:
        cols.append(("pods", pods - 1))

    left, gap = 150, 14
    # Wide enough for a box per rail leaf, and spread over about 1,150 px when there are few SUs.
    wanted = 16 * rails * planes + 24 if rails * planes <= 16 else 150
    col_w = max(120, min(wanted, 220), min(260, (1150 - left) / len(cols) - gap))
    x_of = [left + i * (col_w + gap) for i in range(len(cols))]
    right = x_of[-1] + col_w
    y = {"title": 20}
    y["core"] = 44
    y["spine"] = y["core"] + (90 if tiers == 3 else 0)
    y["leaf"], y["server"] = y["spine"] + 110, y["spine"] + 230
    box_h = 40
    svg = _Svg()
    tech = "InfiniBand" if net.get("technology") == "infiniband" else "Ethernet"
    svg.text(
        8,
        y["title"],
        f"Compute fabric: {tech}, {tiers} tiers, {planes} plane{'s' if planes > 1 else ''}, "
        f"{net.get('port_speed_gbps')} Gb/s ports, {n_su} SU{'s' if n_su != 1 else ''} of "
        f"{su_size} servers" + (f", {pods} pods" if tiers == 3 else ""),
        "fd-h",
        "start",
    )

    def tier_label(name: str, yy: float) -> None:
        svg.text(8, yy + box_h / 2 + 4, name, "fd-t", "start")

    def edge_label(text: str, y_top: float, y_bottom: float) -> None:
        svg.text(8, (y_top + y_bottom) / 2 + 4, text, "fd-m", "start")

    ratio = net.get("oversubscription") or {}
    # Spine (and core) boxes: their bottom edge is where the lines from below end.
    spine_boxes: list[tuple[float, float, int, float, float]] = []  # (x, width, plane, group x, group width)
    if tiers == 3:
        tier_label("Core", y["core"])
        per_plane_w = (right - left - gap * (planes - 1)) / planes
        for p in range(planes):
            x = left + p * (per_plane_w + gap)
            svg.rect(x, y["core"], per_plane_w, box_h, f"fd-p{p % 2}", f"{sw.get('core', 0) // planes} core switches")
            svg.text(
                x + per_plane_w / 2,
                y["core"] + 25,
                f"{_n(sw.get('core', 0) // planes)} core × {models.get('core') or ''}"
                + (f" (plane {'AB'[p]})" if planes > 1 else ""),
            )
        edge_label(f"spine–core: {_n(links.get('spine-core', 0))} links", y["core"] + box_h, y["spine"])
    tier_label("Spine", y["spine"])
    spines_per_group = (sw.get("spine") or 0) // (pods * planes)
    groups = (
        [(left, right - left, "")]
        if tiers == 2
        else [(x_of[0], x_of[len(cols) - 2] + col_w - x_of[0] if pods > 1 else right - left, "pod 1")]
        + ([(x_of[-1], col_w, f"pods 2–{pods}, each")] if pods > 1 else [])
    )
    for gx, gw, what in groups:
        pw = (gw - 6 * (planes - 1)) / planes
        for p in range(planes):
            x = gx + p * (pw + 6)
            svg.rect(x, y["spine"], pw, box_h, f"fd-p{p % 2}", f"{spines_per_group} spine switches")
            label = f"{_n(spines_per_group)} × {models.get('spine') or ''}" + (
                f" · plane {'AB'[p]}" if planes > 1 else ""
            )
            if what:
                svg.text(x + pw / 2, y["spine"] + 16, what, "fd-s")
            svg.text(x + pw / 2, y["spine"] + (31 if what else 25), label, "fd-s")
            spine_boxes.append((x, pw, p, gx, gw))
            if tiers == 3:
                svg.line(x + pw / 2, y["spine"], x + pw / 2, y["core"] + box_h)
    leaf_note = f"leaf–spine: {_n(links.get('leaf-spine', 0))} links"
    edge_label(
        leaf_note + (f" · {ratio.get('leaf')} at the leaf" if ratio.get("leaf") else ""), y["spine"] + box_h, y["leaf"]
    )
    tier_label("Leaf", y["leaf"] - 2)
    svg.text(8, y["leaf"] + box_h / 2 + 16, f"{_n(sw.get('leaf', 0))} × {models.get('leaf') or ''}", "fd-m", "start")
    tier_label("Servers", y["server"])
    node_note = f"node–leaf: {_n(links.get('node-leaf', 0))} links"
    if links.get("ufm-leaf"):
        node_note += f" + {links['ufm-leaf']} UFM"
    edge_label(node_note, y["leaf"] + box_h + 12, y["server"])

    leaves_per_su = rails * planes
    for (kind, idx), x in zip(cols, x_of):
        if kind != "su":
            svg.rect(x, y["leaf"] - 8, col_w, box_h + 22, "fd-su")
            what = (
                f"{_n(idx)} more SU{'s' if idx != 1 else ''}"
                if kind == "gap"
                else f"{_n(idx)} more pod{'s' if idx != 1 else ''}"
            )
            svg.text(x + col_w / 2, y["leaf"] + 24, f"… {what}", "fd-m")
            svg.text(x + col_w / 2, y["server"] + 24, "…", "fd-m")
            continue
        su_servers = max(0, min(su_size, servers - idx * su_size))
        svg.rect(x, y["leaf"] - 8, col_w, box_h + 22, "fd-su", f"scalable unit {idx + 1}")
        svg.text(x + col_w / 2, y["leaf"] + box_h + 10, f"SU {idx + 1}", "fd-m")
        inner = col_w - 12
        if leaves_per_su <= 16:
            lw = inner / leaves_per_su
            for j in range(leaves_per_su):
                p, r = divmod(j, rails)
                lx = x + 6 + j * lw
                svg.rect(
                    lx + 1,
                    y["leaf"],
                    lw - 2,
                    box_h - 12,
                    f"fd-p{p % 2}",
                    f"SU {idx + 1} leaf for rail {r + 1}" + (f", plane {'AB'[p]}" if planes > 1 else ""),
                )
                if lw >= 16:  # narrower leaves keep their rail in the tooltip: the labels would run together
                    svg.text(lx + lw / 2, y["leaf"] + 17, f"R{r + 1}", "fd-s")
                svg.line(lx + lw / 2, y["leaf"], _uplink_x(spine_boxes, p, lx + lw / 2), y["spine"] + box_h)
                svg.line(
                    x + 10 + (col_w - 20) * (j + 0.5) / leaves_per_su, y["server"], lx + lw / 2, y["leaf"] + box_h - 12
                )
        else:
            svg.rect(x + 6, y["leaf"], inner, box_h - 12, "fd-p0", f"{leaves_per_su} leaves")
            svg.text(x + col_w / 2, y["leaf"] + 17, f"{leaves_per_su} leaves ({rails} rails)", "fd-s")
            svg.line(x + col_w / 2, y["leaf"], x + col_w / 2, y["spine"] + box_h)
            svg.line(x + col_w / 2, y["server"], x + col_w / 2, y["leaf"] + box_h - 12)
        svg.rect(x, y["server"], col_w, box_h, "fd-srv", f"{su_servers} servers in SU {idx + 1}")
        svg.text(x + col_w / 2, y["server"] + 25, f"{su_servers} × {summary.get('server_model', 'server')}")
    legend_y = y["server"] + box_h + 26
    svg.text(
        8,
        legend_y,
        f"Rail-optimized: leaf R(n) of each SU connects NIC n of every server in the SU "
        f"({rails} rails{', 2 planes: each NIC splits over leaves of plane A and B' if planes > 1 else ''}).",
        "fd-m",
        "start",
    )
    return svg.render(f"Compute fabric diagram: {tiers} tiers, {n_su} scalable units, {rails} rails, {planes} plane(s)")


_ENDPOINTS = {
    "node": "servers",
    "appliance": "storage appliances",
    "mgmt": "management servers",
    "device": "managed devices",
    "ufm": "UFM appliances",
}
_UPLINK_TIERS = ("leaf-spine", "oob-uplink", "spine-core")


def network_svg(key: str, net: Mapping) -> SafeString:
    """A non-compute network as a stack: spines over leaves over the endpoints, with link counts."""
    sw, models = net.get("switches") or {}, net.get("switch_models") or {}
    links = dict(in_order(net.get("links"), TIERS.get(key, ())))
    up = [t for t in links if t in _UPLINK_TIERS]
    down = [t for t in links if t not in _UPLINK_TIERS]
    oob = key == "oob"
    rows = (
        [("Aggregation" if oob else "Spine", f"{_n(sw['spine'])} × {models.get('spine') or ''}", "fd-box", up)]
        if sw.get("spine")
        else []
    )
    rows.append(
        ("Rack switch" if oob else "Leaf", f"{_n(sw.get('leaf', 0))} × {models.get('leaf') or ''}", "fd-box", down)
    )
    rows.append(("Endpoints", ", ".join(_ENDPOINTS.get(t.split("-")[0], t) for t in down), "fd-srv", []))
    svg = _Svg()
    x, w, h, yy = 150, 360, 34, 34
    svg.text(8, 18, NETWORK_TITLES.get(key, key), "fd-h", "start")
    for label, text, cls, tiers_below in rows:
        svg.text(8, yy + h / 2 + 4, label, "fd-t", "start")
        svg.rect(x, yy, w, h, cls)
        svg.text(x + w / 2, yy + h / 2 + 4, text, "fd-s")
        if tiers_below:
            svg.line(x + w / 2, yy + h, x + w / 2, yy + h + 26)
            svg.text(
                x + w / 2 + 10,
                yy + h + 17,
                ", ".join(f"{t}: {_n(links[t])} links" for t in tiers_below),
                "fd-m",
                "start",
            )
        yy += h + 26
    return svg.render(f"{NETWORK_TITLES.get(key, key)} diagram")


# --- Rack elevations -----------------------------------------------------------

# Diagram kind of a stored device's role (engine/model.py Device.role); a role not listed draws as "other".
_KIND_OF_ROLE = {
    "server": "server",
    "leaf": "leaf",
    "spine": "spine",
    "core": "core",
    "oob": "oob",
    "oob-agg": "oob-agg",
    "ufm": "ufm",
    "storage-appliance": "storage",
    "mgmt-server": "mgmt",
    "pdu": "pdu",
}
# A device the revision has no stored facts for (its snapshot is rows only, or not backfilled yet).
UNKNOWN_DEVICE = ("other", 1)
_FACTS_ENTRIES = 8
_facts: OrderedDict[tuple[int, str], dict[str, tuple[str, int]]] = OrderedDict()
_facts_lock = threading.Lock()


def device_kind(role: str) -> str:
    return _KIND_OF_ROLE.get(role, "other")


def device_facts(revision: Revision) -> dict[str, tuple[str, int]]:
    """{device name: (diagram kind, rack units)} as the revision stored its devices (its snapshot), so a later
    catalog cannot change an old revision's elevation. Empty when the revision has no snapshot to read.

    Kept per process (a few entries): a 128K-GPU snapshot takes seconds to decode, its devices a few MB."""
    from .snapshots import SnapshotUnavailable, revision_snapshot, snapshot_state

    snap = snapshot_state(revision)
    if snap is None or snap.state != SnapshotState.COMPLETE:
        return {}
    key = (revision.pk, snap.sha256)
    with _facts_lock:
        hit = _facts.get(key)
        if hit is not None:
            _facts.move_to_end(key)
            return hit
    try:
        result = revision_snapshot(revision)
    except SnapshotUnavailable:
        return {}
    facts = {d.name: (device_kind(d.role), d.rack_units) for d in result.devices}
    with _facts_lock:
        _facts[key] = facts
        while len(_facts) > _FACTS_ENTRIES:
            _facts.popitem(last=False)
    return facts


@dataclass(frozen=True)
class RackDevice:
    name: str
    u: int
    height: int
    kind: str
    links: int


@dataclass
class RackView:
    id: str
    devices: list[RackDevice] = field(default_factory=list)
    zero_u: list[RackDevice] = field(default_factory=list)


@dataclass(frozen=True)
class RowView:
    row: str
    start: int
    racks: list[RackView]
    more: bool  # racks beyond this page in the same row
    rack_units: int
    per_view: int = RACKS_PER_VIEW

    @property
    def prev_start(self) -> int | None:
        return max(1, self.start - self.per_view) if self.start > 1 else None

    @property
    def next_start(self) -> int | None:
        return self.start + self.per_view if self.more else None


def row_names(revision: Revision) -> list[str]:
    skip_io = ((revision.spec or {}).get("layout") or {}).get("row_letters") == "skip-io"
    return [row_name(i, skip_io) for i in range(int((revision.summary or {}).get("rows") or 0))]


def first_server_row(revision: Revision) -> str | None:
    """The row of link 1's A end: the first server (the compute fabric's links come first)."""
    rack = LinkRecord.objects.filter(revision=revision, link_id=1).values_list("a_rack", flat=True).first()
    site = _site(revision)
    if not rack or not rack.startswith(f"{site}."):
        return None
    return rack[len(site) + 1 :].rstrip("0123456789") or None


def _site(revision: Revision) -> str:
    return ((revision.spec or {}).get("layout") or {}).get("site") or "DC1"


def rack_row(revision: Revision, row: str, *, start: int = 1, per_view: int = RACKS_PER_VIEW) -> RowView:
    """Devices of up to `per_view` racks of one row, from one aggregate query over the link rows.

    Rack ids are "<site>.<row><position:02d>" (engine/placement.py), so the page's ids are known
    without scanning: one query asks for exactly those racks, plus one more to learn if the row goes on.
    """
    site = _site(revision)
    ids = [f"{site}.{row}{p:02d}" for p in range(start, start + per_view + 1)]
    ends = [
        LinkRecord.objects.filter(revision=revision, **{f"{e}_rack__in": ids})
        .values(rack=F(f"{e}_rack"), device=F(f"{e}_device"))
        .annotate(u=Min(f"{e}_u"), n=Count("id"))
        .order_by()
        for e in "ab"
    ]
    found: dict[tuple[str, str], tuple[Any, int]] = {}
    for r in ends[0].union(ends[1], all=True):
        key = (r["rack"], r["device"])
        u, n = found.get(key, (None, 0))
        found[key] = (r["u"] if u is None else min(u, r["u"]) if r["u"] is not None else u, n + r["n"])
    rack_units = int(((revision.spec or {}).get("layout") or {}).get("rack_units") or 48)
    facts = device_facts(revision)
    racks = {rid: RackView(rid) for rid in ids}
    for (rid, name), (u, n) in sorted(found.items(), key=lambda kv: (kv[0][0], kv[1][0] or 0, kv[0][1])):
        kind, height = facts.get(name, UNKNOWN_DEVICE)
        dev = RackDevice(name, u or 0, height, kind, n)
        (racks[rid].zero_u if dev.height == 0 or not dev.u else racks[rid].devices).append(dev)
    shown = [racks[rid] for rid in ids[:per_view] if racks[rid].devices or racks[rid].zero_u]
    more = bool(racks[ids[-1]].devices or racks[ids[-1]].zero_u)
    return RowView(row=row, start=start, racks=shown, more=more, rack_units=rack_units, per_view=per_view)


def elevation_svg(view: RowView) -> SafeString:
    """Racks side by side, front view: devices at their rack units (U1 at the bottom)."""
    upx, rack_w, gap, top, left = 11, 118, 22, 40, 34
    ru = view.rack_units
    svg = _Svg()
    kinds: set[str] = set()
    for i, rack in enumerate(view.racks):
        x = left + i * (rack_w + gap)
        svg.text(x + rack_w / 2, top - 12, rack.id, "fd-h")
        svg.rect(x, top, rack_w, ru * upx, "fd-rack", f"rack {rack.id}: {ru}U", rx=0)
        for u in range(1, ru):
            yy = top + u * upx
            svg.line(x + 1, yy, x + rack_w - 1, yy, "fd-u")
        if i == 0:
            for u in range(1, ru + 1, 5):
                svg.text(left - 6, top + (ru - u + 1) * upx - 2, str(u), "fd-m", "end")
        # Clamp each device to the space below the next one, so a wrong height never overlaps.
        for j, dev in enumerate(rack.devices):
            nxt = rack.devices[j + 1].u if j + 1 < len(rack.devices) else ru + 1
            h = max(1, min(dev.height, nxt - dev.u, ru + 1 - dev.u))
            yy = top + (ru - (dev.u + h - 1)) * upx
            span = f"U{dev.u}" + (f"–U{dev.u + h - 1}" if h > 1 else "")
            svg.rect(
                x + 6,
                yy + 1,
                rack_w - 12,
                h * upx - 2,
                f"fd-k-{dev.kind}",
                f"{dev.name} · {KIND_TITLES.get(dev.kind, dev.kind)} · {span} · {dev.links} links",
                rx=1,
            )
            if h * upx >= 10:
                svg.text(x + rack_w / 2, yy + h * upx / 2 + 3.5, dev.name, "fd-s")
            kinds.add(dev.kind)
        for k, dev in enumerate(rack.zero_u):
            side = x - 5 if k % 2 == 0 else x + rack_w + 1
            svg.rect(
                side,
                top + 10,
                4,
                ru * upx - 20,
                "fd-k-pdu",
                f"{dev.name} · {KIND_TITLES['pdu']} · {dev.links} links",
                rx=1,
            )
            kinds.add("pdu")
        svg.text(
            x + rack_w / 2,
            top + ru * upx + 16,
            f"{len(rack.devices)} devices" + (f", {len(rack.zero_u)} PDUs" if rack.zero_u else ""),
            "fd-m",
        )
    ly = top + ru * upx + 40
    for i, kind in enumerate(k for k in KIND_TITLES if k in kinds):
        lx = left + i * 140
        svg.rect(lx, ly - 10, 12, 12, f"fd-k-{kind}", rx=1)
        svg.text(lx + 18, ly, KIND_TITLES[kind], "fd-m", "start")
    return svg.render(f"Rack elevations of row {view.row}: {len(view.racks)} racks")
