"""The command line: clear errors for bad input, ``ldpomdp sweep``'s outputs, the same game as Python's."""

from __future__ import annotations

import pytest
from conftest import lines, sweep

from ldpomdp import GameConfig
from ldpomdp.cli import build_parser
from ldpomdp.cli import main as cli_main
from ldpomdp.sweeps import Cell


def test_cli_reports_bad_input_clearly(tmp_path, capsys):
    assert cli_main(["sweep", "--players", "one-third,bluff:1.5", "--dice", "2", "--out", str(tmp_path / "o")]) == 2
    assert "bluff:1.5" in capsys.readouterr().err
    assert cli_main(["sweep", "--experiment", "fig99"]) == 2
    assert "unknown experiment 'fig99'" in capsys.readouterr().err
    assert cli_main(["sweep", "--players", "one-third,one-third", "--dice", "0-3"]) == 2
    assert "--dice" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv,option", [
    (["sweep", "--players", "one-third,random", "--dice", "2", "--games", "0"], "--games"),  # used to play 1000
    (["sweep", "--players", "one-third,random", "--dice", "2", "--games", "-5"], "--games"),
    (["sweep", "--players", "one-third,random", "--dice", "2", "--workers", "0"], "--workers"),
    (["sweep", "--players", "one-third,random", "--dice", "2", "--seed", "-4"], "--seed"),
    (["sweep", "--experiment", "fig2", "--quick", "--games", "0"], "--games"),
    (["play", "--seed", "-4"], "--seed"),
])
def test_cli_refuses_out_of_range_integers_naming_the_option(tmp_path, capsys, argv, option):
    with pytest.raises(SystemExit) as exit_:
        cli_main([*argv, "--out", str(tmp_path / "o")] if argv[0] == "sweep" else argv)
    assert exit_.value.code == 2
    assert f"argument {option}: must be an integer >= " in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_cli_sweep_writes_csv_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "cli"
    assert cli_main(["sweep", "--players", "one-third,random", "--dice", "1-3", "--games", "6", "--bids", "sixes",
                     "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    header, *lines = (out / "summary.csv").read_text().splitlines()
    assert header == ("cell,dice,bids,player,player_index,games,wins,win_rate,ci_low,ci_high,"
                      "challenges_per_game,challenge_success_rate,best_response,exact_value")
    for line in lines:  # one-third and random are both models of the sixes game: every exact figure is there
        best, value = map(float, line.split(",")[-2:])
        assert 0.0 < value <= best <= 1.0
    assert (out / "win_rate.png").stat().st_size > 1000
    assert "win rate" in capsys.readouterr().out


@pytest.mark.slow
def test_one_cell_sweep_that_one_player_wins_every_game_draws_its_bars(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "sweep"
    assert cli_main(["sweep", "--players", "one-third,random", "--dice", "10", "--games", "10", "--out", str(out),
                     "--workers", "1", "--no-progress"]) == 0
    wins = [line.split(",")[6] for line in (out / "summary.csv").read_text().splitlines()[1:]]
    assert wins == ["10", "0"]  # all and none: the Wilson ends that used to give negative error bars
    assert (out / "wins.png").stat().st_size > 1000 and (out / "challenges.png").stat().st_size > 1000


@pytest.mark.slow
def test_the_cli_and_python_default_to_the_same_game(tmp_path):
    # the README's `ldpomdp sweep` and `Cell` examples must play the same game: GameConfig's, the full game
    parser = build_parser()
    assert (parser.parse_args(["sweep"]).bids == parser.parse_args(["play"]).bids == Cell.of(("a", "b"), 1).config.bids
            == GameConfig().bids == "full")
    assert cli_main(["sweep", "--players", "one-third,random", "--dice", "2", "--games", "6", "--workers", "1",
                     "--no-plot", "--no-progress", "--out", str(tmp_path / "cli")]) == 0
    sweep(tmp_path / "py", cells=[Cell.of(("one-third", "random"), 2)], games=6, seed=0, workers=1)
    assert lines(tmp_path / "cli") == lines(tmp_path / "py")
