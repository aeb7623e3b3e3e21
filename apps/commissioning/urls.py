from django.urls import path

import apps.api.urls  # noqa: F401  (registers the fdid and revno converters)

from . import api

R = "designs/<fdid:design_id>/revisions/<revno:number>"

urlpatterns = [
    path(f"{R}/asbuilt/", api.AsBuiltApi.as_view(), name="revision-asbuilt"),
    path(f"{R}/asbuilt/fix-list/", api.AsBuiltFixListApi.as_view(), name="revision-asbuilt-fixlist"),
]
