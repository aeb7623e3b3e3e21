"""Catalog reads, custom parts, the price list, presets and the spec schema."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.catalog.models import CustomPart, PartSection, PriceList
from apps.catalog.services import (
    CURRENCY_PATTERN,
    MAX_PRICED_PARTS,
    PRICE_DECIMAL_PLACES,
    PRICE_MAX_DIGITS,
    custom_part_delete,
    custom_part_save,
    decimal_text,
    part_number_problem,
    price_list_save,
    price_version_latest,
)
from engine.orders.money import fmt_money
from engine.presets import list_presets, load_preset
from engine.spec import spec_json_schema

from ..catalog import catalog_entries
from ..output import iso, url
from ..pagination import id_page, page_body
from ..preconditions import IF_MATCH, PRECONDITION_FAILED, check_if_match, part_etag, price_list_etag, with_etag
from ..serializers import MoneyField, PageOut, StrictSerializer, query
from .base import ApiView
from .tokens import PageQuery

CATALOG_SECTIONS = [c.value for c in PartSection]


class CatalogListApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        section = serializers.CharField(help_text="The catalog section listed.")
        catalog_version = serializers.CharField(
            help_text="Version of the shipped catalog (a compute records it in its revision)."
        )
        results = serializers.ListField(
            child=serializers.DictField(),
            help_text=(
                "servers and switches: flat records (key, name, vendor, ...); media sections: "
                "{key, custom, entry} with the entry as in the YAML catalog. `custom` marks your own parts."
            ),
        )

    @extend_schema(
        operation_id="catalog_list",
        responses={200: OutputSerializer},
        tags=["catalog"],
        parameters=[OpenApiParameter("section", OpenApiTypes.STR, OpenApiParameter.PATH, enum=CATALOG_SECTIONS)],
        summary="List one section of the catalog (shipped parts plus your custom parts)",
    )
    def get(self, request, section: str):
        if section not in CATALOG_SECTIONS:
            raise Http404(f"No catalog section {section!r}; known: {', '.join(CATALOG_SECTIONS)}.")
        version, items = catalog_entries(user=request.user, section=section)
        return Response({"section": section, "catalog_version": version, "results": items})


# --- custom parts --------------------------------------------------------------------------------


class PartOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The custom part's id, used in /parts/{part_id}/.")
    url = serializers.URLField(help_text="This part's URL.")
    section = serializers.ChoiceField(choices=CATALOG_SECTIONS, help_text="The catalog section the part belongs to.")
    key = serializers.CharField(help_text="The part's key in its section (what a spec or the BOM names it by).")
    body = serializers.DictField()
    created_at = serializers.DateTimeField(help_text="When the part was added.")
    updated_at = serializers.DateTimeField(help_text="When the part was last replaced.")


def _part_out(request, p: CustomPart) -> dict:
    return {
        "id": p.pk,
        "url": url(request, "part-detail", p.pk),
        "section": p.section,
        "key": p.key,
        "body": p.body,
        "created_at": iso(p.created_at),
        "updated_at": iso(p.updated_at),
    }


class PartInput(StrictSerializer):
    section = serializers.ChoiceField(choices=CATALOG_SECTIONS, help_text="The catalog section the part belongs to.")
    # Not trimmed: the schema's pattern and maxLength then describe exactly the string the server checks.
    key = serializers.CharField(
        max_length=64,
        trim_whitespace=False,
        required=False,
        help_text=("Catalog key of a server or switch (required there); media parts take theirs from the body."),
    )
    body = serializers.DictField(help_text="The entry, in the same shape as the shipped YAML catalog.")


PART_KEY_TAKEN = OpenApiResponse(description="You already have a part of this key in the section (`conflict`).")


class PartListApi(ApiView):
    class OutputSerializer(PageOut):
        results = PartOut(many=True, help_text="Your custom parts on this page, newest first.")

    @extend_schema(
        operation_id="parts_list",
        parameters=[PageQuery],
        responses={200: OutputSerializer},
        tags=["catalog"],
        summary="List your custom parts",
    )
    def get(self, request):
        q = query(PageQuery, request)
        rows, nxt = id_page(CustomPart.objects.filter(owner=request.user), cursor=q.get("cursor"), limit=q["limit"])
        return Response(page_body(request, [_part_out(request, p) for p in rows], nxt, None))

    @extend_schema(
        operation_id="parts_create",
        request=PartInput,
        responses={201: PartOut, 409: PART_KEY_TAKEN},
        tags=["catalog"],
        summary="Add a custom part (validated by the engine's catalog loaders)",
    )
    def post(self, request):
        s = PartInput(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        part = custom_part_save(user=request.user, section=d["section"], key=d.get("key"), body=d["body"])
        return Response(
            _part_out(request, part), status=201, headers={"Location": url(request, "part-detail", part.pk)}
        )


class PartDetailApi(ApiView):
    def _part(self, request, part_id: int) -> CustomPart:
        part = CustomPart.objects.filter(owner=request.user, pk=part_id).first()
        if part is None:
            raise Http404("No such part.")
        return part

    @extend_schema(
        operation_id="parts_retrieve",
        responses={200: PartOut},
        tags=["catalog"],
        summary="Show one of your custom parts",
    )
    def get(self, request, part_id: int):
        part = self._part(request, part_id)
        return with_etag(Response(_part_out(request, part)), part_etag(part))

    def _locked(self, request, part_id: int) -> CustomPart:
        part = CustomPart.objects.select_for_update().filter(owner=request.user, pk=part_id).first()
        if part is None:
            raise Http404("No such part.")
        check_if_match(request, part_etag(part))
        return part

    @extend_schema(
        operation_id="parts_replace",
        request=PartInput,
        parameters=[IF_MATCH],
        responses={200: PartOut, 409: PART_KEY_TAKEN, 412: PRECONDITION_FAILED},
        tags=["catalog"],
        summary="Replace one of your custom parts",
    )
    def put(self, request, part_id: int):
        self._part(request, part_id)
        s = PartInput(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        with transaction.atomic():
            part = self._locked(request, part_id)
            part = custom_part_save(
                user=request.user, section=d["section"], key=d.get("key"), body=d["body"], part=part
            )
        return with_etag(Response(_part_out(request, part)), part_etag(part))

    @extend_schema(
        operation_id="parts_delete",
        parameters=[IF_MATCH],
        responses={204: None, 412: PRECONDITION_FAILED},
        tags=["catalog"],
        summary="Delete one of your custom parts",
    )
    def delete(self, request, part_id: int):
        with transaction.atomic():
            custom_part_delete(part=self._locked(request, part_id))
        return Response(status=204)


# --- price list ----------------------------------------------------------------------------------


class PriceListOut(serializers.Serializer):
    currency = serializers.CharField(help_text="ISO 4217 code of every price of the list.")
    prices = serializers.DictField(child=MoneyField(), help_text="Part number -> unit price.")
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="When the list last changed; null before you have one."
    )
    version = serializers.IntegerField(
        allow_null=True,
        help_text=(
            "The list's version: each change adds one. New revisions are priced with the newest; existing revisions "
            "keep theirs until repriced."
        ),
    )


class PriceListApi(ApiView):
    class InputSerializer(StrictSerializer):
        currency = serializers.RegexField(CURRENCY_PATTERN, default="USD", help_text="ISO 4217 code, e.g. USD.")
        prices = serializers.DictField(
            child=serializers.DecimalField(
                max_digits=PRICE_MAX_DIGITS, decimal_places=PRICE_DECIMAL_PLACES, min_value=Decimal(0)
            ),
            help_text="Part number -> unit price (up to 10 digits before the point, 4 after).",
        )

        def validate_prices(self, value):
            if len(value) > MAX_PRICED_PARTS:
                raise serializers.ValidationError(f"at most {MAX_PRICED_PARTS:,} parts")
            problems = sorted({p for p in map(part_number_problem, value) if p})
            if problems:
                raise serializers.ValidationError("; ".join(problems))
            return value

    @staticmethod
    def _out(pl: PriceList | None) -> dict:
        if pl is None:
            return {"currency": "USD", "prices": {}, "updated_at": None, "version": None}
        latest = price_version_latest(owner=pl.owner)
        return {
            "currency": pl.currency,
            "prices": {k: fmt_money(v) for k, v in pl.prices.items()},
            "updated_at": iso(pl.updated_at),
            "version": latest.number if latest else None,
        }

    @extend_schema(
        operation_id="price_list_retrieve",
        responses={200: PriceListOut},
        tags=["catalog"],
        summary="Your price list (unit prices used in your designs' BOMs)",
    )
    def get(self, request):
        pl = PriceList.objects.filter(owner=request.user).first()
        return with_etag(Response(self._out(pl)), price_list_etag(pl))

    @extend_schema(
        operation_id="price_list_replace",
        request=InputSerializer,
        parameters=[IF_MATCH],
        responses={200: PriceListOut, 412: PRECONDITION_FAILED},
        tags=["catalog"],
        summary="Replace your price list",
    )
    def put(self, request):
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        prices = {k: decimal_text(v) for k, v in s.validated_data["prices"].items()}
        with transaction.atomic():
            if "If-Match" in request.headers:
                # the user's row is the lock: the price list may not exist yet
                type(request.user).objects.select_for_update().filter(pk=request.user.pk).first()
                check_if_match(request, price_list_etag(PriceList.objects.filter(owner=request.user).first()))
            price_list_save(owner=request.user, currency=s.validated_data["currency"], prices=prices)
        pl = PriceList.objects.get(owner=request.user)
        return with_etag(Response(self._out(pl)), price_list_etag(pl))


# --- presets and the spec schema -----------------------------------------------------------------


class PresetListApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        class Item(serializers.Serializer):
            key = serializers.CharField(help_text='The preset\'s key: create a design with {"preset": key}.')
            name = serializers.CharField(help_text="The preset's name.")
            url = serializers.URLField(help_text="URL of the preset's spec (presets_retrieve).")

        results = Item(many=True, help_text="Every preset design.")

    @extend_schema(
        operation_id="presets_list",
        responses={200: OutputSerializer},
        tags=["catalog"],
        summary='List the preset designs (create a design from one with {"preset": key})',
    )
    def get(self, request):
        return Response(
            {
                "results": [
                    {"key": k, "name": n, "url": url(request, "preset-detail", k)} for k, n in list_presets().items()
                ]
            }
        )


class PresetDetailApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        key = serializers.CharField(help_text="The preset's key.")
        spec = serializers.DictField()

    @extend_schema(
        operation_id="presets_retrieve",
        responses={200: OutputSerializer},
        tags=["catalog"],
        summary="The spec of a preset design",
    )
    def get(self, request, key: str):
        if key not in list_presets():
            raise Http404("No such preset.")
        return Response({"key": key, "spec": load_preset(key)})


class SpecSchemaApi(ApiView):
    @extend_schema(
        operation_id="spec_schema_retrieve",
        responses={200: OpenApiTypes.OBJECT},
        tags=["catalog"],
        summary="JSON Schema of a design spec",
    )
    def get(self, request):
        return Response(spec_json_schema())
