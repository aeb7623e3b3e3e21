"""Model instances from hand-written queries.

A few reads run on nearly every API request (the token, a revision with its access check, its price version).
The ORM builds and compiles their SQL again on every call, which costs more CPU than the rest of such a request,
so those few are hand-written (each next to the ORM rule it mirrors, and held to it by a test) and build their
instances here.
"""

from __future__ import annotations

from django.db import connection


def partial_instance(model, **values):
    """An instance of `model` as the ORM loads one with only(): these columns set, every other one deferred (loaded
    by a query on first use, never a silent default)."""
    fields = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(connection.alias, fields, [values[f] for f in fields])
