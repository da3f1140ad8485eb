"""``ldpomdp evaluate``: an agent's tournaments against the ladder at 2 and 3 players, its table, plot and
exploitation probe; bad arguments refused before any game."""

from __future__ import annotations

import csv
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import ROOT

from ldpomdp import GameConfig
from ldpomdp.cli import main as cli_main
from ldpomdp.errors import UsageError
from ldpomdp.sweeps import read_games
from ldpomdp.sweeps.evaluate import EVALUATION_FILE, EVALUATION_PLOT, evaluate

AGENT = "text:agent=examples.text_agents:typical"


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


def test_an_evaluation_writes_its_table_and_plot_from_its_tournaments_and_probe(tmp_path):
    pytest.importorskip("matplotlib")
    with ThreadPoolExecutor(2) as pool:
        rows = evaluate(AGENT, tmp_path, GameConfig(dice=1), 6, ladder=("random", "one-third"), probe_games=4,
                        probe_dice=1, log=None, executor=pool, progress=False)
    settings = [(r.players, r.opponents) for r in rows]
    assert settings == [(2, "one-third"), (2, "random"), (2, "all"), (3, "one-third + random"), (3, "all"),
                        (2, "lbr")]
    two = read_games(tmp_path / "2-players" / "games.jsonl")
    mine = [g for g in two if "typical" in g["cell"]]
    assert rows[2].games == len(mine) == 12  # its two pairs, 6 games each (the ladder's own pair aside)
    assert rows[2].wins == rows[0].wins + rows[1].wins and 0 <= rows[2].low <= rows[2].win_rate <= rows[2].high
    for row, folder in ((rows[2], "2-players"), (rows[4], "3-players")):  # rating and rank: the tournament's
        with open(tmp_path / folder / "ratings.csv", newline="") as fh:
            rated = next(r for r in csv.DictReader(fh) if "typical" in r["agent"])
        assert (row.rank, row.rating) == (int(rated["rank"]), pytest.approx(float(rated["rating"]), abs=1e-6))
    assert rows[0].rank == 0 and rows[3].fair == pytest.approx(1 / 3)
    assert rows[5].games == 4 and rows[5].fair == 0.5
    with open(tmp_path / EVALUATION_FILE, newline="") as fh:
        assert [(int(r["players"]), r["opponents"]) for r in csv.DictReader(fh)] == settings
    assert (tmp_path / EVALUATION_PLOT).stat().st_size > 0


def test_bad_arguments_are_refused_before_any_game(tmp_path, capsys):
    with pytest.raises(UsageError, match="is on the ladder too"):
        evaluate("one-third", tmp_path / "a", GameConfig(dice=1), 2, ladder=("random", "one-third"))
    with pytest.raises(UsageError, match="seats must be player counts from 2 to 3"):
        evaluate(AGENT, tmp_path / "b", GameConfig(dice=1), 2, ladder=("random", "one-third"), seats=(2, 4))
    with pytest.raises(UsageError, match="seats gives a number of players twice"):
        evaluate(AGENT, tmp_path / "d", GameConfig(dice=1), 2, ladder=("random", "one-third"), seats=(2, 2))
    with pytest.raises(UsageError, match="human"):  # a spec that cannot play: refused before the first tournament
        evaluate(AGENT, tmp_path / "e", GameConfig(dice=1), 2, ladder=("random", "human"))
    assert cli_main(["evaluate", AGENT, "--seats", "two", "--out", str(tmp_path / "c")]) == 2
    assert "--seats 'two': give player counts" in capsys.readouterr().err
    assert not any((tmp_path / name).exists() for name in "abcde")
