from django.urls import path

from . import views

app_name = "qos"

# Mounted under designs/ (fabricdesign/urls.py): the paths are the ones the QoS pages always had.
urlpatterns = [
    path("<int:pk>/qos/", views.design_qos_view, name="policy"),
    path("<int:pk>/qos/reset/", views.design_qos_reset, name="reset"),
    path("<int:pk>/revisions/<int:number>/qos/", views.revision_qos_view, name="revision"),
    path("<int:pk>/revisions/<int:number>/configs/<str:name>", views.revision_config_file, name="config_file"),
]
