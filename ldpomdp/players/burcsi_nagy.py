"""Report 001's mixed heuristic strategy with parameters (s, t) (Burcsi & Nagy, section 3).

p1 = P(standing bid false | own hand), p2 = P(best raise true | own hand) (the most likely true raise; ties: the
higher face); c_s ~ U[0, s] if our last challenge of the previous player succeeded, c_t ~ U[0, t] if the next
player's last challenge failed, else 0. Raise iff p2 - p1 + c_s - c_t > 0, as the report writes it; the opener
always raises, and with no legal raise it challenges. Challenge outcomes are kept from ``observe`` for every seat.
"""

from __future__ import annotations

import numpy as np

from ..bid_probability import best_raise, raise_true_probabilities
from ..game import Event, PlayerView, PublicView, RoundEnd
from ..opponent import BaseOpponent
from ..round_end import next_active_seat
from ..rules import CHALLENGE, Action, GameConfig, minimal_raises
from ..validation import number

__all__ = ["BurcsiNagyPlayer", "uniform_difference_sf"]


def _ramp_integral(w: np.ndarray, a: float) -> np.ndarray:
    """Integral of clip(v, 0, a) dv over v from 0 to w (0 for w <= 0)."""
    w = np.maximum(w, 0.0)
    return np.where(w <= a, 0.5 * w * w, 0.5 * a * a + a * (w - a))


def uniform_difference_sf(d: np.ndarray, a: float, b: float) -> np.ndarray:
    """P(A - B > d) for A ~ U[0, a], B ~ U[0, b] independent; a width of 0 means the constant 0.

    With both widths positive A - B has a trapezoid density; P = (R(a - d) - R(a - d - b)) / (a b), where
    R is the integral of clip(v, 0, a).
    """
    d = np.asarray(d, dtype=np.float64)
    if a > 0 and b > 0:
        c = a - d
        return np.clip((_ramp_integral(c, a) - _ramp_integral(c - b, a)) / (a * b), 0.0, 1.0)
    if a > 0:
        return np.clip((a - d) / a, 0.0, 1.0)
    if b > 0:
        return np.clip(-d / b, 0.0, 1.0)
    return (d < 0).astype(np.float64)


def _width(name: str, value: object) -> float:
    return number("BurcsiNagyPlayer", name, value, 0.0)


class BurcsiNagyPlayer(BaseOpponent):
    """Raise iff p2 - p1 + c_s - c_t > 0 with the random nudges c_s ~ U[0, s], c_t ~ U[0, t]."""

    def __init__(self, s: float = 0.0, t: float = 0.0, name: str | None = None):
        self.s, self.t = _width("s", s), _width("t", t)
        self.name = name or f"burcsi-nagy:s={self.s:g},t={self.t:g}"
        self._won: dict[tuple[int, int], bool] = {}  # (challenger, bidder) -> that last challenge succeeded
        self._failed: dict[int, bool] = {}  # challenger -> its last challenge failed

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        self._won, self._failed = {}, {}

    def observe(self, event: Event) -> None:
        if isinstance(event, RoundEnd):
            succeeded = event.loser != event.caller
            self._won[(event.caller, event.bidder)] = succeeded
            self._failed[event.caller] = not succeeded

    def widths(self, view: PublicView) -> tuple[float, float]:
        """The ranges (s or 0, t or 0) of c_s and c_t for the seat acting in ``view``."""
        a = self.s if view.bidder is not None and self._won.get((view.seat, view.bidder), False) else 0.0
        b = self.t if self._failed.get(next_active_seat(view.dice, view.seat), False) else 0.0
        return a, b

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[tuple, np.ndarray, np.ndarray]:
        """For each hand: the index in the minimal raises of the raise it would make, and p2 - p1 (the
        margin; +inf for the opener, who always raises). Needs a legal raise."""
        raises = minimal_raises(view.config, view.table_dice, view.bid)
        if view.bid is None:
            choice, _ = best_raise(raise_true_probabilities(hands, view, raises))
            return raises, choice, np.full(len(choice), np.inf)
        probs = raise_true_probabilities(hands, view, (*raises, view.bid))
        choice, p2 = best_raise(probs[:, :-1])
        return raises, choice, p2 - (1.0 - probs[:, -1])

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        n = np.asarray(hands).shape[0]
        if not minimal_raises(view.config, view.table_dice, view.bid):
            return np.full(n, float(action is CHALLENGE))
        raises, choice, margin = self.policy(hands, view)
        p_raise = np.ones(n) if view.bid is None else uniform_difference_sf(-margin, *self.widths(view))
        if action is CHALLENGE:
            return 1.0 - p_raise if view.bid is not None else np.zeros(n)
        if action not in raises:
            return np.zeros(n)
        return (choice == raises.index(action)) * p_raise

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        if not minimal_raises(view.config, view.table_dice, view.bid):
            return CHALLENGE
        raises, choice, margin = self.policy(np.asarray(view.hand)[None, :], view)
        a, b = self.widths(view)
        c_s, c_t = a * rng.random(), b * rng.random()
        return raises[int(choice[0])] if margin[0] + c_s - c_t > 0 else CHALLENGE
