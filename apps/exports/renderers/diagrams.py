"""Drawings for the front of the cabling plan (reportlab.graphics): the fabric by tier, one
scalable unit in detail, and rack elevations. Big designs are summarised: tiers are boxes with
device and link counts, one SU is drawn in detail and the others are counted, and elevations
show one SU's racks plus one rack of every other kind."""

from __future__ import annotations

from collections import Counter, defaultdict

from reportlab.graphics.shapes import Drawing, Line, Rect, String

from engine.ifnames import SWITCH_ROLES

from ._pdf import COND, COND_BOLD, SANS, SANS_BOLD, audit_box, fitter, wrap

LEVEL = {
    "managed": 0,
    "server": 0,
    "ufm": 0,
    "storage-appliance": 0,
    "mgmt-server": 0,
    "pdu": 0,
    "leaf": 1,
    "oob": 1,
    "spine": 2,
    "oob-agg": 2,
    "core": 3,
}
ROLE_NAME = {
    "managed": "Managed devices",
    "server": "Servers",
    "ufm": "UFM appliances",
    "storage-appliance": "Storage appliances",
    "mgmt-server": "Management servers",
    "pdu": "PDUs",
    "leaf": "Leaf switches",
    "oob": "OOB switches",
    "spine": "Spine switches",
    "oob-agg": "OOB aggregation",
    "core": "Core switches",
}
NET_ORDER = ("compute", "storage", "inband", "oob")


def _text(x, y, s, size=7.5, font=SANS, anchor="start", width=None, color=None):
    if width is not None:
        s = fitter(font, size).fit(s, width)
        audit_box("Cabling plan", s, font, size, width)
    st = String(x, y, s, fontName=font, fontSize=size, textAnchor=anchor)
    if color is not None:
        st.fillColor = color
    return st


def fabric_stats(view):
    """{network: {"nodes": {role: (devices, models)}, "edges": {(tier, role_a, role_b): links}}}.
    On the OOB network every managed device is one node, "managed devices"."""
    devs = view.devices
    roles = [d.role for d in devs]
    edges: Counter = Counter()
    members: dict = defaultdict(set)
    for lk in view.links:
        ra, rb = roles[lk.a], roles[lk.b]
        if lk.network == "oob" and lk.tier == "device-oob":
            ra = "managed"
        edges[(lk.network, lk.tier, ra, rb)] += 1
        members[(lk.network, ra)].add(lk.a)
        members[(lk.network, rb)].add(lk.b)
    out: dict = {}
    for (net, tier, ra, rb), n in edges.items():
        out.setdefault(net, {"nodes": {}, "edges": {}})["edges"][(tier, ra, rb)] = n
    for (net, role), ids in members.items():
        models = Counter(devs[i].model for i in ids)
        out.setdefault(net, {"nodes": {}, "edges": {}})["nodes"][role] = (len(ids), models)
    return out


def fabric_diagram(view, width: float, height: float | None = None) -> Drawing:
    stats = fabric_stats(view)
    nets = [n for n in NET_ORDER if n in stats] + sorted(n for n in stats if n not in NET_ORDER)
    levels = 1 + max((LEVEL.get(r, 0) for n in nets for r in stats[n]["nodes"]), default=0)
    if not nets:
        d = Drawing(width, height or 40)
        d.add(_text(4, (height or 40) / 2, "No links in this design."))
        return d
    col_w = width / len(nets)
    box_w = min(150.0, col_w - 16)
    # every box's text is wrapped (never cut) to its width: the role, then the count and models
    boxes: dict = {}
    for net in nets:
        nodes = stats[net]["nodes"]
        per_level = Counter(LEVEL.get(r, 0) for r in nodes)
        for role, (count, models) in nodes.items():
            w = min(box_w, (col_w - 8) / per_level[LEVEL.get(role, 0)] - 6)
            model_s = ", ".join(m.upper() for m, _ in models.most_common(2)) if role != "managed" else "all"
            lines = [(SANS_BOLD, 7.0, ln) for ln in wrap(ROLE_NAME.get(role, role), w - 4, SANS_BOLD, 7.0, breaks=" ")]
            lines += [(COND, 7.0, ln) for ln in wrap(f"\u00d7{count:,} {model_s}", w - 4, COND, 7.0, breaks=" ,")]
            boxes[(net, role)] = (w, lines)
    box_h = 6.0 + 8.4 * max(len(lines) for _, lines in boxes.values())
    gap = 34.0
    height = height or 18 + levels * box_h + (levels - 1) * gap
    d = Drawing(width, height)
    for k, net in enumerate(nets):
        x0 = k * col_w
        d.add(_text(x0 + col_w / 2, height - 10, f"{net} network", 9, SANS_BOLD, "middle", col_w - 4))
        nodes = stats[net]["nodes"]
        by_level: dict = defaultdict(list)
        for role in sorted(nodes, key=lambda r: (LEVEL.get(r, 0), r)):
            by_level[LEVEL.get(role, 0)].append(role)
        pos: dict = {}
        for lvl, roles in by_level.items():
            n = len(roles)
            y = 4 + lvl * (box_h + gap)
            for j, role in enumerate(roles):
                w, lines = boxes[(net, role)]
                # n boxes share the column evenly, 6 pt apart, so no box hides part of another
                cx = x0 + 4 + (col_w - 8) * (j + 0.5) / n
                pos[role] = (cx, y, w)
                r = Rect(cx - w / 2, y, w, box_h, strokeWidth=0.8)
                r.fillColor = _fill(lvl)
                d.add(r)
                ty = y + box_h / 2 + 8.4 * len(lines) / 2 - 7.0
                for font, size, ln in lines:
                    d.add(_text(cx, ty, ln, size, font, "middle", w - 4))
                    ty -= 8.4
        band: Counter = Counter()
        for (tier, ra, rb), links in sorted(stats[net]["edges"].items(), key=lambda kv: kv[0]):
            if ra not in pos or rb not in pos:
                continue
            lo, hi = (pos[ra], pos[rb]) if pos[ra][1] <= pos[rb][1] else (pos[rb], pos[ra])
            x1, y1 = lo[0], lo[1] + box_h
            x2, y2 = hi[0], hi[1]
            if abs(y2 - y1) < 1 or y2 < y1:
                continue
            d.add(Line(x1, y1, x2, y2, strokeWidth=0.8))
            k2 = band[(lo[1], hi[1])]
            band[(lo[1], hi[1])] += 1
            f = 0.5 if k2 == 0 else (0.3 if k2 % 2 else 0.7)
            mx, my = x1 + (x2 - x1) * f, y1 + (y2 - y1) * f
            label = f"{tier}: {links:,}"
            lw = fitter(COND, 7).width(label) + 4
            bg = Rect(mx - lw / 2, my - 4, lw, 10, strokeColor=None)
            bg.fillColor = _white()
            d.add(bg)
            d.add(_text(mx, my - 1.5, label, 7, COND, "middle"))
    d.add(_text(width, 0, "", 7))
    return d


def _fill(level: int):
    from reportlab.lib.colors import Color

    return Color(*((0.93, 0.95, 1.0), (0.9, 0.97, 0.9), (1.0, 0.95, 0.88), (0.97, 0.9, 0.97))[level % 4])


def _white():
    from reportlab.lib.colors import white

    return white


def su_detail(view, width: float) -> tuple[Drawing | None, list[str]]:
    """SU 1 of the compute fabric in detail, and text lines counting the other SUs."""
    devs = view.devices
    su_servers: Counter = Counter()
    su_leaves: dict = defaultdict(list)
    for d in devs:
        if d.su:
            if d.role == "server":
                su_servers[d.su] += 1
            elif d.role == "leaf" and d.network in ("compute", ""):
                su_leaves[d.su].append(d.idx)
    if not su_servers:
        return None, []
    first = min(su_servers)
    leaves = su_leaves.get(first, [])
    leaf_set = set(leaves)
    down: Counter = Counter()
    up: Counter = Counter()
    for lk in view.links:
        if lk.b in leaf_set and devs[lk.a].role == "server" and devs[lk.a].su == first:
            down[lk.b] += 1
        elif lk.a in leaf_set and LEVEL.get(devs[lk.b].role, 0) > 1:
            up[lk.a] += 1
    shown = leaves[:16]
    h = 150.0
    d = Drawing(width, h)
    d.add(_text(0, h - 10, f"SU {first} in detail (compute fabric)", 9, SANS_BOLD))
    sw = width - 20
    # servers band
    sr = Rect(10, 8, sw, 26, strokeWidth=0.8)
    sr.fillColor = _fill(0)
    d.add(sr)
    d.add(_text(10 + sw / 2, 18, f"SU {first}: {su_servers[first]:,} servers", 8, SANS_BOLD, "middle", sw - 4))
    n = max(1, len(shown))
    w = min(90.0, sw / n - 4)
    for j, li in enumerate(shown):
        cx = 10 + sw * (j + 0.5) / n
        r = Rect(cx - w / 2, 86, w, 26, strokeWidth=0.8)
        r.fillColor = _fill(1)
        d.add(r)
        d.add(_text(cx, 101, devs[li].name, 7, COND_BOLD, "middle", w - 2))
        d.add(_text(cx, 90, devs[li].model.upper(), 7, COND, "middle", w - 2))
        d.add(Line(cx, 34, cx, 86, strokeWidth=0.5))
        d.add(_text(cx + 2, 58, f"{down[li]:,}", 7, COND, "start"))
        d.add(Line(cx, 112, cx, 128, strokeWidth=0.5))
        d.add(_text(cx + 2, 119, f"\u2191{up[li]:,}", 7, COND, "start"))
    lines = []
    if len(leaves) > len(shown):
        lines.append(f"SU {first} has {len(leaves):,} leaves; the first {len(shown)} are drawn.")
    lines.append(
        f"Numbers on the lines: links from SU {first}'s servers to each leaf (below) and each leaf's uplinks "
        "(\u2191, to spines)."
    )
    groups = Counter((su_servers[s], len(su_leaves.get(s, []))) for s in su_servers if s != first)
    for (ns, nl), k in sorted(groups.items(), key=lambda kv: -kv[1]):
        sus = sorted(s for s in su_servers if s != first and (su_servers[s], len(su_leaves.get(s, []))) == (ns, nl))
        lines.append(f"{_ranges('SU ', sus)}: {k:,} more SU(s) with {ns:,} servers and {nl:,} compute leaves each.")
    return d, lines


def _ranges(prefix: str, nums: list[int]) -> str:
    """[2,3,4,7] -> 'SU 2-4, 7' (at most 6 ranges, then ellipsis)."""
    out, start, prev = [], None, None
    for x in nums:
        if start is None:
            start = prev = x
        elif x == prev + 1:
            prev = x
        else:
            out.append((start, prev))
            start = prev = x
    if start is not None:
        out.append((start, prev))
    parts = [f"{a}" if a == b else f"{a}\u2013{b}" for a, b in out[:6]]
    return prefix + ", ".join(parts) + (", \u2026" if len(out) > 6 else "")


# ----- rack elevations ---------------------------------------------------------------------------


def elevation_racks(view, racks_in_scope=None, limit: int = 24) -> list[int]:
    """Racks to draw: the scope's racks (capped), or SU 1's racks plus one rack of every other kind."""
    racks = view.racks
    if racks_in_scope is not None:
        return sorted(racks_in_scope, key=lambda i: view.rack_rank[i])[:limit]
    chosen: list[int] = []
    sus = [d.su for d in view.devices if d.su]
    if sus:
        first = min(sus)
        for d, ri in zip(view.devices, view.dev_rack):
            if d.su == first and ri >= 0 and ri not in chosen:
                chosen.append(ri)
    seen_kinds = {racks[i].kind for i in chosen}
    for ri in view.rack_order:
        if racks[ri].kind not in seen_kinds:
            chosen.append(ri)
            seen_kinds.add(racks[ri].kind)
    chosen = sorted(set(chosen), key=lambda i: view.rack_rank[i])
    return chosen[:limit]


# Elevation fill per stored device role (engine/model.py Device.role), as the browser's elevation colours by
# role (apps/designs/diagrams.py): switches (engine.ifnames.SWITCH_ROLES) 1, patch panels 2, servers and
# appliances 0. Never read from a device's name.
PANEL = "patch panel"


def _fill_level(role: str) -> int:
    return 2 if role == PANEL else 1 if role in SWITCH_ROLES else 0


def rack_contents(view, rack_list: list[int]) -> dict[int, list[tuple[int, int, str, str, str]]]:
    """{rack: [(lowest U, height U, name, model, role)]} for devices and patch panels (role "patch panel")."""
    want = set(rack_list)
    out: dict = {ri: [] for ri in rack_list}
    for d, ri, u in zip(view.devices, view.dev_rack, view.dev_u):
        if ri in want:
            out[ri].append((u, max(1, d.rack_units), d.name, d.model, d.role))
    panels: set = set()
    for row in view.ph.cable_rows:
        for e in (row[4], row[5]):
            if e[0] == "panel" and e[1] in want:
                panels.add((e[1], e[2]))
    for ri, u in panels:
        out[ri].append((u, 1, f"PP-{view.rack_grid[ri]}-U{u:02d}", PANEL, PANEL))
    return out


def elevations(view, rack_list: list[int], width: float, height: float, per_page: int = 6) -> list[Drawing]:
    racks = view.racks
    units = view.result.spec.layout.rack_units
    contents = rack_contents(view, rack_list)
    drawings = []
    for k in range(0, len(rack_list), per_page):
        group = rack_list[k : k + per_page]
        d = Drawing(width, height)
        col_w = width / per_page
        u_h = min(9.0, (height - 30) / units)
        rack_w = min(120.0, col_w - 22)
        for j, ri in enumerate(group):
            x = j * col_w + 16
            top = height - 22
            bottom = top - units * u_h
            if bottom < 12:
                u_h = (top - 12) / units
                bottom = top - units * u_h
            r = racks[ri]
            d.add(_text(x, height - 9, f"{r.id} ({r.kind})", 8, SANS_BOLD, width=col_w - 4))
            frame = Rect(x, bottom, rack_w, units * u_h, strokeWidth=0.8)
            frame.fillColor = _white()
            d.add(frame)
            for u in range(1, units + 1):
                y = bottom + (u - 1) * u_h
                d.add(Line(x, y, x + rack_w, y, strokeWidth=0.15))
                if u % 2 == 1 or u_h >= 8:
                    d.add(_text(x - 2, y + (u_h - 7) / 2 + 0.8, str(u), 7, COND, "end"))
            zero_u = [name for low, _h, name, _m, _r in contents.get(ri, []) if low < 1]
            if zero_u:
                d.add(_text(x, bottom - 9, "0U: " + ", ".join(sorted(zero_u)), 7, COND, width=col_w - 18))
            for low, height_u, name, model, role in sorted(contents.get(ri, [])):
                if low < 1:
                    continue
                y = bottom + (low - 1) * u_h
                box = Rect(x + 1, y + 0.5, rack_w - 2, height_u * u_h - 1, strokeWidth=0.5)
                box.fillColor = _fill(_fill_level(role))
                d.add(box)
                label = f"{name} {model.upper()}" if height_u * u_h >= 8 else name
                d.add(_text(x + 3, y + (height_u * u_h - 7) / 2 + 0.8, label, 7, COND, width=rack_w - 6))
        drawings.append(d)
    return drawings


def rack_summary_lines(view) -> list[str]:
    """Rows grouped by identical composition: 'Rows C-HZ (228 rows): 18 server + 1 network racks each'."""
    racks = view.racks
    by_row: dict = defaultdict(Counter)
    row_idx: dict = {}
    for r in racks:
        by_row[r.row_name][r.kind] += 1
        row_idx[r.row_name] = r.row
    rows = sorted(by_row, key=lambda n: row_idx[n])
    out = []
    i = 0
    while i < len(rows):
        sig = by_row[rows[i]]
        j = i
        while j + 1 < len(rows) and by_row[rows[j + 1]] == sig:
            j += 1
        comp = " + ".join(f"{n} {k}" for k, n in sorted(sig.items()))
        name = f"Row {rows[i]}" if i == j else f"Rows {rows[i]}\u2013{rows[j]} ({j - i + 1} rows)"
        out.append(f"{name}: {comp} rack(s){' each' if j > i else ''}")
        i = j + 1
    return out
