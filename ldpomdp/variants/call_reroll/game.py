"""Report 000's game: two players, one die, "call and re-roll" Liar's Dice (its chapter 1.2).

The roller rolls one die in secret and calls a value above the last accepted call (any at the start); the other
challenges (the game ends: the caller wins iff the call equals the roll) or accepts, re-rolls and must call higher,
so whoever accepts the top face loses. A stage is the last accepted call ``x`` (0 at the start), its roller winning
with probability ``V(x)`` under optimal play; stages are independent (the die is re-rolled), so backward induction
over ``x``, one small LP per stage, solves the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
from scipy.optimize import linprog

from ...validation import int_at_least

__all__ = ["CallRerollAgent", "stage_values", "game_value", "play", "win_probability", "FACES"]

FACES = 6


class CallRerollAgent(Protocol):
    """A player of the call-and-re-roll game, described by its (possibly mixed) decisions."""

    def call_probabilities(self, accepted: int, roll: int) -> np.ndarray:
        """(faces + 1,) probability of calling each value (index = value) after ``accepted``, given ``roll``."""
        ...

    def challenge_probability(self, accepted: int, call: int) -> float:
        """Probability of challenging ``call`` made over ``accepted``."""
        ...


def _validate_faces(faces: int) -> int:
    return int_at_least("call_reroll", "faces", faces, 2)


def stage_values(faces: int = FACES) -> np.ndarray:
    """``V[x]``: the roller's win probability after a call of ``x`` was accepted (``V[faces] = 0``).

    Each stage is solved as an LP over the roller's behaviour strategy p(call | roll) (every call above
    ``x`` allowed for every roll): the acceptor answers each call separately, so the roller maximises
    sum_c min(P(roll = c and call c), (1 - V[c]) P(call c)) / faces.
    """
    faces = _validate_faces(faces)
    values = np.zeros(faces + 1)
    for x in range(faces - 1, -1, -1):
        calls = np.arange(x + 1, faces + 1)
        k = len(calls)
        # variables: p[r, c] (faces x k, row-major), then t[c] (k)
        n_p = faces * k
        cost = np.concatenate([np.zeros(n_p), -np.ones(k) / faces])
        rows = []
        for j, c in enumerate(calls):
            challenge = np.zeros(n_p + k)  # t_c <= p[c, c]
            challenge[(c - 1) * k + j] = -1.0
            challenge[n_p + j] = 1.0
            accept = np.zeros(n_p + k)  # t_c <= (1 - V[c]) sum_r p[r, c]
            accept[np.arange(faces) * k + j] = -(1.0 - values[c])
            accept[n_p + j] = 1.0
            rows += [challenge, accept]
        a_eq = np.zeros((faces, n_p + k))
        for r in range(faces):
            a_eq[r, r * k:(r + 1) * k] = 1.0
        bounds = [(0, None)] * n_p + [(None, None)] * k
        res = linprog(cost, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=a_eq, b_eq=np.ones(faces),
                      bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"HiGHS failed on stage {x}: {res.message}")
        values[x] = -res.fun
    return values


def game_value(faces: int = FACES) -> float:
    """Win probability of the player who rolls first, under optimal play by both."""
    return float(stage_values(faces)[0])


def win_probability(first: CallRerollAgent, second: CallRerollAgent, faces: int = FACES) -> float:
    """Exact probability that ``first`` (who rolls first) beats ``second``."""
    faces = _validate_faces(faces)
    players = (first, second)
    # win[x, i]: probability that player i, rolling at stage x, wins
    win = np.zeros((faces + 1, 2))
    for x in range(faces - 1, -1, -1):
        for i in (0, 1):
            roller, other = players[i], players[1 - i]
            total = 0.0
            for roll in range(1, faces + 1):
                p_call = np.asarray(roller.call_probabilities(x, roll), dtype=np.float64)
                for call in np.flatnonzero(p_call > 0):
                    ch = other.challenge_probability(x, int(call))
                    total += p_call[call] * (ch * (call == roll) + (1.0 - ch) * (1.0 - win[call, 1 - i]))
            win[x, i] = total / faces
    return float(win[0, 0])


def play(players: Sequence[CallRerollAgent], first: int, rng: np.random.Generator, faces: int = FACES) -> int:
    """Play one game, ``players[first]`` rolling first; return the winner's index (0 or 1)."""
    faces = _validate_faces(faces)
    roller, accepted = first, 0
    while True:
        if accepted == faces:  # the top face was accepted: nothing higher can be called
            return 1 - roller
        roll = int(rng.integers(1, faces + 1))
        p_call = np.asarray(players[roller].call_probabilities(accepted, roll), dtype=np.float64)
        call = int(rng.choice(faces + 1, p=p_call / p_call.sum()))
        if call <= accepted or call > faces:
            raise ValueError(f"player {roller} called {call} over an accepted {accepted}: calls must be "
                             f"in {accepted + 1}..{faces}")
        if rng.random() < players[1 - roller].challenge_probability(accepted, call):
            return roller if call == roll else 1 - roller
        roller, accepted = 1 - roller, call
