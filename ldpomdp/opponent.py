"""The opponent-model protocol: a :class:`~ldpomdp.game.Player` that can also say, for many hidden
hands at once, how likely each of them makes a given action. Beliefs and POMCP rely on it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np

from .game import Event, Player, PublicView, player_name
from .rules import Action, GameConfig

_T = TypeVar("_T")  # what sample_action draws from

__all__ = ["OpponentModel", "BaseOpponent", "HandIndependentOpponent", "checked_probabilities", "sample_action"]


@runtime_checkable
class OpponentModel(Player, Protocol):
    """A player whose policy is known in closed form.

    ``action_probabilities(hands, view, action)`` returns P(action | hand_i) for each row of ``hands``
    (an N x faces array of face counts for the acting player, ``view.seat``), given the public view the
    player acted on. Deterministic models return 0/1.

    Optional shortcuts, so that a belief can skip the per-hand work (:class:`BaseOpponent` says None to both):
    ``shared_probability(view, action)`` returns P(action) as one float when every hand gives the same answer
    (else None); ``deciding_face(view)`` returns a face when a hand's count of dice matching it (wild dice
    count) alone decides every action's probability on ``view`` (else None): the belief then asks
    ``action_probabilities`` about one hand per count instead of one per particle.
    ``estimate_rule()`` returns the ``bluff`` b when the player's move on every view is the estimate rule
    :func:`~ldpomdp.estimate.estimate_policy` of :func:`~ldpomdp.estimate.expected_matches` of its hand with
    bluff b (the one-third rule), else None: POMCP's transition model then tabulates the move over the root
    particles' hands instead of calling ``act``.

    Beliefs, solvers and planners ask the hooks through :func:`shared_probability_of`, :func:`deciding_face_of`
    and :func:`estimate_rule_of` (defined in :mod:`ldpomdp.hooks`), which trust a hook only where it speaks for
    the methods it stands in for: a subclass overriding ``action_probabilities`` (or, for ``estimate_rule``,
    ``act``) does not inherit its parent's hooks silently.
    """

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray: ...


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
