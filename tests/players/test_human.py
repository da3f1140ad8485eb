"""The terminal player: ASCII dice, bad input re-prompted with a reason, both bid modes."""

from __future__ import annotations

import io

import numpy as np
import pytest

from ldpomdp import CHALLENGE, Bid, GameConfig, OneThirdRule, PlayerView, RoundEnd, RoundStart, __version__, play_game
from ldpomdp.cli import main as cli_main
from ldpomdp.players.human import HumanPlayer, render_dice


def drive(lines: str) -> tuple[HumanPlayer, io.StringIO]:
    out = io.StringIO()
    return HumanPlayer(stdin=io.StringIO(lines), stdout=out), out


def test_render_dice():
    art = render_dice([1, 6])
    assert art.splitlines()[0] == "+-----+ +-----+"
    assert "|  o  |" in art and "|o   o|" in art


def test_many_dice_wrap_into_rows_of_ten():
    # used to draw every die side by side: 80,000-character lines at 10,000 dice
    art = render_dice([5] * 23 + [6])
    lines = art.splitlines()
    assert len(lines) == 3 * 5 and max(map(len, lines)) == 10 * 8 - 1 == 79
    assert [line.count("+-----+") for line in lines[::5]] == [10, 10, 4]
    assert lines[-2] == "|o   o| |o   o| |o   o| |o   o|"  # the last row: three fives and the six
    assert lines[-3] == "|  o  | |  o  | |  o  | |o   o|"


def test_full_game_reprompts_until_legal():
    config = GameConfig(dice=3)
    view = PlayerView(config, 0, (3, 3), ((1, Bid(2, 4)),), hand=(1, 0, 0, 2, 0, 0))
    human, out = drive("hello\n2 3\n9 9\n3x4\n")
    assert human.act(view, np.random.default_rng(0)) == Bid(3, 4)
    text = out.getvalue()
    assert "QUANTITY FACE" in text  # "hello"
    assert "2x3 is not a legal raise over 2x4" in text
    assert "face must be between 1 and 6" in text
    assert "|o   o|" in text  # the hand is drawn


def test_opener_cannot_challenge_and_sixes_mode():
    config = GameConfig(dice=2, bids="sixes")
    view = PlayerView(config, 0, (2, 2), (), hand=(0, 0, 0, 0, 0, 2))
    human, out = drive("c\nx\nb\n")
    assert human.act(view, np.random.default_rng(0)) == Bid(1, 6)
    assert "you open the round: you must bid" in out.getvalue()
    assert "type b to raise by one or c to challenge" in out.getvalue()
    view2 = PlayerView(config, 0, (2, 2), ((1, Bid(3, 6)),), hand=(0, 0, 0, 0, 0, 2))
    human2, _ = drive("liar\n")
    assert human2.act(view2, np.random.default_rng(0)) is CHALLENGE


def test_a_whole_game_through_stdin():
    config = GameConfig(dice=1, bids="sixes")
    human, out = drive("b\nc\n" * 5)
    record = play_game(config, [human, OneThirdRule()], np.random.default_rng(3))
    assert record.winner in (0, 1)
    assert "loses a die" in out.getvalue()


def test_an_illegal_opening_bid_does_not_mention_a_bid_over_none():
    view = PlayerView(GameConfig(dice=2), 0, (2, 2), (), hand=(0, 1, 0, 0, 1, 0))
    human, out = drive("5 3\n1 3\n")
    assert human.act(view, np.random.default_rng(0)) == Bid(1, 3)
    assert "5x3 is not a legal opening bid with 4 dice on the table" in out.getvalue()
    assert "None" not in out.getvalue()


def test_rounds_list_only_seats_still_in_and_one_die_is_singular():
    config = GameConfig(num_players=3, dice=2)
    human, out = drive("")
    human.reset(2, config)
    human.observe(RoundStart(4, (1, 0, 2), opener=2))
    human.observe(RoundEnd(4, ((0, 1, 0, 0, 0, 0), (0,) * 6, (0, 0, 1, 0, 1, 0)), Bid(2, 4), bidder=0, caller=2,
                           loser=0, matching=1, dice_after=(0, 0, 2)))
    assert out.getvalue().splitlines() == ["", "=== Round 5 - dice seat 0: 1, seat 2 (you): 2; seat 2 opens",
                                           "seat 0: [2]", "seat 2 (you): [3, 5]",
                                           "1 die matches 2x4: seat 0 loses a die."]


def test_out_of_dice_is_said_once_when_the_last_die_goes():
    # used to repeat "You are out of dice." at the end of every round after the elimination
    human, out = drive("")
    human.reset(0, GameConfig(num_players=3, dice=1))
    hands = ((0,) * 6, (1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0))
    for loser, after in ((0, (0, 1, 1)), (1, (0, 0, 1))):
        human.observe(RoundEnd(0, hands, Bid(2, 4), bidder=1, caller=2, loser=loser, matching=1, dice_after=after))
    assert out.getvalue().count("You are out of dice.") == 1


def test_play_names_the_seats_echoes_your_moves_and_asks_again_until_yes_or_no(monkeypatch, capsys):
    moves = "b\nc\n" * 4
    monkeypatch.setattr("sys.stdin", io.StringIO(moves + "maybe\nn\n"))
    assert cli_main(["play", "--dice", "1", "--bids", "sixes", "--seed", "3", "--opponents", "one-third,random"]) == 0
    text = capsys.readouterr().out
    assert "Game 1: sixes game, 6 faces, ones wild, 1 die each. Seats: 0 you, 1 one-third, 2 random." in text
    assert "you: bid 1x6" in text
    assert "won 1 of 1" in text or "won 0 of 1" in text
    assert text.count("Play again? (y/n)") >= 2 and "  ! type y or n" in text  # "maybe" was asked again
    assert "Game 2" not in text


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli_main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"ldpomdp {__version__}\n"
