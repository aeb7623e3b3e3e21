"""ASGI entry point, for an ASGI server should we ever need one."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fabricdesign.settings")

application = get_asgi_application()
