from django.apps import AppConfig


class DesignsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.designs"
    label = "designs"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the receivers)
