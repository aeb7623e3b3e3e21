from django.apps import AppConfig


class AlternativesConfig(AppConfig):
    name = "apps.alternatives"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.jobs.registry import job_kind_register

        job_kind_register("alternatives", "apps.alternatives.services.study_run_job")
