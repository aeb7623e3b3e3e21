"""Routes of /api/v1/ (mounted by fabricdesign/urls.py). Every unmatched /api/ path is a JSON 404 (NotFoundApi)."""

from __future__ import annotations

from django.urls import path, re_path, register_converter

from .views import catalog, designs, downloads, failures, jobs, monitoring, orders, qos, revisions, tokens
from .views.base import NotFoundApi


class IdConverter:
    """A database id: 1-18 digits, so it always fits a 64-bit column (a longer one is a 404, not a 500)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(value)


class NumberConverter(IdConverter):
    """A revision number: 1-9 digits (the column is a 32-bit integer)."""

    regex = "[0-9]{1,9}"


register_converter(IdConverter, "fdid")
register_converter(NumberConverter, "revno")


app_name = "api"

D = "designs/<fdid:design_id>"
R = f"{D}/revisions/<revno:number>"

urlpatterns = [
    path("me/", tokens.MeApi.as_view(), name="me"),
    path("tokens/", tokens.TokenListApi.as_view(), name="token-list"),
    path("tokens/<fdid:token_id>/", tokens.TokenDetailApi.as_view(), name="token-detail"),
    path("catalog/<str:section>/", catalog.CatalogListApi.as_view(), name="catalog-list"),
    path("parts/", catalog.PartListApi.as_view(), name="part-list"),
    path("parts/<fdid:part_id>/", catalog.PartDetailApi.as_view(), name="part-detail"),
    path("price-list/", catalog.PriceListApi.as_view(), name="price-list"),
    path("presets/", catalog.PresetListApi.as_view(), name="preset-list"),
    path("presets/<str:key>/", catalog.PresetDetailApi.as_view(), name="preset-detail"),
    path("spec-schema/", catalog.SpecSchemaApi.as_view(), name="spec-schema"),
    path("designs/", designs.DesignListApi.as_view(), name="design-list"),
    path(f"{D}/", designs.DesignDetailApi.as_view(), name="design-detail"),
    path(f"{D}/shares/", designs.DesignShareListApi.as_view(), name="design-share-list"),
    path(f"{D}/shares/<str:username>/", designs.DesignShareApi.as_view(), name="design-share"),
    path(f"{D}/compute/", designs.DesignComputeApi.as_view(), name="design-compute"),
    path(f"{D}/bom-diff/", revisions.BomDiffApi.as_view(), name="design-bom-diff"),
    path(f"{D}/order-delta/", orders.OrderDeltaApi.as_view(), name="design-order-delta"),
    path(f"{D}/change-order.csv", orders.ChangeOrderCsvApi.as_view(), name="design-change-order-csv"),
    path(f"{D}/change-order.pdf", orders.ChangeOrderPdfApi.as_view(), name="design-change-order-pdf"),
    path(f"{D}/ordered/", orders.DesignBaselineApi.as_view(), name="design-ordered"),
    path(f"{D}/lead-times/", orders.LeadTimesApi.as_view(), name="design-lead-times"),
    path("jobs/", jobs.JobListApi.as_view(), name="job-list"),
    path("jobs/<uuid:job_id>/", designs.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<uuid:job_id>/cancel/", designs.JobCancelApi.as_view(), name="job-cancel"),
    path("jobs/<uuid:job_id>/file", downloads.JobFileApi.as_view(), name="job-file"),
    path(f"{D}/revisions/", revisions.RevisionListApi.as_view(), name="revision-list"),
    path(f"{R}/", revisions.RevisionDetailApi.as_view(), name="revision-detail"),
    path(f"{R}/summary/", revisions.RevisionSummaryApi.as_view(), name="revision-summary"),
    path(f"{R}/bom/", revisions.RevisionBomApi.as_view(), name="revision-bom"),
    path(f"{R}/spares/", orders.RevisionSparesApi.as_view(), name="revision-spares"),
    path(f"{R}/blast-radius/", failures.RevisionBlastRadiusApi.as_view(), name="revision-blast-radius"),
    path(f"{R}/reprice/", revisions.RevisionRepriceApi.as_view(), name="revision-reprice"),
    path(f"{R}/order/", orders.RevisionOrderApi.as_view(), name="revision-order"),
    path(f"{R}/ordered/", orders.RevisionOrderedApi.as_view(), name="revision-ordered"),
    path(f"{R}/links/", revisions.RevisionLinksApi.as_view(), name="revision-links"),
    path(f"{R}/cables/", revisions.RevisionCablesApi.as_view(), name="revision-cables"),
    path(f"{R}/loss-budget/", revisions.RevisionLossBudgetApi.as_view(), name="revision-loss-budget"),
    path(f"{R}/fibers/", revisions.RevisionFibersApi.as_view(), name="revision-fibers"),
    path(f"{R}/warnings/", revisions.RevisionWarningsApi.as_view(), name="revision-warnings"),
    path(f"{R}/downloads/", downloads.DownloadListApi.as_view(), name="revision-download-list"),
    path(f"{R}/downloads/<str:kind>", downloads.DownloadApi.as_view(), name="revision-download"),
    path(f"{R}/measurements/", downloads.MeasurementListApi.as_view(), name="revision-measurements"),
    path(
        f"{R}/measurements/<int:upload_id>/withdraw/",
        downloads.MeasurementWithdrawApi.as_view(),
        name="revision-measurement-withdraw",
    ),
    path(f"{R}/exports/", downloads.ExportCreateApi.as_view(), name="revision-exports"),
    path(f"{R}/utilization/", monitoring.UtilizationListApi.as_view(), name="revision-utilization-list"),
    path(
        f"{R}/utilization/<fdid:snapshot_id>/",
        monitoring.UtilizationDetailApi.as_view(),
        name="revision-utilization",
    ),
    path(f"{D}/qos/", qos.DesignQosApi.as_view(), name="design-qos"),
    path(f"{R}/configs/", qos.RevisionConfigListApi.as_view(), name="revision-config-list"),
    path(f"{R}/configs/<str:name>", qos.RevisionConfigApi.as_view(), name="revision-config"),
    re_path(r"^[\s\S]*$", NotFoundApi.as_view()),
]
