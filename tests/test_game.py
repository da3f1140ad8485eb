"""Game runner: invariants over random games, illegal moves, seat rotation, and a fairness check."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpomdp import (
    CHALLENGE,
    EXACT,
    ActionTaken,
    Bid,
    GameConfig,
    IllegalActionError,
    OneThirdRule,
    PlayerError,
    RandomPlayer,
    RoundEnd,
    RoundStart,
    matching_count,
    play_game,
    rotate,
)
from ldpomdp.game import GameState, play_round
from ldpomdp.opponent import BaseOpponent


class Recorder(BaseOpponent):
    """Records every event it observes, to check what players are shown."""

    def __init__(self, inner):
        self.inner, self.events = inner, []

    def reset(self, seat, config):
        super().reset(seat, config)
        self.inner.reset(seat, config)
        self.events.clear()

    def act(self, view, rng):
        assert sum(view.hand) == view.dice[view.seat], "a player sees its own full hand"
        return self.inner.act(view, rng)

    def observe(self, event):
        self.events.append(event)


configs = st.builds(
    GameConfig,
    num_players=st.integers(2, 4),
    dice=st.integers(1, 4),
    faces=st.integers(2, 6),
    wild=st.sampled_from([1, None]),
    bids=st.sampled_from(["full", "sixes"]),
    opener=st.sampled_from(["after_challenger", "loser"]),
)


@settings(max_examples=60, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["random", "one-third", "mix"]))
def test_game_invariants(config, seed, kind):
    rng = np.random.default_rng(seed)
    make = {"random": RandomPlayer, "one-third": OneThirdRule}
    players = [
        Recorder(make[kind]() if kind != "mix" else (RandomPlayer() if i % 2 else OneThirdRule(bluff=0.3)))
        for i in range(config.num_players)
    ]
    record = play_game(config, players, rng)
    dice = list(config.starting_dice)
    total, knocked_out = sum(dice), []
    for rnd in record.rounds:
        assert [sum(h) for h in rnd.hands] == dice, "hands match the dice each player holds"
        assert rnd.actions and all(isinstance(a, Bid) for _, a in rnd.actions), "the opener bids first"
        assert rnd.actions[0][0] == rnd.opener
        keys = [(a.quantity, a.face) for _, a in rnd.actions]
        assert keys == sorted(set(keys)), "bids strictly increase within a round"
        assert all(dice[s] > 0 for s, _ in rnd.actions), "eliminated players never act"
        assert dice[rnd.loser] > 0
        dice[rnd.loser] -= 1  # exactly one die lost per round, by one player
        knocked_out += [rnd.loser] if dice[rnd.loser] == 0 else []
    assert sum(d > 0 for d in dice) == 1 and dice[record.winner] > 0, "the game ends with one player left"
    assert len(record.rounds) == total - dice[record.winner]
    assert record.finishing_order == [record.winner, *knocked_out[::-1]], "the last one knocked out comes second"
    assert sum(record.challenges) == len(record.rounds)
    events = players[0].events
    assert sum(isinstance(e, RoundStart) for e in events) == len(record.rounds)
    assert sum(isinstance(e, RoundEnd) for e in events) == len(record.rounds)
    assert sum(isinstance(e, ActionTaken) and e.action is CHALLENGE for e in events) == len(record.rounds)


class Cheater(BaseOpponent):
    name = "cheater"

    def act(self, view, rng):
        return Bid(1, 6) if view.bid is None else Bid(1, 2)


def test_illegal_action_names_player_and_legal_moves():
    config = GameConfig(dice=2)
    message = r"cheater \(seat 1\).*illegal action Bid\(quantity=1, face=2\) over bid \dx\d; legal: \dx\d, \dx\d"
    with pytest.raises(IllegalActionError, match=message):
        play_game(config, [OneThirdRule(), Cheater()], np.random.default_rng(0))


def test_illegal_challenge_on_opening_move():
    class Opener(BaseOpponent):
        def act(self, view, rng):
            return CHALLENGE

    with pytest.raises(IllegalActionError, match="Opener"):
        play_game(GameConfig(dice=1), [Opener(), OneThirdRule()], np.random.default_rng(0))


class Clumsy(BaseOpponent):
    """Fails in ``where`` (act or observe) on its second call there."""

    def __init__(self, where: str):
        self.where, self.calls = where, 0

    def _maybe_fail(self, where: str) -> None:
        if where == self.where:
            self.calls += 1
            if self.calls == 2:
                {}["missing"]  # the user's own bug

    def act(self, view, rng):
        self._maybe_fail("act")
        return view.legal_actions()[0]

    def observe(self, event):
        self._maybe_fail("observe")


@pytest.mark.parametrize("where", ["act", "observe"])
def test_a_players_exception_names_it_its_seat_and_keeps_its_own_lines(where):
    with pytest.raises(PlayerError) as err:
        play_game(GameConfig(dice=2), [OneThirdRule(), Clumsy(where)], np.random.default_rng(0))
    text = str(err.value)
    assert text.startswith(f"player Clumsy (seat 1) raised KeyError in {where}:\n")
    assert f'File "{__file__}", line' in text and '{}["missing"]  # the user\'s own bug' in text
    assert text.endswith("KeyError: 'missing'")
    assert "ldpomdp/game.py" not in text  # the package's frames are left out
    assert isinstance(err.value.__cause__, KeyError)


def test_rotate_gives_every_seat():
    items = ["a", "b", "c"]
    seen = {item: set() for item in items}
    for g in range(3):
        seated, seat_of = rotate(items, g)
        for i, item in enumerate(items):
            assert seated[seat_of[i]] == item
            seen[item].add(seat_of[i])
    assert all(s == {0, 1, 2} for s in seen.values())


def test_same_seed_same_game():
    config = GameConfig(dice=4)
    a = play_game(config, [OneThirdRule(0.4), RandomPlayer()], np.random.default_rng(7))
    b = play_game(config, [OneThirdRule(0.4), RandomPlayer()], np.random.default_rng(7))
    assert a.rounds == b.rounds and a.winner == b.winner


def test_a_seed_stands_for_its_generator():
    # play_game(config, players, 0) used to fail with "'int' object has no attribute 'multinomial'"
    config = GameConfig(dice=3)
    by_seed = play_game(config, [OneThirdRule(0.4), RandomPlayer()], 0)
    by_generator = play_game(config, [OneThirdRule(0.4), RandomPlayer()], np.random.default_rng(0))
    assert by_seed.rounds == by_generator.rounds and by_seed.winner == by_generator.winner
    states = [GameState(config, rng) for rng in (5, np.random.default_rng(5))]
    for state in states:
        state.start_round()
    assert states[0].round.hands == states[1].round.hands
    rounds = [play_round(config, [OneThirdRule(), OneThirdRule()], (3, 3), 0, rng)
              for rng in (9, np.random.default_rng(9))]
    assert rounds[0] == rounds[1]


def test_a_round_end_names_its_caller_and_no_loser_after_a_right_exact_call():
    """``RoundEnd.caller`` made the call (``challenger``, its old name, warns); ``loser`` None when nobody lost, where
    the round's record keeps -1."""
    state = GameState(GameConfig(dice=3, exact_call=True), 4)
    state.start_round()
    rnd = state.round
    matching = int(matching_count(np.array(rnd.hands), 2, rnd.config).sum())
    assert matching > 0  # the seed's roll: a bid on twos that an exact call gets right
    state.play(Bid(matching, 2))
    end = state.play(EXACT)[-1]
    assert isinstance(end, RoundEnd) and end.exact and end.caller == 1 and end.loser is None
    assert state.record.rounds[-1].challenger == 1 and state.record.rounds[-1].loser == -1
    with pytest.warns(DeprecationWarning, match=r"RoundEnd\.challenger is now RoundEnd\.caller"):
        assert end.challenger == 1


def test_one_third_mirror_match_is_even():
    """Two one-third players at 5 dice, seat-rotated: player A wins 50% within 4 binomial sigmas."""
    games = 2000
    config = GameConfig(dice=5)
    rng = np.random.default_rng(2024)
    a, b = OneThirdRule(name="A"), OneThirdRule(name="B")
    wins = 0
    for g in range(games):
        seated, seat_of = rotate([a, b], g)
        wins += play_game(config, seated, rng).winner == seat_of[0]
    tolerance = 4 * math.sqrt(0.25 / games)
    assert abs(wins / games - 0.5) <= tolerance, (wins, games)
