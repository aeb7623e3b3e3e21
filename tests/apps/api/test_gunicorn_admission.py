"""gunicorn.conf.py lets at most `active_requests` requests of a worker run the app at once, and holds none of
them while gunicorn sends an answer's body, so a download streams outside the bound.

GIVEN the admission wrapper of gunicorn.conf.py around an app that blocks until released
WHEN more requests than its slots call it at once from threads
THEN only `limit` are inside the app at a time, the others enter as slots free; and an answer whose body is still
     being read holds no slot
"""

from __future__ import annotations

import runpy
import threading
import time
from pathlib import Path

CONF = runpy.run_path(str(Path(__file__).resolve().parents[3] / "gunicorn.conf.py"))


def test_no_more_than_the_limit_run_the_app_at_once():
    inside, most, gate = [0], [0], threading.Event()
    lock = threading.Lock()

    def app(environ, start_response):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        gate.wait(5)
        with lock:
            inside[0] -= 1
        return [b"ok"]

    wrapped = CONF["_Admission"](app, 2, 30.0)
    threads = [threading.Thread(target=wrapped, args=({}, None)) for _ in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    assert inside[0] == 2
    gate.set()
    for t in threads:
        t.join(5)
    assert most[0] == 2 and inside[0] == 0


def test_a_body_being_sent_holds_no_slot():
    def streaming(environ, start_response):
        def body():
            yield b"part"
            yield b"more"

        return body()

    wrapped = CONF["_Admission"](streaming, 1)
    first = wrapped({}, None)
    next(first)  # a download under way
    second = wrapped({}, None)  # would block forever if the first still held the only slot
    assert b"".join(second) == b"partmore"


def test_the_bound_is_on_by_default_and_zero_turns_it_off():
    class Worker:
        wsgi = staticmethod(lambda environ, start_response: [b""])

    worker = Worker()
    CONF["post_worker_init"](worker)
    assert isinstance(worker.wsgi, CONF["_Admission"]) and CONF["active_requests"] == 1
    assert worker.wsgi.wait_s == 0.25


def test_a_request_waits_for_a_slow_one_no_longer_than_the_wait_limit():
    """One slow answer holds the only slot; the next request goes in after the wait limit, not after it."""
    release = threading.Event()

    def app(environ, start_response):
        if environ.get("slow"):
            release.wait(10)
        return [b"done"]

    wrapped = CONF["_Admission"](app, 1, 0.2)
    slow = threading.Thread(target=wrapped, args=({"slow": True}, None))
    slow.start()
    time.sleep(0.05)
    started = time.monotonic()
    assert wrapped({}, None) == [b"done"]
    waited = time.monotonic() - started
    release.set()
    slow.join(5)
    assert 0.15 <= waited < 5  # it waited its turn, then went in beside the slow one
    # and the slow one's slot came back: a later request enters at once
    assert wrapped.slots.acquire(timeout=0) and wrapped.slots.release() is None
