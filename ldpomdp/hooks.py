"""Dispatch of the opponent protocol's optional hooks, and the check that probabilities sum to one.

The hooks are those of ``OpponentModel``. A hook is trusted only where it speaks for the methods it stands in for:
the class defining it must be the class defining each of those methods or a subclass of it, so a class overriding
only ``action_probabilities`` of a model with a shortcut is asked hand by hand. Only the standard library and numpy
are imported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .caches import memo
from .validation import SUM_TOLERANCE

__all__ = ["shared_probability_of", "deciding_face_of", "estimate_rule_of", "sum_problem"]


@memo(maxsize=256)
def _speaks_for(model_type: type, hook: str, methods: tuple[str, ...] = ("action_probabilities",)) -> bool:
    """Whether ``model_type``'s optional ``hook`` speaks for its ``methods``: the class defining the hook is the
    one defining each method or a subclass of it."""
    def owner(name: str) -> type | None:
        return next((k for k in model_type.__mro__ if name in vars(k)), None)
    shortcut = owner(hook)
    if shortcut is None:
        return False
    owners = [owner(m) for m in methods]
    return all(o is not None and issubclass(shortcut, o) for o in owners)


def shared_probability_of(model: Any, view: Any, action: Any) -> float | None:
    """P(``action``) from the model's optional ``shared_probability`` hook (the same for every hand), or None when
    it has none, answers None, or does not speak for the model's ``action_probabilities``."""
    return model.shared_probability(view, action) if _speaks_for(type(model), "shared_probability") else None


def deciding_face_of(model: Any, view: Any) -> int | None:
    """The face whose matching count alone decides the model's move on ``view`` (its optional ``deciding_face``
    hook), or None when it has none, answers None, or does not speak for ``action_probabilities``."""
    return model.deciding_face(view) if _speaks_for(type(model), "deciding_face") else None


def estimate_rule_of(model: Any) -> float | None:
    """The bluff of the estimate rule the model plays, from its optional ``estimate_rule`` hook.

    The estimate rule is that of ``ldpomdp.estimate``. None when the model has no such hook, the hook answers None,
    or the hook does not speak for both its ``act`` and its ``action_probabilities`` (a subclass changing the rule
    through other methods must override the hook to return None).
    """
    if not _speaks_for(type(model), "estimate_rule", ("act", "action_probabilities")):
        return None
    bluff = model.estimate_rule()
    return None if bluff is None else float(bluff)


def sum_problem(hands: np.ndarray, probs: Mapping[Any, np.ndarray]) -> str | None:
    """How a model's probabilities ``probs`` fail to sum to one for some hand; None when they do.

    ``probs`` maps each legal action to one value per row of ``hands``; the sums must be one within
    ``SUM_TOLERANCE``. The answer reads e.g. ``"sums to 0.9 (not 1) over the legal actions for hand (1, 0, 2)"``.
    """
    total = np.sum(list(probs.values()), axis=0)
    bad = np.flatnonzero(np.abs(total - 1.0) > SUM_TOLERANCE)
    if not bad.size:
        return None
    hand = tuple(np.asarray(hands)[bad[0]].tolist())
    return f"sums to {total[bad[0]]:.6g} (not 1) over the legal actions for hand {hand}"
