from django.apps import AppConfig


class CommonConfig(AppConfig):
    """Shared Django plumbing (base models, errors, health check); no domain logic."""

    name = "apps.common"
    label = "common"
    default_auto_field = "django.db.models.BigAutoField"
