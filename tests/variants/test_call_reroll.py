"""Report 000's call-and-re-roll game: exact values two ways, both agents, simulation vs exact odds."""

from __future__ import annotations

import numpy as np
import pytest

from ldpomdp.variants.call_reroll import (
    MatrixAgent,
    TreeAgent,
    game_value,
    play,
    solve_matrix_game,
    stage_values,
    win_probability,
)


class Pure:
    """A pure strategy given as tables: calls[x, roll] and challenge[x, call] (0/1)."""

    def __init__(self, calls: np.ndarray, challenge: np.ndarray):
        self.calls, self.challenge = calls, challenge

    def call_probabilities(self, accepted: int, roll: int) -> np.ndarray:
        out = np.zeros(self.calls.shape[0])
        out[self.calls[accepted, roll]] = 1.0
        return out

    def challenge_probability(self, accepted: int, call: int) -> float:
        return float(self.challenge[accepted, call])


def test_matrix_game_solver_on_known_games():
    value, rows, cols = solve_matrix_game(np.array([[1.0, -1.0], [-1.0, 1.0]]))  # matching pennies
    assert value == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(rows, [0.5, 0.5])
    np.testing.assert_allclose(cols, [0.5, 0.5])
    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    value, rows, cols = solve_matrix_game(rps + 2.0)
    assert value == pytest.approx(2.0)
    np.testing.assert_allclose(rows, [1 / 3] * 3, atol=1e-9)
    assert solve_matrix_game(np.array([[3.0, 5.0], [1.0, 4.0]]))[0] == pytest.approx(3.0)  # saddle point


@pytest.mark.parametrize("faces", [2, 3, 4, 5, 6])
def test_behaviour_lp_and_normal_form_lp_agree(faces):
    """Two independent solutions: behaviour LP with every call allowed, and the report's normal form
    (calls at least the roll) solved by minimax LP, give the same stage values."""
    values = stage_values(faces)
    np.testing.assert_allclose(MatrixAgent(faces).values, values, atol=1e-9)
    assert values[faces] == 0.0
    assert values[faces - 1] == pytest.approx(1.0 / faces)  # must call the top face: true once in `faces`
    assert np.all(np.diff(values) <= 1e-12)  # a higher accepted call never helps the next roller


def test_matrix_agent_is_minimax_against_every_pure_acceptor_and_caller():
    """Against the tree agent and random pure strategies the matrix agent keeps at least the value."""
    faces = 4
    matrix = MatrixAgent(faces)
    value = game_value(faces)
    assert win_probability(matrix, matrix, faces) == pytest.approx(value, abs=1e-9)
    rng = np.random.default_rng(5)
    opponents = [TreeAgent(faces)]
    for _ in range(30):
        calls = np.zeros((faces + 1, faces + 1), dtype=np.int64)
        for x in range(faces):
            calls[x, 1:] = rng.integers(x + 1, faces + 1, size=faces)
        opponents.append(Pure(calls, rng.integers(0, 2, size=(faces + 1, faces + 1))))
    for opponent in opponents:
        assert win_probability(matrix, opponent, faces) >= value - 1e-9
        assert win_probability(opponent, matrix, faces) <= value + 1e-9


def test_tree_agent_is_pure_and_matches_the_report():
    tree = TreeAgent()
    assert tree.values[5] == pytest.approx(1 / 6)  # the report's "accept five" sub-game
    for x in range(6):
        for roll in range(1, 7):
            p = tree.call_probabilities(x, roll)
            assert p.sum() == 1.0 and p.max() == 1.0
            call = int(np.argmax(p))
            assert call > x and call >= roll
    assert tree.challenge_probability(0, 6) == 1.0  # nobody can beat an accepted six
    assert {tree.challenge_probability(0, c) for c in range(1, 7)} <= {0.0, 1.0}


def test_simulated_head_to_head_matches_exact_odds():
    tree, matrix = TreeAgent(), MatrixAgent()
    rng = np.random.default_rng(2024)
    n = 4000
    for first, agents in ((0, (tree, matrix)), (1, (tree, matrix))):
        p = win_probability(agents[first], agents[1 - first])
        wins = sum(play(agents, first, rng) == first for _ in range(n))
        assert abs(wins / n - p) <= 4 * np.sqrt(p * (1 - p) / n)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="faces"):
        stage_values(1)
    calls = np.zeros((3, 3), dtype=np.int64)  # calls 0: below any accepted value
    with pytest.raises(ValueError, match="called 0"):
        play([Pure(calls, np.zeros((3, 3))), Pure(calls, np.zeros((3, 3)))], 0, np.random.default_rng(0), faces=2)
