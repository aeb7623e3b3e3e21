"""/api/v1/ routes of design-alternatives studies (mounted by fabricdesign/urls.py ahead of apps.api.urls)."""

from __future__ import annotations

from django.urls import path

from .api import CandidateListApi, CandidatePickApi, StudyDetailApi, StudyListApi

app_name = "alternatives-api"

urlpatterns = [
    path("alternatives/", StudyListApi.as_view(), name="study-list"),
    path("alternatives/<int:study_id>/", StudyDetailApi.as_view(), name="study-detail"),
    path("alternatives/<int:study_id>/candidates/", CandidateListApi.as_view(), name="candidate-list"),
    path(
        "alternatives/<int:study_id>/candidates/<int:index>/pick/",
        CandidatePickApi.as_view(),
        name="candidate-pick",
    ),
]
