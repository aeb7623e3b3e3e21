from __future__ import annotations

from django.urls import path

from . import views

app_name = "alternatives"

urlpatterns = [
    path("", views.study_list, name="list"),
    path("<int:pk>/", views.study_detail, name="study"),
    path("<int:pk>/cancel/", views.study_cancel, name="cancel"),
    path("<int:pk>/candidates/<int:index>/pick/", views.candidate_pick_view, name="pick"),
]
