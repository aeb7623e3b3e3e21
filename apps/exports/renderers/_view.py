"""One read-only index over a computed DesignResult, shared by every renderer.

Everything here is O(devices + racks) to build; per-cable and per-link facts are produced on
the fly by generators (a 128K-GPU design has ~400,000 cables; nothing holds them twice).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain
from operator import itemgetter

from engine import physical_stage as _ps
from engine.csvcells import TRIGGERS, starts_unsafe
from engine.physical.labels import CABLE_PLACEHOLDERS, END_PLACEHOLDERS, compile_template
from engine.physical_stage import CABLE_COLUMNS

# How the engine prints a device port inside a label (e.g. "17/2" -> "17.2"); identity if absent.
port_label = getattr(_ps, "_port_label", None) or (lambda port: port)

# cables.csv: the engine's cable columns first (same names, same order), then the columns the
# installer needs that the engine file lacks. Documented in docs/deliverables.md.
CABLE_EXTRA_COLUMNS = ("a_room", "a_row", "b_room", "b_row", "medium", "a_module", "b_module", "polarity")
CABLE_CSV_COLUMNS = tuple(CABLE_COLUMNS) + CABLE_EXTRA_COLUMNS
CI = {name: i for i, name in enumerate(CABLE_CSV_COLUMNS)}

# LabelEnd fields with the port moved first, so one end renders as fmt.format(port, *device_args)
_END_ORDER = ("port",) + tuple(f for f in END_PLACEHOLDERS if f != "port")

# columns of physical.cable_rows: id, kind, part, ordered length, a end, b end, link ids, tier, network
_ROW_ID, _ROW_LINKS, _ROW_SHARED = itemgetter(0), itemgetter(6), itemgetter(1, 2, 3, 7, 8)
_FIRST = itemgetter(0)

_FIELD = re.compile(r"\{(\d+)(?::([^{}]*))?\}")
_UNSAFE = re.compile(r'[,"\r\n]')


def fast_format(compiled: str, nargs: int):
    """``compiled.format`` as an f-string function (about twice as fast per call). ``compiled``
    comes from engine.physical.labels.compile_template: positional fields, escaped braces."""
    names = [f"_{i}" for i in range(nargs)]
    body = _FIELD.sub(lambda m: "{_" + m.group(1) + (":" + m.group(2) if m.group(2) else "") + "}", compiled)
    try:
        fn = eval(f"lambda {', '.join(names)}: f{body!r}", {"__builtins__": {}})  # noqa: S307
        probe = tuple(f"x{i}" for i in range(nargs))
        if fn(*probe) != compiled.format(*probe):
            raise ValueError("mismatch")
        return fn
    except Exception:  # pragma: no cover - any template the f-string path cannot express
        return compiled.format


def label_pair(compiled: str, own_end_first: bool):
    """``(near, far, cable) -> "<label at A>,<label at B>"``: both labels of a cable, comma-joined
    as they stand in cables.csv, from one f-string (``compiled`` as for fast_format; the tier
    placeholder is empty, as in cable_rows). The B label swaps near and far when each end's label
    names its own end first, else it repeats the A label."""

    def body(names):
        return _FIELD.sub(
            lambda m: "{" + names[int(m.group(1))] + (":" + m.group(2) if m.group(2) else "") + "}", compiled
        )

    def slow(near, far, cable):
        la = compiled.format(near, far, cable, "")
        return f"{la},{compiled.format(far, near, cable, '') if own_end_first else la}"

    try:
        a = body(("_n", "_f", "_c", "_t"))
        b = body(("_f", "_n", "_c", "_t")) if own_end_first else a
        fn = eval(f"lambda _n, _f, _c, _t='': f{a + ',' + b!r}", {"__builtins__": {}})  # noqa: S307
        if fn("x0", "x1", "x2") != slow("x0", "x1", "x2"):
            raise ValueError("mismatch")
        return fn
    except Exception:  # pragma: no cover - any template the f-string path cannot express
        return slow


POLARITY_NAMES = {"A": "Type-A", "B": "Type-B", "C": "Type-C", "A-B": "A-to-B", "A-A": "A-to-A"}

UNPLACED = "(unplaced)"


class DesignView:
    def __init__(self, result):
        self.result = result
        ph = result.physical
        if ph is None:
            raise ValueError("this result has no physical layer (compute the design with the media catalog)")
        self.ph = ph
        racks = result.racks
        self.racks = racks
        order = sorted(range(len(racks)), key=lambda i: (racks[i].row, racks[i].position, racks[i].id))
        self.rack_order = order
        self.rack_rank = [0] * len(racks)
        for rank, i in enumerate(order):
            self.rack_rank[i] = rank
        self.rack_site = [r.id.split(".", 1)[0] for r in racks]
        self.rack_grid = [r.id.split(".", 1)[-1] for r in racks]
        self.rack_by_id = {r.id: r.idx for r in racks}
        devs, places = result.devices, result.places
        self.devices = devs
        self.dev_rack = [p.rack if p is not None else -1 for p in places]
        self.dev_u = [p.u if p is not None else 0 for p in places]
        self.links = result.links
        ids_ok = all(lk.id == i + 1 for i, lk in enumerate(result.links[:1000])) and (
            not result.links or result.links[-1].id == len(result.links)
        )
        self._link_index = None if ids_ok else {lk.id: i for i, lk in enumerate(result.links)}
        t = ph.policy.labels
        self.template = t
        self.end_fmt = compile_template(t.end, _END_ORDER, name="end").format
        self.panel_fmt = compile_template(t.panel, _END_ORDER, name="panel").format
        self._cable_compiled = compile_template(t.cable, CABLE_PLACEHOLDERS, name="cable")
        self.cable_fmt = fast_format(self._cable_compiled, 4)
        self.trunk_fmt = compile_template(t.trunk, CABLE_PLACEHOLDERS, name="trunk").format
        self.own_end_first = t.own_end_first
        self._end_compiled = compile_template(t.end, _END_ORDER, name="end")
        self._dev_args = None
        self._dev_cols = None
        self._dev_fmt = None
        self._end_parts = None
        self._media_memo: dict = {}

    # ----- small lookups -------------------------------------------------------------------
    def link_index(self, link_id: int) -> int:
        return link_id - 1 if self._link_index is None else self._link_index[link_id]

    def rack_row(self, ri: int) -> str:
        return self.racks[ri].row_name if ri >= 0 else ""

    def _device_tables(self):
        if self._dev_args is None:
            args, cols = [], []
            racks, site, grid = self.racks, self.rack_site, self.rack_grid
            for d, ri, u in zip(self.devices, self.dev_rack, self.dev_u):
                if ri < 0:
                    args.append(("", "", "", d.name, "", "", "", "", "", ""))
                    cols.append((d.name, "", "", "", ""))
                else:
                    r = racks[ri]
                    # LabelEnd order without port: site room grid ru device rack row panel plane rail tier
                    args.append((site[ri], "", grid[ri], u, d.name, r.id, r.row_name, "", "", "", ""))
                    cols.append((d.name, r.id, u, site[ri], r.row_name))
            self._dev_args, self._dev_cols = args, cols
        return self._dev_args, self._dev_cols

    def _device_formats(self):
        """Per device, the end template with everything but the port filled in, so one end
        renders as dev_fmt[d].format(port): a single-argument format call per cable end."""
        if self._dev_fmt is None:
            args, _ = self._device_tables()
            compiled = self._end_compiled

            def bake(values):
                def sub(m):
                    idx = int(m.group(1))
                    if idx == 0:
                        return m.group(0)
                    v = format(values[idx - 1], m.group(2) or "")
                    return v.replace("{", "{{").replace("}", "}}")

                return _FIELD.sub(sub, compiled)

            self._dev_fmt = [bake(a).format for a in args]
        return self._dev_fmt

    def panel_end(self, ri: int, u: int, port) -> tuple:
        """(csv columns (device, port, rack, u, room, row), label args without port)"""
        r = self.racks[ri]
        grid = self.rack_grid[ri]
        cols = (f"PP-{grid}-U{u:02d}", str(port), r.id, u, self.rack_site[ri], r.row_name)
        args = (self.rack_site[ri], "", grid, u, "PANEL", r.id, r.row_name, "", "", "", "")
        return cols, args

    def end_rack(self, end) -> int:
        if end[0] == "panel":
            return end[1]
        return self.dev_rack[end[0]]

    def end_u(self, end) -> int:
        if end[0] == "panel":
            return end[2]
        return self.dev_u[end[0]]

    # ----- media facts per cable (memoized per choice) --------------------------------------
    def cable_media(self, kind: str, first_link_id: int, a_panel: bool, b_panel: bool) -> tuple:
        """(medium, a_module, b_module, polarity) of one cable."""
        choice = self.ph.choices[self.link_index(first_link_id)]
        key = (id(choice), kind, a_panel, b_panel)
        hit = self._media_memo.get(key)
        if hit is not None:
            return hit
        if not choice:
            out = ("", "", "", "")
        else:
            sp = choice.structured
            a_mod = "" if a_panel or kind == "trunk" else (choice.a_module or "")
            b_mod = "" if b_panel or kind == "trunk" else (choice.b_module or "")
            pol = ""
            if choice.optical:
                if kind == "trunk" and sp is not None:
                    pol = sp.trunk.polarity
                elif b_panel and sp is not None:
                    pol = sp.cord_a.polarity
                elif a_panel and sp is not None:
                    pol = sp.cord_b.polarity
                elif choice.cord is not None:
                    pol = choice.cord.polarity
            out = (choice.medium, a_mod, b_mod, POLARITY_NAMES.get(pol, pol))
        self._media_memo[key] = out
        return out

    # ----- cable rows ----------------------------------------------------------------------
    def cable_rows(self, indexes=None) -> Iterator[tuple]:
        """cables.csv rows (CABLE_CSV_COLUMNS) in cable-id order, or in the order of ``indexes``
        (positions in physical.cable_rows). Labels equal the engine's (same compiled templates)."""
        _, cols = self._device_tables()
        dev_fmt = self._device_formats()
        cable_fmt = self.cable_fmt
        own_first = self.own_end_first
        media = self.cable_media
        memo = self._media_memo
        choices = self.ph.choices
        ident = self._link_index is None
        li = self.link_index
        src = self.ph.cable_rows
        it = src if indexes is None else (src[i] for i in indexes)
        slow = self._slow_row
        pl = port_label
        for cid, kind, part, length, a, b, lids, tier, network in it:
            a0, b0 = a[0], b[0]
            if a0 != "panel" and b0 != "panel" and kind != "trunk":
                pa, pb = a[1], b[1]
                na = dev_fmt[a0](pl(pa))
                nb = dev_fmt[b0](pl(pb))
                cs = f"C{cid:06d}"
                la = cable_fmt(na, nb, cs, "")
                lb = cable_fmt(nb, na, cs, "") if own_first else la
                ca, cb = cols[a0], cols[b0]
                first = lids[0]
                m = memo.get((id(choices[first - 1] if ident else choices[li(first)]), kind, False, False))
                if m is None:
                    m = media(kind, first, False, False)
                yield (
                    cs,
                    network,
                    tier,
                    kind,
                    part,
                    length,
                    ca[0],
                    pa,
                    ca[1],
                    ca[2],
                    cb[0],
                    pb,
                    cb[1],
                    cb[2],
                    la,
                    lb,
                    f"L{first:06d}" if len(lids) == 1 else " ".join([f"L{x:06d}" for x in lids]),
                    ca[3],
                    ca[4],
                    cb[3],
                    cb[4],
                    m[0],
                    m[1],
                    m[2],
                    m[3],
                )
            else:
                yield slow(cid, kind, part, length, a, b, lids, tier, network)

    def _end_split(self):
        """(heads, tails, spec) such that a device end's label is heads[d] + format(port_label(port),
        spec) + tails[d] -- the end template with everything but the port filled in per device, as
        two plain strings -- or None when the template cannot be split so (the port named more or
        less than once, or escaped braces that make field positions ambiguous)."""
        if self._end_parts is None:
            self._end_parts = False
            compiled = self._end_compiled
            ports = [m for m in _FIELD.finditer(compiled) if m.group(1) == "0"]
            if len(ports) == 1 and "{{" not in compiled and "}}" not in compiled:
                m = ports[0]
                before, after, spec = compiled[: m.start()], compiled[m.end() :], m.group(2) or ""
                args, _ = self._device_tables()
                heads = [before.format("", *a) for a in args]
                tails = [after.format("", *a) for a in args]
                probe = "x/1"
                if not args or heads[0] + format(port_label(probe), spec) + tails[0] == compiled.format(
                    port_label(probe), *args[0]
                ):
                    self._end_parts = (heads, tails, spec)
        return self._end_parts or None

    def cable_csv_lines(self, indexes=None, *, raw: bool = False) -> Iterator[str]:
        """cables.csv data lines (no header), byte-identical to csv_lines(CABLE_CSV_COLUMNS,
        cable_rows(indexes), raw=raw) but built with one f-string per cable (the 200k rows/s path).
        Rows that would need quoting or neutralizing, and panel/trunk rows, go through the tuple path + csv."""
        from ._csv import csv_line, csv_line_safe

        fast = self._fast_csv_setup()
        if fast is None:  # a template or value the one-f-string path cannot express: the plain tuple path
            yield from map(csv_line if raw else csv_line_safe, self.cable_rows(indexes))
            return
        yield from self._fast_cable_csv_lines(fast, indexes, raw)

    def _fast_csv_setup(self):
        """What the fast cables.csv loop needs, or None when something shared by many rows (a device's
        facts, a template literal, a kind, tier or network) would need quoting or is not a string:
        then cable_csv_lines takes the plain tuple path."""
        split = self._end_split()
        if split is None:
            return None
        heads, tails, spec = split
        _, cols = self._device_tables()
        unsafe = _UNSAFE.search
        if (
            unsafe("".join(heads))
            or unsafe("".join(tails))
            or None in chain.from_iterable(cols)
            or unsafe("\x00".join(map(str, chain.from_iterable(cols))))
        ):
            return None
        if unsafe(_FIELD.sub("", self._cable_compiled)):
            return None
        # Formula characters (engine/csvcells.py), checked once on what many rows share: a device's cells, and
        # what a label can begin with. Ports, parts and media are checked once each below.
        if any(isinstance(x, str) and starts_unsafe(x) for x in chain.from_iterable(cols)):
            return None
        if _label_may_start_unsafe(self._cable_compiled, heads):
            return None
        src = self.ph.cable_rows
        combos = set(map(_ROW_SHARED, src))  # (kind, part, length, tier, network): a few hundred
        shared = {x for c in combos for x in (c[0], c[3], c[4])}
        if (
            not all(isinstance(x, str) for x in shared)
            or unsafe("\x00".join(shared))
            or not all(type(c[2]) in (int, float) for c in combos)
            or any(map(starts_unsafe, shared))
        ):
            return None
        if not set(map(type, map(_ROW_ID, src))) <= {int} or not set(map(type, map(_FIRST, map(_ROW_LINKS, src)))) <= {
            int
        }:
            return None  # cable and link ids are plain ints (not bool or other int subclasses)
        parts = {c[1] for c in combos if isinstance(c[1], str) and not unsafe(c[1]) and not starts_unsafe(c[1])}
        return heads, tails, spec, parts

    def _fast_cable_csv_lines(self, fast, indexes=None, raw: bool = False) -> Iterator[str]:
        from ._csv import csv_line, csv_line_safe

        if not raw:
            csv_line = csv_line_safe  # noqa: F811 - the rows the fast path leaves to csv, neutralized
        heads, tails, spec, safe_parts = fast
        _, cols = self._device_tables()
        pre = [(c[0], f"{c[1]},{c[2]}", f"{c[3]},{c[4]}") for c in cols]
        unsafe = _UNSAFE.search
        pl = port_label

        class PortText(dict):
            """port -> its text in a label (port_label, padded as the template says); None for a port
            that is not a string or would need quoting (its row goes through csv)."""

            def __missing__(self, port):
                text = self[port] = (
                    format(pl(port), spec)
                    if isinstance(port, str) and not unsafe(port) and not starts_unsafe(port)
                    else None
                )
                if text is not None and starts_unsafe(text):  # it may begin a label
                    text = self[port] = None
                return text

        ptext = PortText()
        no_tails = not any(tails)
        labels = label_pair(self._cable_compiled, self.own_end_first)
        media = self.cable_media
        mjoin: dict = {}
        choices = self.ph.choices
        ident = self._link_index is None
        li = self.link_index
        src = self.ph.cable_rows
        it = src if indexes is None else (src[i] for i in indexes)
        slow = self._slow_row
        for cid, kind, part, length, a, b, lids, tier, network in it:
            a0, b0 = a[0], b[0]
            if a0 == "panel" or b0 == "panel" or kind == "trunk" or part not in safe_parts:
                yield csv_line(slow(cid, kind, part, length, a, b, lids, tier, network))
                continue
            pa, pb = a[1], b[1]
            ta, tb = ptext[pa], ptext[pb]
            if ta is None or tb is None:
                yield csv_line(slow(cid, kind, part, length, a, b, lids, tier, network))
                continue
            if no_tails:
                na = heads[a0] + ta
                nb = heads[b0] + tb
            else:
                na = heads[a0] + ta + tails[a0]
                nb = heads[b0] + tb + tails[b0]
            first = lids[0]
            ch = choices[first - 1] if ident else choices[li(first)]
            mk = (id(ch), kind)
            m = mjoin.get(mk)
            if m is None:
                mt = media(kind, first, False, False)
                m = mjoin[mk] = ",".join(mt) if not any(unsafe(x) or starts_unsafe(x) for x in mt) else False
            if m is False:
                yield csv_line(slow(cid, kind, part, length, a, b, lids, tier, network))
                continue
            # str(n).zfill(6) == f"{n:06d}" for an int (checked in _fast_csv_setup), at half the cost
            cs = f"C{str(cid).zfill(6)}"
            an, apost, aroom = pre[a0]
            bn, bpost, broom = pre[b0]
            links = f"L{str(first).zfill(6)}" if len(lids) == 1 else " ".join([f"L{x:06d}" for x in lids])
            # two f-strings: one of more than 30 parts compiles to a list and str.join (slower)
            yield (
                f"{cs},{network},{tier},{kind},{part},{length},{an},{pa},{apost},{bn},{pb},{bpost},"
                + f"{labels(na, nb, cs)},{links},{aroom},{broom},{m}\n"
            )

    def _slow_row(self, cid, kind, part, length, a, b, lids, tier, network) -> tuple:
        args, cols = self._device_tables()
        ends = []
        for e in (a, b):
            if e[0] == "panel":
                c6, ar = self.panel_end(e[1], e[2], e[3])
                ends.append((c6, ar, e[3], True))
            else:
                dc = cols[e[0]]
                ends.append(((dc[0], e[1], dc[1], dc[2], dc[3], dc[4]), args[e[0]], port_label(e[1]), False))
        (ca, aa, pa, a_panel), (cb, ab, pb, b_panel) = ends
        if kind == "trunk":
            na, nb = self.panel_fmt(pa, *aa), self.panel_fmt(pb, *ab)
            cs = f"T{cid:06d}"
            la = self.trunk_fmt(na, nb, cs, "")
            lb = self.trunk_fmt(nb, na, cs, "") if self.own_end_first else la
        else:
            na, nb = self.end_fmt(pa, *aa), self.end_fmt(pb, *ab)
            cs = f"C{cid:06d}"
            la = self.cable_fmt(na, nb, cs, "")
            lb = self.cable_fmt(nb, na, cs, "") if self.own_end_first else la
        m = self.cable_media(kind, lids[0], a_panel, b_panel)
        return (
            f"C{cid:06d}",
            network,
            tier,
            kind,
            part,
            length,
            ca[0],
            ca[1],
            ca[2],
            ca[3],
            cb[0],
            cb[1],
            cb[2],
            cb[3],
            la,
            lb,
            " ".join(f"L{x:06d}" for x in lids),
            ca[4],
            ca[5],
            cb[4],
            cb[5],
        ) + m

    def panel_port_label(self, ri: int, u: int, port) -> str:
        _, args = self.panel_end(ri, u, port)
        return self.end_fmt(port, *args)

    def panel_label(self, ri: int, u: int) -> str:
        _, args = self.panel_end(ri, u, "")
        return self.panel_fmt("", *args)

    # ----- scope (whole design, one row or one rack) and installation order -----------------
    def scope(self, row: str | None = None, rack: str | None = None):
        """A predicate over rack indexes, or None for the whole design. Raises ValueError for an
        unknown row or rack."""
        if rack is not None:
            ri = self.rack_by_id.get(rack)
            if ri is None:
                raise ValueError(f"rack {rack!r} is not in this design (racks look like {self.racks[0].id!r})")
            if row is not None and self.racks[ri].row_name != row:
                raise ValueError(f"rack {rack!r} is in row {self.racks[ri].row_name!r}, not {row!r}")
            return frozenset((ri,))
        if row is not None:
            sel = frozenset(r.idx for r in self.racks if r.row_name == row)
            if not sel:
                rows = sorted({r.row_name for r in self.racks}, key=lambda s: (len(s), s))
                raise ValueError(
                    f"row {row!r} is not in this design (rows: {', '.join(rows[:12])}"
                    f"{', ...' if len(rows) > 12 else ''})"
                )
            return sel
        return None

    def install_order(self, racks_in_scope=None):
        """Cable positions in installation order, and the sections [(rack index or -1, count)].

        Each cable is listed once, under its anchor end: the A end (the lower tier: server, or the
        leaf of a leaf-spine cable) when that end is in scope, else the B end. Within a rack:
        rack unit from the top down, then device, then cable id."""
        rank = self.rack_rank
        dev_rack, dev_u = self.dev_rack, self.dev_u
        n_racks = len(self.racks)
        ndev = len(self.devices)
        keys = []
        append = keys.append
        for i, row in enumerate(self.ph.cable_rows):
            a, b = row[4], row[5]
            if a[0] == "panel":
                ra, ua, da = a[1], a[2], ndev + a[2]
            else:
                da = a[0]
                ra, ua = dev_rack[da], dev_u[da]
            if racks_in_scope is None:
                if ra < 0:
                    if b[0] == "panel":
                        ra, ua, da = b[1], b[2], ndev + b[2]
                    else:
                        da = b[0]
                        ra, ua = dev_rack[da], dev_u[da]
            elif ra not in racks_in_scope:
                if b[0] == "panel":
                    ra, ua, da = b[1], b[2], ndev + b[2]
                else:
                    da = b[0]
                    ra, ua = dev_rack[da], dev_u[da]
                if ra not in racks_in_scope:
                    continue
            r = rank[ra] if ra >= 0 else n_racks
            append((((r << 7 | (127 - ua)) << 24 | da) << 24) | i)
        keys.sort()
        mask = (1 << 24) - 1
        order = [k & mask for k in keys]
        sections: list[list] = []
        last = None
        for k in keys:
            r = k >> 55
            if r != last:
                sections.append([r, 0])
                last = r
            sections[-1][1] += 1
        inv = self.rack_order
        out_sections = [(inv[r] if r < n_racks else -1, n) for r, n in sections]
        return order, out_sections

    def link_order(self, racks_in_scope=None, predicate=None):
        """Link indexes in the same rack-by-rack order (anchor: A end, else B end in scope)."""
        rank = self.rack_rank
        dev_rack, dev_u = self.dev_rack, self.dev_u
        n_racks = len(self.racks)
        keys = []
        for i, lk in enumerate(self.links):
            if predicate is not None and not predicate(i):
                continue
            d = lk.a
            ra = dev_rack[d]
            if (racks_in_scope is None and ra < 0) or (racks_in_scope is not None and ra not in racks_in_scope):
                d = lk.b
                ra = dev_rack[d]
                if racks_in_scope is not None and ra not in racks_in_scope:
                    continue
            r = rank[ra] if ra >= 0 else n_racks
            keys.append((((r << 7 | (127 - dev_u[d])) << 24 | d) << 24) | i)
        keys.sort()
        mask = (1 << 24) - 1
        order = [k & mask for k in keys]
        sections: list[list] = []
        last = None
        for k in keys:
            r = k >> 55
            if r != last:
                sections.append([r, 0])
                last = r
            sections[-1][1] += 1
        inv = self.rack_order
        return order, [(inv[r] if r < n_racks else -1, n) for r, n in sections]

    def rack_title(self, ri: int) -> str:
        if ri < 0:
            return "Devices without a rack"
        r = self.racks[ri]
        return f"Row {r.row_name} \u00b7 Rack {r.id} ({r.kind})"


def _label_may_start_unsafe(compiled: str, heads) -> bool:
    """Whether a cable label from the compiled cable template could begin with a formula character: its leading
    literal, or the end label it starts with (a device's head; a port text is checked per port), or the tier."""
    m = _FIELD.match(compiled)
    if m is None:
        return compiled[:1] in TRIGGERS
    if m.group(1) in ("0", "1"):
        return any(h[:1] in TRIGGERS for h in heads if h)
    return m.group(1) != "2"  # the cable id (C000001) is safe; an empty tier leaves the rest to begin it


def choice_ok(choice) -> bool:
    return bool(choice)
