from django.apps import AppConfig


class QosConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.qos"

    def ready(self) -> None:
        from apps.exports.services import register_post_build

        from .selectors import ARCHIVE, qos_report_from_artifact
        from .workspace import register

        register()
        # The QoS pages read their report out of the configs.zip a worker built: read it there, once.
        register_post_build(ARCHIVE, qos_report_from_artifact)
