"""The hand space: every hand of n dice as face counts, its prior, and the alias arrays prior hands are drawn by.

A hand is stored as face counts (``hand[f - 1]`` = dice showing ``f``). Beliefs, the exact solvers and the
opponent checks share these arrays; each is cached per argument and read-only.

Only numpy, ``ldpomdp.rules`` and ``ldpomdp.validation`` are imported here (and ``ldpomdp.moved`` for the
old names).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .caches import memo
from .errors import UsageError
from .moved import moved_attribute
from .rules import GameConfig, match_matrix, match_probability
from .validation import int_at_least as _int_at_least

__all__ = [
    "HAND_DTYPE", "MAX_SUPPORT", "support_size", "PRIOR_ALIAS_MAX", "row_width", "hand_support", "alias_arrays",
    "prior_alias", "count_hands", "count_prior", "hand_rows", "solver_hands", "solver_hand_rows", "hand_faces",
]

MAX_SUPPORT = 20_000_000  # rows; ExactBelief refuses larger supports (memory ~ 60 bytes per row)
PRIOR_ALIAS_MAX = 1_000_000  # rows; up to this support size prior hands come from alias arrays (6 faces: 40 dice)
HAND_DTYPE = np.int16


def hand_faces(hand: Sequence[int]) -> list[int]:
    """A hand of face counts as its dice, sorted: ``(0, 1, 2, 0, 0, 1)`` is ``[2, 3, 3, 6]`` (for display)."""
    return [face for face, n in enumerate(hand, start=1) for _ in range(int(n))]


def row_width(faces: int) -> int:
    """Columns of a stored particle row: ``faces`` padded with zero columns to 2, 4 or 8, so that a row is 4, 8
    or 16 bytes and numpy moves it as one machine item; more than 8 faces stay unpadded."""
    return next((width for width in (2, 4, 8) if width >= faces), faces)


def support_size(num_dice: int, faces: int = 6) -> int:
    """How many distinct hands ``num_dice`` dice of ``faces`` faces make: C(num_dice + faces - 1, faces - 1)."""
    return math.comb(num_dice + faces - 1, faces - 1)


@memo(maxsize=8)
def hand_support(num_dice: int, faces: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Every hand of ``num_dice`` fair dice as face counts, in lexicographic order, with its multinomial
    probability: ``(support (M, faces) int16, prior (M,))``, M = C(num_dice + faces - 1, faces - 1).

    Built one face at a time (no loop over hands or dice); cached and read-only, because every round
    creates new exact beliefs over the same supports.
    """
    num_dice = _int_at_least("hand_support", "num_dice", num_dice, 0)
    faces = _int_at_least("hand_support", "faces", faces, 2)
    size = support_size(num_dice, faces)
    if size > MAX_SUPPORT:
        raise UsageError(
            f"hand_support: {num_dice} dice with {faces} faces have {size:,} hands, more than "
            f"{MAX_SUPPORT:,}; use RejectionParticleBelief instead"
        )
    counts = np.arange(num_dice + 1, dtype=np.int64)[:, None]  # count of face 1
    for _ in range(faces - 2):  # append faces 2 .. faces-1, each from 0 to the dice left
        options = num_dice - counts.sum(axis=1) + 1
        starts = np.repeat(np.cumsum(options) - options, options)
        nxt = np.arange(options.sum()) - starts
        counts = np.column_stack([np.repeat(counts, options, axis=0), nxt])
    support = np.column_stack([counts, num_dice - counts.sum(axis=1)]).astype(HAND_DTYPE)
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, num_dice + 1)))])
    log_prior = log_factorial[num_dice] - log_factorial[support].sum(axis=1) - num_dice * math.log(faces)
    prior = np.exp(log_prior)
    prior /= prior.sum()
    support.flags.writeable = False
    prior.flags.writeable = False
    return support, prior


def alias_arrays(probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias method's arrays ``(threshold, alias)`` for sampling row i with ``probabilities[i]``.

    Draw a row r uniformly, keep it with probability ``threshold[r]``, else take ``alias[r]``. O(1) per draw
    whatever the number of rows.

    Built without a loop over rows. With q = M p, rows below 1 ("small") lay their deficits 1 - q end to
    end and rows above 1 ("large") their excesses q - 1; a small takes its deficit from the large whose
    excess covers the point where the deficit starts, and a large whose excess ends inside a deficit is
    overdrawn by the rest of it and takes that from the next large (Vose's pairing, done with cumsums).
    """
    q = np.asarray(probabilities, dtype=np.float64)
    q = q * (len(q) / q.sum())
    threshold, alias = np.ones(len(q)), np.arange(len(q), dtype=np.int64)
    small, large = np.flatnonzero(q < 1.0), np.flatnonzero(q >= 1.0)
    if small.size == 0 or large.size == 0:  # uniform (up to rounding): every row keeps itself
        return threshold, alias
    deficit_end = np.cumsum(1.0 - q[small])
    deficit_start = deficit_end - (1.0 - q[small])
    excess_end = np.cumsum(q[large] - 1.0)
    donor = np.minimum(np.searchsorted(excess_end, deficit_start, side="right"), large.size - 1)
    threshold[small], alias[small] = q[small], large[donor]
    # large j (all but the last) ends at excess_end[j]: the deficit running over that point overdraws it
    inside = np.minimum(np.searchsorted(deficit_end, excess_end[:-1], side="right"), small.size - 1)
    overdraft = np.where(deficit_start[inside] < excess_end[:-1], deficit_end[inside] - excess_end[:-1], 0.0)
    threshold[large[:-1]] = np.clip(1.0 - overdraft, 0.0, 1.0)
    alias[large[:-1]] = large[1:]
    return threshold, alias


@memo(maxsize=64)
def prior_alias(num_dice: int, faces: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(support padded to ``row_width`` columns, its alias rows) to draw prior hands, or None when the
    support has more than PRIOR_ALIAS_MAX rows (then dice are rolled). Cached per dice count.

    Alias row r is two int64 side by side, so a draw fetches one 16-byte item: the bits of the float r +
    threshold[r] (a uniform point u * M below it keeps row r; comparing it whole saves taking the fraction) and
    alias[r]. A last row M, never kept, catches u * M rounding up to M and sends it where row M - 1's overflow goes."""
    rows = math.comb(num_dice + faces - 1, faces - 1)
    if rows > PRIOR_ALIAS_MAX:
        return None
    support, prior = hand_support(num_dice, faces)
    padded = np.zeros((rows, row_width(faces)), dtype=HAND_DTYPE)
    padded[:, :faces] = support
    threshold, alias = alias_arrays(prior)
    lookup = np.empty((rows + 1, 2), dtype=np.int64)
    lookup[:rows, 0] = (np.arange(rows) + threshold).view(np.int64)
    lookup[rows, 0] = np.array([float(rows)]).view(np.int64)[0]
    lookup[:rows, 1], lookup[rows, 1] = alias, alias[rows - 1]
    padded.flags.writeable = lookup.flags.writeable = False  # cached and shared by every belief
    return padded, lookup


@memo(maxsize=1024)
def count_hands(num_dice: int, face: int, config: GameConfig) -> np.ndarray:
    """(num_dice + 1, faces) hands of ``num_dice`` dice: row c holds exactly c dice matching ``face``.

    Matching is under ``config`` (wild dice count): row c has c dice of ``face``, the others on the first face that
    matches neither ``face`` nor the wild face. When every face matches (two faces, one wild) only c = num_dice
    occurs, and every row is that hand. Asking a model about these rows gives its probabilities by matching count.
    """
    hands = np.zeros((num_dice + 1, config.faces), dtype=HAND_DTYPE)
    counted = match_matrix(config)[:, face - 1]
    rest = np.flatnonzero(counted == 0)
    c = np.arange(num_dice + 1)
    if rest.size:
        hands[:, face - 1], hands[:, rest[0]] = c, num_dice - c
    else:
        hands[:, face - 1] = num_dice
    hands.flags.writeable = False
    return hands


def hand_rows(hands: np.ndarray, num_dice: int, faces: int) -> np.ndarray:
    """Row of ``hand_support`` ``(num_dice, faces)`` for each face-count row of ``hands``; ValueError naming the
    first hand that is not one of them."""
    if hands is hand_support(num_dice, faces)[0]:  # the support itself (a range over it): no lookup
        return np.arange(len(hands))
    hands = _checked(hands, num_dice, faces)
    weights, known, order = _support_keys(num_dice, faces)
    keys = hands @ weights
    return order[np.searchsorted(known, keys)]


def _checked(hands: np.ndarray, num_dice: int, faces: int) -> np.ndarray:
    """``hands`` as (rows, faces) int64; ValueError naming the first that is not a hand of ``num_dice`` dice."""
    hands = np.asarray(hands, dtype=np.int64).reshape(-1, faces)
    bad = (hands.sum(axis=1) != num_dice) | (hands.min(axis=1, initial=0) < 0)
    if bad.any():
        raise ValueError(f"hand {hands[np.argmax(bad)].tolist()} is not a face-count vector of {num_dice} dice "
                         f"with {faces} faces")
    return hands


@memo(maxsize=64)
def _support_keys(num_dice: int, faces: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weights, sorted keys, their rows) of ``hand_support``'s hands, a hand's key being ``hand @ weights``."""
    weights = (num_dice + 1) ** np.arange(faces)
    keys = hand_support(num_dice, faces)[0].astype(np.int64) @ weights
    order = np.argsort(keys)
    index = weights, keys[order], order
    for array in index:
        array.flags.writeable = False  # shared by every caller
    return index


def count_prior(num_dice: int, config: GameConfig) -> np.ndarray:
    """(num_dice + 1,): P(c of ``num_dice`` fair dice match the sixes game's bid face), binomial."""
    p = match_probability(config, config.faces)
    return np.array([math.comb(num_dice, c) * p**c * (1.0 - p) ** (num_dice - c) for c in range(num_dice + 1)])


@memo(maxsize=256)
def solver_hands(num_dice: int, config: GameConfig) -> tuple[np.ndarray, np.ndarray]:
    """The hands of ``num_dice`` dice the equilibrium solvers tell apart, with their prior.

    Every hand (``hand_support``), but in the sixes game, where every bid names the highest face, one hand per
    matching count (``count_hands``, row c = c matching dice) with its binomial probability.
    """
    if config.bids != "sixes":
        return hand_support(num_dice, config.faces)
    prior = count_prior(num_dice, config)
    prior.flags.writeable = False
    return count_hands(num_dice, config.faces, config), prior


def solver_hand_rows(hands: np.ndarray, num_dice: int, config: GameConfig) -> np.ndarray:
    """Row of ``solver_hands`` ``(num_dice, config)`` for each face-count row of ``hands`` (ValueError naming a
    hand that is not one of ``num_dice`` dice)."""
    if config.bids != "sixes":
        return hand_rows(hands, num_dice, config.faces)
    hands = _checked(hands, num_dice, config.faces)
    return hands @ match_matrix(config)[:, config.faces - 1]


def __getattr__(name: str) -> Any:
    """The old names of the alias arrays (``prior_table``, ``alias_table``, ``PRIOR_TABLE_MAX``), with a
    DeprecationWarning."""
    return moved_attribute(__name__, name)
