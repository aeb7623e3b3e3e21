"""The measured-results pages of a revision (under /designs/, beside the revision's own pages)."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "measurements"

urlpatterns = [
    path("<int:pk>/revisions/<int:number>/measurements/", views.measurement_list_view, name="measurements"),
    path(
        "<int:pk>/revisions/<int:number>/measurements/<int:upload_id>/",
        views.measurement_detail,
        name="measurement",
    ),
    path(
        "<int:pk>/revisions/<int:number>/measurements/<int:upload_id>/withdraw/",
        views.measurement_withdraw_view,
        name="measurement_withdraw",
    ),
    path(
        "<int:pk>/revisions/<int:number>/measurements/fiber/",
        views.measurement_fiber_view,
        name="measurement_fiber",
    ),
    path(
        "<int:pk>/revisions/<int:number>/measurements/<int:upload_id>/results.csv",
        views.measurement_results_csv,
        name="measurement_results_csv",
    ),
    path(
        "<int:pk>/revisions/<int:number>/measurements/<int:upload_id>/uploaded.csv",
        views.measurement_uploaded_csv,
        name="measurement_uploaded_csv",
    ),
]
