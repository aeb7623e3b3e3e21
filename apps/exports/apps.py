from django.apps import AppConfig


class ExportsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.exports"

    def ready(self) -> None:
        from . import signals  # noqa: F401 - connects the receivers
