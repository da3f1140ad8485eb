"""Player specs: built-in names, positional values, user classes, clear errors."""

from __future__ import annotations

import pytest

from ldpomdp import OneThirdRule, RandomPlayer, make_player, parse_spec, split_specs


def test_builtin_specs():
    assert isinstance(make_player("one-third"), OneThirdRule)
    bluffer = make_player("bluff:0.3")
    assert isinstance(bluffer, OneThirdRule) and bluffer.bluff == 0.3
    assert isinstance(make_player("random"), RandomPlayer)


def test_user_class_spec():
    player = make_player("ldpomdp.opponents.one_third:OneThirdRule:bluff=0.25")
    assert isinstance(player, OneThirdRule) and player.bluff == 0.25


def test_split_specs_keeps_parameters_together():
    assert split_specs("bluff:0.2, one-third,x.y:Z:a=1,b=2") == ["bluff:0.2", "one-third", "x.y:Z:a=1,b=2"]


def test_split_specs_keeps_nested_specs_in_parameters():
    text = "expected-count:belief=exact,assume=oehm:0.2,random,pomcp:sims=5,assume=bluff:0.3,oehm:bluff=0.1"
    specs = split_specs(text)
    assert specs == ["expected-count:belief=exact,assume=oehm:0.2", "random", "pomcp:sims=5,assume=bluff:0.3",
                     "oehm:bluff=0.1"]
    assert parse_spec(specs[0]).kwargs == {"belief": "exact", "assume": "oehm:0.2"}
    assert make_player(specs[2]).assume == "bluff:0.3"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nobody", "unknown player 'nobody'"),
        ("bluff:1.5", "bluff must be a probability"),
        ("bluff", "needs a value"),
        ("one-third:speed=3", "bad parameters"),
        ("no.such.module:Thing", "cannot import"),
        ("ldpomdp.rules:GameConfig", "lacks Player method"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_player(spec)


def test_parse_values():
    assert parse_spec("x.y:Z:a=1,b=0.5,c=true,d=text").kwargs == {"a": 1, "b": 0.5, "c": True, "d": "text"}
