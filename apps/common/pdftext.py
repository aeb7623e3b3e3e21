"""Text for reportlab paragraphs: data is always text, never markup.

reportlab's `Paragraph` parses its text as its own XML-like markup: `<a href=...>` becomes a link
annotation, `<img src="/any/path"/>` reads that file from the server's disk and embeds it, `<font>` and
`<para>` change the layout. Names from users and from the field (design names, as-built device and
port names, part descriptions) must print as the characters typed, so every paragraph is built here:
`paragraph(text, style)` escapes `&`, `<` and `>` first (tests/hostile/test_pdf_markup.py checks no
module calls `Paragraph(` elsewhere). A caller that wants bold or line breaks composes them from
escaped pieces with `markup(...)`, never from raw data.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from reportlab.lib.styles import PropertySet
from reportlab.platypus import Paragraph


def escape_markup(text: object) -> str:
    """`text` as reportlab paragraph markup that shows exactly those characters (None as empty)."""
    return escape("" if text is None else str(text))


def paragraph(text: object, style: PropertySet) -> Paragraph:
    """A Paragraph showing `text` literally: no tag, entity or link from data is interpreted."""
    return Paragraph(escape_markup(text), style)


__all__ = ["escape_markup", "paragraph"]
