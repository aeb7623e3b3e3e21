from django.apps import AppConfig


class AlternativesConfig(AppConfig):
    name = "apps.alternatives"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.common.workspace import register_design_action
        from apps.jobs.registry import job_kind_register

        job_kind_register("alternatives", "apps.alternatives.services.study_run_job")
        # the studies are a page of their own, not the design's: the design's page points to their list
        register_design_action("Design alternatives", "alternatives:list", order=90, per_design=False)
