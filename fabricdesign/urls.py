from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from apps.api import token_views
from apps.api.views.base import NotFoundApi
from apps.common import views as common_views
from apps.common.security import csp

# Swagger UI and Redoc load their scripts from files (the split view serves Swagger's set-up script as
# one), but style their widgets inline and Redoc runs a blob: worker: their pages alone relax that.
API_DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)

urlpatterns = [
    path("", common_views.home, name="home"),
    path("healthz", common_views.healthz, name="healthz"),
    # browsers ask for /favicon.ico on their own; the icon is a hashed static file, named when asked
    path("favicon.ico", lambda _request: redirect(static("favicon.svg"), permanent=True)),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True, next_page="designs:list"),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="login"), name="logout"),
    path("accounts/tokens/", token_views.token_list_view, name="tokens"),
    path("accounts/tokens/<int:token_id>/revoke/", token_views.token_revoke_view, name="token_revoke"),
    path("designs/", include("apps.designs.urls")),
    path("designs/", include("apps.qos.urls")),
    path("designs/", include("apps.measurements.urls")),
    path("designs/", include("apps.monitoring.urls")),
    path("designs/", include("apps.commissioning.page_urls")),
    # Before apps.api's urls, which end in a catch-all 404 for unknown API paths.
    path("api/v1/", include("apps.commissioning.urls")),
    path("designs/", include("apps.counters.urls")),
    path("designs/", include("apps.exports.page_urls")),
    # last of the designs/ pages: a section key never hides an app's own revision page
    path("designs/", include("apps.designs.workspace_urls")),
    # ahead of apps.api.urls, whose last route answers every other /api/v1/ path with a 404
    path("api/v1/", include("apps.counters.api_urls")),
    path("alternatives/", include("apps.alternatives.urls")),
    path("api/v1/", include("apps.alternatives.api_urls")),
    path("api/v1/", include("apps.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", csp(API_DOCS_CSP)(SpectacularSwaggerSplitView.as_view(url_name="api-schema")), name="api-docs"),
    path("api/docs/redoc/", csp(API_DOCS_CSP)(SpectacularRedocView.as_view(url_name="api-schema")), name="api-redoc"),
    # every other /api/ path (/api/v2/..., /api/v1 without its slash) is the API's JSON 404, not the site's HTML one
    re_path(r"^api(?:/[\s\S]*)?$", NotFoundApi.as_view()),
]

# The admin is a second sign-in page: mounted only where DJANGO_ADMIN_ENABLED says so (README).
if settings.ADMIN_ENABLED:
    urlpatterns.append(path("admin/", admin.site.urls))
