"""The states a game of three to six seats passes through, and the win probabilities that chain its rounds.

A state is the round's dice (the seats holding dice, in turn order from the opener), whether it is a palifico round, and
which of those seats have had theirs. A round's end (a call, its caller, and by how many dice the bid missed) leads to
the next state (``follow``); ``chain_win_probabilities`` solves the linear equations that give each seat's probability
of winning from every state when each round's ends have fixed probabilities (under the exact call a round can lead back
to a state of as many dice or more). The two-seat chain: ``ldpomdp.exact.two_player.states``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve

from ...caches import memo
from ...round_end import next_round, seats_in_turn, settle_count
from ...rules import CHALLENGE, EXACT, GameConfig
from ..two_player.states import Slot, game_config

__all__ = ["RoundKey", "SeatsState", "usual_state", "round_rules", "seat_slots", "follow", "seat_states",
           "chain_win_probabilities"]

RoundKey = tuple[tuple[int, ...], bool]  # a round: the dice in turn order from its opener, whether it is palifico


@dataclass(frozen=True, order=True)
class SeatsState:
    """A round at a table: the seats' dice, whether it is a palifico round, and which seats have had theirs.

    ``dice`` of the seats holding dice in turn order from the opener, whether it is a ``palifico`` round, and which of
    those seats have had theirs (``had_palifico``, in the same order; default none)."""

    dice: tuple[int, ...]
    palifico: bool = False
    had_palifico: tuple[bool, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.had_palifico:
            object.__setattr__(self, "had_palifico", (False,) * len(self.dice))

    @property
    def key(self) -> RoundKey:
        """The round it plays: states differing only in ``had_palifico`` share a strategy."""
        return self.dice, self.palifico


def usual_state(config: GameConfig, key: RoundKey) -> SeatsState:
    """The usual state of the round ``key``: who has had a palifico round, from the dice alone.

    A seat with one die has had its palifico round (under ``palifico``, with more than one starting die), a seat with
    more has not (it could only by winning dice back)."""
    dice, palifico = key
    had = config.palifico and config.starting_dice[0] > 1
    return SeatsState(dice, palifico, tuple(had and d == 1 for d in dice))


@memo(maxsize=64)
def round_rules(config: GameConfig, seats: int, palifico: bool = False) -> GameConfig:
    """The rules of a round of ``config``'s game with ``seats`` seats holding dice, each having started with the
    first seat's starting dice (a palifico round's own rules if ``palifico``)."""
    rules = replace(game_config(config, config.starting_dice[0]), num_players=seats,
                    dice=(config.starting_dice[0],) * seats)
    return rules.round_rules(palifico) if palifico else rules


@memo(maxsize=1024)
def seat_slots(config: GameConfig, seats: int, table_dice: int) -> tuple[Slot, ...]:
    """Every way a round of ``seats`` seats and ``table_dice`` dice ends, in ``RoundPayoff``'s layout.

    Each caller's challenges by what the bid missed by, then under the exact call each caller's wrong and right calls
    (missing 1 and 0)."""
    slots: list[Slot] = [(CHALLENGE, c, m) for c in range(seats) for m in range(-table_dice, table_dice + 1)]
    return tuple(slots + ([(EXACT, c, 1 - right) for c in range(seats) for right in (0, 1)]
                          if config.exact_call else []))


@memo(maxsize=500_000)
def follow(config: GameConfig, state: SeatsState, slot: Slot) -> tuple[SeatsState, tuple[int, ...]]:
    """Where the round at ``state`` ending by ``slot`` leads: the next state and the seats' places in it.

    The next state (one seat: the game is won), and each of this round's seats' place in it (-1: out of dice). The
    loser, its loss and the next opener by the rules."""
    call, caller, missing = slot
    n = len(state.dice)
    rules = round_rules(config, n, state.palifico)
    loser, after = settle_count(rules, state.dice, missing, (caller - 1) % n, caller, call)
    had = frozenset(s for s in range(n) if state.had_palifico[s])
    following = next_round(rules, after, caller, loser, had)
    if following is None:  # one seat has dice left: it has won
        winner = next(s for s in range(n) if after[s] > 0)
        return SeatsState((after[winner],)), tuple(0 if s == winner else -1 for s in range(n))
    order = seats_in_turn(after, following.opener)
    place = [-1] * n
    for j, s in enumerate(order):
        place[s] = j
    return (SeatsState(tuple(after[s] for s in order), following.palifico,
                       tuple(s in following.had_palifico for s in order)), tuple(place))


def seat_states(config: GameConfig, starts: Iterable[SeatsState]) -> list[SeatsState]:
    """Every state with three or more seats holding dice that a game reaches from ``starts``, fewest dice first (then
    fewer seats, then ordinary rounds before palifico ones)."""
    seen = set(starts)
    todo = list(seen)
    while todo:
        state = todo.pop()
        for slot in seat_slots(config, len(state.dice), sum(state.dice)):
            following = follow(config, state, slot)[0]
            if len(following.dice) >= 3 and following not in seen:
                seen.add(following)
                todo.append(following)
    return sorted(seen, key=lambda s: (sum(s.dice), len(s.dice), s.dice, s.palifico, s.had_palifico))


def chain_win_probabilities(config: GameConfig, states: Sequence[SeatsState], ends: Mapping[RoundKey, np.ndarray],
                            known: Callable[[SeatsState], np.ndarray]) -> dict[SeatsState, np.ndarray]:
    """Each seat's probability of winning from every state of ``states``, given each round's end probabilities.

    ``states``: all those with three or more seats that their rounds lead to. The round at each ends by slot i
    (``seat_slots``) with probability ``ends[state.key][i]``; ``known(state)``: the win probabilities of a state of one
    or two seats. The solution of the chain's linear equations, one unknown per state and seat."""
    start = [0, *itertools.accumulate(len(s.dice) for s in states)]
    number = {s: i for i, s in enumerate(states)}
    rows: list[int] = []
    cols: list[int] = []
    weights: list[float] = []
    constant = np.zeros(start[-1])
    for i, state in enumerate(states):
        for slot, p in zip(seat_slots(config, len(state.dice), sum(state.dice)), ends[state.key], strict=True):
            if p == 0.0:
                continue
            following, place = follow(config, state, slot)
            j = number.get(following)
            seats = [(seat, k) for seat, k in enumerate(place) if k >= 0]
            if j is None and len(following.dice) > 2:
                raise ValueError(f"state {following} (after {state} ends by {slot}) is not among the chain's states")
            if j is None:  # one or two seats left: known
                fixed = known(following)
                for seat, k in seats:
                    constant[start[i] + seat] += p * fixed[k]
                continue
            for seat, k in seats:
                rows.append(start[i] + seat)
                cols.append(start[j] + k)
                weights.append(-p)
    size = int(start[-1])
    matrix = sparse.identity(size, format="csr") + sparse.csr_matrix((weights, (rows, cols)), shape=(size, size))
    solution = np.atleast_1d(spsolve(matrix.tocsc(), constant))
    return {s: solution[start[i]:start[i + 1]] for i, s in enumerate(states)}
