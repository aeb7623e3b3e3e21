"""The one reader of catalog entries: a YAML (or a user's JSON) entry -> a frozen dataclass, field by field.

Each catalog dataclass (engine/catalog/__init__.py) is its own schema for this step: a field is read from the
entry's key of the same name (or `metadata["key"]`), converted to the field's annotated type, and checked by
`metadata["check"]` when it has one. A missing or null key takes the field's default; a field without a default
is required, unless its type admits None. Every refusal is a CatalogError naming where the entry came from (the
data file, or "catalog extension" for a user's parts), the entry and the field:

    switches.yaml: switches.tor-x.os.junos: is not an OS the engine writes configs for (nvue, sonic, eos, ib)

Before this step hardware_schema.check_entry has refused unknown keys and wrong JSON types, so what reaches a
converter is already plain data of the right kind; the converters still check, since they are also the reader
of nested values the schema leaves open ("*" keys).

`read_shipped` is the catalog's one parser call: it reads the YAML files shipped in the repository (trusted
data, tests/hostile/test_input_gate_lint.py); a user's parts arrive already parsed by the input gate.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, Union

import yaml

from ..errors import CatalogError

T = TypeVar("T")

_WORDS = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}


def read_shipped(path: Path) -> tuple[Any, bytes]:
    """(data, bytes) of a YAML data file shipped in the repository."""
    raw = path.read_bytes()
    return yaml.safe_load(raw), raw


class Where:
    """Where a value came from, for messages: the origin (the data file, or the user's parts) and the path from
    the entry's section ('switches.tor-x.os'). `style` "field" writes the media catalog's form instead,
    "<origin>: field '<path>' <message>", the origin then naming the entry ('extra: transceivers[0]').
    `error` is the exception class raised; `closed` (None: open) the keys an entry may hold besides its fields,
    every other key refused."""

    __slots__ = ("closed", "error_class", "origin", "path", "style")

    def __init__(
        self,
        origin: str,
        path: str = "",
        *,
        style: str = "path",
        error: type[ValueError] = CatalogError,
        closed: tuple[str, ...] | None = None,
    ):
        self.origin, self.path, self.style, self.error_class, self.closed = origin, path, style, error, closed

    def at(self, name: str) -> Where:
        sep = "" if name.startswith("[") or not self.path else "."
        return Where(
            self.origin, f"{self.path}{sep}{name}", style=self.style, error=self.error_class, closed=self.closed
        )

    def error(self, message: str) -> ValueError:
        if self.style == "field":
            return self.error_class(
                f"{self.origin}: field '{self.path}' {message}" if self.path else f"{self.origin}: {message}"
            )
        where = f"{self.origin}: {self.path}" if self.origin else self.path
        return self.error_class(f"{where}: {message}")


def field(
    *,
    key: str = "",
    also: str = "",
    required: bool = False,
    check: Callable[[Any, Where], None] | None = None,
    read: Callable[[Any, Where], Any] | None = None,
    **kw: Any,
) -> Any:
    """dataclasses.field with the loader's settings: `key` when the entry spells the field otherwise, `also` a
    second spelling read when the first is missing, `required` for a field whose default exists only for
    objects stored before the field did (engine/snapshot_codec.py fills it) or that must be written even when
    empty, `check` a rule beyond the type, called with the converted value and its Where (raise
    where.error(...)), `read` a converter of its own for a value whose written form is not its type's (a grade
    or a mapping of grades, a list kept sorted)."""
    metadata = dict(kw.pop("metadata", None) or {})
    metadata.update(key=key, also=also, required=required, check=check, read=read)
    return dataclasses.field(metadata=metadata, **kw)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _has_default(f: dataclasses.Field) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _optional(tp: Any) -> tuple[bool, Any]:
    """(admits None, the type without None)."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) != len(typing.get_args(tp)):
            return True, args[0] if len(args) == 1 else Union[tuple(args)]  # noqa: UP007 - built from a tuple
    return False, tp


def build(cls: type[T], raw: Any, where: Where, **given: Any) -> T:
    """`cls` from the entry `raw`; `given` supplies fields the entry does not hold (the entry's key)."""
    if not isinstance(raw, Mapping):
        raise where.error(f"must be a mapping of fields, not {type(raw).__name__}")
    hints = _hints(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if where.closed is not None:
        allowed = {f.metadata.get("key") or f.name for f in fields} - set(given)
        unknown = sorted(set(raw) - allowed - set(where.closed))
        if unknown:
            raise where.error(f"unknown field(s) {unknown}; allowed: {sorted(allowed)}")
    values: dict[str, Any] = {}
    for f in fields:
        if f.name in given:
            values[f.name] = given[f.name]
            continue
        key = f.metadata.get("key") or f.name
        at = where.at(key)
        value = raw.get(key)
        if value is None and f.metadata.get("also"):
            value = raw.get(f.metadata["also"])
        if value is None:
            if _has_default(f) and not f.metadata.get("required"):
                continue
            if _optional(hints[f.name])[0]:
                values[f.name] = None
                continue
            raise at.error("is required")
        read = f.metadata.get("read")
        values[f.name] = read(value, at) if read is not None else convert(hints[f.name], value, at)
        check = f.metadata.get("check")
        if check is not None:
            check(values[f.name], at)
    return cls(**values)


def convert(tp: Any, value: Any, where: Where) -> Any:
    """`value` as the annotated type `tp`: str, int, float, bool, Any, X | None, tuple[X, ...], Mapping[K, V]
    (dict), or a dataclass (read with build)."""
    nullable, tp = _optional(tp)
    if value is None:
        if nullable:
            return None
        raise where.error("must not be empty")
    if tp is Any:
        return value
    if dataclasses.is_dataclass(tp):
        return build(tp, value, where)  # type: ignore[arg-type]
    origin = typing.get_origin(tp)
    if origin is tuple:
        item = typing.get_args(tp)[0]
        if not isinstance(value, (list, tuple)):
            raise where.error(f"must be a list, not {type(value).__name__}")
        return tuple(convert(item, v, where.at(f"[{i}]")) for i, v in enumerate(value))
    if origin in (Mapping, dict, typing.get_origin(Mapping[str, str])):
        key_tp, value_tp = typing.get_args(tp)
        if not isinstance(value, Mapping):
            raise where.error(f"must be a mapping, not {type(value).__name__}")
        return {_key(key_tp, k, where): convert(value_tp, v, where.at(str(k))) for k, v in value.items()}
    return _scalar(tp, value, where)


def _key(tp: Any, key: Any, where: Where) -> Any:
    if tp is int and isinstance(key, str) and key.isdigit():
        return int(key)  # a user's JSON body spells numeric keys as text ({"400": 2})
    return _scalar(tp, key, where.at(str(key)))


def _scalar(tp: Any, value: Any, where: Where) -> Any:
    if tp is float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return _wrong(tp, value, where)
        if not math.isfinite(value):  # YAML's .nan and .inf
            raise where.error(f"must be a finite number, got {value!r}")
        return float(value)
    if tp is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _wrong(tp, value, where)
    if tp in (str, bool):
        return value if isinstance(value, tp) else _wrong(tp, value, where)
    raise TypeError(f"the catalog loader does not read {tp!r} ({where.path})")  # a dataclass annotated wrongly


def _wrong(tp: type, value: Any, where: Where) -> Any:
    if where.style == "field":
        raise where.error(f"must be {_WORDS[tp]}, got {value!r}")
    raise where.error(f"must be {_WORDS[tp]}, not {type(value).__name__}")


__all__ = ["Where", "build", "convert", "field", "read_shipped"]
