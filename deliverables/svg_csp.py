"""SVG from ReportLab's renderSVG made fit for a page under the app's Content-Security-Policy: the policy forbids
inline style= attributes (each one is a violation and the browser drops it: bars drawn solid black, text in the
default font), so every style declaration becomes the SVG presentation attribute of the same name. The XML
declaration and DOCTYPE go too (the SVG is placed inside an HTML page), and ReportLab's embedded font names, which
a browser does not have, become a generic family."""

from __future__ import annotations

import re

STYLE = re.compile(r'\sstyle="([^"]*)"')
PROLOG = re.compile(r"\A\s*<\?xml[^>]*\?>\s*(<!DOCTYPE[^>]*>\s*)?", re.IGNORECASE)
EMPTY_TRANSFORM = re.compile(r'\stransform="\s*"')
# Properties that SVG also accepts as presentation attributes (SVG 1.1, section 6.4); anything else is dropped.
PRESENTATION = frozenset(
    "clip-path clip-rule fill fill-opacity fill-rule font-family font-size font-style font-weight opacity stroke "
    "stroke-dasharray stroke-dashoffset stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width "
    "text-anchor dominant-baseline visibility".split()
)
GENERIC_FONTS = {"serif", "sans-serif", "monospace"}


def _attributes(style: str) -> str:
    out = []
    for declaration in style.split(";"):
        name, sep, value = declaration.partition(":")
        name, value = name.strip().lower(), value.strip()
        if not sep or name not in PRESENTATION or not value or '"' in value:
            continue
        if name == "font-family" and value.lower() not in GENERIC_FONTS:
            value = "sans-serif" if "sans" in value.lower() or not value.lower().startswith("times") else "serif"
        out.append(f' {name}="{value}"')
    return "".join(out)


def csp_safe_svg(svg: str) -> str:
    """The same drawing without style= attributes, prolog or empty transforms."""
    svg = PROLOG.sub("", svg)
    svg = EMPTY_TRANSFORM.sub("", svg)
    return STYLE.sub(lambda m: _attributes(m.group(1)), svg)
