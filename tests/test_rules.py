"""Rules: configuration validation, bid order, legal actions, matching and challenge resolution."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpomdp.round_end import NextRound, next_opener, next_round, resolve_challenge, round_loser
from ldpomdp.rules import (
    CHALLENGE,
    EXACT,
    MAX_TABLE_DICE,
    ActionCoding,
    Bid,
    GameConfig,
    dice_text,
    is_legal,
    legal_actions,
    match_matrix,
    match_probability,
    matching_count,
    minimal_raises,
)


def hand(*dice: int, faces: int = 6) -> np.ndarray:
    return np.bincount(np.array(dice, dtype=int) - 1, minlength=faces)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 2.5}, "num_players"),
        ({"dice": 0}, "dice"),
        ({"dice": (3, -1)}, "dice"),
        ({"dice": (3, 3, 3)}, "dice"),
        ({"faces": 1}, "faces"),
        ({"wild": 3}, "wild"),
        ({"wild": True}, "wild"),
        ({"bids": "fives"}, "bids"),
        ({"opener": "winner"}, "opener"),
    ],
)
def test_bad_config_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"GameConfig.{field}"):
        GameConfig(**kwargs)


def test_config_refuses_more_dice_on_the_table_than_the_limit_naming_both():
    assert sum(GameConfig(num_players=2, dice=MAX_TABLE_DICE // 2).starting_dice) == MAX_TABLE_DICE
    assert sum(GameConfig(num_players=4, dice=(50, 50, 50, 50)).starting_dice) == MAX_TABLE_DICE
    with pytest.raises(ValueError, match=r"^GameConfig\.dice: 2 players x 101 dice put 202 dice on the table, above "
                                         r"the limit MAX_TABLE_DICE = 200$"):
        GameConfig(num_players=2, dice=101)
    with pytest.raises(ValueError, match=r"^GameConfig\.dice: 3 players with dice \(100, 100, 1\) put 201 dice on "
                                         r"the table, above the limit MAX_TABLE_DICE = 200$"):
        GameConfig(num_players=3, dice=(100, 100, 1))


def test_config_normalises_dice_and_wild():
    config = GameConfig(num_players=3, dice=4, faces=6, wild=6)
    assert config.starting_dice == (4, 4, 4)
    assert config.wild == 6
    assert GameConfig(num_players=2, dice=[2, 5]).starting_dice == (2, 5)
    assert GameConfig(wild=None).wild is None


def test_full_game_bid_order():
    config = GameConfig(dice=2)
    actions = legal_actions(config, 4, Bid(2, 5))
    assert actions == (Bid(2, 6), Bid(3, 1), Bid(3, 2), Bid(3, 3), Bid(3, 4), Bid(3, 5), Bid(3, 6),
                       Bid(4, 1), Bid(4, 2), Bid(4, 3), Bid(4, 4), Bid(4, 5), Bid(4, 6), CHALLENGE)
    assert minimal_raises(config, 4, Bid(2, 5)) == (Bid(3, 1), Bid(3, 2), Bid(3, 3), Bid(3, 4), Bid(3, 5),
                                                     Bid(2, 6))


def test_sixes_game_adds_exactly_one():
    config = GameConfig(dice=2, bids="sixes")
    assert legal_actions(config, 4, None) == (Bid(1, 6),)
    assert legal_actions(config, 4, Bid(2, 6)) == (Bid(3, 6), CHALLENGE)
    assert not is_legal(config, 4, Bid(2, 6), Bid(4, 6))
    assert not is_legal(config, 4, Bid(2, 6), Bid(3, 5))
    assert legal_actions(config, 4, Bid(4, 6)) == (CHALLENGE,)


@settings(max_examples=200, deadline=None)
@given(
    faces=st.integers(2, 7),
    table=st.integers(1, 12),
    bids=st.sampled_from(["full", "sixes"]),
    data=st.data(),
)
def test_legal_actions_invariants(faces, table, bids, data):
    config = GameConfig(dice=1, faces=faces, bids=bids)
    opening = legal_actions(config, table, None)
    assert CHALLENGE not in opening and opening, "the opener must bid and may not challenge"
    bid = data.draw(st.sampled_from(opening))
    for _ in range(50):
        actions = legal_actions(config, table, bid)
        assert actions[-1] is CHALLENGE
        for a in actions[:-1]:
            assert (a.quantity, a.face) > (bid.quantity, bid.face), "bids strictly increase"
            assert a.quantity <= table and a.face in config.bid_faces
            assert is_legal(config, table, bid, a)
        if len(actions) == 1:
            assert bid.quantity == table, "only the top bid forces a challenge"
            break
        bid = data.draw(st.sampled_from(actions[:-1]))
    top = Bid(table, config.faces)
    assert legal_actions(config, table, top) == (CHALLENGE,), "the top bid forces a challenge"


def test_matching_counts_wild_ones():
    config = GameConfig()  # ones wild
    h = hand(1, 1, 3, 6, 6)
    assert matching_count(h, 6, config) == 4  # two sixes + two wild ones
    assert matching_count(h, 3, config) == 3
    assert matching_count(h, 1, config) == 2  # a bid on the wild face counts only ones
    assert matching_count(h, 4, config) == 2
    no_wild = GameConfig(wild=None)
    assert matching_count(h, 6, no_wild) == 2
    high_wild = GameConfig(wild=6)
    assert matching_count(h, 3, high_wild) == 3 and matching_count(h, 6, high_wild) == 2
    stacked = np.stack([h, hand(2, 2, 2, 2, 2)])
    assert matching_count(stacked, 2, config).tolist() == [2, 5]
    assert (stacked @ match_matrix(config))[:, 1].tolist() == [2, 5]
    for rules in (config, no_wild, high_wild):  # one hand as a tuple: plain ints, the same counts
        for face in range(1, 7):
            as_tuple = matching_count(tuple(h.tolist()), face, rules)
            assert type(as_tuple) is int and as_tuple == matching_count(h, face, rules)
    nested = (tuple(h.tolist()), (2, 2, 1, 0, 0, 0))  # a tuple of hands is counted hand by hand
    assert matching_count(nested, 2, config).tolist() == [2, 4]


def test_match_probability():
    assert match_probability(GameConfig(), 6) == pytest.approx(1 / 3)
    assert match_probability(GameConfig(), 1) == pytest.approx(1 / 6)
    assert match_probability(GameConfig(wild=None), 6) == pytest.approx(1 / 6)


def test_resolve_challenge_cases_from_reports():
    config = GameConfig(num_players=2, dice=4)
    # report 002, Fig. 1: own dice [3, 6, 2, 2]; with ones wild: bid "2 6" stands if the table has two
    hands = np.stack([hand(3, 6, 2, 2), hand(1, 5, 5, 4)])
    assert resolve_challenge(config, hands, Bid(2, 6), bidder=1, challenger=0) == (0, 2)
    assert resolve_challenge(config, hands, Bid(3, 6), bidder=1, challenger=0) == (1, 2)
    # a bid on the wild face counts only the wild face
    assert resolve_challenge(config, hands, Bid(2, 1), bidder=0, challenger=1) == (0, 1)
    # exactly the bid quantity: the bid stands, the challenger loses
    assert resolve_challenge(config, hands, Bid(3, 2), bidder=0, challenger=1) == (1, 3)
    no_wild = GameConfig(num_players=2, dice=4, wild=None)
    assert resolve_challenge(no_wild, hands, Bid(2, 6), bidder=1, challenger=0) == (1, 1)


def test_round_loser_decides_every_end_from_what_the_bid_missed_by():
    """The one rule of a round's end: a challenge costs the caller when the bid holds (missing <= 0), else the
    bidder; an exact call costs the caller unless the count is exact (-1: nobody)."""
    assert [round_loser(missing, 1, 0, CHALLENGE) for missing in (-2, 0, 1, 3)] == [0, 0, 1, 1]
    assert [round_loser(missing, 1, 0, EXACT) for missing in (-1, 0, 1)] == [0, -1, 0]


def test_next_opener_rules():
    after = GameConfig(num_players=3, dice=2)
    assert next_opener(after, (2, 1, 2), challenger=1, loser=1) == 2
    assert next_opener(after, (2, 0, 2), challenger=0, loser=1) == 2  # skips the eliminated seat
    loser = GameConfig(num_players=3, dice=2, opener="loser")
    assert next_opener(loser, (2, 1, 2), challenger=0, loser=1) == 1
    assert next_opener(loser, (2, 0, 2), challenger=0, loser=1) == 2


def test_next_round_ends_the_game_or_names_the_opener_and_a_palifico_round_once_per_seat():
    config = GameConfig(num_players=3, dice=2)
    assert next_round(config, (0, 1, 0), caller=1, loser=0) is None  # one seat alone has dice
    assert next_round(config, (2, 0, 2), caller=0, loser=1) == NextRound(2, False, frozenset())
    loser_opens = GameConfig(num_players=3, dice=2, opener="loser")
    assert next_round(loser_opens, (2, 1, 2), caller=0, loser=1) == NextRound(1, False, frozenset())
    assert next_round(loser_opens, (2, 2, 2), caller=0, loser=-1).opener == 0  # nobody lost: the caller opens
    palifico = GameConfig(num_players=3, dice=2, palifico=True)
    assert next_round(palifico, (2, 1, 2), caller=0, loser=1) == NextRound(1, True, frozenset({1}))
    assert next_round(palifico, (2, 1, 2), caller=0, loser=1, had_palifico=frozenset({1})) == NextRound(
        1, False, frozenset({1}))  # a seat's palifico round is played once per game
    assert next_round(palifico, (2, 1, 2), caller=1, loser=0, had_palifico=frozenset({1})) == NextRound(
        2, False, frozenset({1}))  # the loser did not drop to one die


@pytest.mark.parametrize("config", [GameConfig(dice=2), GameConfig(num_players=3, dice=(1, 2, 1), bids="sixes"),
                                    GameConfig.preset("perudo", dice=2)], ids=str)
def test_action_coding_numbers_the_bid_faces_or_every_face_as_openspiel_does(config):
    """The default numbers the faces a bid may name; ``every_face`` every face, bid (q, f) at (q - 1) * faces + f - 1
    (OpenSpiel's liars_dice); the two differ in the sixes game only. Both round-trip and put the calls last."""
    table = sum(config.starting_dice)
    compact, every = ActionCoding(config), ActionCoding(config, every_face=True)
    bids = list(legal_actions(config, table, None))
    assert [every.index(b) for b in bids] == [(b.quantity - 1) * config.faces + b.face - 1 for b in bids]
    assert [compact.index(b) for b in bids] == ([b.quantity - 1 for b in bids] if config.bids == "sixes"
                                                 else [every.index(b) for b in bids])
    for coding in (compact, every):
        assert coding.size == coding.num_bids + 1 + config.exact_call
        assert coding.num_bids == table * len(coding.faces) == len(coding.bids)
        assert all(coding.index(coding.action(i)) == i for i in range(coding.size))
        assert coding.action(coding.challenge) is CHALLENGE and coding.index(CHALLENGE) == coding.num_bids
        assert coding.exact is None if not config.exact_call else coding.action(coding.exact) is EXACT
        mask = coding.mask(config, table, Bid(1, config.faces))
        assert np.flatnonzero(mask).tolist() == sorted(coding.index(a) for a in
                                                       legal_actions(config, table, Bid(1, config.faces)))
    with pytest.raises(ValueError, match="not an action"):
        every.index(Bid(table + 1, 1))


def test_config_hash_is_cached_but_not_pickled_across_processes():
    """The hash is remembered per object (configs key every cached rule lookup) and left out of pickles:
    a config sent to a worker with another string-hash seed must still find equal configs in dicts."""
    config = GameConfig(num_players=3, bids="sixes", opener="loser")
    assert hash(config) == hash(GameConfig(num_players=3, bids="sixes", opener="loser"))
    assert vars(config)["_hash"] == hash(config)  # remembered after the first call
    payload = pickle.dumps(config)
    assert "_hash" not in pickle.loads(payload).__dict__
    check = (
        "import pickle, sys; from ldpomdp.rules import GameConfig; "
        "c = pickle.loads(sys.stdin.buffer.read()); "
        "print({GameConfig(num_players=3, bids='sixes', opener='loser'): 'found'}[c])"
    )
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", check], input=payload, capture_output=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, check=True)
        assert out.stdout.decode().strip() == "found"


def test_describe_names_the_game_and_dice_text_counts():
    assert GameConfig().describe() == "full game, 6 faces, ones wild"
    assert GameConfig(bids="sixes", wild=6).describe() == "sixes game, 6 faces, sixes wild"
    assert GameConfig(faces=3, wild=None, opener="loser").describe() == "full game, 3 faces, no wild, the loser opens"
    assert (dice_text(0), dice_text(1), dice_text(5)) == ("0 dice", "1 die", "5 dice")


def test_the_init_that_type_checkers_see_lists_every_field_with_its_default():
    """GameConfig's ``__init__`` for type checkers (``dice`` an integer or a sequence, stored as a tuple) is written
    out in rules.py under TYPE_CHECKING; it must take the dataclass's fields, in order, with their defaults."""
    import ast
    import dataclasses
    from pathlib import Path

    import ldpomdp.rules

    tree = ast.parse(Path(ldpomdp.rules.__file__).read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GameConfig")
    stub = next(f for n in cls.body if isinstance(n, ast.If) for f in n.body
                if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    declared = [(a.arg, ast.literal_eval(d)) for a, d in zip(stub.args.args[1:], stub.args.defaults, strict=True)]
    assert declared == [(f.name, f.default) for f in dataclasses.fields(GameConfig) if f.init]
    assert GameConfig(dice=3).dice == (3, 3) and GameConfig(num_players=3, dice=[1, 2, 3]).dice == (1, 2, 3)
