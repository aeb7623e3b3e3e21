"""Formatting filters for the design pages: counts, bandwidths, lengths, row cells."""

from __future__ import annotations

import re
from typing import Any

from django import template

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
