"""P(a bid is true | own hand): the binomial tail over the dice a player cannot see, vectorized over
hands. Shared by the probability-driven opponents (Oehm, Burcsi-Nagy)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.stats import binom

from ..game import PublicView
from ..rules import Bid, match_matrix, match_probability

__all__ = ["at_least_probability", "bid_true_probability", "raise_true_probabilities", "best_raise"]


@lru_cache(maxsize=4096)
def _tail(unseen: int, p: float) -> np.ndarray:
    """``tail[k] = P(Binomial(unseen, p) >= k)`` for k = 0 .. unseen + 1 (read-only, cached)."""
    tail = binom.sf(np.arange(-1, unseen + 1), unseen, p)
    tail[0] = 1.0
    tail[-1] = 0.0
    tail.flags.writeable = False
    return tail


def at_least_probability(need: np.ndarray, unseen: int, p: float) -> np.ndarray:
    """P(at least ``need`` of ``unseen`` dice match) elementwise; need <= 0 gives 1, need > unseen 0."""
    return _tail(int(unseen), float(p))[np.clip(need, 0, unseen + 1)]


def raise_true_probabilities(hands: np.ndarray, view: PublicView, bids: tuple[Bid, ...]) -> np.ndarray:
    """(N, len(bids)): P(bid true | hand) for each hand of the acting seat (``view.seat``) and bid."""
    hands = np.asarray(hands)
    config = view.config
    unseen = view.table_dice - view.dice[view.seat]
    matching = hands @ match_matrix(config)
    out = np.empty((hands.shape[0], len(bids)))
    for j, bid in enumerate(bids):  # one column per candidate bid (at most `faces` of them)
        need = bid.quantity - matching[:, bid.face - 1]
        out[:, j] = at_least_probability(need, unseen, match_probability(config, bid.face))
    return out


def bid_true_probability(hands: np.ndarray, view: PublicView, bid: Bid) -> np.ndarray:
    """(N,): P(at least ``bid.quantity`` dice on the table match ``bid.face`` | hand)."""
    return raise_true_probabilities(hands, view, (bid,))[:, 0]


def best_raise(hands: np.ndarray, view: PublicView, raises: tuple[Bid, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For each hand: the index in ``raises`` of the most likely true raise (ties: the higher face, as
    in the one-third rule) and its probability of being true. ``raises`` must not be empty."""
    probs = raise_true_probabilities(hands, view, raises)
    choice = len(raises) - 1 - np.argmax(probs[:, ::-1], axis=1)
    return choice, probs[np.arange(probs.shape[0]), choice]
