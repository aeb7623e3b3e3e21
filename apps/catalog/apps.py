from django.apps import AppConfig


class CatalogConfig(AppConfig):
    """What a user adds to the shipped catalog: custom parts, price lists and their versions.

    It sits below the designs, exports and api apps: they import it, it imports none of them."""

    name = "apps.catalog"
    label = "catalog"
    default_auto_field = "django.db.models.BigAutoField"
