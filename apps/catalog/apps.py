from django.apps import AppConfig


class CatalogConfig(AppConfig):
    """What a user adds to the shipped catalog: price lists and their versions (custom parts move here later).

    It sits below the designs, exports and api apps: they import it, it imports none of them."""

    name = "apps.catalog"
    label = "catalog"
    default_auto_field = "django.db.models.BigAutoField"
