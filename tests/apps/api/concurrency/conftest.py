"""Tests that race a real multi-threaded server (pytest-django's live_server).

Its request threads each open their own database connection. SQLite's in-memory test database is one
shared cache, which answers a second writer with "table is locked" at once instead of waiting, so
these tests use a file, as the browser tests do (same hook: only where the SQLite test database lives).
"""

from tests.browser.conftest import pytest_configure  # noqa: F401
