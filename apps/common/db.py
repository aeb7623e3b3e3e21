"""Model instances from hand-written queries.

A few reads run on nearly every API request (the token, a revision with its access check, its price version).
The ORM builds and compiles their SQL again on every call, which costs more CPU than the rest of such a request,
so those few are hand-written (each next to the ORM rule it mirrors, and held to it by a test) and build their
instances here, converting each column as the ORM would (a datetime or JSON column arrives as text on some
databases).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)


def column_field(model: type[Model], name: str) -> Field:
    """The field `name` of `model` that is a column of its table (not the reverse side of a relation)."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or field.column is None:
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def column_name(model: type[Model], name: str) -> str:
    """The table column of the field `name` of `model`."""
    column = column_field(model, name).column
    assert column is not None  # column_field refuses a field without one
    return column


def columns(model: type[Model], fields: tuple[str, ...], alias: str) -> str:
    """`alias.column, ...` of these fields (attnames), for a SELECT that row_instance reads back."""
    qn = connection.ops.quote_name
    return ", ".join(f"{alias}.{qn(column_name(model, f))}" for f in fields)


@lru_cache(maxsize=64)
def _converters(model: type[Model], fields: tuple[str, ...]) -> list[tuple[Any, list[Callable[..., Any]]]]:
    out = []
    for name in fields:
        col = column_field(model, name).get_col(model._meta.db_table)
        out.append((col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)))
    return out


def row_instance(model: type[M], fields: tuple[str, ...], row: Sequence[Any]) -> M:
    """An instance of `model` from `row`, the values of `fields` in that order (as `columns` selects them),
    converted as the ORM converts them; the model's other fields are deferred."""
    values = {}
    for name, value, (col, converters) in zip(fields, row, _converters(model, fields)):
        for convert in converters:
            value = convert(value, col, connection)
        values[name] = value
    return partial_instance(model, **values)


def partial_instance(model: type[M], **values: Any) -> M:
    """An instance of `model` as the ORM loads one with only(): these columns set, every other one deferred (loaded
    by a query on first use, never a silent default)."""
    fields = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(connection.alias, fields, [values[f] for f in fields])
