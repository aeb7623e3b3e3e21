"""The options of an export (POST .../exports/), checked in full before the job is queued: a bad value is a 400
naming `options.<field>`, never a job that fails later.

Prices are never the caller's: the BOM files are priced with the revision's price-list version, or with another
version of the design owner's price list named by `price_version` (so a BOM always says which list priced it).
"""

from __future__ import annotations

import re

from rest_framework import serializers

from apps.catalog.models import PriceListVersion
from apps.designs.models import LinkRecord
from apps.exports.artifacts import PRICED_KINDS
from apps.exports.registry import kinds_taking

from .errors import ApiError
from .serializers import StrictSerializer
from .spares_params import spares_percent_field, spares_rule_of

SCOPED_KINDS = kinds_taking("row")  # the deliverable registry: the kinds a row or rack can scope
# a rack id is "<site>.<row letters><position>" (engine/placement.py)
_RACK_ROW = re.compile(r"\.([A-Z]+)\d+$")


class ExportOptionsIn(StrictSerializer):
    page_size = serializers.ChoiceField(choices=["a4", "letter"], required=False, help_text="PDFs: page size.")
    row = serializers.CharField(
        max_length=32, required=False, help_text="Cabling plan, cable schedule, labels, test sheet: only this row."
    )
    rack = serializers.CharField(
        max_length=32,
        required=False,
        help_text="Cabling plan, cable schedule, labels, test sheet: only this rack (e.g. DC1.A03).",
    )
    test_limit = serializers.ChoiceField(
        choices=["pmd", "budget"],
        required=False,
        help_text="Test sheets: pass limit from the PMD's maximum channel loss, or the design's worst case.",
    )
    spares_percent = spares_percent_field(" BOM files only.")
    raw_csv = serializers.BooleanField(
        required=False, help_text="CSV files: write every cell unchanged (the default guards formula-like cells)."
    )
    date = serializers.DateField(
        required=False, help_text="The date printed on the documents (default: the day the revision was computed)."
    )
    label_stock = serializers.DictField(
        required=False,
        help_text="Labels: the label sheet's geometry (docs/deliverables.md, label stocks); default the generic "
        "wrap-around stock.",
    )
    printer_dpi = serializers.IntegerField(
        min_value=100,
        max_value=1200,
        required=False,
        help_text="Labels: the label printer's resolution in dots per inch (default 300; 203 is common). Every "
        "barcode module is a whole number of its dots, at least 3; panel-port labels print at the same resolution.",
    )
    port_label_stock = serializers.DictField(
        required=False,
        help_text='Labels: the stock of panel-port labels, as label_stock (e.g. {"preset": "port-17x25-a4"}, '
        "the default, 17 mm wide for a 1U 24-port panel's port pitch).",
    )
    thin_cord_stock = serializers.DictField(
        required=False,
        help_text='Labels: where a wrap stock\'s labels of cords too thin for it go (default {"preset": '
        '"avery-l7160-flag"}); a flag or sheet stock, as label_stock.',
    )
    cord_diameter_mm = serializers.DictField(
        child=serializers.FloatField(min_value=0.5, max_value=50),
        required=False,
        help_text='Labels: a cable\'s outer diameter in mm by cables.csv type (e.g. {"trunk": 4.5}), instead of '
        "the shipped figures (copper 9.43, AOC and fibre 3.0); decides which wrap labels print as flags.",
    )
    price_version = serializers.IntegerField(
        min_value=1,
        max_value=2_000_000_000,
        required=False,
        help_text="BOM files: price with this version of the design owner's price list instead of the revision's "
        "own (GET /api/v1/price-list/ shows the newest version).",
    )


_ONLY_FOR = {
    "page_size": lambda k: k.endswith(".pdf"),
    "row": lambda k: k in SCOPED_KINDS,
    "rack": lambda k: k in SCOPED_KINDS,
    "test_limit": lambda k: k.startswith("test-sheet."),
    "spares_percent": lambda k: k in PRICED_KINDS,
    "raw_csv": lambda k: k.endswith(".csv"),
    "label_stock": lambda k: k.startswith("labels."),
    "printer_dpi": lambda k: k.startswith("labels."),
    "port_label_stock": lambda k: k.startswith("labels."),
    "thin_cord_stock": lambda k: k.startswith("labels."),
    "cord_diameter_mm": lambda k: k.startswith("labels."),
    "price_version": lambda k: k in PRICED_KINDS,
    "date": lambda _k: True,
}


def _bad(path: str, message: str) -> ApiError:
    return ApiError(400, "invalid_option", f"{path}: {message}", [{"path": path, "message": message}])


def scope_check(*, revision, row: str | None, rack: str | None, prefix: str = "") -> None:
    """400 for a row or rack the revision does not have (from its stored links, so no recompute)."""
    links = LinkRecord.objects.filter(revision=revision)
    if rack is not None:
        if not (links.filter(a_rack=rack).exists() or links.filter(b_rack=rack).exists()):
            raise _bad(f"{prefix}rack", f"rack {rack!r} is not in this design")
        m = _RACK_ROW.search(rack)
        if row is not None and m and m.group(1) != row:
            raise _bad(f"{prefix}row", f"rack {rack!r} is in row {m.group(1)!r}, not {row!r}")
    elif row is not None:
        pattern = rf"\.{re.escape(row)}[0-9]+$"
        if not (links.filter(a_rack__regex=pattern).exists() or links.filter(b_rack__regex=pattern).exists()):
            raise _bad(f"{prefix}row", f"row {row!r} is not in this design")


def export_options_resolve(*, revision, kind: str, options: dict) -> dict:
    """The renderer options of a checked ExportOptionsIn: every option applies to the kind, the row or rack
    exists, the price version is the owner's; prices become the version's."""
    for name in options:
        if not _ONLY_FOR[name](kind):
            raise _bad(f"options.{name}", f"does not apply to {kind}")
    out = {k: v for k, v in options.items() if k not in ("price_version", "date", "spares_percent", "printer_dpi")}
    _label_stocks(options, out)
    if "date" in options:
        out["date"] = options["date"].isoformat()
    if "spares_percent" in options:
        rule = spares_rule_of({"spares_percent": options["spares_percent"]})  # the grammar of bom/ and order/
        out["spares_percent"] = {k: str(v) for k, v in rule.percents.items()} if rule is not None else {}
    scope_check(revision=revision, row=options.get("row"), rack=options.get("rack"), prefix="options.")
    if "price_version" in options:
        v = PriceListVersion.objects.filter(owner_id=revision.design.owner_id, number=options["price_version"]).first()
        if v is None:
            raise _bad("options.price_version", "the design owner's price list has no such version")
        out.update(
            prices=v.prices,
            currency=v.currency,
            price_source=f"price list v{v.number} of {v.created_at:%Y-%m-%d} ({v.currency}), chosen for this export",
        )
    return out


def _label_stocks(options: dict, out: dict) -> None:
    """printer_dpi goes into the label stock (the renderer prints panel-port labels at its resolution); each
    stock is checked here, so a bad one is a 400 naming its own option."""
    from apps.exports.renderers.options import LabelStock

    if "printer_dpi" in options:
        stock = dict(options.get("label_stock") or {})
        given = stock.get("printer_dpi")
        if given is not None and given != options["printer_dpi"]:
            raise _bad("options.printer_dpi", f"{options['printer_dpi']} differs from label_stock.printer_dpi {given}")
        stock["printer_dpi"] = options["printer_dpi"]
        if set(stock) == {"printer_dpi"}:
            stock["preset"] = LabelStock().key  # the default stock at this resolution
        out["label_stock"] = stock
    for name in ("label_stock", "port_label_stock", "thin_cord_stock"):
        if name in out:
            try:
                stock = LabelStock.from_dict(out[name])
            except ValueError as exc:
                message = str(exc).removeprefix("label_stock").lstrip(":. ")
                raise _bad(f"options.{name}", message) from None
            if name == "thin_cord_stock" and stock.kind == "wrap":
                raise _bad(f"options.{name}", "a flag or sheet stock (a wrap is what these cords are too thin for)")
