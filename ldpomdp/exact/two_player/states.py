"""The dice states a two-player game passes through, and the game values that chain its rounds.

A state is the round's dice (opener's, responder's), whether it is a palifico round, and which of the two players have
had their palifico round. A round's end (a call, its caller, and by how many dice the bid missed) leads to the game's
end or to the next state (``successor``); ``round_outcome`` turns the next states' values into the values a round is
solved against, and ``chain_values`` solves the linear equations that give every state's value when each round's ends
have fixed probabilities (the exact call can lead back to a state already valued).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...round_end import next_round, settle_count
from ...rules import CHALLENGE, EXACT, Action, GameConfig

__all__ = ["DiceState", "RoundOutcome", "round_key", "key_round", "round_name", "game_config", "canonical_state",
           "successor", "round_slots", "round_outcome", "game_states", "chain_values"]


@dataclass(frozen=True, order=True)
class DiceState:
    """A round of the game: ``dice`` = (opener's, responder's), whether it is a ``palifico`` round, and whether the
    opener and the responder have had theirs (``had_palifico``)."""

    dice: tuple[int, int]
    palifico: bool = False
    had_palifico: tuple[bool, bool] = (False, False)

    @property
    def key(self) -> tuple[int, ...]:
        """The round it plays (``round_key``): states differing only in ``had_palifico`` share a strategy."""
        return round_key(self.dice, self.palifico)


def round_key(dice: tuple[int, int], palifico: bool = False) -> tuple[int, ...]:
    """A solved round's key: ``(a, b)``, or ``(a, b, 1)`` for a palifico round."""
    return (int(dice[0]), int(dice[1])) + ((1,) if palifico else ())


def key_round(key: tuple[int, ...]) -> tuple[tuple[int, int], bool]:
    """``(dice, palifico)`` of a round key (``round_key``)."""
    return (int(key[0]), int(key[1])), len(key) > 2


def round_name(key: tuple[int, ...]) -> str:
    """``"a_b"``, or ``"a_b_palifico"``: a round's name in a table's arrays."""
    return f"{key[0]}_{key[1]}" + ("_palifico" if len(key) > 2 else "")


def game_config(config: GameConfig, max_dice: int) -> GameConfig:
    """The two-player rules of a table of ``config``'s rules up to ``max_dice`` each (its variants included)."""
    if config.palifico_round:
        raise ValueError("give the game's rules, not a palifico round's (GameConfig.round_rules)")
    return GameConfig(num_players=2, dice=max_dice, faces=config.faces, wild=config.wild, bids=config.bids,
                      opener=config.opener, **config.variants)  # type: ignore[arg-type]


def canonical_state(config: GameConfig, key: tuple[int, ...]) -> DiceState:
    """The usual state of the round ``key``: who has had a palifico round, from the dice alone.

    A player with one die has had its palifico round (under ``palifico``, with more than one starting die), a player
    with more has not (it could only by winning dice back)."""
    dice = (int(key[0]), int(key[1]))
    had = config.palifico and max(config.starting_dice) > 1
    return DiceState(dice, len(key) > 2, (had and dice[0] == 1, had and dice[1] == 1))


@dataclass(frozen=True)
class RoundOutcome:
    """One side's value (two players: the opener's) of every way a round with ``table_dice`` dice ends.

    ``challenge[c, m + table_dice]`` when role c (two roles: 0 = the opener; at a table, one per seat) challenges a bid
    its quantity above the matching dice by m (m <= 0: the bid holds), and ``exact[c, right]`` when role c calls exact
    (None: no exact call). Values lie in [-1, 1]."""

    challenge: np.ndarray  # (roles, 2 * table_dice + 1)
    exact: np.ndarray | None  # (roles, 2)
    table_dice: int

    def __post_init__(self) -> None:
        roles = max([2, *np.shape(self.challenge)[:1]])
        shapes = [(self.challenge, (roles, 2 * self.table_dice + 1))] + (
            [(self.exact, (roles, 2))] if self.exact is not None else [])
        for array, shape in shapes:
            if np.shape(array) != shape or np.abs(array).max() > 1.0 + 1e-12:
                raise ValueError(f"outcome arrays must be {shape} values in [-1, 1], got {array!r}")

    @classmethod
    def from_slots(cls, values: Sequence[float] | np.ndarray, table_dice: int) -> RoundOutcome:
        """The outcome whose ends, in ``round_slots``' order, are worth ``values`` (the exact call's four last,
        if the list has them)."""
        n = 2 * (2 * table_dice + 1)
        array = np.asarray(values, dtype=np.float64)
        return cls(array[:n].reshape(2, -1), array[n:].reshape(2, 2) if len(array) > n else None, table_dice)

    @classmethod
    def of(cls, outcome: RoundOutcome | np.ndarray, table_dice: int) -> RoundOutcome:
        """``outcome`` itself, or today's rules' ``outcome[loser, challenger]`` (a 2x2 array) as a RoundOutcome."""
        if isinstance(outcome, RoundOutcome):
            return outcome
        losers = np.asarray(outcome, dtype=np.float64)
        if losers.shape != (2, 2) or np.abs(losers).max() > 1.0 + 1e-12:
            raise ValueError(f"outcome must be a 2x2 array of values in [-1, 1] or a RoundOutcome, got {outcome!r}")
        holds = np.arange(-table_dice, table_dice + 1) <= 0  # the challenger loses
        return cls(np.where(holds[None, :], losers.diagonal()[:, None], losers[::-1].diagonal()[:, None]), None,
                   table_dice)


Slot = tuple[Action, int, int]  # (call, caller role, by how many dice the bid missed: for EXACT 1 wrong, 0 right)


def round_slots(config: GameConfig, dice: tuple[int, int]) -> list[Slot]:
    """Every way a round with ``dice`` ends, in ``RoundOutcome``'s layout."""
    table = sum(dice)
    slots: list[Slot] = [(CHALLENGE, c, m) for c in (0, 1) for m in range(-table, table + 1)]
    return slots + ([(EXACT, c, m) for c in (0, 1) for m in (1, 0)] if config.exact_call else [])


def successor(config: GameConfig, state: DiceState, slot: Slot) -> tuple[float, DiceState | None, float]:
    """Where the round at ``state`` ending by ``slot`` leads: ``(value, next, sign)``.

    The game's value to this round's opener is ``value + sign * value(next)`` (``next`` None and ``value`` +-1 when the
    game is over)."""
    call, caller, missing = slot
    loser, after = settle_count(config, state.dice, missing, 1 - caller, caller, call)
    had = frozenset(r for r in (0, 1) if state.had_palifico[r])
    following = next_round(config, after, caller, loser, had)
    if following is None:
        return (1.0 if after[0] > 0 else -1.0), None, 0.0
    o = following.opener
    return 0.0, DiceState((after[o], after[1 - o]), following.palifico,
                          (o in following.had_palifico, 1 - o in following.had_palifico)), (1.0 if o == 0 else -1.0)


def round_outcome(config: GameConfig, state: DiceState, value: Callable[[DiceState], float]) -> RoundOutcome:
    """The ``RoundOutcome`` of the round at ``state`` when each next state is worth ``value(next)`` to its
    opener."""
    table = sum(state.dice)
    values = []
    for slot in round_slots(config, state.dice):
        end, following, sign = successor(config, state, slot)
        values.append(end if following is None else sign * value(following))
    return RoundOutcome.from_slots(values, table)


def game_states(config: GameConfig, starts: Iterable[DiceState]) -> list[DiceState]:
    """Every state a game reaches from ``starts``, fewest dice first (then ordinary rounds before palifico ones)."""
    seen = set(starts)
    todo = list(seen)
    while todo:
        state = todo.pop()
        for slot in round_slots(config, state.dice):
            following = successor(config, state, slot)[1]
            if following is not None and following not in seen:
                seen.add(following)
                todo.append(following)
    return sorted(seen, key=lambda s: (sum(s.dice), s.palifico, s.dice, s.had_palifico))


def chain_values(config: GameConfig, states: list[DiceState],
                 end_probabilities: Mapping[tuple[int, ...], np.ndarray]) -> dict[DiceState, float]:
    """Every state's value to its opener when the round at each state ends by slot i (``round_slots``) with
    probability ``end_probabilities[state.key][i]``: the solution of the chain's linear equations."""
    number = {s: i for i, s in enumerate(states)}
    matrix = np.eye(len(states))
    constant = np.zeros(len(states))
    for i, state in enumerate(states):
        p = end_probabilities[state.key]
        for slot, weight in zip(round_slots(config, state.dice), p, strict=True):
            if weight == 0.0:
                continue
            end, following, sign = successor(config, state, slot)
            if following is None:
                constant[i] += weight * end
            else:
                matrix[i, number[following]] -= weight * sign
    return dict(zip(states, np.linalg.solve(matrix, constant).tolist(), strict=True))
