from django.apps import AppConfig


class CountersConfig(AppConfig):
    """Port error counters of a revision's fabric after commissioning: snapshots, drift, flags, suspects."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.counters"
    label = "counters"

    def ready(self) -> None:
        from apps.jobs.registry import job_kind_register, job_result_page_register

        job_kind_register("counters", "apps.counters.services.counters_read_job")
        job_result_page_register("counters", "apps.counters.views.counters_result_page")

        from .workspace import register

        register()
