"""Typed readers for the environment variables that configure fabricdesign.

Settings come only from the environment (12-factor). A value that cannot be
parsed raises ImproperlyConfigured while settings import, so a typo in a
deployment stops the boot instead of quietly falling back to a default.

An empty variable (``FOO=``) counts as unset: compose files and CI systems
often pass empty strings for "not configured".
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

__all__ = [
    "env_bool",
    "env_int",
    "env_list",
    "env_secret",
    "env_str",
    "parse_database_url",
]

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})

# Marks "no default given", so None stays free to be a real default.
_REQUIRED: Any = object()

SQLITE_OPTIONS = {
    # WAL lets the web process read while the worker writes; IMMEDIATE takes
    # the write lock at BEGIN so two writers queue on `timeout` instead of
    # failing with "database is locked" halfway through a transaction.
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value else None


def env_str(name: str, default: str = _REQUIRED) -> str:
    value = _raw(name)
    if value is not None:
        return value
    if default is _REQUIRED:
        raise ImproperlyConfigured(f"Environment variable {name} must be set.")
    return default


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean; use true/false, 1/0 or yes/no.")


def env_int(name: str, default: int) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        return int(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """Comma-separated list; blanks around items and empty items are dropped."""
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_secret(name: str) -> str | None:
    """Read NAME, or the file named by NAME_FILE (Docker/Kubernetes secrets).

    Returns None when neither is set; the caller decides whether that is fatal.
    """
    value = _raw(name)
    path = _raw(f"{name}_FILE")
    if value is not None and path is not None:
        raise ImproperlyConfigured(f"Set {name} or {name}_FILE, not both.")
    if path is None:
        return value
    try:
        # Secret files usually end with a newline that is not part of the secret.
        secret = Path(path).read_text(encoding="utf-8").rstrip("\r\n")
    except OSError as exc:
        raise ImproperlyConfigured(f"{name}_FILE={path!r} cannot be read: {exc}") from None
    if not secret:
        raise ImproperlyConfigured(f"{name}_FILE={path!r} is empty.")
    return secret


def parse_database_url(url: str, *, base_dir: Path) -> dict[str, Any]:
    """Turn DATABASE_URL into a Django DATABASES entry.

    Accepted forms:
      sqlite:///relative/path.sqlite3   (relative to base_dir)
      sqlite:////absolute/path.sqlite3
      sqlite:///:memory:
      postgres://user:password@host:port/name?sslmode=require
      postgresql://...                  (same as postgres://)
    Query parameters of a PostgreSQL URL become libpq OPTIONS.
    """
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        return _sqlite(parts.netloc, parts.path, url, base_dir)
    if parts.scheme in ("postgres", "postgresql"):
        return _postgres(parts, url)
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parts.scheme!r} is not supported; use sqlite:/// or postgres://.")


def _sqlite(netloc: str, path: str, url: str, base_dir: Path) -> dict[str, Any]:
    if netloc not in ("", ":memory:"):
        raise ImproperlyConfigured(f"DATABASE_URL {url!r}: a SQLite URL has no host; write sqlite:///path.")
    # The URL path keeps the slash after the empty host: "/rel" or "//abs".
    name = ":memory:" if netloc == ":memory:" else unquote(path[1:])
    if not name:
        raise ImproperlyConfigured(f"DATABASE_URL {url!r} names no SQLite file.")
    if name != ":memory:" and not Path(name).is_absolute():
        name = str(base_dir / name)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": name,
        "OPTIONS": dict(SQLITE_OPTIONS),
    }


def _postgres(parts: Any, url: str) -> dict[str, Any]:
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured(f"DATABASE_URL {url!r} names no database.")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured(f"DATABASE_URL {url!r} has a bad port.") from None
    return {
        "ENGINE": "apps.common.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        # Unquoted so a socket directory can be given as %2Fvar%2Frun%2Fpostgresql.
        "HOST": unquote(parts.hostname or ""),
        "PORT": str(port) if port else "",
        "OPTIONS": dict(parse_qsl(parts.query)),
    }


def counter_thresholds_file(path: str) -> dict:
    """COUNTER_THRESHOLDS_FILE's overrides of the error-counter thresholds ({name: number}), checked against
    engine/counters/data/thresholds.yaml; {} when no file is named."""
    if not path:
        return {}
    import yaml

    from engine.counters import CounterParseError, load_thresholds

    try:
        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise CounterParseError("expected a mapping of threshold names to numbers")
        load_thresholds().with_overrides(data, "COUNTER_THRESHOLDS_FILE")
    except (OSError, yaml.YAMLError, CounterParseError) as exc:
        raise ImproperlyConfigured(f"COUNTER_THRESHOLDS_FILE={path!r}: {exc}") from None
    return data
