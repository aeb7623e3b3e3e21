from django.urls import path, re_path

from . import views

app_name = "commissioning"

urlpatterns = [
    path("<int:pk>/revisions/<int:number>/asbuilt/", views.asbuilt_upload_view, name="upload"),
    re_path(
        r"^(?P<pk>\d+)/revisions/(?P<number>\d+)/fix-list\.(?P<fmt>csv|pdf)$", views.fix_list_download, name="fix_list"
    ),
]
