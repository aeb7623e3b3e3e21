from django.apps import AppConfig


class JobsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.jobs"
    label = "jobs"

    def ready(self) -> None:
        from apps.common.health import register_worker_last_seen

        from . import workerbeat  # noqa: F401 - connects the worker's "alive" beat to Celery's signals
        from .services import worker_last_seen

        register_worker_last_seen(worker_last_seen)
