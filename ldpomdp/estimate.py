"""The estimate rule: report 002's decision rule, shared by the one-third player and two planners.

The planners are the expected-count planner and POMCP (its transition model's tabulated opponents and its rollout
policy).

Estimate of the dice matching a face = own matching dice + the others' expected matching dice (the belief's, or the
unseen dice times P(a die matches): ``unseen_matches``). Challenge iff the bid's face is estimated below its
quantity (kept with probability 1 - ``bluff``), else raise to the smallest legal bid on the face with the highest
estimate (ties: the higher face). Only numpy and ``ldpomdp.rules`` are imported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .caches import memo
from .rules import CHALLENGE, Action, Bid, GameConfig, match_probability, minimal_raises

if TYPE_CHECKING:
    from .game import PublicView

__all__ = [
    "FEW_HANDS", "rule_faces", "unseen_matches", "expected_matches", "estimate_policy", "settled_decision",
    "settled_for", "settled_for_any_hand", "bid_face_decides", "probability_of", "exact_call_pays",
]

FEW_HANDS = 64  # up to this many hands the estimate rule works on whole arrays at once (fewer numpy calls)


def rule_faces(view: PublicView) -> tuple[int, ...]:
    """The faces the estimate rule looks at: the standing bid's and those of the legal raises, ascending."""
    faces = {b.face for b in minimal_raises(view.config, view.table_dice, view.bid)}
    if view.bid is not None:
        faces.add(view.bid.face)
    return tuple(sorted(faces))


@memo(maxsize=4096)
def _face_columns(config: GameConfig, faces: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``faces``: their column indices, P(a die matches) and whether wild dice count for them."""
    wild = [config.wild is not None and f != config.wild for f in faces]
    return (np.array(faces) - 1, np.array([match_probability(config, f) for f in faces]), np.array(wild))


def unseen_matches(config: GameConfig, table_dice: int, seat_dice: int, faces: Sequence[int]) -> np.ndarray:
    """(len(faces),): the others' expected matching dice for each of ``faces``, knowing nothing of them.

    That is the dice a seat with ``seat_dice`` dice cannot see (``table_dice`` - ``seat_dice``) times P(a die
    matches), for each of ``faces``.
    """
    return (table_dice - seat_dice) * _face_columns(config, tuple(faces))[1]


def expected_matches(hands: np.ndarray, view: PublicView, faces: Sequence[int] | None = None) -> np.ndarray:
    """(N, len(faces)): own matching dice of each hand (of the seat ``view.seat``) plus ``unseen_matches``,
    for each of ``faces`` (default: every face). Only those columns are computed."""
    config = view.config
    faces = tuple(range(1, config.faces + 1)) if faces is None else tuple(faces)
    columns, _, counts_wild = _face_columns(config, faces)
    hands = np.atleast_2d(np.asarray(hands))
    share = unseen_matches(config, view.table_dice, view.dice[view.seat], faces)
    if len(hands) <= FEW_HANDS:
        estimate = hands[:, columns] + share
        if config.wild is not None:
            estimate += hands[:, config.wild - 1 : config.wild] * counts_wild
        return estimate
    estimate = np.empty((len(faces), len(hands)))  # many hands (particles): face by face, face-major
    for row, column, add, with_wild in zip(estimate, columns, share, counts_wild, strict=True):
        if with_wild and config.wild is not None:  # with_wild implies a wild face
            np.add(hands[:, column], hands[:, config.wild - 1], out=row)
        else:
            row[:] = hands[:, column]
        row += add
    return estimate.T


def estimate_policy(
    estimate: np.ndarray, view: PublicView, bluff: float = 0.0, faces: Sequence[int] | None = None
) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
    """The estimate rule for N estimates at once.

    ``estimate`` (N, len(faces)): expected matching dice on the whole table for N hands, one column per face
    of ``faces`` (default every face; it must include ``rule_faces``). Returns P(challenge) (challenge iff
    the bid face's estimate is below the quantity, kept with prob. 1 - ``bluff``), the smallest raise on each
    face, and the index of the raise on the best-estimated face (ties: higher face; -1 when no raise is legal).
    """
    column = (lambda f: f - 1) if faces is None else list(faces).index
    raises = minimal_raises(view.config, view.table_dice, view.bid)
    n = estimate.shape[0]
    if 1 < len(raises) and n <= FEW_HANDS:  # the best face, the higher one among ties (raises in face order)
        columns = estimate[:, [column(b.face) for b in raises]]
        choice = len(raises) - 1 - np.argmax(columns[:, ::-1], axis=1)
    elif len(raises) > 1:  # many hands: a running maximum over the few raise columns
        best, choice = estimate[:, column(raises[0].face)], np.zeros(n, dtype=np.int64)
        for i, bid in enumerate(raises[1:], start=1):
            values = estimate[:, column(bid.face)]
            choice[values >= best] = i
            best = np.maximum(best, values)
    elif raises:  # one raise: every hand's choice
        choice = np.zeros(n, dtype=np.int64)
    else:
        choice = np.full(n, -1)
    p_challenge: np.ndarray
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
    """The estimate rule's decision when it cannot depend on what is unknown, else None.

    The decision is settled when at most one raise is legal, and the estimate of the bid's face, known to lie in
    [``low``, ``high``], is at least the quantity at both ends or below it at both ends.

    The one-third rule uses it over all hands (a belief does not know the seat's matching dice), the
    expected-count planner over all beliefs (the others' expected matching dice lie in 0 .. their dice);
    with ``low`` = ``high``, one known estimate, it is the rule itself whenever one raise at most is legal.

    Args:
        config: the rules.
        table_dice: the dice on the table.
        bid: the standing bid (None: none yet).
        bluff: the probability of not challenging when the rule would.
        low: the lowest the estimate of the bid's face can be.
        high: the highest the estimate of the bid's face can be.

    Returns:
        (P(challenge), raises, index of the raise: -1 when no raise is legal), or None when the decision depends
        on what is unknown.
    """
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


def settled_for(
    config: GameConfig, table_dice: int, bid: Bid | None, seat_dice: int, bluff: float, own: int | None
) -> tuple[float, tuple[Bid, ...], int] | None:
    """``settled_decision`` of the one-third rule for a seat with ``seat_dice`` dice.

    The others' expected matching dice are ``unseen_matches``.

    Args:
        config: the rules.
        table_dice: the dice on the table.
        bid: the standing bid (None: none yet).
        seat_dice: the seat's dice.
        bluff: the probability of not challenging when the rule would.
        own: the seat's dice matching the bid's face (None: unknown, anywhere in 0 .. ``seat_dice``).

    Returns:
        What ``settled_decision`` returns: (P(challenge), raises, index of the raise), or None when unsettled.
    """
    low, high = (0.0, float(seat_dice)) if own is None else (float(own), float(own))
    share = 0.0 if bid is None else float(unseen_matches(config, table_dice, seat_dice, (bid.face,))[0])
    return settled_decision(config, table_dice, bid, bluff, share + low, share + high)


@memo(maxsize=65536)
def settled_for_any_hand(
    config: GameConfig, table_dice: int, bid: Bid | None, seat_dice: int, bluff: float
) -> tuple[float, tuple[Bid, ...], int] | None:
    """``settled_for`` an unknown hand (cached: every belief update asks it, and its states recur).

    Args:
        config, table_dice, bid, seat_dice, bluff: as ``settled_for``'s (whose ``own`` is None here).

    Returns:
        What ``settled_for`` returns.
    """
    return settled_for(config, table_dice, bid, seat_dice, bluff, None)


def bid_face_decides(view: PublicView) -> int | None:
    """The bid's face when at most one raise is legal (the rule then looks at that face's estimate only), else
    None."""
    bid = view.bid
    if bid is None or len(minimal_raises(view.config, view.table_dice, bid)) > 1:
        return None
    return bid.face


def probability_of(action: Action, p_challenge, raises: tuple[Bid, ...], choice):
    """P(``action``) from the rule's decision (``estimate_policy``'s or ``settled_decision``'s), for
    arrays over hands or for one hand-independent decision."""
    if action is CHALLENGE:
        return p_challenge
    if action not in raises:
        return 0.0 * p_challenge
    if len(raises) == 1:  # the only raise is every hand's choice
        return 1.0 - p_challenge
    return (choice == raises.index(action)) * (1.0 - p_challenge)


def exact_call_pays(others: np.ndarray, needed: int, regains: bool, challenges: bool) -> bool:
    """Whether an exact call beats the estimate rule's move, in dice (the caller's change minus the bidder's).

    ``others[c]`` = P(the other hands hold c matching dice), ``needed`` the matching dice the bid needs beyond
    the caller's own, ``regains`` whether a right call gives a die back (below the starting dice). A right call is
    worth +1 (0 without ``regains``), a wrong one -1; the rule's challenge ``challenges`` is worth P(false) -
    P(true), its raise 0 (the round goes on).
    """
    right = float(others[needed]) if 0 <= needed < len(others) else 0.0
    false = float(others[:max(needed, 0)].sum())
    call = right * regains - (1.0 - right)
    return call > (false - (1.0 - false) if challenges else 0.0)
