"""The terminal player: ASCII dice, bad input re-prompted with a reason, both bid modes."""

from __future__ import annotations

import io

import numpy as np

from ldpomdp import CHALLENGE, Bid, GameConfig, HumanPlayer, OneThirdRule, PlayerView, play_game
from ldpomdp.opponents.human import render_dice


def drive(lines: str) -> tuple[HumanPlayer, io.StringIO]:
    out = io.StringIO()
    return HumanPlayer(stdin=io.StringIO(lines), stdout=out), out


def test_render_dice():
    art = render_dice([1, 6])
    assert art.splitlines()[0] == "+-----+ +-----+"
    assert "|  o  |" in art and "|o   o|" in art


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
