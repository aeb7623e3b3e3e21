from django.apps import AppConfig


class CommissioningConfig(AppConfig):
    """As-built imports of a revision, their classification against the plan, and the fix list."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.commissioning"
    label = "commissioning"

    def ready(self) -> None:
        from apps.jobs.registry import job_kind_register, job_result_page_register

        job_kind_register("asbuilt", "apps.commissioning.services.asbuilt_refresh_job")
        job_result_page_register("asbuilt", "apps.commissioning.views.asbuilt_result_page")

        from .workspace import register

        register()
