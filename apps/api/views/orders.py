"""Purchase orders: a revision's order lines (per network and SU), the ordered baseline, order deltas, the change
order as CSV or PDF, and the lead times a user fills in."""

from __future__ import annotations

import datetime as _dt
import io

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.catalog.services import part_number_problem
from apps.designs.orders import (
    baseline_current,
    baseline_mark,
    baseline_order,
    design_lead_times,
    lead_times_update,
    order_delta_between,
    order_delta_from_baseline,
    revision_order,
    revision_spares_beside,
)
from deliverables.changeorder import iter_change_order_csv, render_change_order_pdf
from engine.orders.failure_rates import DEFAULTS_NOTE, FailureRatePerCategory
from engine.orders.rule_choice import FAILURE_RATE
from engine.orders.spares import PercentPerCategory
from engine.physical_stage import BOM_CATEGORIES

from ..errors import ApiError
from ..output import iso
from ..serializers import MoneyField, StrictSerializer, query
from ..spares_params import SparesQuery, spares_percent_field, spares_rule_of
from .base import ApiView, design_for, revision_for


def _money(**kw):
    return MoneyField(allow_null=True, **kw)


class SparesRuleOut(serializers.Serializer):
    kind = serializers.CharField(help_text='The rule: "percent-per-category" or "failure-rate".')
    percents = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text='percent-per-category: category ("*": any other) -> percent.',
    )
    afr_percent = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text='failure-rate: category ("*": any other) -> annualized failure rate in percent per year.',
    )
    replenish_hours = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="failure-rate: category -> hours until a failed part's replacement is on the shelf.",
    )
    service_level_percent = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="failure-rate: category -> the chance, in percent, that the spares cover every failure meanwhile.",
    )
    text = serializers.CharField(help_text="The rule in words.")


class OrderLineOut(serializers.Serializer):
    part = serializers.CharField(help_text="Orderable part number (the vendor's OPN as the catalog lists it).")
    description = serializers.CharField(
        allow_blank=True, help_text="The part's description from the catalog; empty when it has none."
    )
    category = serializers.ChoiceField(
        choices=BOM_CATEGORIES, help_text="BOM category of the part (switch, transceiver, fiber, ...)."
    )
    category_title = serializers.CharField(help_text="The category's title for people (e.g. Switches).")
    quantity = serializers.IntegerField(help_text="What the design needs.")
    spares = serializers.IntegerField(help_text="Spares of the line under the order's spares rule.")
    spares_rule = serializers.CharField(help_text="How `spares` was worked out, in words.")
    order_quantity = serializers.IntegerField(help_text="quantity + spares")
    unit_price = _money(help_text="From the price-list version `price_version`; null when it has none.")
    extended_price = _money(help_text="unit_price x order_quantity, rounded half-up to the cent.")
    currency = serializers.CharField(
        allow_null=True, help_text="Currency of the prices; null when the line is unpriced."
    )
    price_version = serializers.IntegerField(
        allow_null=True, help_text="Version of the price list the line is priced from; null when unpriced."
    )
    lead_time_days = serializers.IntegerField(allow_null=True, help_text="As filled in (PATCH .../lead-times/).")
    verify_before_ordering = serializers.BooleanField(help_text="The part number or a figure is unconfirmed.")
    unconfirmed = serializers.CharField(allow_blank=True, help_text="What to verify, in words.")


class OrderTotalsOut(serializers.Serializer):
    lines = serializers.IntegerField(help_text="Number of order lines.")
    quantity = serializers.IntegerField(help_text="Sum of the lines' quantities.")
    spares = serializers.IntegerField(help_text="Sum of the lines' spares.")
    order_quantity = serializers.IntegerField(help_text="Sum of the lines' order quantities (quantity + spares).")
    extended_price = _money(help_text="Null unless every line is priced.")
    priced_lines = serializers.IntegerField(
        help_text="Lines with a unit price; extended_price is null unless every line is priced."
    )


class NetworkOrderOut(serializers.Serializer):
    network = serializers.CharField(help_text="compute, storage, inband, oob (or unassigned).")
    title = serializers.CharField(help_text="The network's title (e.g. Compute fabric).")
    lines = OrderLineOut(many=True, help_text="The order lines' share in this network.")
    totals = OrderTotalsOut(help_text="Totals of this network's lines.")


class SuOrderOut(serializers.Serializer):
    su = serializers.CharField(help_text='The SU\'s number, or "outside" for parts of no SU.')
    title = serializers.CharField(help_text="The scalable unit's title (e.g. SU 1; outside: parts of no SU).")
    lines = OrderLineOut(many=True, help_text="The order lines' share in this SU.")
    totals = OrderTotalsOut(help_text="Totals of this SU's lines.")


class OrderOut(serializers.Serializer):
    # A declared field (DRF's serializer class moves it out); the stub takes it for the attribute it shadows.
    label = serializers.CharField(help_text="Which order this is (e.g. r1, r1 (ordered)).")  # type: ignore[assignment]
    currency = serializers.CharField(allow_null=True, help_text="Currency of every price; null when unpriced.")
    price_version = serializers.IntegerField(
        allow_null=True, help_text="Version of the owner's price list the order is priced from; null when unpriced."
    )
    price_source = serializers.CharField(
        allow_blank=True,
        help_text="Where the prices come from, in words (version, date, currency, reprice); empty when unpriced.",
    )
    spares_rule = SparesRuleOut(help_text="The spares rule every line's spares come from.")
    lines = OrderLineOut(many=True, help_text="One line per part.")
    totals = OrderTotalsOut(help_text="Totals of all lines (equal to the BOM's).")
    by_network = NetworkOrderOut(
        many=True,
        help_text=("The same lines per network; each column of each network's lines adds up to the order's line."),
    )
    by_su = SuOrderOut(many=True, help_text='The same lines per SU; "outside" holds the rest, so they add up.')


class RevisionOrderOut(OrderOut):
    revision = serializers.IntegerField(help_text="The revision's number.")
    split_available = serializers.BooleanField(
        help_text=(
            "False when the per-network and per-SU split cannot be worked out again (the revision no longer "
            "recomputes to its stored BOM); by_network and by_su are then empty."
        )
    )


class RevisionOrderApi(ApiView):
    @extend_schema(
        operation_id="revisions_order",
        parameters=[SparesQuery],
        responses={200: RevisionOrderOut},
        tags=["orders"],
        summary="The revision's purchase order: order lines with spares and prices, per network and per SU",
    )
    def get(self, request, design_id: int, number: int):
        rule = spares_rule_of(query(SparesQuery, request))
        rev = revision_for(request, design_id, number)
        order = revision_order(revision=rev, rule=rule)
        return Response({"revision": rev.number, "split_available": bool(order.by_network), **order.to_dict()})


class SparesLineOut(serializers.Serializer):
    part = serializers.CharField(help_text="The part number of the BOM line.")
    category = serializers.ChoiceField(
        choices=BOM_CATEGORIES, help_text="BOM category of the part: the key of the per-category inputs."
    )
    quantity = serializers.IntegerField(help_text="What the design needs.")
    percent = serializers.CharField(help_text="Flat rule: the category's percent.")
    percent_spares = serializers.IntegerField(help_text="Flat rule: ceil(quantity x percent / 100).")
    afr_percent = serializers.CharField(help_text="Failure-rate rule: annualized failure rate, %/year.")
    replenish_hours = serializers.CharField(help_text="Failure-rate rule: replenishment time in hours.")
    service_level_percent = serializers.CharField(help_text="Failure-rate rule: service level in percent.")
    expected_failures = serializers.FloatField(
        help_text="quantity x afr_percent/100 x replenish_hours/8760: failures expected in one replenishment time."
    )
    failure_rate_spares = serializers.IntegerField(
        help_text="The smallest k with P(Poisson(expected_failures) <= k) >= service level."
    )
    failures_per_year = serializers.FloatField(
        help_text="quantity x afr_percent/100: failures expected in a year among the line's installed units."
    )
    defaults = serializers.BooleanField(
        help_text="Every failure-rate input of this category is the shipped placeholder default (not a rate "
        "from any source: set your own)."
    )
    failure_rate_rule = serializers.CharField(help_text="The failure-rate spares in words, with their inputs.")


class RevisionSparesOut(serializers.Serializer):
    revision = serializers.IntegerField(help_text="The revision's number.")
    percent_rule = SparesRuleOut(help_text="The flat percent rule with its inputs.")
    failure_rate_rule = SparesRuleOut(help_text="The failure-rate (Poisson) rule with its inputs.")
    defaults_note = serializers.CharField(help_text="Why the default failure rates are placeholders to set.")
    lines = SparesLineOut(many=True, help_text="One line per BOM line, both rules side by side.")


class SparesBesideQuery(SparesQuery):
    # Both rules, side by side: None removes the inherited field (DRF's way; the stub wants a field).
    spares_rule = None  # type: ignore[assignment]
    spares_percent = spares_percent_field(" Default 0.")


class RevisionSparesApi(ApiView):
    @extend_schema(
        operation_id="revisions_spares",
        parameters=[SparesBesideQuery],
        responses={200: RevisionSparesOut},
        tags=["orders"],
        summary="Spares per BOM line under both rules side by side: the flat percent and the failure-rate "
        "(Poisson) rule, each with its inputs",
    )
    def get(self, request, design_id: int, number: int):
        q = query(SparesBesideQuery, request)
        percent = spares_rule_of({"spares_percent": q.get("spares_percent") or "0"})
        failure = spares_rule_of({**q, "spares_rule": FAILURE_RATE, "spares_percent": ""})
        # Each names its rule outright (a percent is given), so neither is the default (None) nor the other rule.
        assert isinstance(percent, PercentPerCategory) and isinstance(failure, FailureRatePerCategory)
        rev = revision_for(request, design_id, number)
        return Response(
            {
                "revision": rev.number,
                "percent_rule": {**percent.to_dict(), "text": percent.describe()},
                "failure_rate_rule": {**failure.to_dict(), "text": failure.describe()},
                "defaults_note": DEFAULTS_NOTE,
                "lines": revision_spares_beside(revision=rev, percent=percent, failure=failure),
            }
        )


class DeltaSideOut(serializers.Serializer):
    quantity = serializers.IntegerField(help_text="The line's quantity on this side.")
    spares = serializers.IntegerField(help_text="Its spares on this side.")
    spares_rule = serializers.CharField(help_text="How this side's spares were worked out, in words.")
    order_quantity = serializers.IntegerField(help_text="quantity + spares on this side.")
    unit_price = _money(help_text="Unit price from this side's price-list version, or null.")
    extended_price = _money(help_text="unit_price x order_quantity, rounded half-up to the cent, or null.")


class DeltaFiguresOut(serializers.Serializer):
    quantity = serializers.IntegerField(help_text="new - old quantity (a missing side counts 0).")
    spares = serializers.IntegerField(help_text="new - old spares.")
    order_quantity = serializers.IntegerField(help_text="new - old order quantity.")
    extended_price = _money(help_text="Null when a side is unpriced or the two currencies differ.")


class LineDeltaOut(serializers.Serializer):
    part = serializers.CharField(help_text="The part number.")
    description = serializers.CharField(
        allow_blank=True, help_text="The part's description from the catalog; empty when it has none."
    )
    category = serializers.ChoiceField(choices=BOM_CATEGORIES, help_text="BOM category of the part.")
    category_title = serializers.CharField(help_text="The category's title for people.")
    status = serializers.ChoiceField(
        choices=["added", "removed", "changed", "unchanged"],
        help_text="added (only in new), removed (only in old), changed or unchanged.",
    )
    old = DeltaSideOut(allow_null=True, help_text="Null for a part added.")
    new = DeltaSideOut(allow_null=True, help_text="Null for a part removed.")
    delta = DeltaFiguresOut(help_text="new - old; a missing side counts as 0.")
    lead_time_days = serializers.IntegerField(
        allow_null=True, help_text="The lead time filled in for the part (designs_lead_times_update), or null."
    )


class DeltaTotalsOut(DeltaFiguresOut):
    added = serializers.IntegerField(help_text="Lines only in new.")
    removed = serializers.IntegerField(help_text="Lines only in old.")
    changed = serializers.IntegerField(help_text="Lines in both whose figures differ.")
    unchanged = serializers.IntegerField(help_text="Lines in both with equal figures.")


class NetworkDeltaOut(serializers.Serializer):
    network = serializers.CharField(help_text="The network (compute, storage, inband, oob).")
    title = serializers.CharField(help_text="The network's title for people.")
    lines = LineDeltaOut(many=True, help_text="The changed lines' share in this network.")
    totals = DeltaTotalsOut(help_text="Totals of this network's lines.")


class SuDeltaOut(serializers.Serializer):
    su = serializers.CharField(help_text="The scalable unit's key (outside: parts of no SU).")
    title = serializers.CharField(help_text="The SU's title for people.")
    lines = LineDeltaOut(many=True, help_text="The changed lines' share in this SU.")
    totals = DeltaTotalsOut(help_text="Totals of this SU's lines.")


class OrderSideOut(serializers.Serializer):
    # A declared field (DRF's serializer class moves it out); the stub takes it for the attribute it shadows.
    label = serializers.CharField(help_text="Which order this side is (e.g. r1 (ordered), r2).")  # type: ignore[assignment]
    currency = serializers.CharField(allow_null=True, help_text="Currency of this side's prices; null when unpriced.")
    price_version = serializers.IntegerField(
        allow_null=True, help_text="Price-list version this side is priced from; null when unpriced."
    )
    price_source = serializers.CharField(
        allow_blank=True, help_text="Where this side's prices come from, in words; empty when unpriced."
    )
    spares_rule = SparesRuleOut(help_text="The spares rule of this side.")
    totals = OrderTotalsOut(help_text="This side's order totals.")


class OrderDeltaOut(serializers.Serializer):
    old = OrderSideOut(help_text="The old side: a revision or the ordered baseline.")
    new = OrderSideOut(help_text="The new side: a revision.")
    currency = serializers.CharField(allow_null=True, help_text="Null when money changes are not given.")
    lines = LineDeltaOut(many=True, help_text="One line per part of either side.")
    totals = DeltaTotalsOut(help_text="Totals of the deltas, with the count of lines per status.")
    by_network = NetworkDeltaOut(many=True, help_text="The same delta per network.")
    by_su = SuDeltaOut(many=True, help_text="The same delta per scalable unit.")


class DeltaQuery(SparesQuery):
    old = serializers.CharField(
        max_length=12,
        help_text='Older revision number, or "ordered" for the design\'s '
        "ordered baseline (its frozen order and spares rule).",
    )
    new = serializers.IntegerField(min_value=1, max_value=999_999_999, help_text="Newer revision number.")


def _delta(request, design_id: int, q: dict):
    rule = spares_rule_of(q)
    design = design_for(request, design_id)
    new = revision_for(request, design_id, q["new"])
    if q["old"] == "ordered":
        baseline = baseline_current(design=design)
        if baseline is None:
            raise ApiError(
                404,
                "no_baseline",
                "No revision of this design is marked ordered yet.",
                [{"path": "old", "message": "no ordered baseline"}],
            )
        return design, order_delta_from_baseline(baseline=baseline, new=new, rule=rule), q
    if not q["old"].isdigit() or not 1 <= int(q["old"]) <= 999_999_999:
        raise ApiError(
            400,
            "invalid",
            'old: a revision number or "ordered"',
            [{"path": "old", "message": 'a revision number or "ordered"'}],
        )
    old = revision_for(request, design_id, int(q["old"]))
    return design, order_delta_between(old=old, new=new, rule=rule), q


class OrderDeltaApi(ApiView):
    @extend_schema(
        operation_id="designs_order_delta",
        parameters=[DeltaQuery],
        responses={200: OrderDeltaOut},
        tags=["orders"],
        summary="Order changes from one revision (or the ordered baseline) to another: "
        "quantity, spares, order quantity and money, per network and SU",
    )
    def get(self, request, design_id: int):
        _design, delta, _q = _delta(request, design_id, query(DeltaQuery, request))
        return Response(delta.to_dict())


class ChangeOrderQuery(DeltaQuery):
    page_size = serializers.ChoiceField(choices=["a4", "letter"], required=False, help_text="PDF page size.")
    csv = serializers.ChoiceField(
        choices=["safe", "raw"],
        required=False,
        default="safe",
        help_text=(
            "CSV: safe (default) writes a text cell beginning with = + - @ with a leading ' so spreadsheets show it "
            "as text; raw writes cells unchanged."
        ),
    )


def _change_order(request, design_id: int, fmt: str) -> HttpResponse:
    design, delta, q = _delta(request, design_id, query(ChangeOrderQuery, request))
    old = "ordered" if q["old"] == "ordered" else f"r{q['old']}"
    name = f"design-{design.pk}-change-order-{old}-to-r{q['new']}.{fmt}"
    if fmt == "csv":
        response = HttpResponse(
            "".join(iter_change_order_csv(delta, raw=q["csv"] == "raw")), content_type="text/csv; charset=utf-8"
        )
    else:
        fh = io.BytesIO()
        render_change_order_pdf(
            delta, fh, design=design.name, date=_dt.date.today().isoformat(), page=q.get("page_size", "a4")
        )
        response = HttpResponse(fh.getvalue(), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


class ChangeOrderCsvApi(ApiView):
    @extend_schema(
        operation_id="designs_change_order_csv",
        parameters=[ChangeOrderQuery],
        responses={(200, "text/csv"): OpenApiTypes.BINARY},
        tags=["orders"],
        summary="change-order.csv: the order changes (layout: docs/deliverables.md)",
    )
    def get(self, request, design_id: int):
        return _change_order(request, design_id, "csv")


class ChangeOrderPdfApi(ApiView):
    @extend_schema(
        operation_id="designs_change_order_pdf",
        parameters=[ChangeOrderQuery],
        responses={(200, "application/pdf"): OpenApiTypes.BINARY},
        tags=["orders"],
        summary="change-order.pdf: the change order a buyer sends",
    )
    def get(self, request, design_id: int):
        return _change_order(request, design_id, "pdf")


class BaselineOut(serializers.Serializer):
    revision = serializers.IntegerField(help_text="Number of the revision marked ordered.")
    marked_at = serializers.DateTimeField(help_text="When it was marked ordered.")
    marked_by = serializers.CharField(
        allow_null=True, help_text="Username of who marked it; null when that account is gone."
    )
    order = OrderOut(help_text="The order as it was marked: frozen, with its prices and spares rule.")


def _baseline_out(b) -> dict:
    return {
        "revision": b.revision.number,
        "marked_at": iso(b.at),
        "marked_by": b.by.get_username() if b.by_id else None,
        "order": baseline_order(b).to_dict(),
    }


class MarkOrderedIn(SparesQuery):
    """The spares rule the order is frozen with (the same fields as the order's query)."""


class RevisionOrderedApi(ApiView):
    @extend_schema(
        operation_id="revisions_mark_ordered",
        request=MarkOrderedIn,
        responses={201: BaselineOut},
        tags=["orders"],
        summary="Mark this revision ordered: its order (with this spares rule and its "
        "price-list version) becomes the design's baseline (needs write access)",
    )
    def post(self, request, design_id: int, number: int):
        s = MarkOrderedIn(data=request.data)
        s.is_valid(raise_exception=True)
        rule = spares_rule_of(s.validated_data)
        design_for(request, design_id, write=True)
        rev = revision_for(request, design_id, number)
        return Response(_baseline_out(baseline_mark(revision=rev, user=request.user, rule=rule)), status=201)


class DesignBaselineApi(ApiView):
    @extend_schema(
        operation_id="designs_ordered_baseline",
        responses={200: BaselineOut, 404: OpenApiResponse(description="No revision is marked ordered.")},
        tags=["orders"],
        summary="The design's ordered baseline: the newest revision marked ordered, as ordered",
    )
    def get(self, request, design_id: int):
        baseline = baseline_current(design=design_for(request, design_id))
        if baseline is None:
            raise ApiError(404, "no_baseline", "No revision of this design is marked ordered yet.")
        return Response(_baseline_out(baseline))


class LeadTimesIo(StrictSerializer):
    lead_times = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=3650, allow_null=True),
        help_text="Part number -> lead time in days; null clears it.",
    )

    def validate_lead_times(self, value):
        for part in value:
            problem = part_number_problem(part)
            if problem:
                raise serializers.ValidationError(f"{part[:64]!r}: {problem}")
        if len(value) > 2000:
            raise serializers.ValidationError("at most 2000 parts at once")
        return value


class LeadTimesApi(ApiView):
    @extend_schema(
        operation_id="designs_lead_times",
        responses={200: LeadTimesIo},
        tags=["orders"],
        summary="The lead times filled in for this design's parts",
    )
    def get(self, request, design_id: int):
        return Response({"lead_times": design_lead_times(design=design_for(request, design_id))})

    @extend_schema(
        operation_id="designs_lead_times_update",
        request=LeadTimesIo,
        responses={200: LeadTimesIo},
        tags=["orders"],
        summary="Fill in (or clear, with null) lead times per part (needs write access)",
    )
    def patch(self, request, design_id: int):
        s = LeadTimesIo(data=request.data)
        s.is_valid(raise_exception=True)
        design = design_for(request, design_id, write=True)
        return Response({"lead_times": lead_times_update(design=design, values=s.validated_data["lead_times"])})
