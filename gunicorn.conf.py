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
# lock, which passes between threads every 5 ms in no particular order, and again at every database round trip:
# a request can lose many turns in a row, and those are the API's p99 (bench/bench_api.py, docs/benchmarks.md).
# Measured quiet on 2 CPUs (bench_api.py, 16K, 20 connections, p99 of BOM / first / deep cable page): no bound
# 203 / 227 / 226 ms; 4 at once 158-189 / 205-221 / 235-241; 2 at once 124 / 133 / 193; 1 at once 105-111 /
# 124-157 / 112-130 ms, at the same throughput (449-495 req/s BOM): the two workers and PostgreSQL keep both cores
# busy. The 16 threads stay (a download's bytes are sent outside the bound, so 20 downloads still stream at once).
active_requests = int(os.environ.get("GUNICORN_ACTIVE_REQUESTS") or 1)
# ... but a request never waits longer than this for its turn (then it runs beside the others): one slow answer
# (a large page, a first decode of a big revision) must not hold its worker's /healthz and API calls behind it.
admission_wait_s = float(os.environ.get("GUNICORN_ADMISSION_WAIT_MS") or 250) / 1000


class _Admission:
    """The worker's app behind a semaphore held while the app makes its answer, not while gunicorn sends it: a
    streamed download's bytes flow outside it, so the 16 threads still serve 16 downloads at once. A request that
    waited `wait_s` for a slot goes in without one."""

    def __init__(self, app, limit: int, wait_s: float = 0.25):
        self.app = app
        self.slots = threading.Semaphore(limit)
        self.wait_s = wait_s

    def __call__(self, environ, start_response):
        held = self.slots.acquire(timeout=self.wait_s)
        try:
            return self.app(environ, start_response)
        finally:
            if held:
                self.slots.release()


def post_worker_init(worker):
    if active_requests > 0:
        worker.wsgi = _Admission(worker.wsgi, active_requests, admission_wait_s)
