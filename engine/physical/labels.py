"""Cable, panel-port and trunk labels in the TIA-606 style.

Grammar (fabrics-qos-traffic.md section E, M/L): ``<site><room>.<grid>-<RU>:<port>``
names one end (space, cabinet grid location, rack unit, port); a cable label is
``<near>/<far>`` and each end's label names its own end first (the order is a template
choice, ``own_end_first``, because secondary sources disagree).

Templates use ``<placeholder>`` or ``<placeholder:NN>`` (zero-pad to NN characters).
They are compiled once into ``str.format`` strings, cheap enough to run for every cable
of a 400k-link design.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple


class LabelEnd(NamedTuple):
    """What a label can say about one cable end. Unused fields stay empty."""

    site: str = ""
    room: str = ""
    grid: str = ""
    ru: int | str = ""
    port: int | str = ""
    device: str = ""
    rack: str = ""
    row: str = ""
    panel: str = ""
    plane: str = ""
    rail: str = ""
    tier: str = ""


END_PLACEHOLDERS = LabelEnd._fields
CABLE_PLACEHOLDERS = ("near", "far", "cable", "tier")

DEFAULT_END = "<site><room>.<grid>-<ru:02>:<port:02>"
DEFAULT_CABLE = "<near>/<far>"
DEFAULT_PANEL = "<site><room>.<grid>-<ru:02>"
DEFAULT_TRUNK = "<cable> <near>/<far>"

_TOKEN = re.compile(r"<([a-z_]+)(?::(\d{1,2}))?>")
_FORMATTER = string.Formatter()


def compile_template(template: str, allowed: tuple[str, ...], *, name: str = "template") -> str:
    """Compile ``template`` against ``allowed`` placeholder names into a positional
    ``str.format`` string (``<ru:02>`` -> ``{3:0>2}``), so rendering is one C call.

    Raises ``ValueError`` naming the unknown placeholder or the stray bracket.
    """
    if not isinstance(template, str) or not template:
        raise ValueError(f"label template '{name}': must be a non-empty string")
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(template):
        literal = template[pos : m.start()]
        _check_literal(literal, template, name)
        key = m.group(1)
        if key not in allowed:
            raise ValueError(
                f"label template '{name}': unknown placeholder <{key}> in {template!r}; "
                f"allowed: {', '.join('<' + a + '>' for a in allowed)}"
            )
        out.append(_escape(literal))
        width = int(m.group(2) or 0)
        idx = allowed.index(key)
        out.append(f"{{{idx}:0>{width}}}" if width else f"{{{idx}}}")
        pos = m.end()
    tail = template[pos:]
    _check_literal(tail, template, name)
    out.append(_escape(tail))
    return "".join(out)


_FIELD = re.compile(r"\{(\d+)(?::([^{}]*))?\}")


@lru_cache(maxsize=64)
def fast_format(compiled: str, nargs: int) -> Callable[..., str]:
    """``compiled.format`` for ``nargs`` positional arguments as an f-string function, about twice as fast
    per call (a cable label is rendered twice for each of 400,000 cables). ``compiled`` comes from
    compile_template: positional fields and escaped braces only; the result is checked against ``format``."""
    names = [f"_{i}" for i in range(nargs)]
    body = _FIELD.sub(lambda m: "{_" + m.group(1) + (":" + m.group(2) if m.group(2) else "") + "}", compiled)
    try:
        fn = eval(f"lambda {', '.join(names)}: f{body!r}", {"__builtins__": {}})  # noqa: S307
        probe = tuple(f"x{i}" for i in range(nargs))
        if fn(*probe) != compiled.format(*probe):
            raise ValueError("mismatch")
        return fn
    except Exception:  # noqa: BLE001  # pragma: no cover - any template the f-string path cannot express
        return compiled.format


def _escape(literal: str) -> str:
    return literal.replace("{", "{{").replace("}", "}}")


def _check_literal(literal: str, template: str, name: str) -> None:
    if "<" in literal or ">" in literal:
        raise ValueError(
            f"label template '{name}': malformed placeholder near {literal!r} in {template!r}; "
            "write placeholders as <name> or <name:NN>"
        )


@dataclass(frozen=True, slots=True)
class LabelTemplate:
    """User-editable label templates. Validated (and compiled) on construction."""

    end: str = DEFAULT_END
    cable: str = DEFAULT_CABLE
    panel: str = DEFAULT_PANEL
    trunk: str = DEFAULT_TRUNK
    own_end_first: bool = True
    _end: str = field(init=False, repr=False, compare=False)
    _cable: str = field(init=False, repr=False, compare=False)
    _panel: str = field(init=False, repr=False, compare=False)
    _trunk: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_end", compile_template(self.end, END_PLACEHOLDERS, name="end"))
        object.__setattr__(self, "_cable", compile_template(self.cable, CABLE_PLACEHOLDERS, name="cable"))
        object.__setattr__(self, "_panel", compile_template(self.panel, END_PLACEHOLDERS, name="panel"))
        object.__setattr__(self, "_trunk", compile_template(self.trunk, CABLE_PLACEHOLDERS, name="trunk"))

    def end_label(self, end: LabelEnd) -> str:
        """Label of one location, e.g. a patch-panel port: ``DC1.AJ05-42:17``."""
        return self._end.format(*end)

    def panel_label(self, end: LabelEnd) -> str:
        """Label of a patch panel (no port): ``DC1.AJ05-42``."""
        return self._panel.format(*end)


def cable_labels(template: LabelTemplate, end_a: LabelEnd, end_b: LabelEnd, *, cable_id: str = "") -> tuple[str, str]:
    """Labels for both ends of one cable: (label at A, label at B).

    With ``own_end_first`` (default) each label names its own end first:
    ``A/B`` at A and ``B/A`` at B. Otherwise both read ``A/B``.
    """
    return cable_labels_of(
        template, template._end.format(*end_a), template._end.format(*end_b), cable_id, end_a.tier, end_b.tier
    )


def cable_labels_of(
    template: LabelTemplate, near_a: str, near_b: str, cable_id: str, tier_a: str = "", tier_b: str = ""
) -> tuple[str, str]:
    """cable_labels() from the two end labels already rendered (see port_template)."""
    fmt = fast_format(template._cable, 4)
    at_a = fmt(near_a, near_b, cable_id, tier_a)
    if template.own_end_first:
        return at_a, fmt(near_b, near_a, cable_id, tier_b)
    return at_a, at_a


_PORT = END_PLACEHOLDERS.index("port")


def port_template(compiled_end: str, end: LabelEnd) -> str:
    """The compiled end template with every field of `end` but the port filled in: a one-field format
    string, ``port_template(t, e).format(p) == t.format(*e._replace(port=p))``.

    A device or panel has many ports and the same everything else: a 400,000-cable design renders
    800,000 end labels for about 20,000 devices, and one field per label formats faster than twelve.
    """
    out = []
    for literal, index, spec in _parsed(compiled_end):
        out.append(literal)
        if index is None:
            continue
        if index == _PORT:
            out.append(f"{{0:{spec}}}" if spec else "{0}")
        else:
            out.append(_escape(format(end[index], spec)))
    return "".join(out)


@lru_cache(maxsize=64)
def _parsed(compiled: str) -> tuple[tuple[str, int | None, str], ...]:
    """A compiled template's pieces once, for port_template's thousands of calls: (escaped literal, field index
    or None, format spec)."""
    return tuple(
        (_escape(literal), None if index is None else int(index), spec or "")
        for literal, index, spec, _conv in _FORMATTER.parse(compiled)
    )


def trunk_labels(template: LabelTemplate, trunk_id: str, panel_a: LabelEnd, panel_b: LabelEnd) -> tuple[str, str]:
    """Labels for both ends of a trunk, naming the panels it joins (own end first)."""
    near_a = template._panel.format(*panel_a)
    near_b = template._panel.format(*panel_b)
    at_a = template._trunk.format(near_a, near_b, trunk_id, panel_a.tier)
    if template.own_end_first:
        return at_a, template._trunk.format(near_b, near_a, trunk_id, panel_b.tier)
    return at_a, at_a
