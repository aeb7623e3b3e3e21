from django.apps import AppConfig


class JobsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.jobs"
    label = "jobs"

    def ready(self) -> None:
        from . import workerbeat  # noqa: F401 - connects the worker's "alive" beat to Celery's signals
