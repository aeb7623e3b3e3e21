"""The error a counter file that cannot be read raises, with the line it stopped at."""

from __future__ import annotations


class CounterParseError(ValueError):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line
