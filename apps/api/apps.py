from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The versioned REST API (/api/v1/): tokens, custom parts, price lists, and the HTTP layer over
    the designs and jobs services. See docs/api.md."""

    name = "apps.api"
    label = "api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the OpenAPI description of the token authentication with drf-spectacular.
        from . import schema  # noqa: F401
