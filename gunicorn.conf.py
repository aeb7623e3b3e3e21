"""gunicorn settings, read from the working directory (the Docker image's /app) when gunicorn starts.

One worker process per CPU the process may run on: a worker runs Python on one core at a time (the GIL), so
fewer workers than cores leave cores idle under load, and the 20-client benchmark (bench/bench_artifacts.py)
queues behind one core. Threads (gthread) let a worker stream files and answer /healthz while other requests
wait on the database. WEB_CONCURRENCY and GUNICORN_THREADS override both; command-line flags override this file.

Each thread keeps its database connection for DATABASE_CONN_MAX_AGE seconds, 60 here unless set: a new
PostgreSQL connection per request (the settings' default of 0, kept for runserver, workers and tests) cost
the app about 3.5 ms of CPU per API request, more than a stored BOM's whole answer, and the server a backend
process. So a web container holds up to workers x threads connections (16 on two CPUs); size PostgreSQL's
max_connections for all containers plus the Celery workers' concurrency.
"""

import os

os.environ.setdefault("DATABASE_CONN_MAX_AGE", "60")

workers = int(os.environ.get("WEB_CONCURRENCY") or len(os.sched_getaffinity(0)))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS") or 8)
