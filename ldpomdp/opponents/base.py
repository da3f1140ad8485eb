"""The opponent-model protocol: a :class:`~ldpomdp.game.Player` that can also say, for many hidden
hands at once, how likely each of them makes a given action. Beliefs and POMCP rely on it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..game import Event, Player, PublicView, player_name
from ..rules import Action, GameConfig

__all__ = [
    "OpponentModel", "BaseOpponent", "HandIndependentOpponent", "checked_probabilities", "sample_action",
    "estimate_rule_of",
]


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

    A shortcut is trusted only where it speaks for the methods it replaces (see :func:`estimate_rule_of`).
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


def _owner(model_type: type, name: str) -> type | None:
    """The class of ``model_type``'s MRO that defines attribute ``name``, or None."""
    return next((k for k in model_type.__mro__ if name in vars(k)), None)


@lru_cache(maxsize=256)
def _hook_speaks_for(model_type: type, hook: str, methods: tuple[str, ...]) -> bool:
    """Whether ``model_type``'s optional ``hook`` speaks for its ``methods``: it must come from the class that
    defines each of them or a subclass of it (so a user class overriding one of the methods of a model with the
    hook does not inherit the hook silently)."""
    shortcut = _owner(model_type, hook)
    owners = [_owner(model_type, m) for m in methods]
    return shortcut is not None and all(o is not None and issubclass(shortcut, o) for o in owners)


def estimate_rule_of(model: Any) -> float | None:
    """The bluff of the estimate rule ``model`` plays (its optional ``estimate_rule`` hook), or None when it has
    none, answers None, or the hook does not speak for both its ``act`` and its ``action_probabilities``
    (a subclass changing the rule through other methods must override the hook to return None)."""
    if not _hook_speaks_for(type(model), "estimate_rule", ("act", "action_probabilities")):
        return None
    bluff = model.estimate_rule()
    return None if bluff is None else float(bluff)


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


def sample_action(actions: list[Action], probs: np.ndarray, rng: np.random.Generator) -> Action:
    """Draw one of ``actions`` with the given probabilities (which must sum to one)."""
    return actions[int(rng.choice(len(actions), p=probs / probs.sum()))] if len(actions) > 1 else actions[0]
