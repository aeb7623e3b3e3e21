"""Export options: prices, spares, filters, page and label stock. Plain data, validated."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

MM = 72.0 / 25.4
INCH = 72.0


LABEL_STOCKS_FILE = Path(__file__).with_name("data") / "label-stocks.yaml"
LABEL_KINDS = ("wrap", "flag", "sheet")
LABEL_CODES = ("code128", "qr")
PORT_LABEL_STOCK = "port-17x25-a4"  # the default stock of panel-port labels (label-stocks.yaml)
THIN_CORD_STOCK = "avery-l7160-flag"  # where labels of cords too thin for a wrap stock go (labels.py)
CORD_DIAMETERS_FILE = Path(__file__).with_name("data") / "cord-diameters.yaml"
_UNITS = {"mm": MM, "in": INCH, "pt": 1.0}


def _length(v, what: str) -> float:
    """A length in pt from a number (pt) or a text with a unit ("63.5mm", "2in", "12pt")."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        t = v.strip().lower()
        for unit, k in _UNITS.items():
            if t.endswith(unit):
                try:
                    return float(t[: -len(unit)]) * k
                except ValueError:
                    break
    raise ValueError(f"{what}: {v!r} is not a length (a number in pt, or e.g. '63.5mm', '2in')")


_LENGTH_FIELDS = (
    "label_width",
    "label_height",
    "print_height",
    "margin_left",
    "margin_top",
    "gap_x",
    "gap_y",
    "padding",
    "wrap_zone",
)


@dataclass(frozen=True)
class LabelStock:
    """A sheet of cable labels: its geometry, the kind of label and the code printed on each.

    The default is the preset ``wrap-2x1.5-letter`` (label-stocks.yaml): a self-laminating
    wrap-around label 2.0 in wide x 1.5 in tall, printed in its top 0.75 in, 4 x 7 on US Letter
    with 0.25 in margins. It is a generic geometry, not one vendor's part (docs/data-gaps.md L1).
    Named presets: ``LabelStock.preset(key)``, ``label_stock_presets()``.
    """

    key: str = "wrap-2x1.5-letter"
    name: str = "Self-laminating wrap-around 2.0 x 1.5 in, 4 x 7 on Letter (generic)"
    kind: str = "wrap"  # wrap | flag | sheet (label-stocks.yaml)
    source: str = "generic geometry, no vendor part (data-gaps L1)"
    page_size: str = "letter"
    columns: int = 4
    rows: int = 7
    label_width: float = 2.0 * INCH
    label_height: float = 1.5 * INCH
    print_height: float = 0.75 * INCH  # wrap: the printed top part; flag/sheet: 0 = the whole label
    margin_left: float = 0.25 * INCH
    margin_top: float = 0.25 * INCH
    gap_x: float = 0.0
    gap_y: float = 0.0
    font_size: float = 8.0
    padding: float = 3.0
    wrap_zone: float = 0.0  # flag: the unprinted middle that wraps round the cable
    code: str = "code128"  # code128 | qr: the cable id as a barcode on every label
    # The label printer's resolution: every barcode module is a whole number of its dots, at least
    # MIN_MODULE_DOTS (labels.py); 300 dpi is a documented default (data-gaps L5), 203 dpi printers are common.
    printer_dpi: int = 300

    @classmethod
    def preset(cls, key: str) -> LabelStock:
        presets = label_stock_presets()
        if key not in presets:
            raise ValueError(f"label_stock: unknown stock {key!r}; known: {', '.join(sorted(presets))}")
        return presets[key]

    @classmethod
    def from_dict(cls, d) -> LabelStock:
        if d is None:
            return cls()
        if isinstance(d, LabelStock):
            return d
        if isinstance(d, str):
            return cls.preset(d)
        if not isinstance(d, Mapping):
            raise ValueError("label_stock: a stock name such as 'avery-l7160', or a mapping of fields")
        d = dict(d)
        named = "preset" in d
        base = cls.preset(str(d.pop("preset"))) if named else cls()
        known = {f.name for f in fields(cls)}
        bad = sorted(set(d) - known)
        if bad:
            raise ValueError(
                f"label_stock: unknown field(s) {', '.join(bad)}; known: preset, {', '.join(sorted(known))}"
            )
        kw = {}
        for k, v in d.items():
            if k in _LENGTH_FIELDS:
                kw[k] = _length(v, f"label_stock.{k}")
            elif k in ("columns", "rows", "printer_dpi"):
                if not isinstance(v, int) or isinstance(v, bool):
                    raise ValueError(f"label_stock.{k}: a whole number")
                kw[k] = v
            elif k == "font_size":
                kw[k] = _length(v, "label_stock.font_size")
            else:
                kw[k] = str(v)
        if kw and "key" not in kw:
            kw["key"] = f"{base.key}+custom" if named else "custom"
        stock = replace(base, **kw)
        stock.validate()
        return stock

    @property
    def printed_height(self) -> float:
        return self.print_height if self.kind == "wrap" or self.print_height > 0 else self.label_height

    def validate(self) -> None:
        from ._pdf import MIN_FONT_SIZE, page_size

        w, h = page_size(self.page_size, "portrait")
        if self.kind not in LABEL_KINDS:
            raise ValueError(f"label_stock.kind: one of {', '.join(LABEL_KINDS)}")
        if self.code not in LABEL_CODES:
            raise ValueError(f"label_stock.code: one of {', '.join(LABEL_CODES)}")
        if not 100 <= self.printer_dpi <= 1200:
            raise ValueError("label_stock.printer_dpi: the label printer's resolution, 100 to 1200 dots per inch")
        if self.columns < 1 or self.rows < 1:
            raise ValueError("label_stock: columns and rows must be >= 1")
        if self.font_size < MIN_FONT_SIZE:
            raise ValueError(f"label_stock.font_size: must be >= {MIN_FONT_SIZE:g} pt")
        ph = self.printed_height
        if ph > self.label_height + 0.01 or ph < 3 * self.font_size + 2 * self.padding:
            raise ValueError("label_stock.print_height: must hold 3 lines of text and fit in the label")
        if self.kind == "flag" and not 0 <= self.wrap_zone < self.label_width / 2:
            raise ValueError("label_stock.wrap_zone: must be less than half the label width")
        if self.margin_left + self.columns * self.label_width + (self.columns - 1) * self.gap_x > w + 0.01:
            raise ValueError("label_stock: the labels do not fit the page width")
        if self.margin_top + self.rows * self.label_height + (self.rows - 1) * self.gap_y > h + 0.01:
            raise ValueError("label_stock: the labels do not fit the page height")


_presets: dict[str, LabelStock] = {}


def label_stock_presets() -> dict[str, LabelStock]:
    """The named stocks of label-stocks.yaml, validated once."""
    if not _presets:
        import yaml

        data = yaml.safe_load(LABEL_STOCKS_FILE.read_text(encoding="utf-8"))
        for key, fields_ in data.items():
            kw = {"key": key}
            for k, v in fields_.items():
                kw[k] = _length(v, f"{key}.{k}") if k in _LENGTH_FIELDS else v
            if kw.get("kind", "wrap") != "wrap":
                kw.setdefault("print_height", 0.0)  # printed whole
            stock = LabelStock(**kw)
            stock.validate()
            _presets[key] = stock
    return dict(_presets)


@dataclass(frozen=True)
class ExportOptions:
    prices: Mapping[str, Decimal] = field(default_factory=dict)  # sku -> unit price
    currency: str = "USD"
    spares_percent: Mapping[str, Decimal] = field(default_factory=dict)  # category -> %, "*" for all
    # The failure-rate spares rule instead of the percent (engine/orders/failure_rates.py), or None. Given as
    # {"afr_percent": ..., "replenish_hours": ..., "service_level_percent": ...}, each a number, a text such as
    # "transceiver:2,*:1" or a mapping; what is not given takes the placeholder defaults.
    spares_failure_rate: Any = None
    row: str | None = None  # cabling plan / labels / test sheet: one row
    rack: str | None = None  # ... or one rack
    page_size: str = "a4"  # a4 | letter (the label stock has its own)
    label_stock: LabelStock = field(default_factory=LabelStock)
    # Panel-port labels go on their own stock, one label no wider than the panel's port pitch (labels.py);
    # the preset's printer_dpi is replaced by label_stock's, so one setting states the printer.
    port_label_stock: LabelStock | None = None
    # A wrap stock's labels of cords thinner than its printed height / pi go on this stock (default the flag
    # preset, at label_stock's printer_dpi); cord_diameter_mm overrides cord-diameters.yaml per cables.csv type.
    thin_cord_stock: LabelStock | None = None
    cord_diameter_mm: Mapping[str, float] = field(default_factory=dict)
    # ISO date on every document. A stored revision's renders pass the day it was computed (apps/exports/artifacts.py
    # revision_date), so its files never change with the calendar; without one (the CLI's fresh compute): today.
    date: str = ""
    test_limit: str = "pmd"  # pmd: the PMD's max channel IL | budget: the design's worst-case loss
    catalog: Any = None  # engine Catalog or MediaCatalog, for transceiver form factors
    price_source: str = ""  # which prices these are, e.g. "price list v3 of 2026-12-01" (named on the BOM)
    # CSV files: False (default) writes a text cell beginning with = + - @ tab or CR with a leading ' so
    # spreadsheets never run it as a formula (engine/csvcells.py); True writes every cell unchanged.
    raw_csv: bool = False
    # The installation's error-counter thresholds (settings.COUNTER_THRESHOLDS, from COUNTER_THRESHOLDS_FILE),
    # handed in by the Django side for the Prometheus rules; None: the shipped data file's.
    counter_thresholds: Mapping[str, Any] | None = None

    @classmethod
    def from_any(cls, options) -> ExportOptions:  # noqa: C901
        if options is None:
            return cls(date=_dt.date.today().isoformat())
        if isinstance(options, ExportOptions):
            return options if options.date else replace(options, date=_dt.date.today().isoformat())
        if not isinstance(options, Mapping):
            raise ValueError("options: must be a mapping or ExportOptions")
        known = {f.name for f in fields(cls)}
        bad = sorted(set(options) - known)
        if bad:
            raise ValueError(f"options: unknown key(s) {', '.join(bad)}; known: {', '.join(sorted(known))}")
        kw = dict(options)
        if "prices" in kw:
            kw["prices"] = _prices(kw["prices"])
        if "spares_percent" in kw:
            kw["spares_percent"] = _spares(kw["spares_percent"])
        if kw.get("spares_failure_rate") is not None:
            kw["spares_failure_rate"] = _failure_rate(kw["spares_failure_rate"])
        if "label_stock" in kw:
            kw["label_stock"] = LabelStock.from_dict(kw["label_stock"])
        if kw.get("port_label_stock") is not None:
            kw["port_label_stock"] = LabelStock.from_dict(kw["port_label_stock"])
        if kw.get("thin_cord_stock") is not None:
            kw["thin_cord_stock"] = LabelStock.from_dict(kw["thin_cord_stock"])
            if kw["thin_cord_stock"].kind == "wrap":
                raise ValueError(
                    "options.thin_cord_stock: a flag or sheet stock (a wrap is what these cords are too thin for)"
                )
        if "cord_diameter_mm" in kw:
            kw["cord_diameter_mm"] = _diameters(kw["cord_diameter_mm"])
        if not isinstance(kw.get("raw_csv", False), bool):
            raise ValueError("options.raw_csv: must be true or false")
        if kw.get("test_limit", "pmd") not in ("pmd", "budget"):
            raise ValueError("options.test_limit: must be 'pmd' or 'budget'")
        if str(kw.get("page_size", "a4")).lower() not in ("a4", "letter"):
            raise ValueError("options.page_size: must be 'a4' or 'letter'")
        if not isinstance(kw.get("price_source", ""), str) or len(kw.get("price_source", "")) > 200:
            raise ValueError("options.price_source: a short text naming the prices (200 characters at most)")
        cur = kw.get("currency", "USD")
        if not isinstance(cur, str) or not cur.strip() or len(cur) > 8:
            raise ValueError("options.currency: a short code such as 'USD' or 'EUR'")
        kw.setdefault("date", _dt.date.today().isoformat())
        return cls(**kw)

    @property
    def port_stock(self) -> LabelStock:
        """The stock of panel-port labels, printed at label_stock's resolution."""
        stock = self.port_label_stock or LabelStock.preset(PORT_LABEL_STOCK)
        if stock.printer_dpi != self.label_stock.printer_dpi:
            stock = replace(stock, printer_dpi=self.label_stock.printer_dpi)
        return stock

    @property
    def flag_stock(self) -> LabelStock:
        """The stock of thin cords' labels when label_stock is a wrap, printed at label_stock's resolution."""
        stock = self.thin_cord_stock or LabelStock.preset(THIN_CORD_STOCK)
        if stock.printer_dpi != self.label_stock.printer_dpi:
            stock = replace(stock, printer_dpi=self.label_stock.printer_dpi)
        return stock

    def cord_diameter(self, cable_type: str) -> float | None:
        """The outer diameter in mm of a cable of this cables.csv type, or None where no figure is known."""
        if cable_type in self.cord_diameter_mm:
            return self.cord_diameter_mm[cable_type]
        return cord_diameters().get(cable_type)

    def spares_for(self, category: str) -> Decimal:
        """The flat percent of a category (0 under the failure-rate rule, whose spares say their own inputs)."""
        from engine.orders.spares import PercentPerCategory

        return (
            Decimal(0)
            if self.spares_failure_rate
            else PercentPerCategory(dict(self.spares_percent)).percent_for(category)
        )

    def spares_rule(self):
        """The spares rule these options name: the failure-rate rule when given, else a percentage per
        category (engine/orders)."""
        from engine.orders.spares import PercentPerCategory

        if self.spares_failure_rate is not None:
            return self.spares_failure_rate
        return PercentPerCategory(dict(self.spares_percent))


def _dec(v, what: str) -> Decimal:
    try:
        d = Decimal(str(v).strip())
    except (InvalidOperation, ValueError):
        raise ValueError(f"{what}: {v!r} is not a number") from None
    if not d.is_finite() or d < 0:
        raise ValueError(f"{what}: {v!r} must be a finite number >= 0")
    return d


def _prices(p) -> dict[str, Decimal]:
    if not isinstance(p, Mapping):
        raise ValueError("options.prices: must map part numbers to unit prices")
    return {str(k): _dec(v, f"options.prices[{k!r}]") for k, v in p.items()}


def _failure_rate(d):
    from engine.orders.failure_rates import FIELDS, FailureRatePerCategory, parse_category_values

    if isinstance(d, FailureRatePerCategory):
        return d
    if not isinstance(d, Mapping):
        raise ValueError(
            "options.spares_failure_rate: a mapping of afr_percent, replenish_hours, service_level_percent"
        )
    bad = sorted(set(d) - set(FIELDS) - {"kind"})
    if bad:
        raise ValueError(f"options.spares_failure_rate: unknown key(s) {', '.join(bad)}; known: {', '.join(FIELDS)}")
    given = {
        f: parse_category_values(d[f], f"options.spares_failure_rate.{f}", f)
        for f in FIELDS
        if d.get(f) not in (None, "")
    }
    return FailureRatePerCategory.with_defaults(**given)


def _spares(s) -> dict[str, Decimal]:
    if isinstance(s, (int, float, str, Decimal)) and not isinstance(s, bool):
        d = _dec(s, "options.spares_percent")
        return {"*": d}
    if not isinstance(s, Mapping):
        raise ValueError("options.spares_percent: a percentage, or {category: percentage}")
    out = {str(k): _dec(v, f"options.spares_percent[{k!r}]") for k, v in s.items()}
    for k, v in out.items():
        if v > 1000:
            raise ValueError(f"options.spares_percent[{k!r}]: {v} % is not plausible (max 1000)")
    return out


_cord_diameters: dict[str, float] = {}


def cord_diameters() -> dict[str, float]:
    """cord-diameters.yaml: outer diameter in mm by cables.csv type ([S38] where published)."""
    if not _cord_diameters:
        import yaml

        data = yaml.safe_load(CORD_DIAMETERS_FILE.read_text(encoding="utf-8"))
        _cord_diameters.update({str(k): float(v) for k, v in data.items()})
    return dict(_cord_diameters)


def _diameters(d) -> dict[str, float]:
    if not isinstance(d, Mapping):
        raise ValueError("options.cord_diameter_mm: a mapping of cable type to outer diameter in mm, e.g. {trunk: 4.5}")
    out = {}
    for k, v in d.items():
        try:
            mm = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"options.cord_diameter_mm[{k!r}]: {v!r} is not a number") from None
        if isinstance(v, bool) or not 0.5 <= mm <= 50:
            raise ValueError(f"options.cord_diameter_mm[{k!r}]: {v!r} mm is not a cable's diameter (0.5 to 50)")
        out[str(k)] = mm
    return out
