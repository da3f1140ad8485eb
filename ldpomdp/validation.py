"""The two parameter checks every constructor needs, with one wording: "<Owner>.<name> must be ..."."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["int_at_least", "probability"]


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
