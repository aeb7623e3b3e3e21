"""The catalog page: the shipped parts with their sources and flags (searchable), and the signed-in user's
own parts and price list, added and edited with the same services and validation the API uses
(apps/catalog/services.py). A design computed after a part is added uses it (the compute service loads the
owner's custom parts)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import yaml
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from apps.catalog.models import CustomPart, PartSection, PriceList
from apps.catalog.services import (
    CUSTOM_PART_MAX_CHARS,
    MAX_PRICED_PARTS,
    CustomPartsBroken,
    catalog_for,
    custom_part_delete,
    custom_part_save,
    iso_currencies,
    price_list_clean,
    price_list_save,
)
from apps.common.errors import DomainError
from apps.common.requests import SignedInRequest
from engine.catalog import load_catalog
from engine.inputgate import InputRefused, load_yaml, text_lines

from .models import Revision
from .views import signin_required

SECTIONS = [c.value for c in PartSection]
_MEDIA_COLUMNS = (
    "transceivers",
    "cables",
    "cords",
    "copper_cords",
    "trunks",
    "pmds",
    "adapters",
    "panels",
    "cassettes",
    "cabling_requirements",
)


def _flags(entry) -> list[tuple[str, str]]:
    """(flag, title) of one entry: unconfirmed (with its reason), discontinued, made to order."""
    out = []
    why = getattr(entry, "unconfirmed", "")
    if why:
        out.append(("unconfirmed", why))
    if getattr(entry, "discontinued", False):
        out.append(("discontinued", "used only where a design allows discontinued parts (physical-layer options)"))
    if getattr(entry, "made_to_order", False):
        out.append(("made to order", "longer runs are ordered to length"))
    return out


def _m(x) -> str:
    return "" if x is None else f"{x:g}"


def _reach(entry) -> str:
    r = getattr(entry, "reach_m", None)
    if isinstance(r, tuple):
        return " / ".join(f"{_m(v)} m {k.upper()}" for k, v in r)
    if r is not None:
        return f"{_m(r)} m"
    mlm = getattr(entry, "max_link_m", None)
    return f"{_m(mlm)} m link" if mlm else ""


def _row(section: str, key: str, e, custom: bool) -> dict:
    """One table row of the shipped/custom parts, the same columns for every section."""
    ff = speed = medium = power = lengths = ""
    if section == "transceivers":
        ff = f"{e.form_factor} ({e.top})"
        speed = f"{'2 x ' if e.ports == 2 else ''}{e.port_gbps}G"
        medium = f"{e.fiber_mode.upper()} {e.connector.upper()}/{e.polish.upper()}"
        power = "" if e.power_w is None else f"{_m(e.power_w)} W"
    elif section == "cables":
        ff = f"{e.end_a.form_factor} → {e.end_b.form_factor}"
        speed = f"{e.end_a.port_gbps or ''}G"
        medium = e.kind.upper()
        power = "" if e.power_w_per_end is None else f"{_m(e.power_w_per_end)} W/end"
        lengths = ", ".join(_m(x) for x in e.lengths_m)
    elif section == "cords":
        medium = f"{e.fiber_type.upper()} {e.connector.upper()}/{e.polish.upper()} {e.kind}"
        lengths = ", ".join(_m(x) for x in e.lengths_m)
    elif section == "copper_cords":
        medium = "RJ45"
        speed = f"≤{e.max_gbps}G"
        lengths = ", ".join(_m(x) for x in e.lengths_m)
    elif section == "pmds":
        speed = f"{e.port_gbps}G"
        medium = f"{e.fiber_mode.upper()} {e.connector.upper()}"
    description = getattr(e, "description", "") or getattr(e, "name", "") or getattr(e, "notes", "")
    return {
        "section": section,
        "key": key,
        "opn": getattr(e, "opn", ""),
        "description": description,
        "form_factor": ff,
        "speed": speed,
        "reach": _reach(e),
        "medium": medium,
        "power": power,
        "lengths": lengths,
        "sources": ", ".join(getattr(e, "sources", ()) or ()),
        "flags": _flags(e),
        "custom": custom,
    }


def _switch_opns(s) -> str:
    """The orderable number per airflow variant (issue 38), e.g. "P2C MQM9700-NS2F, C2P MQM9700-NS2R"."""
    opns = getattr(s, "orderable", None) or {}
    return ", ".join(f"{airflow.upper()} {info.opn}" for airflow, info in sorted(opns.items(), reverse=True))


def _switch_flags(s) -> list[tuple[str, str]]:
    opns = getattr(s, "orderable", None) or {}
    why = [f"{a.upper()}: {i.unconfirmed}" for a, i in sorted(opns.items(), reverse=True) if i.unconfirmed]
    missing = [a.upper() for a in ("p2c", "c2p") if a not in opns]
    if missing:
        why.append(f"no published orderable number for {' / '.join(missing)}")
    return [("unconfirmed", "; ".join(why))] if why else []


def _rows(catalog, own: set) -> list[dict]:
    rows = []
    for k, s in sorted(catalog.switches.items()):
        rows.append(
            {
                "section": "switches",
                "key": k,
                "opn": _switch_opns(s),
                "description": s.name,
                "form_factor": f"{s.cages} x {s.form_factor} ({s.top})",
                "speed": ", ".join(f"{sp}G" for sp in sorted(s.speeds)),
                "reach": "",
                "medium": "",
                "power": "unknown (no published maximum)" if s.power_kw is None else f"{_m(s.power_kw)} kW",
                "lengths": "",
                "sources": ", ".join(s.sources),
                "flags": _switch_flags(s),
                "custom": ("switches", k) in own,
            }
        )
    for k, s in sorted(catalog.servers.items()):
        rows.append(
            {
                "section": "servers",
                "key": k,
                "opn": "",
                "description": s.name,
                "form_factor": ", ".join(sorted({c.form_factor for c in s.cages})),
                "speed": f"{s.nic_speed_gbps}G",
                "reach": "",
                "medium": "",
                "power": "" if s.power_kw is None else f"{_m(s.power_kw)} kW",
                "lengths": "",
                "sources": ", ".join(s.sources),
                "flags": [],
                "custom": ("servers", k) in own,
            }
        )
    media = catalog.media
    for section in _MEDIA_COLUMNS:
        for key, e in sorted(getattr(media, section).items()):
            rows.append(_row(section, key, e, (section, key) in own))
    return rows


def _matches(row: dict, q: str) -> bool:
    words = q.lower().split()
    text = " ".join(str(v) for k, v in row.items() if k != "flags").lower() + " " + " ".join(f for f, _ in row["flags"])
    return all(w in text for w in words)


def _prices_text(pl: PriceList | None) -> str:
    if pl is None:
        return ""
    return "\n".join(f"{k},{v}" for k, v in sorted(pl.prices.items()))


def _parse_prices(text: str) -> tuple[dict, list[str]]:
    """ "PART,PRICE" per line (blank lines and # comments skipped) -> ({part: price text}, errors)."""
    prices, errors = {}, []
    try:
        # Comments and blank lines are allowed, so a list may hold more lines than priced parts.
        lines = text_lines(text, max_lines=2 * MAX_PRICED_PARTS)
    except InputRefused as exc:
        return {}, [exc.describe("prices")]
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        part, sep, price = line.rpartition(",")
        if not sep or not part.strip():
            errors.append(f"line {n}: write PART,PRICE (got {line[:60]!r})")
            continue
        try:
            Decimal(price.strip())
        except InvalidOperation:
            errors.append(f"line {n}: {price.strip()[:30]!r} is not a price")
            continue
        prices[part.strip()] = price.strip()
    return prices, errors


# A complete, valid custom transceiver to start from (the page shows it in the empty box and as a copyable block;
# tests/apps/designs/test_catalog_workspace.py saves it).
EXAMPLE_SECTION = "transceivers"
EXAMPLE_PART = """\
sku: MY-OSFP-100G-DR
vendor: my-vendor
description: OSFP 100G DR transceiver, 500 m, LC
form_factor: osfp
top: finned
ports: 1
port_gbps: 100
lane_gbps: 100
pmd: 100gbase-dr
connector: lc
polish: upc
fiber_mode: sm
reach_m: {os2: 500}
power_w: 4
technologies: [ethernet]
sources: []
confidence: L
"""


def _known_part_numbers(user) -> set[str]:
    """Every part number a BOM of this user can carry: the catalog's keys, orderable numbers and SKUs, and the
    lines of the bills of materials of the user's recent revisions (cut lengths, kits)."""
    catalog, _own = catalog_for(user)
    known = set(catalog.switches) | set(catalog.servers)
    for s in catalog.switches.values():
        known |= {info.opn for info in (getattr(s, "orderable", None) or {}).values()}
    for section in _MEDIA_COLUMNS:
        for key, e in getattr(catalog.media, section).items():
            known |= {key, getattr(e, "sku", "") or "", getattr(e, "opn", "") or ""}
    recent = Revision.objects.filter(design__owner=user).order_by("-created_at").values_list("summary", flat=True)
    for summary in recent[:50]:
        known |= {line.get("sku") or "" for line in (summary or {}).get("bom") or []}
    known.discard("")
    return known


def _unknown_part_numbers(user, prices: dict) -> list[str]:
    known = {k.upper() for k in _known_part_numbers(user)}
    return sorted(p for p in prices if p.upper() not in known)


@signin_required
@require_http_methods(["GET", "POST"])
def catalog_view(request: SignedInRequest) -> HttpResponse:
    user = request.user
    part_errors: list[str] = []
    price_errors: list[str] = []
    editing = None
    form = {"section": "transceivers", "key": "", "body": ""}
    price_list = PriceList.objects.filter(owner=user).first()
    prices_form = {"currency": price_list.currency if price_list else "USD", "prices": _prices_text(price_list)}
    if request.method == "POST" and request.POST.get("action") == "part":
        form = {
            "section": request.POST.get("section", ""),
            "key": request.POST.get("key", "").strip(),
            "body": request.POST.get("body", ""),
        }
        part_id = request.POST.get("part_id") or ""
        editing = get_object_or_404(CustomPart, owner=user, pk=int(part_id)) if part_id.isdigit() else None
        if form["section"] not in SECTIONS:
            part_errors.append(f"section: choose one of {', '.join(SECTIONS)}")
        else:
            try:
                body = load_yaml(form["body"], max_chars=CUSTOM_PART_MAX_CHARS) if form["body"].strip() else None
            except InputRefused as exc:
                body = None
                part_errors.append(f"body: {exc.describe('not valid YAML')}")
            if not part_errors and not isinstance(body, dict):
                part_errors.append(
                    "body: write the entry as a YAML mapping (keys and values), like the example below the box"
                )
            if not part_errors:
                try:
                    part = custom_part_save(
                        user=user, section=form["section"], key=form["key"] or None, body=body, part=editing
                    )
                except DomainError as exc:
                    part_errors = exc.texts()
                else:
                    messages.success(
                        request, f"Saved your {part.section} part {part.key}. Compute a design again to use it."
                    )
                    return redirect("designs:catalog")
    elif request.method == "POST" and request.POST.get("action") == "prices":
        prices_form = {
            "currency": request.POST.get("currency", "").strip().upper(),
            "prices": request.POST.get("prices", ""),
        }
        prices, price_errors = _parse_prices(prices_form["prices"])
        if not price_errors:
            try:
                currency, clean = price_list_clean(currency=prices_form["currency"], prices=prices)
            except DomainError as exc:
                price_errors = [f"{f['path']}: {f['message']}" for f in exc.fields] or [exc.message]
            else:
                price_list_save(owner=user, currency=currency, prices=clean)
                messages.success(request, f"Saved your price list ({len(clean)} parts).")
                unknown = _unknown_part_numbers(user, clean)
                if unknown:
                    listed = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
                    messages.warning(
                        request,
                        f"{len(unknown)} part number{'s' if len(unknown) != 1 else ''} of the price list "
                        f"{'is' if len(unknown) == 1 else 'are'} in no catalog part and no bill of materials of "
                        f"your designs, so {'it prices' if len(unknown) == 1 else 'they price'} nothing yet "
                        f"(a typing mistake?): {listed}",
                    )
                return redirect("designs:catalog")
    elif request.method == "GET" and request.GET.get("edit", "").isdigit():
        editing = get_object_or_404(CustomPart, owner=user, pk=int(request.GET["edit"]))
        form = {
            "section": editing.section,
            "key": editing.key,
            "body": yaml.safe_dump(editing.body, sort_keys=False, allow_unicode=True),
        }
    try:
        catalog, own = catalog_for(user)
    except CustomPartsBroken as exc:
        catalog, own = load_catalog(), set()
        part_errors = part_errors or exc.texts()
    q = request.GET.get("q", "").strip()[:100]
    rows = _rows(catalog, own)
    shown = [r for r in rows if _matches(r, q)] if q else rows
    status = 400 if (part_errors or price_errors) and request.method == "POST" else 200
    return render(
        request,
        "designs/catalog.html",
        {
            "rows": shown,
            "total": len(rows),
            "q": q,
            "catalog_version": catalog.version,
            "parts": CustomPart.objects.filter(owner=user).order_by("section", "key"),
            "sections": SECTIONS,
            "form": form,
            "editing": editing,
            "part_errors": part_errors,
            "prices_form": prices_form,
            "price_errors": price_errors,
            "currencies": iso_currencies(),
            "example_part": EXAMPLE_PART,
            "example_section": EXAMPLE_SECTION,
        },
        status=status,
    )


@signin_required
@require_POST
def catalog_part_delete(request: HttpRequest, part_id: int) -> HttpResponse:
    part = get_object_or_404(CustomPart, owner=request.user, pk=part_id)
    key = part.key
    custom_part_delete(part=part)
    messages.success(request, f"Deleted your part {key}.")
    return redirect("designs:catalog")
