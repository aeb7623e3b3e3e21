from django.apps import AppConfig


class DesignsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.designs"
    label = "designs"

    def ready(self) -> None:
        from apps.jobs.registry import job_kind_register

        from . import signals  # noqa: F401  (connects the receivers)

        job_kind_register("compute", "apps.designs.services.design_compute_job")

        from .workspace import register

        register()
