"""What each pytest-xdist worker gets of its own, so tests running side by side never share state.

The controller gives every worker (gw0, gw1, ...) environment variables before the worker imports Django
(tests/conftest.py, pytest_xdist_setupnodes), so settings, the Celery workers the tests start and the
subprocesses they run all see the same values:

- Redis (CELERY_BROKER_URL, REDIS_URL): databases of its own. Worker N adds N times the span of the
  configured numbers, so 0 and 1 become 2 and 3 on gw1; the cache tests clear their whole database, and
  revision ids (part of the cache keys) repeat across the workers' test databases.
- FABRICDESIGN_VAR_DIR: a folder of its own under the configured one (the filesystem broker, uploads).

PostgreSQL needs nothing here: pytest-django names each worker's test database test_<name>_gwN. Live
servers, moto, ibsim, lldpd and Chromium already pick free ports, per-process names or fresh profiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
REDIS_VARIABLES = ("CELERY_BROKER_URL", "REDIS_URL")
# Redis' default `databases`; a worker pushed past it would fail every test that touches Redis.
REDIS_DATABASES = 16


class ParallelConfigError(Exception):
    """The configuration cannot be split between this many workers."""


def _redis_db(url: str) -> int | None:
    """The database number of a redis:// or rediss:// URL (0 when it names none); None for other URLs."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        return None
    path = parts.path.strip("/")
    if not path:
        return 0
    if not path.isdigit():
        raise ParallelConfigError(f"cannot read the Redis database number in {url!r}")
    return int(path)


def _with_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{db}"))


def worker_environment(environ: Mapping[str, str], index: int, workers: int) -> dict[str, str]:
    """The variables worker number `index` (0-based) of `workers` sets on top of the controller's environment."""
    out: dict[str, str] = {}
    dbs = {name: db for name in REDIS_VARIABLES if environ.get(name) and (db := _redis_db(environ[name])) is not None}
    if dbs:
        low, high = min(dbs.values()), max(dbs.values())
        span = high - low + 1
        needed = high + span * (workers - 1)
        if needed >= REDIS_DATABASES:
            raise ParallelConfigError(
                f"{workers} test workers need Redis databases up to {needed} "
                f"({', '.join(f'{k}={environ[k]}' for k in dbs)}; each worker takes {span} of its own), "
                f"but Redis has {REDIS_DATABASES} (0-{REDIS_DATABASES - 1}) by default: "
                "lower the database numbers or run fewer workers (-n)"
            )
        for name, db in dbs.items():
            out[name] = _with_db(environ[name], db + span * index)
    var = Path(environ.get("FABRICDESIGN_VAR_DIR") or ROOT / "var")
    out["FABRICDESIGN_VAR_DIR"] = str(var / "test-workers" / f"gw{index}")
    return out


def slow_modules_first(items: list) -> None:
    """Order the collected tests for xdist (in place): modules with a `slow` test first, each module's tests in
    their own order. xdist hands tests out in this order, and a long one started last would leave the other
    workers idle at the end.

    Tests are handed out one by one (`--dist load`), not a module at a time: the scope schedulers (loadscope,
    loadfile, loadgroup) find a test by its node id, and of tests sharing one they run only the first, as
    schemathesis' 68 items in tests/apps/api/test_fuzz.py do.
    """
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_modules)  # stable


def xdist_frames() -> int:
    """How many frames of execnet and xdist lie under the caller: the stack an xdist worker adds."""
    import sys

    import execnet
    import xdist

    roots = tuple(str(Path(m.__file__).parent) for m in (execnet, xdist))
    frame, count = sys._getframe(), 0
    while frame is not None:
        count += frame.f_code.co_filename.startswith(roots)
        frame = frame.f_back
    return count
