from django.urls import path

from . import views

app_name = "monitoring"

urlpatterns = [
    path("<int:pk>/revisions/<int:number>/utilization/", views.utilization_list_view, name="utilization_list"),
    path(
        "<int:pk>/revisions/<int:number>/utilization/<int:snapshot_id>/",
        views.utilization_detail_view,
        name="utilization",
    ),
]
