from __future__ import annotations

from django.urls import path

from . import views

app_name = "counters"

urlpatterns = [
    path("<int:pk>/revisions/<int:number>/counters/", views.counter_upload, name="upload"),
]
