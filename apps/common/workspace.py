"""The revision workspace's registry: the apps that own a concern contribute its section, its panels, its summary
cards and its next steps from AppConfig.ready(); the workspace pages read only this registry, so they know no
feature app (in the spirit of NetBox's template extensions).

    register_section("commissioning", "Commissioning", order=70, blurb="As-built imports and the fix list")
    register_panel("commissioning", "commissioning/_panel.html", context=fn, order=10)
    register_card(fn, order=50)       fn(request, revision) -> [{"label", "value", "unit", "note", "section"}, ...]
    register_next_step(fn, order=50)  fn(request, revision) -> [{"text", "section"}, ...]

A design's own pages take the same way what upper apps offer there:

    register_design_action("QoS policy", url_name, order=10)     a button on the design's page
    register_form_note("qos", "qos/_form_note.html")             under a section of the spec form

A panel's `context(request, revision)` returns the dict its template renders with, or None when the panel has
nothing to show for this revision; it is called only when its section is opened (each section loads only what it
shows). Sections live in the common layer so that every app can register; this module imports no app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

PanelContext = Callable[[Any, Any], dict | None]
ListProvider = Callable[[Any, Any], list[dict]]


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    order: int
    blurb: str = ""


@dataclass(frozen=True)
class Panel:
    section: str
    template: str
    context: PanelContext
    order: int


_sections: dict[str, Section] = {}
_panels: list[Panel] = []
_cards: list[tuple[int, ListProvider]] = []
_next_steps: list[tuple[int, ListProvider]] = []


def register_section(key: str, title: str, *, order: int, blurb: str = "") -> None:
    """A section of the workspace (its URL is .../revisions/<n>/<key>/ and its entry in the navigation)."""
    if not key.replace("-", "").isalnum() or key == "overview":
        raise ValueError(f"section key {key!r}: letters, digits and - only, and not 'overview'")
    old = _sections.get(key)
    if old is not None and old != Section(key, title, order, blurb):
        raise ValueError(f"section {key!r} is already registered as {old}")
    _sections[key] = Section(key, title, order, blurb)


def register_panel(section: str, template: str, *, context: PanelContext, order: int) -> None:
    """A part of a section, rendered from `template` with `context(request, revision)` (None: not shown)."""
    panel = Panel(section, template, context, order)
    if panel not in _panels:
        _panels.append(panel)


def register_card(provider: ListProvider, *, order: int) -> None:
    """Summary cards on the overview: provider(request, revision) -> [{"label", "value", ...}]."""
    if (order, provider) not in _cards:
        _cards.append((order, provider))


def register_next_step(provider: ListProvider, *, order: int) -> None:
    """ "What to do next" on the overview: provider(request, revision) -> [{"text", "section"}]."""
    if (order, provider) not in _next_steps:
        _next_steps.append((order, provider))


def sections() -> list[Section]:
    return sorted(_sections.values(), key=lambda s: (s.order, s.key))


def section(key: str) -> Section | None:
    return _sections.get(key)


def panels(section_key: str) -> list[Panel]:
    return sorted((p for p in _panels if p.section == section_key), key=lambda p: (p.order, p.template))


def cards(request: Any, revision: Any) -> list[dict]:
    return [card for _, provider in sorted(_cards, key=lambda c: c[0]) for card in provider(request, revision)]


def next_steps(request: Any, revision: Any) -> list[dict]:
    return [step for _, provider in sorted(_next_steps, key=lambda c: c[0]) for step in provider(request, revision)]


# A revision's commissioning state (planned / cabling / verified) on the design list and a design's page: the app
# that keeps it registers one function, (design id, revision number) pairs -> {pair: state}.
_states: list[Callable[[list[tuple[int, int]]], dict[tuple[int, int], str]]] = []


def register_revision_states(provider: Callable[[list[tuple[int, int]]], dict[tuple[int, int], str]]) -> None:
    if provider not in _states:
        _states.append(provider)


def revision_states(pairs: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """{(design id, number): state} from the registered provider; empty (no state shown) when none is."""
    out: dict[tuple[int, int], str] = {}
    for provider in _states:
        out.update(provider(pairs))
    return out


# --- a design's page and its spec form --------------------------------------------------------------------------


@dataclass(frozen=True)
class DesignAction:
    label: str
    url_name: str
    order: int
    per_design: bool = True  # the URL takes the design's id; else it is a page of its own (a list)


_design_actions: list[DesignAction] = []
_form_notes: dict[str, str] = {}


def register_design_action(label: str, url_name: str, *, order: int, per_design: bool = True) -> None:
    """A button among the design page's actions, linking `url_name` (with the design's id when `per_design`)."""
    action = DesignAction(label, url_name, order, per_design)
    if action not in _design_actions:
        _design_actions.append(action)


def design_actions(design: Any) -> list[dict]:
    """[{"label", "url"}] of the registered actions, in order, for `design`."""
    return [
        {"label": a.label, "url": reverse(a.url_name, args=[design.pk] if a.per_design else [])}
        for a in sorted(_design_actions, key=lambda a: (a.order, a.label))
    ]


def register_form_note(section: str, template: str) -> None:
    """A note rendered under the spec form's section `section` (its template gets the form's context)."""
    old = _form_notes.setdefault(section, template)
    if old != template:
        raise ValueError(f"the form section {section!r} already has the note {old}")


def form_notes() -> dict[str, str]:
    """{spec form section key: the template of its note}."""
    return dict(_form_notes)
