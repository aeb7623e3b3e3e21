"""/api/v1/ routes of the counters (mounted by fabricdesign/urls.py ahead of apps.api.urls, whose converters
they use)."""

from __future__ import annotations

from django.urls import path

import apps.api.urls  # noqa: F401  (registers the fdid and revno converters)

from .api import CounterReportApi
from .progress import CommissioningProgressApi

app_name = "counters-api"

urlpatterns = [
    path(
        "designs/<fdid:design_id>/revisions/<revno:number>/counters/",
        CounterReportApi.as_view(),
        name="revision-counters",
    ),
    path(
        "designs/<fdid:design_id>/revisions/<revno:number>/commissioning/progress/",
        CommissioningProgressApi.as_view(),
        name="revision-commissioning-progress",
    ),
]
