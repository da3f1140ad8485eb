"""The exact figures beside a sweep: the turn-of-the-table reduction against direct solutions at every seat the
rotation uses, the schedule's weights, and played games against the figures."""

from __future__ import annotations

import math

import pytest

from ldpomdp.exact import FixedOpponentsSolution, evaluate_player
from ldpomdp.game import rotate
from ldpomdp.registry import make_player
from ldpomdp.sweeps import Cell, run_sweep
from ldpomdp.sweeps.ceiling import exact_figures


def direct(cell: Cell, games: int, i: int, policy: str | None = None) -> float:
    """Player i's figure solved at the very seats of every game of the schedule (rotate), seat 0 opening."""
    config = cell.config
    total = 0.0
    for g in range(games):
        seated, seat_of = rotate(list(cell.players), g)
        seat = seat_of[i]
        models = {s: make_player(spec) for s, spec in enumerate(seated) if s != seat}
        if policy is None:
            solution = FixedOpponentsSolution(config, models, seat)
        else:
            solution = evaluate_player(config, models, make_player(policy), seat)
        total += solution.win_probability(opener=0)
    return total / games


@pytest.mark.parametrize("players, games", [
    (("one-third", "bluff:0.3"), 3),  # an odd count: the rotations are not played equally often
    (("one-third", "bluff:0.3", "random"), 4),
    (("random", "one-third", "one-third"), 5),
])
def test_figures_equal_solutions_at_the_rotated_seats(players, games):
    cells = [Cell.of(players, d, bids="sixes") for d in (1, 2)]
    figures = exact_figures(cells, games)
    for cell in cells:
        for i, spec in enumerate(players):
            best, value = figures[(cell.id, i)]
            assert best == pytest.approx(direct(cell, games, i), abs=1e-12)
            assert value == pytest.approx(direct(cell, games, i, policy=spec), abs=1e-12)
            assert value <= best + 1e-12


def test_figures_leave_out_what_they_cannot_compute():
    cells = [Cell.of(("expected-count", "one-third", "one-third"), d, bids="sixes") for d in (2, 13)]
    figures = exact_figures(cells, 3)
    best, value = figures[(cells[0].id, 0)]
    assert 0 < best < 1 and math.isnan(value)  # particles draw at random: no exact value
    assert all(math.isnan(x) for x in figures[(cells[1].id, 0)])  # over the budget
    assert all(math.isnan(x) for x in figures[(cells[0].id, 1)])  # expected-count is no model to solve against
    assert any("above 2 dice ([13])" in note for note in figures.notes)


def test_hand_dependent_opponents_are_named_in_one_short_line():
    # full-game sweeps used to print, for each player, the solver's whole message (bid, dice, hooks) in a note
    figures = exact_figures([Cell.of(("one-third", "one-third", "random"), d) for d in (1, 2)], 3)
    assert figures.notes == ["no exact figures for one-third, random: an opponent acts on its hand, and the full "
                             "game's solver needs opponents that ignore their hands"]


@pytest.mark.slow
def test_played_best_response_matches_its_figure(tmp_path):
    games = 800
    cell = Cell.of(("best-response:assume=bluff:0.3", "bluff:0.3"), 4, bids="sixes")
    rows = run_sweep([cell], games, tmp_path, seed=5, workers=1, progress=False, log=None)
    row = rows[0]
    assert row.exact_value == pytest.approx(row.best_response, abs=1e-12)  # it is the best response
    p = row.best_response
    assert 0.5 < p < 0.9
    assert abs(row.win_rate - p) <= 4 * math.sqrt(p * (1 - p) / games)
    assert math.isnan(rows[1].best_response)  # the best-response player is no model to solve against
