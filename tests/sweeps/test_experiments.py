"""Named experiments: distinct cells, quick settings, their x axis."""

from __future__ import annotations

import pytest

from ldpomdp import GameConfig
from ldpomdp.sweeps import EXPERIMENTS, Cell, run_experiment


def test_named_experiments_build_distinct_cells():
    for name, exp in EXPERIMENTS.items():
        for quick in (True, False):
            cells = exp.cells(quick)
            assert cells and len({c.id for c in cells}) == len(cells), name
            assert all(c.config == GameConfig(len(c.players), c.dice, bids="sixes") for c in cells), name
        assert exp.quick_games < exp.games


@pytest.mark.slow
def test_run_experiment_uses_quick_settings_and_its_x_axis(tmp_path, capsys):
    from ldpomdp.sweeps import Experiment

    exp = Experiment("bluffs", "bluff sweep", lambda quick: [Cell.of(("one-third", f"bluff:{b}"), 2)
                                                            for b in ((0.0, 1.0) if quick else (0.0, 0.5, 1.0))],
                     games=9, quick_games=4, x_label="bluff", x_of=lambda c: float(c.players[1].split(":")[1]))
    rows = run_experiment(exp, quick=True, out=tmp_path, plot=False, workers=1, progress=False)
    # the cells hold their specs' canonical text (numbers shortest: bluff:0.0 is bluff:0)
    assert [(r.games, r.player) for r in rows] == [(4, "one-third"), (4, "bluff:0"), (4, "one-third"),
                                                   (4, "bluff:1")]
    table = capsys.readouterr().out
    assert "  bluff player" in table and "\n    1.0 1: bluff:1" in table


def test_run_experiment_refuses_zero_games(tmp_path):
    with pytest.raises(ValueError, match="games per cell must be an integer >= 1, got 0"):
        run_experiment(EXPERIMENTS["fig2"], quick=True, games=0, out=tmp_path / "o", progress=False, log=None)
    assert not (tmp_path / "o").exists()
