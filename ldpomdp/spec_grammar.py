"""The text grammar of a player spec: plain values, pieces cut at commas outside brackets, bracketed values.

``ldpomdp.registry`` parses specs with these; they know nothing of the registered players.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import UsageError

__all__ = ["KEY", "EXACT_INT", "parse_value", "split_pieces", "group_specs", "inside_brackets"]

KEY = re.compile(r"([A-Za-z_]\w*)\s*=(.*)", re.DOTALL)  # a ``key=value`` piece (a spec's name never has "=")
EXACT_INT = 2**53  # integral numbers below this are written as integers


def parse_value(text: str) -> Any:
    """A plain parameter's value: true/false (any case), a number (an integral one as an int), else the word."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and abs(number) < EXACT_INT else number


def split_pieces(text: str, where: str) -> list[str]:
    """``text`` cut at the commas outside brackets, each piece stripped (empty ones dropped); a UsageError starting
    with ``where`` for brackets that do not pair up."""
    pieces, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise UsageError(f"{where}: a ']' closes no '['")
        elif char == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    if depth:
        raise UsageError(f"{where}: a '[' is never closed")
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]


def group_specs(pieces: list[str]) -> list[str]:
    """Pieces of a list of specs grouped into specs: a ``key=value`` piece belongs to the spec before it."""
    specs: list[str] = []
    for piece in pieces:
        if specs and KEY.fullmatch(piece):
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def inside_brackets(value: str) -> str | None:
    """The text inside brackets that enclose all of ``value``, else None."""
    if not value.startswith("["):
        return None
    depth = 0
    for i, char in enumerate(value):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0:
            return value[1:-1].strip() if i == len(value) - 1 else None
    return None
