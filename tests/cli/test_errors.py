"""User errors apart from bugs (issue 54): what a user can fix raises ``UsageError`` and the CLI says it in one line
with exit status 2; any other exception is a bug, printed with its traceback and a line asking to report it."""

from __future__ import annotations

import pytest

from ldpomdp import GameConfig
from ldpomdp.cli import EXIT_BUG, build_parser
from ldpomdp.cli import main as cli_main
from ldpomdp.cli import play as play_command
from ldpomdp.errors import PlayerError, TableError, UsageError
from ldpomdp.registry import make_player, make_seat, parse_spec, split_specs
from ldpomdp.rules import ActionCoding
from ldpomdp.sweeps import Cell, get_experiment, parse_dice_range
from ldpomdp.validation import int_at_least, number, one_of, probability

BUG_LINE = "ldpomdp: this is a bug in ldpomdp "


def _one_line_error(capsys) -> str:
    out, err = capsys.readouterr()
    assert err.startswith("ldpomdp: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and BUG_LINE not in err
    return err


@pytest.mark.parametrize("argv,named", [
    (["play", "--opponents", "nope"], "unknown player 'nope'"),  # a bad spec
    (["play", "--opponents", "bluff:level=2"], "player spec 'bluff:level=2'"),  # a bad parameter
    (["play", "--wild", "3"], "GameConfig.wild must be 1, the highest face (6) or None"),  # a bad rule
    (["play", "--rules", "perudo", "--wild", "none"], "GameConfig.wild_bids='perudo' needs wild=1"),
    (["sweep", "--players", "one-third,random", "--dice", "5-3"], "--dice must name dice counts >= 1"),  # dice range
    (["sweep", "--players", "one-third,random", "--dice", "2", "--faces", "1"], "GameConfig.faces"),
    (["play", "--opponents", "cfr:table={tmp}/missing.npz"], "cannot read the equilibrium table"),  # a bad file
    (["solve", "equilibrium", "--dice", "1", "--out", "{tmp}"], "is a folder: give the file to write"),  # a folder
    (["train", "dqn", "--opener", "loser", "--out", "{tmp}/dqn"], "drop --opener loser"),
    (["train", "dqn", "--exact-call", "--out", "{tmp}/dqn"], "drop --exact-call"),
    # issue 55: numbers past a parameter's maximum, refused as the spec is parsed (they failed in game 0 in numpy)
    (["sweep", "--players", "expected-count:particles=99999999999999999999999,one-third", "--dice", "1"],
     "particles must be at most 1,000,000, got 99999999999999999999999"),
    (["sweep", "--players", "pomcp:sims=10000000000000,one-third", "--dice", "1"],
     "sims must be at most 10,000,000, got 10000000000000"),
    (["sweep", "--players", "lbr:one-third:lookahead=1000000,one-third", "--dice", "1"],  # lbr's, not one-third's
     "lookahead must be at most 2, got 1000000"),
    (["sweep", "--players", "lbr:quantal:speed=2,one-third", "--dice", "1"], "'lbr:[quantal],speed=2'"),
    (["sweep", "--players", "one-third," + "x" * 20_000, "--dice", "1"], "'... (20,000 characters); known:"),
])
def test_a_users_mistake_is_one_line_and_exit_2_without_a_traceback(tmp_path, capsys, argv, named):
    argv = [a.format(tmp=tmp_path) for a in argv]
    if argv[0] == "sweep":
        argv += ["--out", str(tmp_path / "o"), "--games", "1", "--workers", "1", "--no-progress", "--no-plot"]
    assert cli_main(argv) == 2
    error = _one_line_error(capsys)
    assert named in error and len(error) < 1000  # user input echoed at most ECHO_LIMIT characters at a time
    assert not (tmp_path / "o").exists() and not (tmp_path / "dqn").exists()


@pytest.mark.parametrize("error", [RuntimeError("the bug"), ValueError("the bug"), KeyError("the bug")],
                         ids=["RuntimeError", "ValueError", "KeyError"])
@pytest.mark.parametrize("command", ["play", "sweep"])
def test_a_bug_inside_a_command_prints_its_traceback_and_asks_to_report_it(tmp_path, capsys, monkeypatch, error,
                                                                            command):
    def broken(*args, **kwargs):
        raise error

    if command == "play":
        monkeypatch.setattr(play_command, "play_game", broken)  # the game that `ldpomdp play` plays
        argv = ["play", "--dice", "1"]
    else:
        monkeypatch.setattr("ldpomdp.sweeps.run_sweep", broken)
        argv = ["sweep", "--players", "one-third,random", "--dice", "1", "--out", str(tmp_path / "o")]
    status = cli_main(argv)
    out, err = capsys.readouterr()
    assert status == EXIT_BUG != 2
    assert err.startswith("Traceback (most recent call last):\n")
    assert f"in broken\n    raise error\n{type(error).__name__}: " in err  # the frame that raised, and the error
    assert "ldpomdp: error:" not in err
    last = err.splitlines()[-1]
    assert last.startswith(BUG_LINE) and last.endswith("; please report it with the traceback above")


def test_a_bug_in_a_built_in_players_constructor_is_not_read_as_a_bad_spec(capsys, monkeypatch):
    from ldpomdp.players.one_third import OneThirdRule

    def broken(self, *args, **kwargs):
        raise ValueError("an internal check")

    monkeypatch.setattr(OneThirdRule, "__init__", broken)
    assert cli_main(["play", "--opponents", "bluff:0.3"]) == EXIT_BUG
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: an internal check" in err and "ldpomdp: error:" not in err


def test_the_help_names_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        cli_main(["--help"])
    assert f"{EXIT_BUG} a bug in ldpomdp" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("make", [
    lambda: GameConfig(num_players=1),
    lambda: GameConfig(dice=0),
    lambda: GameConfig(wild=3),
    lambda: GameConfig(bids="some"),
    lambda: GameConfig.preset("nope"),
    lambda: parse_spec("nope"),
    lambda: parse_spec("bluff:0.3,0.4"),
    lambda: make_player("nope"),
    lambda: make_player("bluff:level=2"),
    lambda: make_seat("mixture"),
    lambda: split_specs(" , "),
    lambda: parse_dice_range("0-3", 2),
    lambda: parse_dice_range("1-1000", 2),
    lambda: Cell.of(("one-third",), 2),
    lambda: get_experiment("fig99"),
    lambda: int_at_least("X", "n", 0, 1),
    lambda: probability("X", "p", 2.0),
    lambda: number("X", "x", float("nan")),
    lambda: one_of("X", "kind", "c", ("a", "b")),
    lambda: make_player("mixture:types=[]"),
], ids=lambda f: None)
def test_what_a_user_can_fix_raises_a_usage_error(make):
    with pytest.raises(UsageError):
        make()


def test_player_and_table_errors_are_usage_errors_and_usage_errors_are_value_errors():
    assert issubclass(PlayerError, UsageError) and issubclass(TableError, UsageError)
    assert issubclass(UsageError, ValueError)  # code that catches ValueError still catches them


def test_an_internal_check_stays_a_plain_value_error():
    coding = ActionCoding(GameConfig())
    with pytest.raises(ValueError) as raised:
        coding.action(-1)  # a caller's wrong action number: a bug, not the user's input
    assert not isinstance(raised.value, UsageError)


def test_the_renamed_tournament_flags_keep_their_old_spellings_with_a_note(capsys):
    new = build_parser().parse_args(["tournament", "--players", "a,b", "--seats", "3", "--groups", "4"])
    old = build_parser().parse_args(["tournament", "--players", "a,b", "--players-per-table", "3", "--tables", "4"])
    assert (old.seats, old.groups) == (new.seats, new.groups) == (3, 4)
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "ldpomdp: warning: --players-per-table is deprecated and will be removed: use --seats",
        "ldpomdp: warning: --tables is deprecated and will be removed: use --groups"]
    default = build_parser().parse_args(["tournament", "--players", "a,b"])
    assert (default.seats, default.groups) == (2, None) and capsys.readouterr().err == ""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["tournament", "--players", "a,b", "--tables", "0"])
    assert "argument --tables: must be an integer >= 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["tournament", "--help"])
    shown = capsys.readouterr().out
    assert "--seats" in shown and "--groups" in shown and "--players-per-table" not in shown and "--tables" not in shown


def test_a_plug_in_that_plays_an_illegal_move_is_the_users_mistake_in_one_line(tmp_path, capsys, monkeypatch):
    """A user's class that returns an action the rules do not allow: one line naming it, exit 2 (not a bug)."""
    (tmp_path / "illplug").mkdir()
    (tmp_path / "illplug" / "__init__.py").write_text("")
    (tmp_path / "illplug" / "bad.py").write_text(
        "from ldpomdp.rules import CHALLENGE\n\n\nclass Illegal:\n"
        "    def reset(self, seat, config):\n        pass\n\n"
        "    def act(self, view, rng):\n        return CHALLENGE  # never legal at the opening\n\n"
        "    def observe(self, event):\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["sweep", "--players", "illplug.bad:Illegal,one-third", "--games", "2", "--dice", "1", "--workers", "1",
            "--out", str(tmp_path / "out"), "--no-progress", "--no-plot", "--no-exact"]
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ldpomdp: error:") and "illegal" in err[0].lower(), err
