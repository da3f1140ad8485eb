"""The opponent-model protocol: a ``Player`` that can also say how likely each hidden hand makes an action.

It answers for many hidden hands at once. Beliefs and POMCP rely on it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, Protocol, TypeVar, cast, runtime_checkable

import numpy as np

from .game import Event, Player, PublicView, player_name
from .rules import Action, GameConfig

_T = TypeVar("_T")  # what sample_action draws from; what a ViewMemo keeps

__all__ = ["OpponentModel", "BaseOpponent", "HandIndependentOpponent", "ViewMemo", "checked_probabilities",
           "sample_action"]


@runtime_checkable
class OpponentModel(Player, Protocol):
    """A player whose policy is known in closed form: ``action_probabilities(hands, view, action) -> (N,)``.

    P(action | hand_i) for each row of ``hands`` (N x faces face counts of the acting seat, ``view.seat``), given the
    public view the player acted on; deterministic models return 0/1. Optional hooks, asked only through
    ``ldpomdp.hooks`` (see the Players page): ``shared_probability(view, action)`` (P(action) when every hand
    agrees), ``deciding_face(view)`` (the face whose matching count alone decides) and ``estimate_rule()`` (the bluff
    when it plays the estimate rule), each None where it does not apply.
    """

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray: ...


class ViewMemo(Generic[_T]):
    """The last policy a model computed for one (hands, view), so that it computes it once per view.

    Asked about several actions at the same view (a lookahead over replies), the model computes the policy once.
    Kept only for ``hands`` that nothing can change (read-only down to their base: the cached supports of
    ``hand_support``), compared by identity; the arrays it keeps are made read-only, so an answer that shares one
    cannot change it.
    """

    def __init__(self) -> None:
        self._key: tuple[object, object] | None = None
        self._value: _T | None = None

    def holds(self, hands: np.ndarray, view: PublicView) -> bool:
        """Whether the policy for (``hands``, ``view``) is kept."""
        key = self._key
        return key is not None and key[0] is hands and key[1] is view

    def get(self, hands: np.ndarray, view: PublicView, compute: Callable[[], _T]) -> _T:
        if self.holds(hands, view):
            return cast(_T, self._value)
        value = compute()
        if _frozen(hands):
            for array in value if isinstance(value, tuple) else (value,):
                if isinstance(array, np.ndarray):
                    array.flags.writeable = False
            self._key, self._value = (hands, view), value
        else:
            self._key, self._value = None, None
        return value


def _frozen(array: object) -> bool:
    """Whether ``array`` is an ndarray that nothing can write: read-only, and so is every array it views."""
    if not isinstance(array, np.ndarray):
        return False
    while isinstance(array, np.ndarray):
        if array.flags.writeable:
            return False
        array = array.base
    return array is None


class BaseOpponent:
    """Convenience base: stores seat and config, ignores events. Subclasses add ``act`` and
    ``action_probabilities``."""

    name: str | None = None
    seat: int = -1
    config: GameConfig | None = None

    def reset(self, seat: int, config: GameConfig) -> None:
        self.seat, self.config = seat, config

    def observe(self, event: Event) -> None:
        return None

    def shared_probability(self, view: PublicView, action: Action) -> float | None:
        """P(``action``) when it is the same for every hand, else None (the default: ask per hand)."""
        return None

    def deciding_face(self, view: PublicView) -> int | None:
        """The face whose matching count alone decides the move on ``view``, else None (the default)."""
        return None

    def __repr__(self) -> str:
        return self.name or type(self).__name__


class HandIndependentOpponent(BaseOpponent):
    """Base for players whose move never depends on their hand: a subclass gives ``shared_probability`` (never
    None) and ``action_probabilities`` repeats it for every hand."""

    def shared_probability(self, view: PublicView, action: Action) -> float:
        raise NotImplementedError

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        return np.full(np.asarray(hands).shape[0], self.shared_probability(view, action))


def checked_probabilities(model: object, probs: np.ndarray, n: int) -> np.ndarray:
    """Validate a model's ``action_probabilities`` output: shape (n,), finite, inside [0, 1]."""
    probs = np.asarray(probs, dtype=np.float64)
    if probs.shape != (n,):
        raise ValueError(
            f"{player_name(model)}.action_probabilities returned shape {probs.shape}, expected ({n},)"
        )
    if not np.all(np.isfinite(probs)) or probs.min(initial=0.0) < 0.0 or probs.max(initial=0.0) > 1.0:
        bad = probs[~((probs >= 0.0) & (probs <= 1.0))][:3]
        raise ValueError(
            f"{player_name(model)}.action_probabilities returned values outside [0, 1], e.g. {bad.tolist()}"
        )
    return probs


def sample_action(actions: Sequence[_T], probs: np.ndarray, rng: np.random.Generator) -> _T:
    """Draw one of ``actions`` with the given probabilities (which must sum to one)."""
    return actions[int(rng.choice(len(actions), p=probs / probs.sum()))] if len(actions) > 1 else actions[0]
