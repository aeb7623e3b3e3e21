from django.apps import AppConfig


class ExportsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.exports"

    def ready(self) -> None:
        from apps.jobs.registry import job_kind_register

        from . import signals  # noqa: F401 - connects the receivers

        job_kind_register("export", "apps.exports.services.export_build_job")

        from .pages import register

        register()
