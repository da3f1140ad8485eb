"""The command line: clear errors for bad input, flags an experiment fixes, size limits, ``ldpomdp sweep``'s
outputs, the same game as Python's."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import DAMAGE, damage, lines, small_table, sweep

from ldpomdp import GameConfig
from ldpomdp.caches import BoundedCache
from ldpomdp.cli import build_parser
from ldpomdp.cli import main as cli_main
from ldpomdp.cli.options import config_from_args
from ldpomdp.datafiles import read_npz
from ldpomdp.errors import UsageError, echo
from ldpomdp.exact import tables
from ldpomdp.exact.two_player import equilibrium
from ldpomdp.exact.two_player.table import GameTable
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


MIXTURE_REFUSED = ("cannot take a seat: the type mixture models another seat's play (use it as assume=mixture, or "
                   "lbr:mixture); seated, it would model its own seat. Seat `robust`: it plays the best "
                   "response to this model of its opponent, within a stop-loss")


def test_the_type_mixture_is_refused_as_a_seat_by_play_and_sweep_and_listed_as_a_model(tmp_path, capsys):
    # seated, the mixture modelled its own seat and lost to every agent (0.21-0.38 against cfr)
    assert cli_main(["play", "--opponents", "mixture", "--dice", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"ldpomdp: error: player spec 'mixture' {MIXTURE_REFUSED}\n"
    assert cli_main(["sweep", "--players", "mixture:floor=0.05,one-third", "--dice", "2", "--out",
                     str(tmp_path / "o")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.endswith(f"player spec 'mixture:floor=0.05' {MIXTURE_REFUSED}\n") and "\n" not in err[:-1]
    assert not (tmp_path / "o").exists()
    assert cli_main(["players"]) == 0
    listing = capsys.readouterr().out.split("\nmixture ")  # its entry, wrapped, runs on to its parameters' line
    entry = " ".join(listing[-1].split("parameters:")[0].split())
    assert len(listing) == 2 and entry.endswith("[a model for other specs, not a seat]")
    # as a model it still plays its part: the planners assume it
    assert cli_main(["sweep", "--players", "expected-count:assume=mixture,one-third", "--dice", "1", "--games", "2",
                     "--out", str(tmp_path / "m"), "--no-progress", "--no-plot", "--workers", "1"]) == 0


def test_play_refuses_nash_above_its_sizes_in_one_line_before_the_game(capsys):
    # used to print "Game 1: ..." and then a traceback frame of exact/tree.py
    assert cli_main(["play", "--opponents", "nash", "--dice", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("ldpomdp: error: player 'nash': one round with dice (2, 2), 6 faces and 'full' bids has about "
                   "704,643,072 sequences (16,777,216 public bid sequences x 42 hands); the exact solver's limit is "
                   "MAX_SEQUENCES = 250,000\n")


def test_play_and_sweep_say_when_palifico_cannot_happen_and_play_on(tmp_path, capsys, monkeypatch):
    warning = f"warning: {GameConfig.preset('perudo', dice=1).warnings[0]}\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # the person's input ends at the first move
    for dice, warned in (("1", True), ("2", False)):
        assert cli_main(["play", "--rules", "perudo", "--dice", dice]) == 2
        out, err = capsys.readouterr()
        assert "Game 1: " in out and (f"ldpomdp: {warning}" in err) == warned, err
    assert cli_main(["sweep", "--players", "one-third,random", "--rules", "perudo", "--dice", "1-2", "--games", "2",
                     "--out", str(tmp_path / "o"), "--workers", "1", "--no-progress", "--no-plot"]) == 0
    # the cell with 1 die each, said as `play` says it; the other has palifico rounds
    assert capsys.readouterr().out.count(f"ldpomdp: {warning}") == 1


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


# --- damaged tables and checkpoints; `solve equilibrium`'s refusals and its output file ----------------------------

SOLVE = ["solve", "equilibrium", "--dice", "1", "--iterations", "5", "--no-progress"]  # a second's solve


@pytest.mark.parametrize("kind", DAMAGE)
@pytest.mark.parametrize("command,spec", [("play", "cfr:table={}"), ("sweep", "cfr:table={}"),
                                          ("play", "robust:safe=cfr:table={}"), ("sweep", "robust:safe=cfr:table={}")])
def test_a_damaged_table_is_one_line_naming_the_spec_the_file_and_its_fault(tmp_path, capsys, monkeypatch, kind,
                                                                            command, spec):
    # used to end in a BadZipFile or zlib.error traceback, or "No data left in file" naming neither file nor spec
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    path = small_table(tmp_path / "t.npz")
    fault = damage(path, kind)
    spec = spec.format(path)
    argv = (["play", "--opponents", spec, "--dice", "1"] if command == "play" else
            ["sweep", "--players", f"{spec},one-third", "--dice", "1", "--games", "2", "--workers", "1", "--no-plot",
             "--no-progress", "--out", str(tmp_path / "o")])
    assert cli_main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"ldpomdp: error: player {echo(spec)}")  # a long spec cut
    assert f": cannot read the equilibrium table {path}: {fault}" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", ["play", "sweep"])
def test_a_table_holding_pickled_objects_is_named_so_not_damaged(tmp_path, capsys, monkeypatch, command):
    # issue 55: it was "damaged", with numpy's hint to pass allow_pickle=True: an invitation to run the file's code
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    path = tmp_path / "t.npz"
    np.savez(path, strategy=np.array([{"a": 1}], dtype=object))
    argv = (["play", "--opponents", f"cfr:table={path}", "--dice", "1"] if command == "play" else
            ["sweep", "--players", f"cfr:table={path},one-third", "--dice", "1", "--games", "2", "--workers", "1",
             "--no-plot", "--no-progress", "--out", str(tmp_path / "o")])
    assert cli_main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"cannot read the equilibrium table {path}: the file holds pickled Python objects, which ldpomdp never " \
           f"loads" in err
    assert "allow_pickle" not in err and "damaged" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", DAMAGE)
def test_solve_names_a_damaged_checkpoint_and_says_to_delete_it(tmp_path, capsys, kind):
    # a truncated checkpoint used to end in a traceback, with no hint that deleting it starts afresh
    checkpoint = small_table(tmp_path / "cfr.npz.checkpoint.npz")
    fault = damage(checkpoint, kind)
    assert cli_main([*SOLVE, "--out", str(tmp_path / "cfr.npz")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ldpomdp: error: cannot read the checkpoint {checkpoint}: {fault}")
    assert err.endswith("; delete it to start afresh\n") and err.count("\n") == 1
    assert [p.name for p in tmp_path.iterdir()] == [checkpoint.name]


@pytest.fixture
def no_solving(monkeypatch):
    """`solve equilibrium` fails the test if it starts solving."""
    monkeypatch.setattr(equilibrium, "solve_game", lambda *a, **k: pytest.fail("it started solving"))


@pytest.mark.parametrize("flags,variants", [
    (["--rules", "perudo"], {"wild_bids": "perudo", "exact_call": True, "palifico": True}),
    (["--exact-call"], {"exact_call": True}),
    (["--loss", "difference", "--palifico"], {"palifico": True, "loss": "difference"}),
    (["--rules", "dudo", "--exact-call"], {"wild_bids": "perudo", "exact_call": True, "loss": "difference"}),
])
def test_solve_solves_exactly_the_rules_its_flags_give(tmp_path, capsys, monkeypatch, flags, variants):
    # used to solve today's rules, write them as the variant's table, then exit 2
    solved = []

    def record(config, *args, **kwargs):
        solved.append(config)
        raise KeyboardInterrupt

    monkeypatch.setattr(equilibrium, "solve_game", record)
    assert cli_main([*SOLVE, *flags, "--out", str(tmp_path / "cfr.npz")]) == 130  # stopped where it began solving
    assert solved[0].variants == variants


def test_solve_names_the_variant_rules_in_the_table_and_its_lines(tmp_path, capsys):
    out = tmp_path / "dudo.npz"
    assert cli_main(["solve", "equilibrium", "--rules", "dudo", "--dice", "1", "--iterations", "20", "--no-progress",
                     "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "rules: full game, 6 faces, ones wild, Perudo bids on ones, loss by the difference" in printed
    assert GameTable.load(out).config == GameConfig.preset("dudo", dice=1, num_players=2)


def _read_only_folder(tmp_path) -> tuple[Path, str]:
    """A folder this process cannot write in, and the reason: a read-only one of its own, or (as root, who writes
    in those too) /sys, which the kernel keeps unwritable."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    for candidate in (folder, Path("/sys")):
        probe = candidate / f".probe-{os.getpid()}"
        try:
            with open(probe, "x"):
                pass
        except OSError as exc:
            return candidate, exc.strerror
        probe.unlink()
    pytest.skip("no folder that this process cannot write in")


@pytest.mark.parametrize("case", ["a folder", "under a file", "a read-only folder"])
def test_solve_refuses_an_out_it_cannot_write_before_solving(tmp_path, capsys, no_solving, case):
    # used to end in a traceback, for a folder only after the whole solve
    (tmp_path / "file").write_text("")
    (tmp_path / "results").mkdir()
    if case == "a folder":
        out, message = tmp_path / "results", (f"--out {str(tmp_path / 'results')!r} is a folder: give the file to "
                                              f"write, e.g. {str(tmp_path / 'results' / 'cfr.npz')!r}")
    elif case == "under a file":
        out, message = tmp_path / "file" / "a" / "cfr.npz", (f"--out {str(tmp_path / 'file' / 'a' / 'cfr.npz')!r} "
                                                             f"lies under {str(tmp_path / 'file')!r}, which is a "
                                                             f"file, not a folder")
    else:
        folder, reason = _read_only_folder(tmp_path)
        out, message = folder / "new" / "cfr.npz", (f"--out {str(folder / 'new' / 'cfr.npz')!r}: cannot write in "
                                                    f"{str(folder)!r} ({reason})")
    before = sorted(tmp_path.rglob("*"))
    assert cli_main([*SOLVE, "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"ldpomdp: error: {message}\n"
    assert sorted(tmp_path.rglob("*")) == before


def test_an_interrupted_solve_leaves_no_temporary_file_and_resumes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "cfr.npz"
    checkpoint = tmp_path / "cfr.npz.checkpoint.npz"
    save, writes = np.savez_compressed, []

    def ctrl_c_in_the_second_write(file, **arrays):
        save(file, **arrays)
        writes.append(file)
        if len(writes) == 2:  # the temporary file is whole: Ctrl-C comes before it replaces the checkpoint
            raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", ctrl_c_in_the_second_write)
    assert cli_main([*SOLVE, "--checkpoint-every", "1", "--out", str(out)]) == 130
    assert capsys.readouterr().err == (f"stopped: the rounds solved so far are saved in {checkpoint}; run the same "
                                       f"command again to resume\n\ninterrupted\n")
    assert str(writes[1]).endswith(".tmp.npz")
    assert [p.name for p in tmp_path.iterdir()] == [checkpoint.name]  # used to keep the .tmp.npz
    assert int(read_npz(checkpoint, "checkpoint")["iteration"]) == 1
    monkeypatch.setattr(np, "savez_compressed", save)
    assert cli_main([*SOLVE, "--out", str(out)]) == 0
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
    assert GameTable.load(out).covers((1, 1))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_solve_stopped_by_a_signal_says_how_to_resume_and_leaves_no_temporary_file(tmp_path, signum):
    # SIGTERM (`kill PID`) used to end it at once, leaving a .tmp.npz when it fell inside a write
    out = tmp_path / "cfr.npz"
    checkpoint = tmp_path / "cfr.npz.checkpoint.npz"
    cmd = [sys.executable, "-m", "ldpomdp.cli", "solve", "equilibrium", "--dice", "2", "--faces", "3",
           "--iterations", "1000000", "--checkpoint-every", "1", "--no-progress", "--out", str(out)]
    with open(tmp_path / "log", "w") as log:  # Ctrl-C's signal delivered as in a terminal (a background shell
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,  # that ran the tests ignores it)
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 60
        while not checkpoint.exists() and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        assert checkpoint.exists() and proc.poll() is None, "the solve did not get going"
        time.sleep(0.5)  # checkpoints are written all the time: the signal may fall inside a write
        proc.send_signal(signum)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    by = " by SIGTERM" if signum == signal.SIGTERM else ""
    assert (tmp_path / "log").read_text() == (f"stopped{by}: the rounds solved so far are saved in {checkpoint}; run "
                                              f"the same command again to resume\n\ninterrupted\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfr.npz.checkpoint.npz", "log"]
    read_npz(checkpoint, "checkpoint")


def test_a_checkout_folder_shadowing_the_editable_install_is_named_in_one_line(tmp_path):
    (tmp_path / "ldpomdp").mkdir()  # a checkout's folder (cloned as ldpomdp), its parent on PYTHONPATH
    (tmp_path / "elsewhere").mkdir()
    env, elsewhere = {**os.environ, "PYTHONPATH": str(tmp_path)}, tmp_path / "elsewhere"
    probe = subprocess.run([sys.executable, "-c", "import ldpomdp; print(ldpomdp.__file__)"], cwd=elsewhere, env=env,
                           capture_output=True, text=True)
    if probe.stdout.strip() != "None":
        pytest.skip("the package is a regular install, which a folder on the path does not shadow")
    run = subprocess.run([sys.executable, "-m", "ldpomdp.cli", "--help"], cwd=elsewhere, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == (f"ldpomdp: error: the folder {tmp_path / 'ldpomdp'} is imported in place of the package "
                          f"ldpomdp, since its parent is on the import path (PYTHONPATH, or the current folder under "
                          f"python -m): take it off PYTHONPATH, or run from another folder\n")


def test_a_disk_that_fills_during_a_solve_is_one_line_and_leaves_no_temporary_file(tmp_path, capsys, monkeypatch):
    # used to end in an OSError traceback
    import errno

    def full_disk(file, **arrays):
        Path(file).write_bytes(b"partial")
        raise OSError(errno.ENOSPC, "No space left on device", str(file))

    monkeypatch.setattr(np, "savez_compressed", full_disk)
    assert cli_main([*SOLVE, "--checkpoint-every", "1", "--out", str(tmp_path / "cfr.npz")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ldpomdp: error: [Errno 28] No space left on device: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_solve_equilibrium_takes_the_recall_as_recall_and_fills_in_the_shipped_settings(tmp_path, capsys):
    """``--recall`` (formerly ``--k``) sets the table's recall; what is not given comes from ``SHIPPED``."""
    from ldpomdp.exact.tables import SHIPPED
    from ldpomdp.exact.two_player.table import GameTable

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


def test_train_help_says_its_rule_variant_flags_are_refused(capsys):
    # --help offered --rules and the single rules without a word that every one of them is refused
    with pytest.raises(SystemExit):
        cli_main(["train", "dqn", "--help"])
    assert "rule variants (refused for now: the " in capsys.readouterr().out


def test_an_interrupt_inside_the_zip_writer_is_an_interrupt_not_an_error(tmp_path, capsys, monkeypatch):
    # SIGTERM inside np.savez used to surface as zipfile's "Can't close the ZIP file ..." ValueError: exit 2, with
    # that as the error line, and no resume hint
    save, writes = np.savez_compressed, []

    def interrupted_inside(file, **arrays):
        writes.append(file)
        if len(writes) < 2:
            return save(file, **arrays)
        Path(file).write_bytes(b"PK\x03\x04partial")
        try:
            raise KeyboardInterrupt("SIGTERM")
        except KeyboardInterrupt:  # what zipfile's __exit__ does when the interrupt comes mid-write
            raise ValueError("Can't close the ZIP file while there is an open writing handle on it.") from None

    monkeypatch.setattr(np, "savez_compressed", interrupted_inside)
    checkpoint = tmp_path / "cfr.npz.checkpoint.npz"
    assert cli_main([*SOLVE, "--checkpoint-every", "1", "--out", str(tmp_path / "cfr.npz")]) == 130
    assert capsys.readouterr().err == (f"stopped by SIGTERM: the rounds solved so far are saved in {checkpoint}; run "
                                       f"the same command again to resume\n\ninterrupted\n")
    assert [p.name for p in tmp_path.iterdir()] == [checkpoint.name]


def test_a_solve_whose_sweeps_run_out_keeps_its_checkpoint_and_says_how_to_continue(tmp_path, capsys):
    out = tmp_path / "perudo.npz"
    checkpoint = tmp_path / "perudo.npz.checkpoint.npz"
    solve = ["solve", "equilibrium", "--rules", "perudo", "--dice", "2", "--faces", "3", "--iterations", "60",
             "--recall", "2", "--no-progress", "--out", str(out)]
    assert cli_main([*solve, "--sweeps", "1"]) == 0
    assert f"kept in {checkpoint} (the rounds' states beside it); run the same command with --sweeps 2" in (
        capsys.readouterr().out)
    first = GameTable.load(out)
    assert checkpoint.exists()
    assert cli_main([*solve, "--sweeps", "1"]) == 0  # the same command: the same table, nothing solved again
    np.testing.assert_array_equal(GameTable.load(out).values, first.values)
    capsys.readouterr()
    assert cli_main([*solve, "--sweeps", "3"]) == 0
    assert "kept in" not in capsys.readouterr().out
    assert GameTable.load(out).residual <= equilibrium.SWEEP_TOLERANCE
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # the checkpoint and the rounds' states beside it gone


def test_a_solve_estimated_over_an_hour_says_so_and_waits_for_yes(tmp_path, capsys, monkeypatch):
    # issue 55: `solve equilibrium --dice 99` started a solve of ages without a word
    from ldpomdp.cli.solve import ASK_ABOVE
    from ldpomdp.exact.tables import SHIPPED, SHIPPED_SECONDS, solve_seconds

    assert solve_seconds(GameConfig(), SHIPPED.dice, SHIPPED.recall, SHIPPED.iterations) == pytest.approx(
        SHIPPED_SECONDS)  # the model's scale: the shipped table's measured solve
    costs = [solve_seconds(GameConfig(), d, SHIPPED.recall, SHIPPED.iterations) for d in range(1, 12)]
    assert costs == sorted(costs) and costs[0] < 60 < ASK_ABOVE < costs[-1]
    out = tmp_path / "cfr.npz"
    assert cli_main(["solve", "equilibrium", "--dice", "99", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ldpomdp: error: solving every round up to 99 dice each (150 iterations a round, recall "
                          "3@4,2) would take about ") and " CPU hours " in err and "pass --yes" in err
    assert err.count("\n") == 1 and list(tmp_path.iterdir()) == []

    def started(*args, **kwargs):
        raise UsageError("started")

    monkeypatch.setattr(equilibrium, "solve_game", started)
    assert cli_main(["solve", "equilibrium", "--dice", "99", "--out", str(out), "--no-progress", "--yes"]) == 2
    said, refused = capsys.readouterr().err.splitlines()
    assert said.startswith("solving every round up to 99 dice each") and said.endswith(" CPU hours, estimated")
    assert refused == "ldpomdp: error: started"  # the estimate came first, then the solve
