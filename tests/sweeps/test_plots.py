"""Sweep plots: bar charts for one cell, titles naming the game, whole dice ticks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import SMALL, sweep

from ldpomdp.sweeps import Cell


@pytest.mark.slow
def test_single_cell_gives_bar_charts_and_no_matplotlib_still_gives_csv(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from ldpomdp.sweeps.plots import plot_summary

    cells = SMALL[3:]
    rows = sweep(tmp_path, cells=cells, workers=1)
    assert sorted(p.name for p in plot_summary(rows, cells, tmp_path)) == ["challenges.png", "wins.png"]
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import now fails
    assert plot_summary(rows, cells, tmp_path) == []


@pytest.mark.slow
def test_plot_titles_name_the_game_once_and_dice_ticks_are_whole(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from ldpomdp.sweeps.plots import plot_summary

    drawn = {}

    def savefig(fig: Figure, path: Path, **kw: object) -> None:  # the axes drawn, by the file written atomically
        Path(path).write_bytes(b"")
        drawn[Path(path).name.split(".")[1] + ".png"] = fig.axes[0]  # .NAME.png.<pid>.<thread>.tmp.png

    monkeypatch.setattr(Figure, "savefig", savefig)
    cells = SMALL[:3]  # dice 1, 2 and 4, the sixes game
    rows = sweep(tmp_path, cells=cells, games=4, workers=1)
    plot_summary(rows, cells, tmp_path, title="one-third vs bluff (a test)")
    ax = drawn["win_rate.png"]
    assert ax.get_title() == "one-third vs bluff (a test)\nsixes game, 6 faces, ones wild; 4 games per point"
    assert all(float(tick).is_integer() for tick in ax.get_xticks())
    full = [Cell.of(("one-third", "random"), 3)]
    plot_summary(sweep(tmp_path / "full", cells=full, games=4, workers=1), full, tmp_path, title="one-third vs random")
    assert drawn["wins.png"].get_title() == ("one-third vs random: wins\n"
                                             "full game, 6 faces, ones wild; 3 dice each; 4 games")
