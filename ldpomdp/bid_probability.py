"""P(a bid is true | own hand): the binomial tail over the dice a player cannot see.

Vectorized over hands and bids. Shared by the probability-driven opponents (Oehm, Burcsi-Nagy).
"""

from __future__ import annotations

import numpy as np

from .caches import memo
from .game import PublicView
from .rules import Bid, GameConfig, match_matrix, match_probability

__all__ = ["raise_true_probabilities", "bid_true_probability", "best_raise"]


@memo(maxsize=1024)
def _tail(unseen: int, p: float) -> np.ndarray:
    """``tail[k] = P(Binomial(unseen, p) >= k)`` for k = 0 .. unseen + 1 (log-space pmf, numpy only, so
    that importing the opponents does not pull in scipy.stats)."""
    k = np.arange(unseen + 1)
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, unseen + 1)))])
    log_pmf = log_factorial[unseen] - log_factorial[k] - log_factorial[unseen - k]
    with np.errstate(divide="ignore", invalid="ignore"):  # p = 0 or 1: log(0) = -inf gives pmf 0, as it should,
        log_pmf = (log_pmf + np.where(k > 0, k * np.log(p), 0.0)  # and a zero power (0 * -inf) stays 0
                   + np.where(k < unseen, (unseen - k) * np.log1p(-p), 0.0))
    tail = np.append(np.cumsum(np.exp(log_pmf)[::-1])[::-1], 0.0)
    tail[0] = 1.0
    return tail


@memo(maxsize=4096)
def _tails(config: GameConfig, unseen: int, table: int) -> np.ndarray:
    """``tails[f - 1, table + k] = P(at least k of ``unseen`` dice match face f)`` for every k a bid can
    need, -table .. table (k <= 0: certain; k > unseen: impossible), so lookups need no clipping."""
    k = np.clip(np.arange(-table, table + 1), 0, unseen + 1)
    tails = np.stack([_tail(unseen, match_probability(config, f))[k] for f in range(1, config.faces + 1)])
    tails.flags.writeable = False
    return tails


@memo(maxsize=65536)
def _columns(bids: tuple[Bid, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The bids' face indices and quantities as arrays."""
    return np.array([b.face - 1 for b in bids], dtype=np.intp), np.array([b.quantity for b in bids])


def raise_true_probabilities(hands: np.ndarray, view: PublicView, bids: tuple[Bid, ...]) -> np.ndarray:
    """(N, len(bids)): P(bid true | hand) for each hand of the acting seat (``view.seat``) and bid."""
    table = view.table_dice
    faces, quantities = _columns(tuple(bids))
    need = quantities - (np.asarray(hands) @ match_matrix(view.config))[:, faces]
    return _tails(view.config, table - view.dice[view.seat], table)[faces, need + table]


def bid_true_probability(hands: np.ndarray, view: PublicView, bid: Bid) -> np.ndarray:
    """(N,): P(at least ``bid.quantity`` dice on the table match ``bid.face`` | hand)."""
    return raise_true_probabilities(hands, view, (bid,))[:, 0]


def best_raise(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Given (N, R) probabilities of R candidate raises (ascending face), the index of the most likely
    true one for each hand (ties: the higher face, as in the one-third rule) and its probability."""
    reverse = probs[:, ::-1]
    return probs.shape[1] - 1 - reverse.argmax(axis=1), reverse.max(axis=1)
