"""The same "not found" page for everyone, in development too.

A design a user may not see answers 404 (never 403, so its existence is not revealed). With DEBUG on, as
./scripts/run runs, Django would answer that 404 with its technical page, which lists every URL pattern of the
site: a user of the development defaults would learn more than the production page tells. Only 404s raised by
views are changed; an unknown URL under DEBUG keeps Django's page, which helps whoever develops the app.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render


class NotFoundPageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404):
            return render(request, "404.html", status=404)
        return None
