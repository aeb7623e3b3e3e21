from django.apps import AppConfig


class MeasurementsConfig(AppConfig):
    """Measured fiber test results of a revision: the uploads, their verdicts against the test sheet and the
    revision's standing across them (its pages and the revision page's section too).

    It sits above exports (an upload is judged against the test sheet the renderers build from the snapshot) and
    below monitoring, api, commissioning and counters, which read its standing."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.measurements"
    label = "measurements"

    def ready(self) -> None:
        from apps.jobs.registry import job_kind_register, job_result_page_register

        job_kind_register("measurements", "apps.measurements.services.measurements_read_job")
        job_result_page_register("measurements", "apps.measurements.views.upload_result_page")

        from .workspace import register

        register()
