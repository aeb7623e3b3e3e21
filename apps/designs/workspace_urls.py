"""The workspace's section pages, included after every app's own revision pages (a section's key never hides
one of them: /revisions/<n>/measurements/ stays the measurements page)."""

from django.urls import path

from . import workspace_views

app_name = "workspace"
urlpatterns = [
    path("<int:pk>/revisions/<int:number>/<slug:section>/", workspace_views.revision_section, name="section"),
]
