"""Errors the engine raises. Each carries enough to show a user a field-level message."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FieldError:
    """One problem with one field of a spec; `path` is dotted (e.g. `compute_fabric.oversubscription.leaf`)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class SpecError(ValueError):
    """A spec that is malformed or cannot be built. `errors` lists every problem found, each with its field path."""

    def __init__(self, errors: list[FieldError] | FieldError):
        self.errors = [errors] if isinstance(errors, FieldError) else list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))

    @classmethod
    def at(cls, path: str, message: str) -> SpecError:
        return cls(FieldError(path, message))


class EngineInvariantError(AssertionError):
    """A computed result broke an invariant. That is a bug in the engine, never a user error."""


class CatalogError(ValueError):
    """The catalog data (shipped or user-supplied) is malformed."""
