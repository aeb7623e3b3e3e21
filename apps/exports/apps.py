from django.apps import AppConfig


class ExportsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.exports"

    def ready(self) -> None:
        from apps.jobs.registry import job_kind_register

        from . import signals  # noqa: F401 - connects the receivers

        job_kind_register("export", "apps.exports.services.export_build_job")

        from apps.designs.orders import register_bom_source

        from .bom_source import revision_bom
        from .pages import register

        register()
        register_bom_source(revision_bom)
