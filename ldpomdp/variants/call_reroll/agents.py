"""Report 000's two agents for the call-and-re-roll game (its chapters 3 and 4).

TreeAgent: a pure strategy from the report's backward induction (section 3.3.1), which models the
other player's challenge probability instead of solving for it. MatrixAgent: a mixed strategy from the
normal form of every stage (section 3.3.2: call strategies = one call per roll, at least the roll;
accept/challenge strategies = one answer per call), solved by minimax LP with HiGHS instead of the
report's search over payoff maxima, with the exact continuation values.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from .game import FACES, _validate_faces
from .matrix_game import solve_matrix_game

__all__ = ["TreeAgent", "MatrixAgent"]


class TreeAgent:
    """The report's tree agent (section 3.3.1, pseudocode of section 4.1), a pure strategy.

    Backward induction with the report's opponent model: a call ``c`` is challenged with probability
    P(C) = q / (q + W[c]), q = 1 - 1/c (equation 2), W[c] the tree's own value of the stage after accepting ``c``. The
    caller picks, among calls at least its roll, the one maximising P(C) [c = roll] + (1 - P(C)) (1 - W[c]) (equation
    1), and W[x] averages the best calls over the rolls (equation 3). It challenges ``c`` iff (faces - 1)/faces *
    1/faces exceeds W[c] (faces - c)/faces (section 3.3.1.1.2).
    """

    name = "tree"

    def __init__(self, faces: int = FACES):
        self.faces = _validate_faces(faces)
        f = self.faces
        self.values = np.zeros(f + 1)  # W[x], the tree's estimate of the roller's chance after accepting x
        self.calls = np.zeros((f + 1, f + 1), dtype=np.int64)  # calls[x, roll]
        for x in range(f - 1, -1, -1):
            best = []
            for roll in range(1, f + 1):
                options = np.arange(max(roll, x + 1), f + 1)
                q = 1.0 - 1.0 / options
                denominator = q + self.values[options]
                p_challenge = np.divide(q, denominator, out=np.zeros_like(q), where=denominator > 0)
                win = p_challenge * (options == roll) + (1.0 - p_challenge) * (1.0 - self.values[options])
                k = int(np.argmax(win))  # ties: the lowest call
                self.calls[x, roll] = options[k]
                best.append(win[k])
            self.values[x] = float(np.mean(best))
        accept_score = self.values * (f - np.arange(f + 1)) / f
        self.challenges = (f - 1) / f / f > accept_score  # indexed by call

    def call_probabilities(self, accepted: int, roll: int) -> np.ndarray:
        out = np.zeros(self.faces + 1)
        out[self.calls[accepted, roll]] = 1.0
        return out

    def challenge_probability(self, accepted: int, call: int) -> float:
        return float(self.challenges[call])


class MatrixAgent:
    """Minimax mixed strategy of every stage's normal form (the report's matrix agent, solved exactly).

    Stage ``x``: the caller's pure strategies give one call per roll (at least the roll and above ``x``;
    any call above ``x`` when the roll is not: the report's restriction), the acceptor's one answer per
    call; the payoff is the caller's win probability with the exact value of the following stage.
    ``seconds[x]`` is the time to build and solve stage ``x``.
    """

    name = "matrix"

    def __init__(self, faces: int = FACES):
        self.faces = _validate_faces(faces)
        f = self.faces
        self.values = np.zeros(f + 1)
        self.call_table = np.zeros((f + 1, f + 1, f + 1))  # [x, roll, call]
        self.challenge_table = np.zeros((f + 1, f + 1))  # [x, call]
        self.shapes: dict[int, tuple[int, int]] = {}
        self.seconds: dict[int, float] = {}
        for x in range(f - 1, -1, -1):
            start = time.perf_counter()
            options = [range(max(roll, x + 1), f + 1) for roll in range(1, f + 1)]
            strategies = np.array(list(itertools.product(*options)))  # (S, rolls): the call per roll
            answers = np.array(list(itertools.product((False, True), repeat=f - x)))  # (T, calls): challenge?
            challenged = answers[:, strategies - x - 1]  # (T, S, rolls)
            truthful = strategies == np.arange(1, f + 1)
            payoff = np.where(challenged, truthful[None], (1.0 - self.values[strategies])[None]).mean(axis=2).T
            self.values[x], rows, cols = solve_matrix_game(payoff)
            for roll in range(f):
                np.add.at(self.call_table[x, roll + 1], strategies[:, roll], rows)
            self.challenge_table[x, x + 1:] = cols @ answers
            self.shapes[x] = payoff.shape
            self.seconds[x] = time.perf_counter() - start

    def call_probabilities(self, accepted: int, roll: int) -> np.ndarray:
        return self.call_table[accepted, roll]

    def challenge_probability(self, accepted: int, call: int) -> float:
        return float(self.challenge_table[accepted, call])
