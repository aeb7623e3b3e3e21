from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from apps.common import views as common_views

urlpatterns = [
    path("", common_views.home, name="home"),
    path("healthz", common_views.healthz, name="healthz"),
    # browsers ask for /favicon.ico on their own; the icon is a hashed static file, named when asked
    path("favicon.ico", lambda request: redirect(static("favicon.svg"), permanent=True)),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True, next_page="designs:list"),
         name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="login"), name="logout"),
    path("designs/", include("apps.designs.urls")),
    path("api/v1/", include("apps.api.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/docs/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]
