"""Revisions and their results: summary, BOM, links, cables, loss budgets, fibers, warnings, BOM difference."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from apps.common.hot_cache import immutable_body
from apps.common.http_cache import conditional, query_key, revision_etag
from apps.designs.models import Revision
from apps.designs.pricing import PriceListMissing, revision_reprice
from apps.designs.selectors import design_get, revision_halls, revision_head
from apps.designs.tables import (
    CABLE_SORTS,
    LINK_SORTS,
    MAX_CURSOR_CHARS,
    MAX_HALL,
    MAX_LIMIT,
    cable_page,
    link_facets,
    link_page,
)
from engine.model import ALL_TIERS, NETWORKS
from engine.physical_stage import BOM_CATEGORIES, CABLE_KINDS

from ..downloads import IF_NONE_MATCH, NOT_MODIFIED
from ..errors import ApiError
from ..output import revision_out
from ..pagination import id_page, page_body
from ..results import LINK_MEDIA, LINK_STATUSES, bom_diff, revision_bom, revision_loss_budget
from ..serializers import MoneyField, PageOut, RevisionOut, RevisionPageOut, StrictSerializer, query
from ..spares_params import SparesQuery, spares_rule_of
from .base import ApiView, design_for, revision_for
from .orders import SparesRuleOut
from .tokens import PageQuery

STATUS_HELP = "Loss-budget verdict (n/a: copper, no optical budget; no-medium: no part fits the link)."


def _revision(request, design_id: int, number: int, *, rows_only: bool = False) -> Revision:
    # Link and cable pages need only the revision's id: skip loading its JSON and its design's.
    return revision_for(request, design_id, number, bare=rows_only)


class RevisionListApi(ApiView):
    @extend_schema(
        operation_id="revisions_list",
        parameters=[PageQuery],
        responses={200: RevisionPageOut},
        tags=["revisions"],
        summary="A design's computed revisions, newest first",
    )
    def get(self, request, design_id: int):
        design = design_for(request, design_id)
        q = query(PageQuery, request)
        qs = Revision.objects.filter(design=design).select_related("created_by").defer("spec")
        rows, nxt = id_page(qs, cursor=q.get("cursor"), limit=q["limit"], key="number")
        return Response(page_body(request, [revision_out(request, r) for r in rows], nxt, None))


class RevisionDetailApi(ApiView):
    class OutputSerializer(RevisionOut):
        spec = serializers.DictField(help_text="The spec this revision was computed from.")

    @extend_schema(
        operation_id="revisions_retrieve",
        responses={200: OutputSerializer},
        tags=["revisions"],
        summary="A revision: versions, counts and the spec it was computed from",
    )
    def get(self, request, design_id: int, number: int):
        rev = _revision(request, design_id, number)
        return Response({**revision_out(request, rev), "spec": rev.spec})


class RevisionSummaryApi(ApiView):
    @extend_schema(
        operation_id="revisions_summary",
        parameters=[IF_NONE_MATCH],
        responses={200: OpenApiTypes.OBJECT, 304: NOT_MODIFIED},
        tags=["revisions"],
        summary="The revision's summary.json (layout: docs/summary.md); immutable, with an ETag",
    )
    def get(self, request, design_id: int, number: int):
        rev = _revision(request, design_id, number)
        return conditional(request, revision_etag(rev, "summary"), lambda: Response(rev.summary))


class RevisionWarningsApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        revision = serializers.IntegerField(help_text="The revision's number.")
        warnings = serializers.ListField(
            child=serializers.CharField(), help_text="The engine's design warnings, one sentence each; empty when none."
        )

    @extend_schema(
        operation_id="revisions_warnings",
        responses={200: OutputSerializer},
        tags=["revisions"],
        summary="Design warnings of the revision",
    )
    def get(self, request, design_id: int, number: int):
        rev = _revision(request, design_id, number)
        return Response({"revision": rev.number, "warnings": list((rev.summary or {}).get("warnings") or [])})


class FiberCountOut(serializers.Serializer):
    active = serializers.IntegerField(help_text="Strands carrying light: 2 per optical lane.")
    installed = serializers.IntegerField(help_text="Strands installed: active + dark + spare.")
    dark = serializers.IntegerField(help_text="Strands of installed trunks that no lane uses.")
    spare = serializers.IntegerField(help_text="Strands installed as spares for growth or repair.")


class RevisionFibersApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        revision = serializers.IntegerField(help_text="The revision's number.")
        total = FiberCountOut(
            allow_null=True, help_text="All networks together; null for a revision with no fiber figures."
        )
        per_network = serializers.DictField(
            child=FiberCountOut(), help_text="Per network (compute, storage, inband, oob)."
        )
        per_tier = serializers.DictField(child=FiberCountOut(), help_text="Per tier (node-leaf, leaf-spine, ...).")

    @extend_schema(
        operation_id="revisions_fibers",
        responses={200: OutputSerializer},
        tags=["revisions"],
        summary="Fiber totals: active, installed, dark and spare strands",
    )
    def get(self, request, design_id: int, number: int):
        rev = _revision(request, design_id, number)
        f = (rev.summary or {}).get("fibers") or {}
        return Response(
            {
                "revision": rev.number,
                "total": f.get("total"),
                "per_network": f.get("per_network") or {},
                "per_tier": f.get("per_tier") or {},
            }
        )


class BomQuery(SparesQuery):
    category = serializers.CharField(max_length=32, required=False, help_text="Only lines of this category.")


class BomLineOut(serializers.Serializer):
    part = serializers.CharField(help_text="The part number (a catalog key).")
    description = serializers.CharField(
        allow_blank=True, help_text="The part's description from the catalog; empty when it has none."
    )
    category = serializers.ChoiceField(
        choices=BOM_CATEGORIES,
        help_text="BOM category of the part (switch, transceiver, fiber, ...): the category filter's values.",
    )
    quantity = serializers.IntegerField(help_text="Parts the design needs.")
    spares = serializers.IntegerField(help_text="Spares under the spares rule asked for.")
    order_quantity = serializers.IntegerField(help_text="quantity + spares")
    unit_price = MoneyField(allow_null=True, help_text="From the revision's price-list version, or null.")
    total = MoneyField(allow_null=True, help_text="unit_price x order_quantity, rounded half-up to the cent, or null.")
    watts = serializers.FloatField(allow_null=True, help_text="Maximum power of the line (all units), or null.")
    verify_before_ordering = serializers.BooleanField(
        help_text="True when the part number or a figure of this line is only from a secondary source."
    )
    unconfirmed = serializers.CharField(allow_blank=True, help_text="Why the line is to be verified, or empty.")


class MissingLinksOut(serializers.Serializer):
    network = serializers.ChoiceField(choices=NETWORKS, help_text="The network of the links without a part.")
    tier = serializers.ChoiceField(choices=ALL_TIERS, help_text="Their tier.")
    links = serializers.IntegerField(help_text="Links of this network and tier that have no part.")
    reason = serializers.CharField(allow_blank=True, help_text="Why no catalog part fits (the first case found).")


class RevisionBomApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        class Totals(serializers.Serializer):
            lines = serializers.IntegerField(help_text="Number of lines.")
            quantity = serializers.IntegerField(help_text="Sum of the quantities.")
            spares = serializers.IntegerField(help_text="Sum of the spares.")
            price = MoneyField(allow_null=True, help_text="Null unless every line has a price.")
            priced_lines = serializers.IntegerField(help_text="Lines with a unit price.")
            watts = serializers.FloatField(help_text="Sum of the lines' maximum power, in watts.")

        revision = serializers.IntegerField(help_text="The revision's number.")
        currency = serializers.CharField(
            allow_null=True,
            help_text=(
                "The price-list version's currency; null when the owner had no price list when it was computed."
            ),
        )
        price_version = serializers.IntegerField(
            allow_null=True,
            help_text=(
                "The owner's price-list version these prices come from: the one in force when the revision was "
                "computed, unless it was repriced (POST .../reprice/). A later price change never alters it silently."
            ),
        )
        price_version_created_at = serializers.DateTimeField(
            allow_null=True, help_text="When that price-list version was made; null when unpriced."
        )
        repriced_at = serializers.DateTimeField(allow_null=True, help_text="When it was last repriced; null if never.")
        repriced_by = serializers.CharField(
            allow_null=True, help_text="Username of who last repriced the revision; null when never repriced."
        )
        spares_percent = serializers.CharField(
            help_text='The percent rule in the spares_percent grammar ("5", "transceiver:2,*:1"); "0" under the '
            "failure-rate rule or with no spares."
        )
        spares_rule = SparesRuleOut(help_text="The rule the spares follow, with its inputs.")
        complete = serializers.BooleanField(
            help_text="False when some link has no part: then the lines lack those links' parts (see missing)."
        )
        links_without_part = serializers.IntegerField(
            help_text="Links for which no catalog part fits (then complete is false)."
        )
        missing = MissingLinksOut(many=True, help_text="Links without a part, per network and tier.")
        lines = BomLineOut(many=True, help_text="One line per part.")
        totals = Totals(help_text="Totals of the lines.")

    @extend_schema(
        operation_id="revisions_bom",
        parameters=[BomQuery, IF_NONE_MATCH],
        responses={200: OutputSerializer, 304: NOT_MODIFIED},
        tags=["revisions"],
        summary="Bill of materials with spares and prices (the revision's price-list "
        "version); with an ETag, revalidated (a reprice changes it)",
    )
    def get(self, request, design_id: int, number: int):
        q = query(BomQuery, request)
        rule = spares_rule_of(q)
        # One hand-written query (access, identity and the price version): every client asks this often.
        head = revision_head(user=request.user, design_id=design_id, number=number, pricing=True)
        etag = revision_etag(head, "bom", query_key(request), head.pricing_key)

        def render() -> bytes:
            rev = revision_for(request, design_id, number, defer=("spec",))
            bom = revision_bom(revision=rev, rule=rule, category=q.get("category"))
            return JSONRenderer().render(bom)

        def produce():
            # The tag names everything the answer depends on, so the rendered answer is kept under it (in this
            # process, and in Redis with REDIS_URL): a hit is bytes, and the revision is read whole only on a miss.
            body = immutable_body(f"api:bom-json:{etag}", render, timeout=86400)
            return HttpResponse(body, content_type="application/json")

        return conditional(request, etag, produce, immutable=False)


class RevisionRepriceApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        revision = serializers.IntegerField(help_text="The revision's number.")
        price_version = serializers.IntegerField(help_text="The price-list version the revision is now priced from.")
        price_version_created_at = serializers.DateTimeField(help_text="When that version was made.")
        repriced_at = serializers.DateTimeField(allow_null=True, help_text="Null when it already used that version.")
        repriced_by = serializers.CharField(allow_null=True, help_text="Username of who repriced it.")

    @extend_schema(
        operation_id="revisions_reprice",
        request=None,
        responses={200: OutputSerializer, 409: OpenApiResponse(description="The design's owner has no price list.")},
        tags=["revisions"],
        summary="Price this revision with its owner's newest price-list version from now on "
        "(recorded; needs write access)",
    )
    def post(self, request, design_id: int, number: int):
        design_get(user=request.user, design_id=design_id, write=True)
        rev = _revision(request, design_id, number)
        try:
            pricing = revision_reprice(revision=rev, user=request.user)
        except PriceListMissing as exc:
            raise ApiError(409, "no_price_list", str(exc)) from None
        return Response({"revision": rev.number, **pricing.to_dict()})


class BomDiffApi(ApiView):
    class QuerySerializer(StrictSerializer):
        old = serializers.IntegerField(min_value=1, max_value=2_000_000_000, help_text="Older revision number.")
        new = serializers.IntegerField(min_value=1, max_value=2_000_000_000, help_text="Newer revision number.")

    class OutputSerializer(serializers.Serializer):
        class Part(serializers.Serializer):
            part = serializers.CharField(help_text="The part number.")
            description = serializers.CharField(
                allow_blank=True, help_text="The part's description; empty when it has none."
            )
            category = serializers.ChoiceField(choices=BOM_CATEGORIES, help_text="BOM category of the part.")
            quantity = serializers.IntegerField(help_text="Its quantity in the revision that has it.")

        class Changed(serializers.Serializer):
            part = serializers.CharField(help_text="The part number.")
            description = serializers.CharField(
                allow_blank=True, help_text="The part's description; empty when it has none."
            )
            category = serializers.ChoiceField(choices=BOM_CATEGORIES, help_text="BOM category of the part.")
            old_quantity = serializers.IntegerField(help_text="Quantity in the old revision.")
            new_quantity = serializers.IntegerField(help_text="Quantity in the new revision.")
            delta = serializers.IntegerField(help_text="new_quantity - old_quantity.")

        old = serializers.IntegerField(help_text="The old revision's number.")
        new = serializers.IntegerField(help_text="The new revision's number.")
        added = Part(many=True, help_text="Parts only in the new revision.")
        removed = Part(many=True, help_text="Parts only in the old revision.")
        changed = Changed(many=True, help_text="Parts in both with another quantity.")
        unchanged = serializers.IntegerField(help_text="Parts with the same quantity in both.")

    @extend_schema(
        operation_id="designs_bom_diff",
        parameters=[QuerySerializer],
        responses={200: OutputSerializer},
        tags=["revisions"],
        summary="BOM difference between two revisions: parts added, removed, changed",
    )
    def get(self, request, design_id: int):
        q = query(self.QuerySerializer, request)
        old = _revision(request, design_id, q["old"])
        new = _revision(request, design_id, q["new"])
        return Response(bom_diff(old=old, new=new))


class RevisionLossBudgetApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        class Worst(serializers.Serializer):
            link_id = serializers.IntegerField(
                help_text="The link's number in the revision (L000001 in links.csv is 1)."
            )
            network = serializers.CharField(help_text="The link's network.")
            tier = serializers.CharField(help_text="The link's tier.")
            a_device = serializers.CharField(help_text="Device at end a.")
            a_port = serializers.CharField(help_text="Port at end a.")
            b_device = serializers.CharField(help_text="Device at end b.")
            b_port = serializers.CharField(help_text="Port at end b.")
            length_m = serializers.FloatField(help_text="Cable run length, in metres.")
            medium = serializers.CharField(
                allow_blank=True,
                help_text="The link's medium (the links filter's medium values); empty when no part fits.",
            )
            a_part = serializers.CharField(
                allow_blank=True, help_text="Transceiver or cable part at end a; empty when none."
            )
            b_part = serializers.CharField(
                allow_blank=True, help_text="Transceiver or cable part at end b; empty when none."
            )
            loss_db = serializers.FloatField(
                allow_null=True, help_text="Expected channel loss, in dB; null without an optical budget."
            )
            margin_db = serializers.FloatField(
                allow_null=True,
                help_text="Budget minus expected loss, in dB (negative: fails); null without an optical budget.",
            )
            status = serializers.CharField(
                allow_blank=True, help_text="Loss verdict: pass, marginal, fail, n/a or no-medium."
            )

        revision = serializers.IntegerField(help_text="The revision's number.")

        class Counts(serializers.Serializer):
            pass_ = serializers.IntegerField(help_text="Links within budget with margin.")
            marginal = serializers.IntegerField(
                help_text="Links that pass with less margin than the marginal threshold."
            )
            # A declared field (DRF's serializer class moves it out); the stub takes it for the attribute it shadows.
            fail = serializers.IntegerField(help_text="Links whose expected loss exceeds their budget.")  # type: ignore[assignment]
            n_a = serializers.IntegerField(help_text="Copper links: no optical budget (status n/a).")
            no_medium = serializers.IntegerField(help_text="Links no part fits (status no-medium).")

            def get_fields(self):
                # the link `status` values as keys, some of which are not Python names
                fields = super().get_fields()
                return {
                    "pass": fields.pop("pass_"),
                    "n/a": fields.pop("n_a"),
                    "no-medium": fields.pop("no_medium"),
                    **fields,
                }

        counts = Counts(help_text="Links per verdict, keyed by the links' `status` values (the ?status= filter).")
        worst_links = Worst(many=True, help_text="The optical links with the least margin, least first.")

    @extend_schema(
        operation_id="revisions_loss_budget",
        responses={200: OutputSerializer},
        tags=["revisions"],
        summary="Loss-budget verdict counts and the links with the least margin",
    )
    def get(self, request, design_id: int, number: int):
        return Response(revision_loss_budget(revision=_revision(request, design_id, number)))


def _sort_choices(sorts: tuple) -> list[str]:
    return [s for key in sorts for s in (key, f"-{key}")]


class TableQuery(StrictSerializer):
    cursor = serializers.CharField(
        required=False,
        max_length=MAX_CURSOR_CHARS,
        help_text="Where the page starts: a next_cursor or previous_cursor a page of this table gave out with the same order (opaque).",
    )
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_LIMIT, default=100, help_text="Rows per page (1-1000, default 100)."
    )
    network = serializers.ChoiceField(choices=list(NETWORKS), required=False, help_text="Only this network's rows.")
    tier = serializers.CharField(
        required=False, max_length=24, help_text="Only this tier's rows (one the revision has, e.g. leaf-spine)."
    )
    rack = serializers.CharField(required=False, max_length=32, help_text="Either end in this rack.")
    hall = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_HALL,
        help_text="Either end in this data hall (1-based, docs/site-model.md; one the revision has). An end not "
        "placed is in no hall.",
    )
    crossing = serializers.BooleanField(
        required=False,
        help_text="true: only rows whose two ends stand in two different halls (the links and trunks between "
        "halls); false: every other row, those with an end not placed included.",
    )
    device = serializers.CharField(required=False, max_length=64, help_text="Either end on this device.")
    part = serializers.CharField(
        required=False, max_length=64, help_text="Only rows with this part number (either end's part for links)."
    )
    q = serializers.CharField(
        required=False,
        max_length=64,
        help_text="Device-name prefix at either end, a rack, or a link/cable id (L12, C7).",
    )


class LinkQuery(TableQuery):
    order = serializers.ChoiceField(
        choices=_sort_choices(LINK_SORTS),
        required=False,
        default="link_id",
        help_text="Sort column; a leading - sorts descending.",
    )
    medium = serializers.ChoiceField(choices=LINK_MEDIA, required=False, help_text="The link's medium.")
    status = serializers.ChoiceField(
        choices=LINK_STATUSES,
        required=False,
        help_text=STATUS_HELP,
    )
    plane = serializers.IntegerField(
        required=False, min_value=0, max_value=32, help_text="Only links of this plane (0: a single-plane fabric)."
    )


class CableQuery(TableQuery):
    order = serializers.ChoiceField(
        choices=_sort_choices(CABLE_SORTS),
        required=False,
        default="cable_id",
        help_text="Sort column; a leading - sorts descending.",
    )
    kind = serializers.ChoiceField(choices=list(CABLE_KINDS), required=False, help_text="The cable's kind.")


def _refuse_values_not_in_the_revision(rev, q: dict) -> None:
    """A network, tier or hall the revision does not have is a 400 listing those it has (not an empty page)."""
    if q.get("hall") is not None and q["hall"] > (halls := revision_halls(rev)):
        has = "hall 1" if halls == 1 else f"halls 1-{halls}"
        raise ApiError(
            400,
            "invalid_query",
            f"hall: {q['hall']} is not a hall of this revision (it has {has}).",
            [{"path": "hall", "message": f"between 1 and {halls}"}],
        )
    if "network" not in q and "tier" not in q:
        return  # nothing to check: no query for the revision's facets
    facets = link_facets(rev)
    for key in ("network", "tier"):
        if key in q and q[key] not in facets[key]:
            raise ApiError(
                400,
                "invalid_query",
                f"{key}: {q[key]!r} is not a {key} of this revision (it has: {', '.join(facets[key]) or 'none'}).",
                [{"path": key, "message": f"one of {', '.join(facets[key]) or 'none'}"}],
            )


class LinkRowOut(serializers.Serializer):
    link_id = serializers.IntegerField(help_text="The link's number in the revision (L000001 in links.csv is 1).")
    network = serializers.ChoiceField(choices=NETWORKS, help_text="The link's network (compute, storage, inband, oob).")
    plane = serializers.IntegerField(help_text="The link's plane of a multi-plane fabric (0: single plane).")
    tier = serializers.ChoiceField(
        choices=ALL_TIERS, help_text="The link's tier (node-leaf, leaf-spine, spine-core, ...)."
    )
    speed_gbps = serializers.IntegerField(help_text="The link's speed, in Gb/s.")
    a_device = serializers.CharField(help_text="Device at end a.")
    a_port = serializers.CharField(help_text="Port at end a, as the device names it.")
    a_rack = serializers.CharField(allow_blank=True, help_text="Rack of end a (site.rack); empty when not placed.")
    a_u = serializers.IntegerField(allow_null=True, help_text="Rack unit of end a's device; null when not placed.")
    b_device = serializers.CharField(help_text="Device at end b.")
    b_port = serializers.CharField(help_text="Port at end b.")
    b_rack = serializers.CharField(allow_blank=True, help_text="Rack of end b; empty when not placed.")
    b_u = serializers.IntegerField(allow_null=True, help_text="Rack unit of end b's device; null when not placed.")
    length_m = serializers.FloatField(help_text="Cable run length between the ends, in metres.")
    medium = serializers.ChoiceField(
        choices=LINK_MEDIA,
        allow_blank=True,
        help_text="The link's medium (the medium filter's values); empty when no part fits.",
    )
    a_part = serializers.CharField(allow_blank=True, help_text="Transceiver or cable part at end a; empty when none.")
    b_part = serializers.CharField(allow_blank=True, help_text="Transceiver or cable part at end b; empty when none.")
    cables = serializers.CharField(
        allow_blank=True, help_text="Public ids of the cables the link runs over (C000001), space-separated."
    )
    fibers = serializers.IntegerField(help_text="Fiber strands the link uses (0 for copper).")
    loss_db = serializers.FloatField(
        allow_null=True, help_text="Expected channel loss, in dB; null without an optical budget."
    )
    margin_db = serializers.FloatField(
        allow_null=True,
        help_text="Budget minus expected loss, in dB (negative: fails); null without an optical budget.",
    )
    status = serializers.ChoiceField(
        choices=LINK_STATUSES,
        allow_blank=True,
        help_text="Loss verdict: pass, marginal, fail, n/a (copper) or no-medium (no part fits).",
    )
    a_hall = serializers.IntegerField(
        allow_null=True,
        help_text="Data hall of end a's rack (1-based, docs/site-model.md); null when not placed or in a revision "
        "stored before rows recorded halls.",
    )
    b_hall = serializers.IntegerField(allow_null=True, help_text="Data hall of end b's rack; null as a_hall.")


class CableRowOut(serializers.Serializer):
    cable_id = serializers.IntegerField(help_text="The cable's number in the revision (C000001 in cables.csv is 1).")
    network = serializers.ChoiceField(
        choices=NETWORKS, allow_blank=True, help_text="The cable's network; empty: a trunk of no one network."
    )
    tier = serializers.ChoiceField(choices=ALL_TIERS, allow_blank=True, help_text="The cable's tier.")
    kind = serializers.ChoiceField(
        choices=CABLE_KINDS, help_text="What the cable is (trunk, cord, dac, acc, aoc, ...): the kind filter's values."
    )
    part = serializers.CharField(help_text="The cable's part number.")
    length_m = serializers.FloatField(help_text="Ordered length, in metres.")
    a_device = serializers.CharField(help_text="Device or panel at end a.")
    a_port = serializers.CharField(help_text="Port at end a.")
    a_rack = serializers.CharField(allow_blank=True, help_text="Rack of end a; empty when not placed.")
    b_device = serializers.CharField(help_text="Device or panel at end b.")
    b_port = serializers.CharField(help_text="Port at end b.")
    b_rack = serializers.CharField(allow_blank=True, help_text="Rack of end b; empty when not placed.")
    label_a = serializers.CharField(allow_blank=True, help_text="The label printed for end a (labels.pdf).")
    label_b = serializers.CharField(allow_blank=True, help_text="The label printed for end b.")
    links = serializers.CharField(
        allow_blank=True, help_text="Public ids of the links the cable carries (L000001), space-separated."
    )
    a_hall = serializers.IntegerField(
        allow_null=True, help_text="Data hall of end a's rack (1-based); null when not placed or stored before halls."
    )
    b_hall = serializers.IntegerField(allow_null=True, help_text="Data hall of end b's rack; null as a_hall.")


_PAGING = ("cursor", "limit", "order")


def _rows_page(request, rev, q: dict, fetch, table: str) -> HttpResponse:
    """One cursor page of a revision's links or cables, answered 304 when the client holds it (immutable rows)."""

    _refuse_values_not_in_the_revision(rev, q)

    def produce():
        page = fetch(
            revision=rev,
            filters={k: v for k, v in q.items() if k not in _PAGING},
            cursor=q.get("cursor"),
            limit=q["limit"],
            order=q["order"],
        )
        return Response(page_body(request, page.rows, page.next_cursor, page.prev_cursor))

    return conditional(request, revision_etag(rev, table, query_key(request), request.get_host()), produce)


class RevisionLinksApi(ApiView):
    class OutputSerializer(PageOut):
        results = LinkRowOut(many=True, help_text="The links of this page.")

    @extend_schema(
        operation_id="revisions_links",
        parameters=[LinkQuery, IF_NONE_MATCH],
        responses={200: OutputSerializer, 304: NOT_MODIFIED},
        tags=["revisions"],
        summary="Links of a revision: filter, sort, page by cursor",
    )
    def get(self, request, design_id: int, number: int):
        q = query(LinkQuery, request)
        rev = _revision(request, design_id, number, rows_only=True)

        return _rows_page(request, rev, q, link_page, "links")


class RevisionCablesApi(ApiView):
    class OutputSerializer(PageOut):
        results = CableRowOut(many=True, help_text="The cables of this page.")

    @extend_schema(
        operation_id="revisions_cables",
        parameters=[CableQuery, IF_NONE_MATCH],
        responses={200: OutputSerializer, 304: NOT_MODIFIED},
        tags=["revisions"],
        summary="Cables of a revision: filter, sort, page by cursor",
    )
    def get(self, request, design_id: int, number: int):
        q = query(CableQuery, request)
        rev = _revision(request, design_id, number, rows_only=True)

        return _rows_page(request, rev, q, cable_page, "cables")


__all__ = [
    "RevisionListApi",
    "RevisionDetailApi",
    "RevisionSummaryApi",
    "RevisionWarningsApi",
    "RevisionFibersApi",
    "RevisionBomApi",
    "BomDiffApi",
    "RevisionLossBudgetApi",
    "RevisionLinksApi",
    "RevisionCablesApi",
    "PageOut",
]
