"""Work that takes more than a moment says what it does (issue 52): the line and bar, a listener, a first use."""

from __future__ import annotations

import re

import numpy as np

from ldpomdp.caches import BoundedCache
from ldpomdp.exact import tables
from ldpomdp.exact.two_player.equilibrium import game_iterations
from ldpomdp.exact.two_player.states import game_config
from ldpomdp.game import play_game
from ldpomdp.progress import Preparing, listening, preparing
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig


def test_a_listener_hears_the_start_each_step_and_the_end_instead_of_the_terminal(capsys):
    heard: list[tuple[str, int, int]] = []

    def listener(state: Preparing) -> None:
        heard.append((state.line, state.done, state.total))

    with listening(listener), preparing("solving", 3) as advance:
        advance(1)
        advance(5)  # never past the total
    assert heard == [("solving", 0, 3), ("solving", 1, 3), ("solving", 3, 3), ("solving", 3, 3)]
    assert capsys.readouterr().err == ""
    with preparing("after", 1):
        pass
    assert heard[-1][0] == "solving"  # the listener was for the block only


def test_a_first_use_says_what_it_solves_how_long_and_where_it_caches_then_plays_from_the_cache(
        tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    config = GameConfig(dice=3, bids="sixes")  # a two-player table solved on first use, in a moment
    robust = make_player("robust")
    robust.reset(0, config)
    err = capfd.readouterr().err
    (cached,) = (tmp_path / "cfr").glob("table-*.npz")
    assert robust.plays == "equilibrium"
    assert (f"ldpomdp: solving the two-player cfr table for {config.describe()}, up to 3 dice each, on first use "
            f"(about 1 CPU s; cached in {cached})") in err
    total = game_iterations(game_config(config, 3), tables.ON_DEMAND.iterations)
    assert re.search(rf"\b[1-9][0-9]*/{total} ", err)  # tqdm's bar under it, moving (left off when done)
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    again = make_player("robust")
    assert play_game(config, [again, make_player("one-third")], np.random.default_rng(0)).winner in (0, 1)
    assert "solving" not in capfd.readouterr().err  # read from the cache: nothing to say
