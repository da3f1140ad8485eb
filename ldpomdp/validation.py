"""The parameter checks every constructor needs, with one wording: "<Owner>.<name> must be ...".

Also the upper bound that the spec parser checks (``at_most``, with the registry's ``MAXIMA``) and the tolerance on a
model's probabilities shared by the opponent checker, the beliefs and the exact solvers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import UsageError, echo

__all__ = ["int_at_least", "probability", "number", "one_of", "at_most", "SUM_TOLERANCE"]

SUM_TOLERANCE = 1e-6  # how far a model's probabilities may be from what they must equal (one, a shared answer)


def int_at_least(owner: str, name: str, value: Any, minimum: int) -> int:
    """``value`` as an int if it is an integer (not a bool) >= ``minimum``, else a UsageError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise UsageError(f"{owner}.{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def probability(owner: str, name: str, value: Any) -> float:
    """``value`` as a float if it is a number (not a bool) in [0, 1], else a UsageError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0.0 <= value <= 1.0:
        raise UsageError(f"{owner}.{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def number(
    owner: str, name: str, value: Any, low: float = 0.0, high: float = math.inf, low_open: bool = False
) -> float:
    """``value`` as a float if it is a real number (not a bool) in range; else a UsageError naming it.

    Args:
        owner: the class or function named in the error message.
        name: the parameter named in the error message.
        value: the value to check.
        low: the lower bound, included unless ``low_open``.
        high: the upper bound, excluded.
        low_open: whether ``low`` is excluded too (``low`` < value rather than ``low`` <= value).

    Returns:
        ``value`` as a float (so finite).

    Raises:
        UsageError: ``value`` is a bool, not a real number, or not with ``low`` <= value < ``high`` (``low`` < value
            with ``low_open``).
    """
    real = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if not (real and (low < value if low_open else low <= value) and value < high):
        bound = f"> {low:g}" if low_open else f">= {low:g}"
        if high != math.inf:
            bound += f" and < {high:g}"
        raise UsageError(f"{owner}.{name} must be a finite number {bound}, got {value!r}")
    return float(value)


def one_of(owner: str, name: str, value: Any, options: Sequence[Any]) -> Any:
    """``value`` if it is one of ``options``, else a UsageError naming it."""
    if value not in options:
        raise UsageError(f"{owner}.{name} must be one of {tuple(options)}, got {value!r}")
    return value


def at_most(where: str, name: str, value: Any, maximum: int, written: str) -> None:
    """Refuse a number above ``maximum`` (NaN too) in one line; what is not a number is left to other checks.

    Args:
        where: what the message starts with (the spec).
        name: the parameter named in the message.
        value: the value to check.
        maximum: the largest value allowed.
        written: the value as the user wrote it, quoted in the message.

    Raises:
        UsageError: "``where``: ``name`` must be at most ``maximum``, got ``written``".
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value <= maximum:
        return
    raise UsageError(f"{where}: {name} must be at most {maximum:,}, got {echo(written, quote=False)} "
                     f"(docs/players.md, Limits)")
