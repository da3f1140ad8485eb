"""The parameter checks every constructor needs, with one wording: "<Owner>.<name> must be ...", and the
tolerance on a model's probabilities shared by the opponent checker, the beliefs and the exact solvers."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["int_at_least", "probability", "SUM_TOLERANCE"]

SUM_TOLERANCE = 1e-6  # how far a model's probabilities may be from what they must equal (one, a shared answer)


def int_at_least(owner: str, name: str, value: Any, minimum: int) -> int:
    """``value`` as an int if it is an integer (not a bool) >= ``minimum``, else a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{owner}.{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def probability(owner: str, name: str, value: Any) -> float:
    """``value`` as a float if it is a number (not a bool) in [0, 1], else a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{owner}.{name} must be a probability in [0, 1], got {value!r}")
    return float(value)
