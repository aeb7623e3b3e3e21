"""The perimeter's settings as the environment sets them (fresh interpreter per case, as test_settings)."""

import json

from tests.test_settings import _run_settings

SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "from django.urls import resolve, Resolver404\n"
    "try:\n    resolve('/admin/'); admin = True\nexcept Resolver404:\n    admin = False\n"
    "print(json.dumps({'admin': admin, 'hsts': s.SECURE_HSTS_SECONDS, 'hops': s.CLIENT_ADDRESS_PROXY_HOPS, "
    "'store': s.API_RATE_LIMIT_STORE}))"
)


def _settings(tmp_path, **env):
    result = _run_settings(tmp_path, code=SHOW, DJANGO_SECRET_KEY="k", **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_admin_is_off_unless_enabled(tmp_path):
    assert _settings(tmp_path)["admin"] is False
    assert _settings(tmp_path, DJANGO_ADMIN_ENABLED="true")["admin"] is True


def test_hsts_and_the_forwarded_address_come_with_the_tls_proxy(tmp_path):
    assert _settings(tmp_path) | {"admin": None} == {"admin": None, "hsts": 0, "hops": 0, "store": "database"}
    behind = _settings(tmp_path, DJANGO_BEHIND_TLS_PROXY="true")
    assert behind["hsts"] == 31536000 and behind["hops"] == 1


def test_the_rate_limit_counts_in_redis_when_redis_is_configured(tmp_path):
    assert _settings(tmp_path, REDIS_URL="redis://127.0.0.1:6379/15")["store"] == "redis"
    bad = _run_settings(tmp_path, code=SHOW, DJANGO_SECRET_KEY="k", API_RATE_LIMIT_STORE="redis")
    assert bad.returncode != 0 and "API_RATE_LIMIT_STORE" in bad.stderr
