"""WSGI entry point: gunicorn fabricdesign.wsgi"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fabricdesign.settings")

application = get_wsgi_application()
