"""Report 002's "MDP" player, the one-third rule, generalised to the full game, with bluffing.

estimate(face) = own matching dice + (dice on the table - own dice) * P(a die matches face).
Challenge iff estimate(bid face) < bid quantity; otherwise raise to the smallest legal bid on the face
with the highest estimate (ties: the higher face). With probability ``bluff`` a called-for challenge
becomes that raise instead (report 002, Alg. 6 as intended).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ..belief import count_hands
from ..game import PlayerView, PublicView
from ..rules import CHALLENGE, Action, Bid, GameConfig, match_probability, matching_count, minimal_raises
from .base import BaseOpponent

__all__ = ["OneThirdRule", "expected_matches", "estimate_policy", "rule_faces", "settled_decision"]

FEW_HANDS = 64  # up to this many hands the estimate rule works on whole arrays at once (fewer numpy calls)
CACHED_COUNT_POLICIES = 65_536  # decisions by matching count remembered (a few dice settings' states)
_count_policies: dict[tuple, tuple[np.ndarray, tuple[Bid, ...], np.ndarray]] = {}  # shared by every player


def rule_faces(view: PublicView) -> tuple[int, ...]:
    """The faces the estimate rule looks at: the standing bid's and those of the legal raises, ascending."""
    faces = {b.face for b in minimal_raises(view.config, view.table_dice, view.bid)}
    if view.bid is not None:
        faces.add(view.bid.face)
    return tuple(sorted(faces))


@lru_cache(maxsize=4096)
def _face_columns(config: GameConfig, faces: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``faces``: their column indices, P(a die matches) and whether wild dice count for them."""
    wild = [config.wild is not None and f != config.wild for f in faces]
    return (np.array(faces) - 1, np.array([match_probability(config, f) for f in faces]), np.array(wild))


def expected_matches(hands: np.ndarray, view: PublicView, faces: Sequence[int] | None = None) -> np.ndarray:
    """(N, len(faces)): own matching dice of each hand plus the unseen dice times P(a die matches), for
    each of ``faces`` (default: every face). Only those columns are computed: a rule that needs one face
    (the sixes game) pays for one. A few hands take one gather; many hands (particles) are done face by
    face into a face-major buffer, 2-4x faster than fancy-indexing 10^4 rows."""
    config = view.config
    faces = tuple(range(1, config.faces + 1)) if faces is None else tuple(faces)
    columns, probabilities, counts_wild = _face_columns(config, faces)
    hands = np.atleast_2d(np.asarray(hands))
    share = (view.table_dice - view.dice[view.seat]) * probabilities
    if len(hands) <= FEW_HANDS:
        estimate = hands[:, columns] + share
        if config.wild is not None:
            estimate += hands[:, config.wild - 1 : config.wild] * counts_wild
        return estimate
    estimate = np.empty((len(faces), len(hands)))
    for row, column, add, with_wild in zip(estimate, columns, share, counts_wild):
        if with_wild:
            np.add(hands[:, column], hands[:, config.wild - 1], out=row)
        else:
            row[:] = hands[:, column]
        row += add
    return estimate.T


def estimate_policy(
    estimate: np.ndarray, view: PublicView, bluff: float = 0.0, faces: Sequence[int] | None = None
) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
    """The estimate rule, shared by the one-third player, the expected-count planner and POMCP's rollout.

    ``estimate`` (N, len(faces)): expected matching dice on the whole table for N hands, one column per face
    of ``faces`` (default every face; it must include :func:`rule_faces`). Returns P(challenge) (challenge iff
    the bid face's estimate is below the quantity, kept with prob. 1 - ``bluff``), the smallest raise on each
    face, and the index of the raise on the best-estimated face (ties: higher face).
    """
    column = (lambda f: f - 1) if faces is None else list(faces).index
    raises = minimal_raises(view.config, view.table_dice, view.bid)
    n = estimate.shape[0]
    if 1 < len(raises) and n <= FEW_HANDS:  # the best face, the higher one among ties (raises in face order)
        columns = estimate[:, [column(b.face) for b in raises]]
        choice = len(raises) - 1 - np.argmax(columns[:, ::-1], axis=1)
    elif len(raises) > 1:  # many hands: a running maximum, as argmax along 10^4 rows of a few columns is slow
        best, choice = estimate[:, column(raises[0].face)], np.zeros(n, dtype=np.int64)
        for i, bid in enumerate(raises[1:], start=1):
            values = estimate[:, column(bid.face)]
            choice[values >= best] = i
            best = np.maximum(best, values)
    elif raises:  # one raise: every hand's choice (zeros come free from calloc, a full array is written)
        choice = np.zeros(n, dtype=np.int64)
    else:
        choice = np.full(n, -1)
    if view.bid is None:
        p_challenge = np.zeros(n)
    elif not raises:
        p_challenge = np.ones(n)
    else:
        wants = estimate[:, column(view.bid.face)] < view.bid.quantity
        p_challenge = wants * (1.0 - bluff)
    return p_challenge, raises, choice


def settled_decision(
    config: GameConfig, table_dice: int, bid: Bid | None, bluff: float, low: float, high: float
) -> tuple[float, tuple[Bid, ...], int] | None:
    """The estimate rule's decision when it cannot depend on what is unknown, else None: at most one raise
    is legal, and the estimate of the bid's face, known to lie in [``low``, ``high``], is at least the
    quantity at both ends or below it at both ends. Returns (P(challenge), raises, index of the raise).

    The one-third rule uses it over all hands (a belief does not know the seat's matching dice), the
    expected-count planner over all beliefs (the others' expected matching dice lie in 0 .. their dice);
    with ``low`` = ``high``, one known estimate, it is the rule itself whenever one raise at most is legal."""
    raises = minimal_raises(config, table_dice, bid)
    if len(raises) > 1:
        return None
    if bid is None or not raises:
        return (0.0 if bid is None else 1.0), raises, len(raises) - 1
    if low >= bid.quantity:  # believed even at the low end
        return 0.0, raises, 0
    if high < bid.quantity:  # doubted even at the high end
        return 1.0 - bluff, raises, 0
    return None


def _settled_for(
    config: GameConfig, table_dice: int, bid: Bid | None, seat_dice: int, bluff: float, own: int | None
) -> tuple[float, tuple[Bid, ...], int] | None:
    """:func:`settled_decision` for a seat with ``seat_dice`` dice, ``own`` of them matching the bid's face (None:
    unknown)."""
    low, high = (0.0, float(seat_dice)) if own is None else (float(own), float(own))
    share = 0.0 if bid is None else (table_dice - seat_dice) * match_probability(config, bid.face)
    return settled_decision(config, table_dice, bid, bluff, share + low, share + high)


@lru_cache(maxsize=65536)
def _settled_for_any_hand(
    config: GameConfig, table_dice: int, bid: Bid | None, seat_dice: int, bluff: float
) -> tuple[float, tuple[Bid, ...], int] | None:
    """:func:`_settled_for` an unknown hand, cached: every belief update asks it, and its states recur across
    games (a known hand's question rarely does: not cached)."""
    return _settled_for(config, table_dice, bid, seat_dice, bluff, None)


def _bid_face_decides(view: PublicView) -> int | None:
    """The bid's face when at most one raise is legal (the rule then looks at that face's estimate only), else
    None."""
    bid = view.bid
    if bid is None or len(minimal_raises(view.config, view.table_dice, bid)) > 1:
        return None
    return bid.face


def _probability_of(action: Action, p_challenge, raises: tuple[Bid, ...], choice):
    """P(``action``) from the rule's decision, for arrays over hands or for one hand-independent decision."""
    if action is CHALLENGE:
        return p_challenge
    if action not in raises:
        return 0.0 * p_challenge
    if len(raises) == 1:  # the only raise is every hand's choice
        return 1.0 - p_challenge
    return (choice == raises.index(action)) * (1.0 - p_challenge)


class OneThirdRule(BaseOpponent):
    """One-third-rule player (``bluff`` = 0 is report 002's MDP player)."""

    def __init__(self, bluff: float = 0.0, name: str | None = None):
        if not 0.0 <= float(bluff) <= 1.0:
            raise ValueError(f"OneThirdRule.bluff must be a probability in [0, 1], got {bluff!r}")
        self.bluff = float(bluff)
        self.name = name or ("one-third" if self.bluff == 0 else f"bluff:{self.bluff:g}")

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
        """For each hand: P(challenge), the candidate raises, and the index of the raise it would make
        (-1 when no raise is legal)."""
        same = self._settled(view)
        if same is None:
            return self._policy_by_hand(hands, view)
        n = np.atleast_2d(np.asarray(hands)).shape[0]
        return np.full(n, same[0]), same[1], np.full(n, same[2])

    def _policy_by_hand(self, hands: np.ndarray, view: PublicView) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
        faces = rule_faces(view)
        return estimate_policy(expected_matches(hands, view, faces), view, self.bluff, faces)

    def _policy_by_count(self, view: PublicView) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
        """:meth:`_policy_by_hand` for hands with c = 0 .. the seat's dice matching the bid's face, when that count
        decides (:meth:`deciding_face`); remembered per state and class by every player of the process (beliefs
        ask it of every opponent bid, and a game rarely meets a state twice: the dice on the table fall every
        round)."""
        key = (type(self), view.config, view.table_dice, view.bid, view.dice[view.seat], self.bluff)
        policy = _count_policies.get(key)
        if policy is None:
            if len(_count_policies) >= CACHED_COUNT_POLICIES:
                _count_policies.clear()
            hands = count_hands(view.dice[view.seat], view.bid.face, view.config)
            policy = _count_policies[key] = self._policy_by_hand(hands, view)
            for array in (policy[0], policy[2]):
                array.flags.writeable = False  # shared: nobody may change a remembered decision
        return policy

    def _settled(
        self, view: PublicView, hand: Sequence[int] | None = None
    ) -> tuple[float, tuple[Bid, ...], int] | None:
        """:func:`settled_decision` for the known ``hand``, or for any hand of the seat's dice (None): the
        decision when no hand can change it (e.g. most bids of the sixes game)."""
        bid = view.bid
        if hand is None:
            return _settled_for_any_hand(view.config, view.table_dice, bid, view.dice[view.seat], self.bluff)
        own = None if bid is None else matching_count(tuple(hand), bid.face, view.config)
        return _settled_for(view.config, view.table_dice, bid, view.dice[view.seat], self.bluff, own)

    def shared_probability(self, view: PublicView, action: Action) -> float | None:
        """P(``action``) when no hand of the seat's dice can change the rule's move here, else None."""
        same = self._settled(view)
        return None if same is None else float(_probability_of(action, *same))

    def deciding_face(self, view: PublicView) -> int | None:
        """The bid's face when at most one raise is legal (the sixes game, always): only its estimate counts."""
        return _bid_face_decides(view)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        shared = self.shared_probability(view, action)
        if shared is not None:
            return np.full(len(hands), shared)
        face = _bid_face_decides(view)  # the rule's own answer: a subclass's deciding_face is checked against this
        if face is not None:  # look each hand's matching count up
            by_count = _probability_of(action, *self._policy_by_count(view))
            return np.take(by_count, matching_count(hands, face, view.config))
        return _probability_of(action, *self._policy_by_hand(hands, view))

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        decided = self._settled(view, view.hand)  # one raise at most: the bid face's estimate decides
        if decided is None:
            p_challenges, raises, choices = self._policy_by_hand(np.asarray(view.hand)[None, :], view)
            decided = float(p_challenges[0]), raises, int(choices[0])
        p, raises, choice = decided
        if p == 1.0 or (p > 0.0 and rng.random() < p):
            return CHALLENGE
        return raises[choice]
