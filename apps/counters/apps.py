from django.apps import AppConfig


class CountersConfig(AppConfig):
    """Port error counters of a revision's fabric after commissioning: snapshots, drift, flags, suspects."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.counters"
    label = "counters"

    def ready(self) -> None:
        from .workspace import register

        register()
