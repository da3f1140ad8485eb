"""The docs' user-written opponent (examples/my_opponent.py): loads from a spec, plays full games, and
its likelihood agrees with its play."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import ROOT

from ldpomdp import CHALLENGE, Bid, GameConfig, PlayerView, RoundEnd, make_player, play_game, rotate
from ldpomdp.players import OneThirdRule, RandomPlayer, check_opponent

SPEC = "examples.my_opponent:MyOpponent:doubt=0.6"


@pytest.fixture(autouse=True)
def repo_on_path(monkeypatch):
    """Make ``examples`` importable, as running from the repository root does."""
    monkeypatch.syspath_prepend(str(ROOT))
    yield
    sys.modules.pop("examples.my_opponent", None)


def test_spec_builds_the_example_with_its_parameter():
    player = make_player(SPEC)
    assert type(player).__name__ == "MyOpponent" and player.doubt == 0.6 and player.name == SPEC
    with pytest.raises(ValueError, match="MyOpponent.doubt must be in"):
        make_player("examples.my_opponent:MyOpponent:doubt=2")


@pytest.mark.parametrize("config", [GameConfig(num_players=3, dice=4), GameConfig(num_players=2, dice=5, bids="sixes")])
def test_plays_full_games(config):
    rng = np.random.default_rng(5)
    for game in range(12):
        players = [make_player(SPEC), OneThirdRule(), RandomPlayer()][: config.num_players]
        seated, _ = rotate(players, game)
        record = play_game(config, seated, rng, first_opener=0)
        lost = np.bincount([r.loser for r in record.rounds], minlength=config.num_players)
        for seat, start in enumerate(config.starting_dice):  # everyone but the winner lost every die
            assert (lost[seat] < start) if seat == record.winner else (lost[seat] == start)


def test_passes_check_opponent():
    for config in [GameConfig(num_players=3, dice=4), GameConfig(num_players=2, dice=3, wild=None, bids="sixes")]:
        assert check_opponent(make_player(SPEC), config, np.random.default_rng(6), n_states=60) >= 60


def test_act_frequencies_match_probabilities_and_memory_counts():
    """Doubt applies with probability 0.6, and always against a seat caught bluffing (4-sigma bands)."""
    config = GameConfig(num_players=2, dice=5)
    view = PlayerView(config, 0, (5, 5), ((1, Bid(6, 4)),), hand=(0, 1, 1, 1, 1, 1))  # estimate 1 + 5/3 < 6
    player = make_player(SPEC)
    player.reset(0, config)
    hand = np.asarray(view.hand)[None, :]
    p = player.action_probabilities(hand, view.public(), CHALLENGE)[0]
    assert p == pytest.approx(0.6)
    # one matching die on every face 2-6: the tie goes to the first raise listed, 7x2
    assert player.action_probabilities(hand, view.public(), Bid(7, 2))[0] == pytest.approx(0.4)
    rng = np.random.default_rng(8)
    n = 2000
    share = np.mean([player.act(view, rng) is CHALLENGE for _ in range(n)])
    assert abs(share - p) <= 4 * np.sqrt(p * (1 - p) / n)
    player.observe(RoundEnd(0, ((0,) * 6, (0,) * 6), Bid(3, 2), bidder=1, caller=0, loser=1, matching=1,
                            dice_after=(5, 4)))
    assert player.action_probabilities(hand, view.public(), CHALLENGE)[0] == 1.0
    assert player.act(view, rng) is CHALLENGE


def test_the_docs_show_this_exact_example():
    """The "Writing your own opponent" code block of docs/players.md is examples/my_opponent.py, character for
    character."""
    page = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    section = page.split("## Writing your own opponent", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert block == (ROOT / "examples" / "my_opponent.py").read_text(encoding="utf-8")
