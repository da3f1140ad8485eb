"""A round's end as pure functions: who loses how many dice, and who opens the next round with which dice.

The engine, the solvers, the POMDP models and the OpenSpiel game settle rounds with these functions alone; one rule,
``round_loser``, decides who loses.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from .caches import memo
from .rules import CHALLENGE, EXACT, Action, Bid, GameConfig, matching_count

__all__ = ["resolve_challenge", "settle_round", "settle_count", "round_loser", "settled_by_count", "round_ends",
           "next_opener", "seats_in_turn", "next_active_seat", "palifico_follows", "NextRound", "next_round"]


def resolve_challenge(
    config: GameConfig, hands: np.ndarray, bid: Bid, bidder: int, challenger: int
) -> tuple[int, int]:
    """Return ``(loser, matching)``: the challenger loses if the table holds at least ``bid.quantity``.

    The loser is ``round_loser``'s.

    Args:
        config: the round's rules.
        hands: every seat's hand as face counts, one row per seat.
        bid: the challenged bid.
        bidder: the seat that made ``bid``.
        challenger: the seat that challenged it.

    Returns:
        ``(loser, matching)``: the seat that loses the round, and the dice on the table matching ``bid.face``.
    """
    matching = int(matching_count(np.asarray(hands), bid.face, config).sum())
    return round_loser(bid.quantity - matching, bidder, challenger, CHALLENGE), matching


def settle_round(
    config: GameConfig, hands: np.ndarray, dice: tuple[int, ...], bid: Bid, bidder: int, caller: int, call: Action
) -> tuple[int, int, tuple[int, ...]]:
    """Settle the round that ``caller``'s ``call`` of ``bidder``'s ``bid`` ended.

    Args:
        config: the round's rules.
        hands: every seat's hand as face counts, one row per seat.
        dice: each seat's dice in the round.
        bid: the bid called.
        bidder: the seat that made ``bid``.
        caller: the seat that called it.
        call: ``CHALLENGE`` or ``EXACT``.

    Returns:
        ``(loser, matching, dice after)``: the loser and dice after as ``settle_count`` gives them (loser -1:
        nobody loses), and the dice on the table matching ``bid.face``.
    """
    matching = int(np.sum(matching_count(np.asarray(hands), bid.face, config)))
    loser, after = settle_count(config, dice, bid.quantity - matching, bidder, caller, call)
    return loser, matching, after


def settle_count(config: GameConfig, dice: tuple[int, ...], missing: int, bidder: int, caller: int, call: Action
                 ) -> tuple[int, tuple[int, ...]]:
    """``(loser, dice after)`` of the round that ``caller``'s ``call`` ends, the bid short by ``missing``.

    Loser -1 when nobody loses (a right exact call: the caller gets a die back, never above its starting dice). A
    challenge's loser loses one die, or under ``loss="difference"`` what the bid missed by (the bidder:
    ``missing``; the challenger: ``1 - missing``); a wrong exact call costs one die.

    Args:
        config: the round's rules.
        dice: each seat's dice in the round.
        missing: how far the bid's quantity exceeds the matching dice (<= 0: the bid holds).
        bidder: the seat that made the bid.
        caller: the seat that called it.
        call: ``CHALLENGE`` or ``EXACT``.

    Returns:
        ``(loser, dice after)``: the seat that loses (-1: nobody) and each seat's dice after the round.
    """
    loser = round_loser(missing, bidder, caller, call)
    if loser < 0:
        regained = int(dice[caller] < config.starting_dice[caller])
        return -1, tuple(d + regained * (i == caller) for i, d in enumerate(dice))
    lost = 1 if call is EXACT or config.loss == "one" else abs(missing) + (loser == caller)
    return loser, tuple(max(d - lost, 0) if i == loser else d for i, d in enumerate(dice))


def round_loser(missing: int, bidder: int, caller: int, call: Action) -> int:
    """Who loses the round that ``caller``'s ``call`` of ``bidder``'s bid ends (-1: nobody).

    The bid's quantity exceeds the matching dice by ``missing`` (<= 0: the bid holds): a challenge costs the caller
    when the bid holds, else the bidder; an exact call costs the caller unless ``missing`` is 0 (then -1: nobody
    loses). The one rule of a round's end, on a count, so that the planners' precomputed counts ask it too.
    """
    if call is EXACT:
        return -1 if missing == 0 else caller
    return caller if missing <= 0 else bidder


def settled_by_count(config: GameConfig) -> bool:
    """Whether a round's end can do more than cost its loser one die (``exact_call``, ``loss="difference"``)."""
    return config.exact_call or config.loss != "one"


@memo(maxsize=4096)
def round_ends(config: GameConfig, dice: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every ``(loser, dice after)`` a round at ``dice`` can end with under ``config`` (loser -1: a right exact call),
    each once: a planner numbers the ends of its round by their index here."""
    active = [s for s, d in enumerate(dice) if d > 0]
    ends = []
    for loser in active:
        for lost in range(1, (dice[loser] if config.loss == "difference" else 1) + 1):
            ends.append((loser, tuple(d - lost * (s == loser) for s, d in enumerate(dice))))
    if config.exact_call:
        for caller in active:
            regained = int(dice[caller] < config.starting_dice[caller])
            ends.append((-1, tuple(d + regained * (s == caller) for s, d in enumerate(dice))))
    return tuple(dict.fromkeys(ends))


def seats_in_turn(dice: tuple[int, ...] | list[int], first: int) -> list[int]:
    """The seats that still have dice, in turn order from ``first`` (first included if it has dice)."""
    n = len(dice)
    return [(first + j) % n for j in range(n) if dice[(first + j) % n] > 0]


def next_active_seat(dice: tuple[int, ...] | list[int], seat: int) -> int:
    """The next seat after ``seat`` (cyclically) that still has dice."""
    n = len(dice)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if dice[candidate] > 0:
            return candidate
    raise ValueError("no player has dice left")


def next_opener(config: GameConfig, dice_after: tuple[int, ...], challenger: int, loser: int) -> int:
    """Who opens the next round under ``config.opener`` (``dice_after`` already reflects the loss).

    ``challenger`` is the caller (of a challenge or an exact call); with nobody losing (``loser`` -1, a right exact
    call) the caller opens under the "loser" rule.
    """
    if loser < 0:
        loser = challenger
    if config.opener == "loser":
        return loser if dice_after[loser] > 0 else next_active_seat(dice_after, loser)
    return next_active_seat(dice_after, challenger)


def palifico_follows(config: GameConfig, loser: int, dice_after: tuple[int, ...],
                     had_palifico: Collection[int]) -> bool:
    """Whether the round after a round lost by ``loser`` (-1: nobody) is a palifico round.

    It is under ``palifico=True`` when the loser has just dropped to one die (``dice_after``) and is not among
    ``had_palifico``, the seats whose palifico round has been played (once per player per game).
    """
    return config.palifico and loser >= 0 and dice_after[loser] == 1 and loser not in had_palifico


@dataclass(frozen=True)
class NextRound:
    """The round after a call: its opener, whether it is a palifico round, and the seats whose palifico round has
    been played (this one's included)."""

    opener: int
    palifico: bool
    had_palifico: frozenset[int]


def next_round(config: GameConfig, dice_after: tuple[int, ...], caller: int, loser: int,
               had_palifico: frozenset[int] = frozenset()) -> NextRound | None:
    """What follows a round that ``caller``'s call ended: the next round, or None when the game is over.

    The one end of a round that the game runner and the OpenSpiel game share.

    Args:
        config: the game's rules.
        dice_after: each seat's dice after the round.
        caller: the seat that made the call.
        loser: the seat that lost the round (-1: nobody).
        had_palifico: the seats whose palifico round has been played.

    Returns:
        None when one player alone has dice (the game is over), else the next round's ``NextRound``: its opener
        (``next_opener``), whether it is a palifico round (``palifico_follows``) and ``had_palifico`` with the
        loser added when it is.
    """
    if sum(d > 0 for d in dice_after) <= 1:
        return None
    palifico = palifico_follows(config, loser, dice_after, had_palifico)
    return NextRound(next_opener(config, dice_after, caller, loser), palifico,
                     had_palifico | {loser} if palifico else had_palifico)
