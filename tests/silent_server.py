"""A TCP server on 127.0.0.1 that accepts connections and never answers: a broker or database in trouble.
`broker_at(url)` points this process's Celery at such a server (or any URL) meanwhile.

It reads and discards what clients send (so their writes never block), answers nothing, and closes every
connection when the `with` block ends, which releases any client still waiting.
"""

from __future__ import annotations

import os
import socket
import threading
from contextlib import contextmanager, suppress


@contextmanager
def silent_server():
    """Yields the port of a listener that accepts and stays silent."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.1)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def drain(conn: socket.socket) -> None:
        conn.settimeout(0.1)
        while not stop.is_set():
            try:
                if not conn.recv(65536):
                    return
            except TimeoutError:
                continue
            except OSError:
                return

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            accepted.append(conn)
            threading.Thread(target=drain, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, name="silent-server", daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in accepted:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()
        listener.close()


@contextmanager
def broker_at(url: str):
    """Send this process's tasks and health checks to `url` meanwhile (pooled connections are dropped)."""
    from fabricdesign.celery import app

    def reset():
        from kombu import pools

        pools.reset()  # kombu's producer pools, keyed by connection, closed and forgotten
        app._pool = None
        app.amqp._producer_pool = None

    previous = os.environ.get("CELERY_BROKER_URL")
    os.environ["CELERY_BROKER_URL"] = url
    reset()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = previous
        reset()
