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

from apps.designs.orders import (
    baseline_current,
    baseline_mark,
    baseline_order,
    design_lead_times,
    lead_times_update,
    order_delta_between,
    order_delta_from_baseline,
    revision_order,
)
from apps.exports.renderers.changeorder import iter_change_order_csv, render_change_order_pdf
from engine.orders.spares import SparesRule, parse_percents, spares_rule_from_dict

from ..errors import ApiError
from ..output import iso
from ..serializers import MoneyField, StrictSerializer, query
from .base import ApiView, design_for, revision_for

SPARES_HELP = (
    'Spares per line in percent, rounded up to whole parts: one number for every category ("5") or '
    'category:percent pairs ("transceiver:2,fiber:5,*:1"; "*" is every other category).'
)


def _money(**kw):
    return MoneyField(allow_null=True, **kw)


class SparesRuleOut(serializers.Serializer):
    kind = serializers.CharField(help_text='The rule: "percent-per-category" (more kinds may come).')
    percents = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text='percent-per-category: category ("*": any other) -> percent.',
    )
    text = serializers.CharField(help_text="The rule in words.")


class OrderLineOut(serializers.Serializer):
    part = serializers.CharField(help_text="Orderable part number (the vendor's OPN as the catalog lists it).")
    description = serializers.CharField(allow_blank=True)
    category = serializers.CharField()
    category_title = serializers.CharField()
    quantity = serializers.IntegerField(help_text="What the design needs.")
    spares = serializers.IntegerField()
    spares_rule = serializers.CharField(help_text="How `spares` was worked out, in words.")
    order_quantity = serializers.IntegerField(help_text="quantity + spares")
    unit_price = _money(help_text="From the price-list version `price_version`; null when it has none.")
    extended_price = _money(help_text="unit_price x order_quantity, rounded half-up to the cent.")
    currency = serializers.CharField(allow_null=True)
    price_version = serializers.IntegerField(allow_null=True)
    lead_time_days = serializers.IntegerField(allow_null=True, help_text="As filled in (PATCH .../lead-times/).")
    verify_before_ordering = serializers.BooleanField(help_text="The part number or a figure is unconfirmed.")
    unconfirmed = serializers.CharField(allow_blank=True, help_text="What to verify, in words.")


class OrderTotalsOut(serializers.Serializer):
    lines = serializers.IntegerField()
    quantity = serializers.IntegerField()
    spares = serializers.IntegerField()
    order_quantity = serializers.IntegerField()
    extended_price = _money(help_text="Null unless every line is priced.")
    priced_lines = serializers.IntegerField()


class NetworkOrderOut(serializers.Serializer):
    network = serializers.CharField(help_text="compute, storage, inband, oob (or unassigned).")
    title = serializers.CharField()
    lines = OrderLineOut(many=True)
    totals = OrderTotalsOut()


class SuOrderOut(serializers.Serializer):
    su = serializers.CharField(help_text='The SU\'s number, or "outside" for parts of no SU.')
    title = serializers.CharField()
    lines = OrderLineOut(many=True)
    totals = OrderTotalsOut()


class OrderOut(serializers.Serializer):
    label = serializers.CharField()
    currency = serializers.CharField(allow_null=True)
    price_version = serializers.IntegerField(allow_null=True)
    price_source = serializers.CharField(allow_blank=True)
    spares_rule = SparesRuleOut()
    lines = OrderLineOut(many=True)
    totals = OrderTotalsOut()
    by_network = NetworkOrderOut(
        many=True,
        help_text=("The same lines per network; each column of each network's lines adds up to the order's line."),
    )
    by_su = SuOrderOut(many=True, help_text='The same lines per SU; "outside" holds the rest, so they add up.')


class RevisionOrderOut(OrderOut):
    revision = serializers.IntegerField()
    split_available = serializers.BooleanField(
        help_text=(
            "False when the per-network and per-SU split cannot be worked out again (the revision no longer "
            "recomputes to its stored BOM); by_network and by_su are then empty."
        )
    )


class SparesQuery(StrictSerializer):
    spares_percent = serializers.CharField(required=False, max_length=400, help_text=SPARES_HELP)


def _rule(q: dict) -> SparesRule | None:
    raw = q.get("spares_percent")
    if raw is None:
        return None
    try:
        return spares_rule_from_dict({"kind": "percent-per-category", "percents": parse_percents(raw)})
    except ValueError as exc:
        raise ApiError(400, "invalid", str(exc), [{"path": "spares_percent", "message": str(exc)}]) from None


class RevisionOrderApi(ApiView):
    @extend_schema(
        operation_id="revisions_order",
        parameters=[SparesQuery],
        responses={200: RevisionOrderOut},
        tags=["orders"],
        summary="The revision's purchase order: order lines with spares and prices, per network and per SU",
    )
    def get(self, request, design_id: int, number: int):
        rule = _rule(query(SparesQuery, request))
        rev = revision_for(request, design_id, number)
        order = revision_order(revision=rev, rule=rule)
        return Response({"revision": rev.number, "split_available": bool(order.by_network), **order.to_dict()})


class DeltaSideOut(serializers.Serializer):
    quantity = serializers.IntegerField()
    spares = serializers.IntegerField()
    spares_rule = serializers.CharField()
    order_quantity = serializers.IntegerField()
    unit_price = _money()
    extended_price = _money()


class DeltaFiguresOut(serializers.Serializer):
    quantity = serializers.IntegerField()
    spares = serializers.IntegerField()
    order_quantity = serializers.IntegerField()
    extended_price = _money(help_text="Null when a side is unpriced or the two currencies differ.")


class LineDeltaOut(serializers.Serializer):
    part = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    category = serializers.CharField()
    category_title = serializers.CharField()
    status = serializers.ChoiceField(choices=["added", "removed", "changed", "unchanged"])
    old = DeltaSideOut(allow_null=True, help_text="Null for a part added.")
    new = DeltaSideOut(allow_null=True, help_text="Null for a part removed.")
    delta = DeltaFiguresOut(help_text="new - old; a missing side counts as 0.")
    lead_time_days = serializers.IntegerField(allow_null=True)


class DeltaTotalsOut(DeltaFiguresOut):
    added = serializers.IntegerField()
    removed = serializers.IntegerField()
    changed = serializers.IntegerField()
    unchanged = serializers.IntegerField()


class NetworkDeltaOut(serializers.Serializer):
    network = serializers.CharField()
    title = serializers.CharField()
    lines = LineDeltaOut(many=True)
    totals = DeltaTotalsOut()


class SuDeltaOut(serializers.Serializer):
    su = serializers.CharField()
    title = serializers.CharField()
    lines = LineDeltaOut(many=True)
    totals = DeltaTotalsOut()


class OrderSideOut(serializers.Serializer):
    label = serializers.CharField()
    currency = serializers.CharField(allow_null=True)
    price_version = serializers.IntegerField(allow_null=True)
    price_source = serializers.CharField(allow_blank=True)
    spares_rule = SparesRuleOut()
    totals = OrderTotalsOut()


class OrderDeltaOut(serializers.Serializer):
    old = OrderSideOut()
    new = OrderSideOut()
    currency = serializers.CharField(allow_null=True, help_text="Null when money changes are not given.")
    lines = LineDeltaOut(many=True)
    totals = DeltaTotalsOut()
    by_network = NetworkDeltaOut(many=True)
    by_su = SuDeltaOut(many=True)


class DeltaQuery(SparesQuery):
    old = serializers.CharField(
        max_length=12,
        help_text='Older revision number, or "ordered" for the design\'s '
        "ordered baseline (its frozen order and spares rule).",
    )
    new = serializers.IntegerField(min_value=1, max_value=999_999_999, help_text="Newer revision number.")


def _delta(request, design_id: int, q: dict):
    rule = _rule(q)
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
    revision = serializers.IntegerField()
    marked_at = serializers.DateTimeField()
    marked_by = serializers.CharField(allow_null=True)
    order = OrderOut(help_text="The order as it was marked: frozen, with its prices and spares rule.")


def _baseline_out(b) -> dict:
    return {
        "revision": b.revision.number,
        "marked_at": iso(b.at),
        "marked_by": b.by.get_username() if b.by_id else None,
        "order": baseline_order(b).to_dict(),
    }


class MarkOrderedIn(StrictSerializer):
    spares_percent = serializers.CharField(required=False, max_length=400, help_text=SPARES_HELP)


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
        rule = _rule(s.validated_data)
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
            if not part or len(part) > 64:
                raise serializers.ValidationError(f"{part[:64]!r}: a part number of 1 to 64 characters")
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
