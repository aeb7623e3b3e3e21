from django.contrib import admin
from django.urls import path

from apps.common import views as common_views

urlpatterns = [
    path("", common_views.home, name="home"),
    path("healthz", common_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
