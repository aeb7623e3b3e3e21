"""gunicorn settings, read from the working directory (the Docker image's /app) when gunicorn starts.

One worker process per CPU the process may run on: a worker runs Python on one core at a time (the GIL), so
fewer workers than cores leave cores idle under load, and the 20-client benchmark (bench/bench_artifacts.py)
queues behind one core. Threads (gthread) let a worker stream files and answer /healthz while other requests
wait on the database. WEB_CONCURRENCY and GUNICORN_THREADS override both; command-line flags override this file.
"""

import os

workers = int(os.environ.get("WEB_CONCURRENCY") or len(os.sched_getaffinity(0)))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS") or 8)
