from django.urls import path

from . import catalog_views, views, workspace_views

app_name = "designs"

urlpatterns = [
    path("", views.design_list_view, name="list"),
    path("catalog/", catalog_views.catalog_view, name="catalog"),
    path("catalog/parts/<int:part_id>/delete/", catalog_views.catalog_part_delete, name="catalog_part_delete"),
    path("new/", views.design_new, name="new"),
    path("sources/", views.sources_view, name="sources"),
    path("new/blank/", views.design_new_blank, name="new_blank"),
    path("<int:pk>/", views.design_detail, name="detail"),
    path("<int:pk>/edit/", views.design_edit, name="edit"),
    path("<int:pk>/compute/", views.design_compute, name="compute"),
    path("<int:pk>/delete/", views.design_delete_view, name="delete"),
    path("<int:pk>/spec.yaml", views.design_spec_download, name="spec_yaml"),
    path("<int:pk>/shares/", views.design_share_view, name="share"),
    path("<int:pk>/shares/<int:share_id>/delete/", views.design_unshare_view, name="unshare"),
    path("<int:pk>/leave/", views.design_leave_view, name="leave"),
    path("<int:pk>/jobs/<uuid:job_id>/", views.job_detail, name="job"),
    path("<int:pk>/jobs/<uuid:job_id>/status/", views.job_status, name="job_status"),
    path("<int:pk>/jobs/<uuid:job_id>/cancel/", views.job_cancel, name="job_cancel"),
    path("<int:pk>/compare/", views.revision_compare_view, name="compare"),
    path("<int:pk>/compare/<str:table>/<str:change>/", views.revision_compare_rows_view, name="compare_rows"),
    path("<int:pk>/revisions/<int:number>/", workspace_views.revision_detail, name="revision"),
    path("<int:pk>/revisions/<int:number>/reprice/", views.revision_reprice_view, name="reprice"),
    path("<int:pk>/revisions/<int:number>/ordered/", views.revision_mark_ordered_view, name="mark_ordered"),
    path("<int:pk>/revisions/<int:number>/links/", views.revision_links, name="links"),
    path("<int:pk>/revisions/<int:number>/cables/", views.revision_cables, name="cables"),
    path("<int:pk>/revisions/<int:number>/links.csv", views.revision_table_csv, {"table": "links"}, name="links_csv"),
    path(
        "<int:pk>/revisions/<int:number>/cables.csv", views.revision_table_csv, {"table": "cables"}, name="cables_csv"
    ),
]
