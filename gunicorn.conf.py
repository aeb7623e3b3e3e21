"""gunicorn settings, read from the working directory (the Docker image's /app) when gunicorn starts.

One worker process per CPU the process may run on: a worker runs Python on one core at a time (the GIL), so
fewer workers than cores leave cores idle under load, and the 20-client benchmark (bench/bench_artifacts.py)
queues behind one core. Threads (gthread) let a worker stream files and answer /healthz while other requests
wait on the database. WEB_CONCURRENCY and GUNICORN_THREADS override both; command-line flags override this file.

16 threads, not 8: a thread streams one download from start to end, so with 2 x 8 threads the 17th to 20th of 20
clients reading the 53 MB labels.pdf waited for another download to end before their first byte. On a quiet
2-CPU machine (bench_artifacts.py --sizes 128k, back to back) the 20-client first-byte p99 fell from 1,172 ms
with 8 threads to 278 ms with 16; 24 gave 284 ms, and the BOM's p99 stayed within noise (98, 94, 158 ms).

Each thread keeps its database connection for DATABASE_CONN_MAX_AGE seconds, 60 here unless set: a new
PostgreSQL connection per request (the settings' default of 0, kept for runserver, workers and tests) cost
the app about 3.5 ms of CPU per API request, more than a stored BOM's whole answer, and the server a backend
process. So a web container holds up to workers x threads connections (32 on two CPUs); size PostgreSQL's
max_connections for all containers plus the Celery workers' concurrency.
"""

import os

os.environ.setdefault("DATABASE_CONN_MAX_AGE", "60")

workers = int(os.environ.get("WEB_CONCURRENCY") or len(os.sched_getaffinity(0)))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS") or 16)
