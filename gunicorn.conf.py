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
import threading

os.environ.setdefault("DATABASE_CONN_MAX_AGE", "60")

workers = int(os.environ.get("WEB_CONCURRENCY") or len(os.sched_getaffinity(0)))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS") or 16)

# Keep-alive above every Retry-After the API sends by default: a job poll's 2 s (apps/api/output.py
# JOB_POLL_AFTER_S), the job quota's 30 s (JOB_QUOTA_RETRY_AFTER_S) and a refused request's wait of at most the
# rate-limit window (API_THROTTLE_RATE, 60 s for 1200/min). gunicorn's default of 2 s closed the connection just
# as a client polling every Retry-After seconds sent its next request on it ("Server disconnected", issue 40).
# 75 s, as nginx's keepalive_timeout default, also outlasts a load balancer's 60 s idle timeout, so the balancer,
# not gunicorn, closes an idle connection. An idle connection waits in the worker's poller, not in a thread.
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE") or 75)

# The longest request line gunicorn takes (its maximum; the default 4094 refused, with a 414 the schema did not
# declare, queries the schema admits: four spares_* inputs at their 400 characters, percent-encoded). Every
# operation's longest query fits (tests/apps/api/test_request_line_limit.py).
limit_request_line = 8190

# At most this many requests of a worker run the app at once (0: no bound); the others wait their turn, in order.
# With 20 clients on two workers, ten requests of a worker are in the app at once and share its one interpreter
# lock, which passes between threads every 5 ms in no particular order: a request can lose many turns in a row,
# and those are the API's p99 (bench/bench_api.py, docs/benchmarks.md). 4 threads in all made the quiet p99 of the
# BOM and the first and the deep cable page 119 / 136 / 156 ms against 200 / 209 / 169 ms with 16, but then the
# 17th to 20th download waits for a thread (above). So the 16 threads stay, and only the making of an answer is
# bounded at 4 (a semaphore, whose waiters are woken in arrival order); the bytes of a download are sent outside it.
active_requests = int(os.environ.get("GUNICORN_ACTIVE_REQUESTS") or 4)


class _Admission:
    """The worker's app behind a semaphore held while the app makes its answer, not while gunicorn sends it: a
    streamed download's bytes flow outside it, so the 16 threads still serve 16 downloads at once."""

    def __init__(self, app, limit: int):
        self.app = app
        self.slots = threading.Semaphore(limit)

    def __call__(self, environ, start_response):
        with self.slots:
            return self.app(environ, start_response)


def post_worker_init(worker):
    if active_requests > 0:
        worker.wsgi = _Admission(worker.wsgi, active_requests)
