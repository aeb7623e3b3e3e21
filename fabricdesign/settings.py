"""Settings for fabricdesign: the only settings module.

Every knob is read from the environment through fabricdesign.env and listed in
README.md. Nothing here is production-only: dev, CI and production differ only
in their environment. Defaults suit a single machine with no services (SQLite
and a filesystem message broker under var/).
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from fabricdesign.env import (
    counter_thresholds_file,
    env_bool,
    env_int,
    env_list,
    env_secret,
    env_str,
    parse_database_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# Runtime state (SQLite file, filesystem broker, uploads) lives in VAR_DIR so a
# smoke test or a container can move it without touching the code tree.
VAR_DIR = Path(env_str("FABRICDESIGN_VAR_DIR", str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)

# --- Core -------------------------------------------------------------------

DEBUG = env_bool("DJANGO_DEBUG", False)

SECRET_KEY = env_secret("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE) must be set when "
            "DJANGO_DEBUG is false. For local work use ./scripts/run or ./scripts/test."
        )
    SECRET_KEY = "django-insecure-dev-only-never-use-in-production"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Behind a proxy that terminates TLS, Django sees plain HTTP; trusting the
# proxy's X-Forwarded-Proto is what makes request.is_secure() and secure
# cookies work. Never enable it without such a proxy: clients could spoof it.
BEHIND_TLS_PROXY = env_bool("DJANGO_BEHIND_TLS_PROXY", False)
if BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
# HSTS tells browsers to use only HTTPS for this host; SecurityMiddleware sends it on secure requests
# only, which behind the proxy are those it forwarded as https. A year is the usual (and preload) value.
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 365 * 24 * 3600 if BEHIND_TLS_PROXY else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", False)
# Django's defaults, stated because the perimeter depends on them: nosniff, and no full URLs (which
# hold design ids) in the Referer header sent to other sites.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# The Content-Security-Policy of every page (apps.common.security): scripts, styles and everything
# else from this app only; no inline script or style, no plugins, no framing.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
# The client address for sign-in throttling and anonymous API limits. Behind the proxy the socket's
# peer is the proxy, so the address is the last X-Forwarded-For entry, the one the proxy appended.
CLIENT_ADDRESS_PROXY_HOPS = env_int("DJANGO_PROXY_HOPS", 1 if BEHIND_TLS_PROXY else 0)

# The Django admin (/admin/): off unless enabled, so a production site has no second sign-in page
# for anyone who finds it. ./scripts/run and ./scripts/test turn it on; see README.
ADMIN_ENABLED = env_bool("DJANGO_ADMIN_ENABLED", False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "apps.common",
    "apps.catalog",
    "apps.designs",
    "apps.exports",
    "apps.qos",
    "apps.measurements",
    "apps.monitoring",
    "apps.jobs",
    "apps.api",
    "apps.commissioning",
    "apps.counters",
    "apps.alternatives",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Right after SecurityMiddleware, so static files skip the rest of the stack.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A view's 404 renders templates/404.html with DEBUG on too (no URL pattern list): apps/common/middleware.py
    "apps.common.middleware.NotFoundPageMiddleware",
    # CSP and Cache-Control on every response the app makes (static files have returned above).
    "apps.common.security.SecurityHeadersMiddleware",
    # Last, as django-axes requires: turns a locked-out sign-in into its lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "fabricdesign.urls"
WSGI_APPLICATION = "fabricdesign.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------

DATABASES = {
    "default": {
        **parse_database_url(
            env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
            base_dir=BASE_DIR,
        ),
        "CONN_MAX_AGE": env_int("DATABASE_CONN_MAX_AGE", 0),
        "CONN_HEALTH_CHECKS": True,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes refuses sign-ins for a locked-out username or address before any password is checked;
# then the usual model backend.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Sign-in throttling (django-axes) on every form that signs in (the app's and the admin's): after
# LOGIN_FAILURE_LIMIT wrong passwords for one username, or from one address, further attempts for it
# (even with the right password) get the lockout page (HTTP 429) until LOGIN_LOCKOUT_MINUTES have
# passed since the last failure. Attempts and lockouts are rows the admin lists (Axes > Access attempts);
# `manage.py axes_reset_username <name>` / `axes_reset_ip <address>` lift one early.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one alone locks: per user and per address
# A good sign-in does not clear the count: an attacker's own account must not wipe their address's record.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "apps.common.security.lockout_response"
AXES_CLIENT_IP_CALLABLE = "apps.common.security.client_address"
AXES_ENABLE_ACCESS_FAILURE_LOG = False
AXES_VERBOSE = False
# The app's own sign-in page (django.contrib.auth views, templates/registration).
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# --- Internationalisation ---------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static and uploaded files ----------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# A build artefact (collectstatic in the Dockerfile), so it stays in the code
# tree rather than VAR_DIR, which a container may mount as a volume.
STATIC_ROOT = BASE_DIR / "var" / "static"
# WhiteNoise warns on every start while it is missing (before collectstatic).
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
MEDIA_ROOT = VAR_DIR / "media"
# Rendered deliverables (apps/exports/artifacts.py): local files under VAR_DIR/artifacts (one machine, or a
# volume every web and worker process mounts), or the database (web and workers on different hosts with no
# shared filesystem). Both write atomically (apps/exports/storage.py).
ARTIFACT_STORE = env_str("ARTIFACT_STORE", "files")
ARTIFACT_FILES_DIR = Path(env_str("ARTIFACT_FILES_DIR", str(VAR_DIR / "artifacts"))).resolve()
_ARTIFACT_STORAGES: dict[str, dict[str, Any]] = {
    "files": {
        "BACKEND": "apps.exports.storage.AtomicFileSystemStorage",
        "OPTIONS": {"location": str(ARTIFACT_FILES_DIR)},
    },
    "database": {"BACKEND": "apps.exports.storage.DatabaseStorage"},
    # Credentials come the usual AWS way (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a role, a profile).
    "s3": {
        "BACKEND": "apps.exports.storage.S3ArtifactStorage",
        "OPTIONS": {
            "bucket_name": env_str("ARTIFACT_S3_BUCKET", ""),
            "endpoint_url": env_str("ARTIFACT_S3_ENDPOINT_URL", "") or None,
            "region_name": env_str("ARTIFACT_S3_REGION", "") or None,
            "location": "artifacts",
            "file_overwrite": True,  # names are unique per build
            "default_acl": None,
            "querystring_auth": True,
            "querystring_expire": 300,
        },
    },
}
if ARTIFACT_STORE not in _ARTIFACT_STORAGES:
    raise ImproperlyConfigured(f"ARTIFACT_STORE={ARTIFACT_STORE!r}: use one of {', '.join(_ARTIFACT_STORAGES)}")
if ARTIFACT_STORE == "s3" and not _ARTIFACT_STORAGES["s3"]["OPTIONS"]["bucket_name"]:
    raise ImproperlyConfigured("ARTIFACT_STORE=s3 needs ARTIFACT_S3_BUCKET")
# With the s3 store: answer a download with a redirect to a presigned URL (5 minutes) instead of streaming the
# bytes through the app.
ARTIFACT_S3_REDIRECT = env_bool("ARTIFACT_S3_REDIRECT", False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "artifacts": _ARTIFACT_STORAGES[ARTIFACT_STORE],
    # Hashed file names let WhiteNoise send far-future cache headers.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- Cache ------------------------------------------------------------------

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "apps.common.cache_backends.SharedClientRedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Results recomputed from a revision (QoS configuration set, test-sheet limits) are cached as one blob each
# (apps/designs/revision_cache.py); a blob larger than this is served but not kept.
REVISION_CACHE_MAX_BYTES = env_int("REVISION_CACHE_MAX_BYTES", 64 * 1024 * 1024)
# Each web process also keeps the most recently used immutable answers (named by their strong ETag: the BOM JSON)
# in its own memory, up to this many bytes (0: off), which spares a hot request the trip to Redis
# (apps/common/hot_cache.py).
HOT_CACHE_MAX_BYTES = env_int("HOT_CACHE_MAX_BYTES", 32 * 1024 * 1024)

# Retention of the artifact store (the hourly exports.prune_artifacts): artifacts unused this many days go,
# then the least recently used until the store holds at most ARTIFACT_MAX_BYTES.
ARTIFACT_MAX_BYTES = env_int("ARTIFACT_MAX_BYTES", 10 * 1024**3)
ARTIFACT_MAX_AGE_DAYS = env_int("ARTIFACT_MAX_AGE_DAYS", 30)
# With the files store behind nginx: the internal location that maps to VAR_DIR/artifacts/ (e.g.
# "/_artifacts/"); the app then answers with X-Accel-Redirect and nginx sends the bytes (README, Production).
ARTIFACT_ACCEL_REDIRECT = env_str("ARTIFACT_ACCEL_REDIRECT", "")
# A deliverable not yet stored is rendered inside the request only for revisions with at most this many
# cables; larger ones answer 202 and a worker builds them (measured: docs/deliverables.md, Downloads).
DOWNLOAD_INLINE_MAX_CABLES = env_int("DOWNLOAD_INLINE_MAX_CABLES", 2500)
# Browsers keep an immutable revision resource (summary, links, cables, files) this long without asking.
REVISION_HTTP_MAX_AGE_S = env_int("REVISION_HTTP_MAX_AGE_S", 86400)

# --- Celery (read by fabricdesign/celery.py through the CELERY_ namespace) --

# The default is kombu's filesystem transport: a real broker that needs no
# server, so ./scripts/run works on a bare machine. Tasks are never run eagerly.
# "localhost" only keeps kombu from warning about a missing hostname.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://localhost//")
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Producers and workers share one folder: a message is written to
        # data_folder_out and picked up from data_folder_in.
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        # A worker claims a message by renaming it into processed_folder. On the
        # same filesystem that rename is atomic, so two workers cannot both
        # take it (without store_processed kombu renames into /tmp instead).
        "store_processed": True,
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
    }
    for _folder in ("queue", "processed", "control"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
# A broker that accepts connections and never answers must not hang a request: sending a task is given
# up on after JOB_PUBLISH_TIMEOUT_S (apps.jobs.services._enqueue, which then fails the job), and the
# connection, the handshake and every Redis command time out after as long, so no sender waits for ever.
# Redis reads socket_*; other transports ignore those keys (AMQP's handshake is bounded by the connection
# timeout), so they are set whatever the URL says: Celery lets the environment override the URL.
JOB_PUBLISH_TIMEOUT_S = env_int("JOB_PUBLISH_TIMEOUT_S", 2)
CELERY_BROKER_CONNECTION_TIMEOUT = JOB_PUBLISH_TIMEOUT_S
CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,
    "socket_timeout": JOB_PUBLISH_TIMEOUT_S,
    "socket_connect_timeout": JOB_PUBLISH_TIMEOUT_S,
}
# Job state lives in our own database rows, never in a Celery result backend.
CELERY_RESULT_BACKEND = None

# --- Background jobs ----------------------------------------------------------

# A running job refreshes its heartbeat this often; the reaper requeues (or fails, after
# JOB_MAX_ATTEMPTS) a job whose heartbeat is older than the timeout. A broker's own
# redelivery of a lost task can take an hour (Redis visibility timeout), so this is what
# notices a dead worker within about a minute.
JOB_HEARTBEAT_INTERVAL_S = env_int("JOB_HEARTBEAT_INTERVAL_S", 10)
JOB_HEARTBEAT_TIMEOUT_S = env_int("JOB_HEARTBEAT_TIMEOUT_S", 60)
JOB_REAP_EVERY_S = env_int("JOB_REAP_EVERY_S", 20)
# Revisions stored before snapshots get theirs from a periodic task (apps/designs/snapshots.py): how often it
# runs and for how long at most per run (a 128K-GPU revision takes longer; the task finishes the one it started).
SNAPSHOT_BACKFILL_EVERY_S = env_int("SNAPSHOT_BACKFILL_EVERY_S", 300)
SNAPSHOT_BACKFILL_SECONDS = env_int("SNAPSHOT_BACKFILL_SECONDS", 120)
# A job still queued this long after its task was sent gets the task sent again (a lost message).
JOB_QUEUED_RESEND_S = env_int("JOB_QUEUED_RESEND_S", 600)
# Limits per job kind, enforced inside the worker process by a watchdog thread (apps/jobs/limits.py).
# Past the soft time limit or the memory ceiling (resident memory of the process running the job) the
# job is stopped and fails with a message naming the limit; a job still running at the hard time limit
# (or JOB_KILL_GRACE_S after any other stop: a cancel, the memory ceiling) is failed and its process
# exits, and the pool starts a fresh one. Defaults: a 128K-GPU design computes and stores in 10-25 s at a
# 630-710 MB peak, its largest export in under 60 s and 1 GB (docs/benchmarks.md), so the defaults leave room
# for a slow machine and stop only a runaway. The compute job's memory holds the largest design DESIGN_MAX_LINKS
# admits: peak RSS of the job (engine, COPY, checks, snapshot; bench/bench_store.py, docs/scale-benchmarks.md
# Stop 47) 2,850 MB for 1,048,576 GPUs (2,462,944 links over 29 halls), 2,037 MB for 524,288 over 16: 1.2-1.3 KB
# per link, 3.0-3.3 GB at DESIGN_MAX_LINKS. 5,120 MB leaves 1.5x that for design shapes not measured (more devices
# or cables per link, e.g. 745,920 GPUs non-blocking with OOB) and for what an earlier job left resident.
# The export job decodes the revision's snapshot and renders one file (bench/bench_export_memory.py, 4 Dec 2026):
# for 524,288 GPUs (1,577,792 links over 16 halls) the decoded result holds about 2,360 MB (1.5 KB per link), the
# cabling plan peaks at 3,178 MB (2.1 KB per link; cables.csv 2,535 MB, nothing over the decoded result), so
# 5.0 GB at DESIGN_MAX_LINKS, 5.2 GB with Django: 8,192 MB leaves 1.5x. The whole-design labels.pdf grows about
# 3.6 KB per cable over the decoded result (ReportLab keeps the document until it is written: +61 MB for 16,832
# cables), about 6.9 KB per link over several halls: it fits 8,192 MB up to about 1.2M links; larger designs
# take their labels per row or rack (the scoped download). The as-built job decodes the same snapshot and
# matches (1.17 GB measured at 397,184 links with a recompute: 2.9 KB per link, 7.3 GB at the limit): 8,192 MB.
# An alternatives study computes candidates of the design's size one after another, as a compute job does: 5,120 MB.
JOB_LIMITS = {
    kind: {
        "soft_time_limit_s": env_int(f"JOB_{kind.upper()}_SOFT_TIME_LIMIT_S", soft),
        "hard_time_limit_s": env_int(f"JOB_{kind.upper()}_HARD_TIME_LIMIT_S", soft + 30),
        "memory_limit_mb": env_int(f"JOB_{kind.upper()}_MEMORY_LIMIT_MB", memory),
    }
    for kind, soft, memory in (
        ("compute", 300, 5120),
        # export: a whole-design labels.pdf is the longest render; deliverables/labels.py refuses one over
        # MAX_WHOLE_DESIGN_LABELS (1,000,000) up front, naming the per-row/per-rack download: the 128K bench design's
        # 1,237,928 labels took 729 s at load 5-7 (290 s CPU) and 2,284 MB peak (docs/benchmarks.md, stop 47)
        ("export", 600, 8192),
        ("asbuilt", 300, 8192),
        ("alternatives", 600, 5120),
    )
}
for _kind, _limits in JOB_LIMITS.items():
    if not 0 < _limits["soft_time_limit_s"] < _limits["hard_time_limit_s"] or _limits["memory_limit_mb"] <= 0:
        raise ImproperlyConfigured(
            f"JOB_{_kind.upper()}_*: need 0 < soft time limit < hard time limit and a positive memory limit."
        )
JOB_KILL_GRACE_S = env_int("JOB_KILL_GRACE_S", 5)
# A job stopped at its memory ceiling may leave its process big: the prefork pool replaces a child still
# above the largest ceiling once its task ends (Celery reads this in KiB).
CELERY_WORKER_MAX_MEMORY_PER_CHILD = max(v["memory_limit_mb"] for v in JOB_LIMITS.values()) * 1024
# Per-user quotas: beyond JOB_MAX_QUEUED_PER_USER queued jobs a new one is refused (429 with Retry-After
# JOB_QUOTA_RETRY_AFTER_S); a worker claims no job of a user who has JOB_MAX_RUNNING_PER_USER running.
JOB_MAX_QUEUED_PER_USER = env_int("JOB_MAX_QUEUED_PER_USER", 10)
JOB_MAX_RUNNING_PER_USER = env_int("JOB_MAX_RUNNING_PER_USER", 2)
JOB_QUOTA_RETRY_AFTER_S = env_int("JOB_QUOTA_RETRY_AFTER_S", 30)
# Each worker records that it is alive this often; /healthz reports when none did for WORKER_SEEN_WITHIN_S.
WORKER_BEAT_INTERVAL_S = env_int("WORKER_BEAT_INTERVAL_S", 15)
WORKER_SEEN_WITHIN_S = env_int("WORKER_SEEN_WITHIN_S", 60)
# /healthz waits this long for the database and the broker (both are asked at once) before answering 503.
HEALTHZ_TIMEOUT_S = float(env_int("HEALTHZ_TIMEOUT_MS", 1500)) / 1000
# Test hook only, never set in production: "<engine stage>:<seconds>" holds every computation at that
# stage, so integration tests can kill or cancel a worker mid-run (apps.designs.services._test_stall).
JOB_TEST_STALL = env_str("JOB_TEST_STALL", "")
CELERY_BEAT_SCHEDULE = {
    "reap-stale-jobs": {"task": "jobs.reap_stale_jobs", "schedule": float(JOB_REAP_EVERY_S)},
    # Row partitions of deleted revisions whose drop timed out behind a store (apps/designs/partitions.py).
    "drop-orphan-partitions": {"task": "designs.drop_orphan_partitions", "schedule": 3600.0},
    # Ended windows of the API rate limit's database store (apps/api/ratelimit.py).
    "prune-rate-counters": {"task": "api.prune_rate_counters", "schedule": 3600.0},
    # Size and age retention of the artifact store (apps/exports/artifacts.py).
    "prune-artifacts": {"task": "exports.prune_artifacts", "schedule": 3600.0},
    # Snapshots of revisions stored before them (apps/designs/snapshots.py).
    "backfill-snapshots": {"task": "designs.backfill_snapshots", "schedule": float(SNAPSHOT_BACKFILL_EVERY_S)},
}

# --- REST framework ---------------------------------------------------------

REST_FRAMEWORK = {
    # Token authentication joins when the API gets non-browser clients.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# --- REST API (apps.api, docs/api.md) -----------------------------------------

# Requests per user (all their tokens and their browser session together; anonymous: per address)
# and second/minute/hour/day, e.g. "1200/min"; over it: 429. Every answer carries X-RateLimit-*.
API_THROTTLE_RATE = env_str("API_THROTTLE_RATE", "1200/min")
if not re.fullmatch(r"[1-9]\d*/(s|sec|m|min|h|hour|d|day)", API_THROTTLE_RATE):
    raise ImproperlyConfigured(f"API_THROTTLE_RATE={API_THROTTLE_RATE!r} is not like 1200/min.")
# Where the counters live (apps/api/ratelimit.py): Redis when REDIS_URL is set, else the database.
API_RATE_LIMIT_STORE = env_str("API_RATE_LIMIT_STORE", "redis" if REDIS_URL else "database")
if API_RATE_LIMIT_STORE not in ("redis", "database") or (API_RATE_LIMIT_STORE == "redis" and not REDIS_URL):
    raise ImproperlyConfigured(f"API_RATE_LIMIT_STORE={API_RATE_LIMIT_STORE!r}: use database, or redis with REDIS_URL.")
API_RATE_LIMIT_KEY_PREFIX = "fd:ratelimit:"
# Largest JSON body (Django's own form/body limit too) and largest uploaded test-result CSV: 413 over it.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("API_MAX_JSON_BYTES", 2 * 1024 * 1024)
API_MAX_UPLOAD_BYTES = env_int("API_MAX_UPLOAD_BYTES", 32 * 1024 * 1024)
# An as-built file up to this size is read in the web request (about 3.5 MB/s: under 0.1 s), so a bad one is a
# 400 at once; a larger one is stored as received and read by the "asbuilt" job, never in the web process.
ASBUILT_READ_IN_REQUEST_BYTES = env_int("ASBUILT_READ_IN_REQUEST_BYTES", 256 * 1024)
# Likewise a counter file and a measured-results CSV: up to this size read in the request (201 with the result),
# larger stored as received and read by their job (202 with the job), never parsed in the web process.
COUNTERS_READ_IN_REQUEST_BYTES = env_int("COUNTERS_READ_IN_REQUEST_BYTES", 256 * 1024)
MEASUREMENTS_READ_IN_REQUEST_BYTES = env_int("MEASUREMENTS_READ_IN_REQUEST_BYTES", 256 * 1024)
# Largest design a compute accepts, estimated from the spec when it is saved (engine/guard.py). The defaults
# admit the 1,048,576-GPU campus design (Q3400, spine 3:1, 2,462,944 links, 158,384 devices) and 745,920 GPUs
# non-blocking with OOB (2,430,807 links, 192,471 devices). Memory behind them (bench/bench_store.py, peak RSS
# of the compute job, Stop 47 in docs/scale-benchmarks.md): 1.2-1.3 KB per link over several halls (2,037 MB at
# 1,577,792 links in 16 halls, 2,850 MB at 2,462,944 in 29), so 3.0-3.3 GB at the limit, which
# JOB_COMPUTE_MEMORY_LIMIT_MB's default (5,120) holds. Raise the three together, by that figure, on a bigger machine.
DESIGN_MAX_LINKS = env_int("DESIGN_MAX_LINKS", 2_500_000)
DESIGN_MAX_DEVICES = env_int("DESIGN_MAX_DEVICES", 200_000)
# Error-counter flag thresholds: engine/counters/data/thresholds.yaml, overridden by this YAML file's plain
# values ({name: number}); checked at start-up.
COUNTER_THRESHOLDS_FILE = env_str("COUNTER_THRESHOLDS_FILE", "")
COUNTER_THRESHOLDS = counter_thresholds_file(COUNTER_THRESHOLDS_FILE)

SPECTACULAR_SETTINGS = {
    "TITLE": "fabricdesign API",
    "DESCRIPTION": "Design GPU-cluster network fabrics: specs, computations, bills of materials, cabling. "
    "See docs/api.md.",
    "VERSION": "1.0.0",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    # Swagger UI and Redoc from drf-spectacular-sidecar's local copies: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PATH_CONVERTER_OVERRIDES": {
        "fdid": {"type": "integer", "minimum": 0, "maximum": 999999999999999999},
        "revno": {"type": "integer", "minimum": 0, "maximum": 999999999},
    },
    "ENUM_NAME_OVERRIDES": {
        "ShareAccessEnum": "apps.designs.models.Access",
        "DesignAccessEnum": ["owner", "write", "read"],
        "UtilizationSnapshotKindEnum": ["prometheus", "counters"],
        "ImbalanceKindEnum": ["hot", "idle"],
        "JobOutStatusEnum": ["queued", "running", "succeeded", "failed", "cancelled"],
        # closed sets the engine owns, one name each wherever they appear
        "BomCategoryEnum": "engine.physical_stage.BOM_CATEGORIES",
        "NetworkEnum": "engine.model.NETWORKS",
        "TierEnum": "engine.model.ALL_TIERS",
        "CableKindEnum": "engine.physical_stage.CABLE_KINDS",
        "LinkMediumEnum": "apps.api.results.LINK_MEDIA",
        "LinkStatusEnum": "apps.api.results.LINK_STATUSES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.api.schema.add_error_responses",
        "apps.api.schema_docs.add_operation_descriptions",
        "apps.api.schema_examples.add_examples",
    ],
}

# --- Logging ----------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
}
