"""The command line: clear errors for bad input, flags an experiment fixes, size limits, ``ldpomdp sweep``'s
outputs, the same game as Python's."""

from __future__ import annotations

import pytest
from conftest import lines, sweep

from ldpomdp import GameConfig
from ldpomdp.cli import build_parser, config_from_args
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


@pytest.mark.parametrize("flags,named", [
    (["--dice", "5", "--bids", "full", "--faces", "4"], "--dice, --faces, --bids"),  # used to run fig2's own rules
    (["--players", "one-third,random"], "--players"),
    (["--wild", "none", "--opener", "loser"], "--wild, --opener"),
    (["--bids", "sixes"], "--bids"),  # the experiment's own value is refused too: the flag is the experiment's
])
def test_an_experiment_refuses_the_flags_it_fixes_naming_them(tmp_path, capsys, flags, named):
    # --games, --seed, --workers and --out are the run's, not the experiment's: never named
    assert cli_main(["sweep", "--experiment", "fig2", "--quick", "--games", "3", "--seed", "5", *flags, "--workers",
                     "1", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (f"ldpomdp: error: --experiment fig2 fixes its players, dice and rules: leave "
                                       f"out {named}, or give --players in place of --experiment\n")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv,message", [
    (["sweep", "--players", "one-third,random", "--quick"],
     "--quick picks a named experiment's small version: give it with --experiment NAME"),
    (["sweep", "--players", "one-third one-third"],  # used to say GameConfig.num_players must be >= 2
     "--players 'one-third one-third' names 1 player; a game needs at least two, separated by commas"),
    (["sweep", "--players", "one-third,random", "--dice", "3,,4"],  # used to sweep 3 and 4
     "--dice '3,,4' has an empty item: give dice counts between the commas"),
])
def test_sweep_flags_that_would_be_ignored_or_misread_are_refused(tmp_path, capsys, argv, message):
    assert cli_main([*argv, "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == f"ldpomdp: error: {message}\n"
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv,message", [
    (["play", "--dice", "10000"],  # used to print 80,000-character lines
     "GameConfig.dice: 2 players x 10000 dice put 20000 dice on the table, above the limit MAX_TABLE_DICE = 200"),
    (["play", "--dice", "67", "--opponents", "one-third,random"],
     "GameConfig.dice: 3 players x 67 dice put 201 dice on the table, above the limit MAX_TABLE_DICE = 200"),
    (["sweep", "--players", "one-third,random", "--dice", "10000", "--games", "1"],  # used to run for minutes at 0/1
     "--dice '10000': 2 players x 10000 dice put 20000 dice on the table, above the limit MAX_TABLE_DICE = 200 (at "
     "most 100 dice each)"),
    (["sweep", "--players", "one-third,random,random", "--dice", "1-10000000000"],  # no set of ten billion counts
     "--dice '1-10000000000': 3 players x 10000000000 dice put 30000000000 dice on the table, above the limit "
     "MAX_TABLE_DICE = 200 (at most 66 dice each)"),
])
def test_games_above_the_table_limit_are_refused_naming_limit_and_value(tmp_path, capsys, argv, message):
    assert cli_main([*argv, "--out", str(tmp_path / "o")] if argv[0] == "sweep" else argv) == 2
    out, err = capsys.readouterr()
    assert err == f"ldpomdp: error: {message}\n" and out == ""
    assert not (tmp_path / "o").exists()


def test_a_person_in_a_sweep_is_refused_before_any_game(tmp_path, capsys):
    # used to fail every game with "input ended while waiting for your move", the board in the progress bar
    assert cli_main(["sweep", "--players", "human,one-third", "--dice", "2", "--out", str(tmp_path / "o")]) == 2
    out, err = capsys.readouterr()
    assert err == ("ldpomdp: error: player 'human' in cell players=human|one-third;dice=2;bids=full;faces=6;wild=1;"
                   "opener=after_challenger: a person cannot play in a sweep (its games run unattended, in worker "
                   "processes); play the agents with `ldpomdp play`\n")
    assert out == "" and not (tmp_path / "o").exists()


def test_play_refuses_nash_above_its_sizes_in_one_line_before_the_game(capsys):
    # used to print "Game 1: ..." and then a traceback frame of exact/tree.py
    assert cli_main(["play", "--opponents", "nash", "--dice", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("ldpomdp: error: player 'nash': one round with dice (2, 2), 6 faces and 'full' bids has about "
                   "704,643,072 sequences (16,777,216 public bid sequences x 42 hands); the exact solver's limit is "
                   "MAX_SEQUENCES = 250,000\n")


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
    sweep_config, play_config = (config_from_args(parser.parse_args([command]), 2, dice=1)
                                 for command in ("sweep", "play"))
    assert sweep_config == play_config == Cell.of(("a", "b"), 1).config == GameConfig(2, 1)
    assert sweep_config.bids == "full"
    assert cli_main(["sweep", "--players", "one-third,random", "--dice", "2", "--games", "6", "--workers", "1",
                     "--no-plot", "--no-progress", "--out", str(tmp_path / "cli")]) == 0
    sweep(tmp_path / "py", cells=[Cell.of(("one-third", "random"), 2)], games=6, seed=0, workers=1)
    assert lines(tmp_path / "cli") == lines(tmp_path / "py")


def test_solve_equilibrium_takes_the_recall_as_recall_and_fills_in_the_shipped_settings(tmp_path, capsys):
    """``--recall`` (formerly ``--k``) sets the table's recall; what is not given comes from ``SHIPPED``."""
    from ldpomdp.exact.cfr_player import SHIPPED
    from ldpomdp.exact.equilibrium import GameTable

    out = tmp_path / "t.npz"
    assert cli_main(["solve", "equilibrium", "--dice", "1", "--faces", "3", "--recall", "2", "--out", str(out),
                     "--no-progress"]) == 0
    table = GameTable.load(out)
    assert (table.max_dice, table.recall, table.iterations) == (1, "2", SHIPPED.iterations)
    assert table.config == GameConfig(dice=1, faces=3)
    assert "exploitability with 1 die each" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        cli_main(["solve", "equilibrium", "--k", "2"])
    assert exit_.value.code == 2 and "unrecognized arguments: --k" in capsys.readouterr().err
