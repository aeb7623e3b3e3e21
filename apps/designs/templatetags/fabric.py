"""Formatting filters for the design pages: counts, bandwidths, lengths, row cells."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from django import template
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def num(value: Any, digits: int = 0) -> str:
    """1016 -> "1,016"; 16930.16 with digits=1 -> "16,930.2"; None -> "—"."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not digits and not value.is_integer():
        digits = 2
    return f"{value:,.{int(digits)}f}"


@register.filter
def bandwidth(gbps: Any) -> str:
    """Gb/s as the largest unit that keeps a number >= 1: 203200 -> "203.2 Tb/s"."""
    if not isinstance(gbps, (int, float)):
        return "—"
    for unit, scale in (("Pb/s", 1e6), ("Tb/s", 1e3)):
        if gbps >= scale:
            return f"{gbps / scale:,.1f} {unit}"
    return f"{gbps:,.0f} Gb/s"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    """mapping[key] in a template (row cells by column name)."""
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        return None


@register.filter
def label(key: str) -> str:
    """A snake_case column name as a heading: "a_device" -> "A device"."""
    text = str(key).replace("_", " ")
    return text[:1].upper() + text[1:]


@register.filter
def signed(value: Any) -> str:
    """A change with its sign and thousands separators: 3 -> "+3", -168 -> "-168", 0 -> "0"."""
    if not isinstance(value, int) or isinstance(value, bool):
        return "—" if value is None else str(value)
    return f"{value:+,}" if value else "0"


# Internal references of the engine's notes ("[S25]", "parts-beyond-ndr.md section 5", "docs/data-gaps.md") mean
# nothing in a browser: the page says "see Sources" once instead (the sources page lists every source).
_SOURCE_KEY = re.compile(r"\s*\[S\d+\]")
_TRAILING_REF = re.compile(r",\s*(?:docs/)?[\w-]+\.md(?: (?:section )?[\w./]+)?\)")
_FILE_REF = re.compile(r"\s*\(?\b(?:docs/)?[\w-]+\.md(?: (?:section )?[\w./]+)?\)?(?=[\s:;,.)]|$)")


@register.filter
def plain(text: Any) -> str:
    """A note without file names and source keys; "(see Sources)" where one was."""
    if not isinstance(text, str):
        return "" if text is None else str(text)
    cleaned = _FILE_REF.sub("", _TRAILING_REF.sub(")", _SOURCE_KEY.sub("", text)))
    return cleaned + (" (see Sources)" if cleaned != text else "")


# The table pages' rows, written here rather than as a template loop: 100 rows of 14 cells through the template
# engine took about 22 ms of CPU per page, most of a browser table page (bench/bench_tables.py); these write the
# same markup (tests/apps/designs/test_table_rows.py holds them to the loop they replace) in a few ms.


def _text(value: Any) -> str:
    # html.escape, as django.utils.html.escape writes it, without its lazy-string wrapper (a third of this time).
    return escape(str(value))


def _or_dash(value: Any) -> str:
    return _text(value) if value else "—"


def _end(device: Any, port: Any) -> str:
    return f"{_text(device)} <small>{_text(port)}</small>"


def _hall(hall: Any, halls: int) -> str:
    # Over several halls each end says its hall (a rack id alone does not tell a technician which hall to walk
    # to); a one-hall design's rows read as before. Revisions stored before the rows had halls show none.
    return f"hall {hall} · " if halls > 1 and hall is not None else ""


@register.filter
def link_rows(rows: list[dict], halls: int = 1) -> str:
    out = []
    for r in rows:
        plane = f" <small>plane {r['plane']}</small>" if r["plane"] else ""
        a_u = "—" if r["a_u"] is None else r["a_u"]
        b_u = "—" if r["b_u"] is None else r["b_u"]
        status = r["status"]
        out.append(
            f"<tr><td><code>L{r['link_id']:06d}</code></td><td>{_text(r['network'])}{plane}</td>"
            f'<td>{_text(r["tier"])}</td><td class="num">{r["speed_gbps"]}</td>'
            f'<td>{_end(r["a_device"], r["a_port"])}<br><small class="muted">{_hall(r.get("a_hall"), halls)}'
            f"{_text(r['a_rack'])} · {a_u}</small></td>"
            f'<td>{_end(r["b_device"], r["b_port"])}<br><small class="muted">{_hall(r.get("b_hall"), halls)}'
            f"{_text(r['b_rack'])} · {b_u}</small></td>"
            f'<td class="num">{num(r["length_m"], 2)}</td><td>{_or_dash(r["medium"])}</td>'
            f"<td><small>{_or_dash(r['a_part'])} / {_or_dash(r['b_part'])}</small></td>"
            f'<td><small>{_or_dash(r["cables"])}</small></td><td class="num">{r["fibers"]}</td>'
            f'<td class="num">{num(r["loss_db"], 2)}</td><td class="num">{num(r["margin_db"], 2)}</td>'
            f'<td><span class="verdict verdict-{_text(status or "none")}">{_or_dash(status)}</span></td></tr>'
        )
    return mark_safe("\n".join(out))  # noqa: S308  (every cell escaped above)


@register.filter
def cable_rows(rows: list[dict], halls: int = 1) -> str:
    out = []
    for r in rows:
        out.append(
            f"<tr><td><code>C{r['cable_id']:06d}</code></td><td>{_text(r['network'])}</td><td>{_text(r['tier'])}</td>"
            f"<td>{_text(r['kind'])}</td><td><code>{_text(r['part'])}</code></td>"
            f'<td class="num">{num(r["length_m"], 1)}</td><td>{_end(r["a_device"], r["a_port"])}</td>'
            f"<td>{_hall(r.get('a_hall'), halls)}{_text(r['a_rack'])}</td><td>{_end(r['b_device'], r['b_port'])}</td>"
            f"<td>{_hall(r.get('b_hall'), halls)}{_text(r['b_rack'])}</td>"
            f"<td><small>{_text(r['label_a'])}</small></td><td><small>{_text(r['label_b'])}</small></td>"
            f"<td><small>{_text(r['links'])}</small></td></tr>"
        )
    return mark_safe("\n".join(out))  # noqa: S308  (every cell escaped above)
