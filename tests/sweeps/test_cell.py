"""Sweep cells: their ids, configs and errors, each game's seed, and the --dice ranges."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SMALL

from ldpomdp import GameConfig
from ldpomdp.sweeps import EXPERIMENTS, Cell, game_seed, parse_dice_range


def test_cell_ids_stay_the_same():
    # every game's seed hashes its cell's id, and a resumed sweep finds its games by it: these must never change
    assert Cell.of(("one-third", "random"), 2).id == (
        "players=one-third|random;dice=2;bids=full;faces=6;wild=1;opener=after_challenger")
    assert Cell.of(("expected-count:particles=10000", "one-third", "one-third"), 35, bids="sixes").id == (
        "players=expected-count:particles=10000|one-third|one-third;dice=35;bids=sixes;faces=6;wild=1;"
        "opener=after_challenger")
    assert Cell.of((" one-third ", "bluff:0.3"), 4, bids="sixes", faces=4, wild=None, opener="loser").id == (
        "players=one-third|bluff:0.3;dice=4;bids=sixes;faces=4;wild=None;opener=loser")
    assert Cell(("a", "b"), GameConfig(2, (3, 3), faces=8, wild=8)).id == (
        "players=a|b;dice=3;bids=full;faces=8;wild=8;opener=after_challenger")


def test_a_cell_holds_its_config():
    config = GameConfig(3, 4, bids="sixes")
    cell = Cell(["one-third", "random", " bluff:0.3"], config)
    assert cell.players == ("one-third", "random", "bluff:0.3") and cell.config is config and cell.dice == 4
    assert cell == Cell.of(("one-third", "random", "bluff:0.3"), 4, bids="sixes")


@pytest.mark.parametrize("make,error,message", [
    (lambda: Cell(("one-third", "random"), GameConfig(3, 2)),
     ValueError, r"^cell players=one-third\|random: 2 players but its config has num_players=3$"),
    (lambda: Cell(("one-third", "random"), GameConfig(2, (2, 3))),
     ValueError, r"^cell players=one-third\|random: every player must start with the same dice"),
    (lambda: Cell(("one-third", "random"), 2), TypeError, "config must be a GameConfig"),
    (lambda: Cell.of(("one-third", "one-third"), 0), ValueError, r"^cell players=one-third\|one-third;dice=0: .*"
                                                                 r"dice must be an integer >= 1"),
    (lambda: Cell.of(("one-third",), 3), ValueError, r"^cell players=one-third;dice=3: .*num_players .*>= 2"),
    (lambda: Cell.of(("one-third", "one-third"), 3, bids="most"), ValueError, "dice=3: .*bids must be one of"),
    (lambda: Cell.of(("one-third", "one-third"), 3, bid="sixes"), TypeError, "dice=3: .*'bid'"),
])
def test_a_bad_cell_fails_on_creation_naming_itself(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_game_seed_is_the_spawned_child():
    cell = SMALL[0]
    parent = np.random.SeedSequence([7, int(game_seed(7, cell, 0).entropy[1])])
    children = parent.spawn(5)
    for g in range(5):
        a = np.random.default_rng(game_seed(7, cell, g)).integers(0, 2**63, 4)
        assert np.array_equal(a, np.random.default_rng(children[g]).integers(0, 2**63, 4))
    assert game_seed(7, cell, 0).entropy != game_seed(7, SMALL[1], 0).entropy


def test_parse_dice_range():
    assert parse_dice_range("1-5") == [1, 2, 3, 4, 5]
    assert parse_dice_range("3,1-35:10") == [1, 3, 11, 21, 31]
    assert parse_dice_range(" 5 , 7 - 9") == [5, 7, 8, 9]
    for bad in ("", "a-b", "0-2", "5-", "5-1", "1-5:0", "3,,4", "3,"):
        with pytest.raises(ValueError, match="--dice"):
            parse_dice_range(bad)


def test_dice_ranges_and_cells_stop_at_the_table_limit():
    assert parse_dice_range("100") == [100] and parse_dice_range("66", players=3) == [66]
    with pytest.raises(ValueError, match=r"3 players x 67 dice put 201 dice on the table, above the limit "
                                         r"MAX_TABLE_DICE = 200 \(at most 66 dice each\)"):
        parse_dice_range("1-67", players=3)
    with pytest.raises(ValueError, match=r"^cell players=one-third\|random;dice=101: GameConfig\.dice: 2 players x 101 "
                                         r"dice put 202 dice on the table, above the limit MAX_TABLE_DICE = 200$"):
        Cell.of(("one-third", "random"), 101)


def test_a_cell_is_read_back_from_its_id():
    cells = [cell for experiment in EXPERIMENTS.values() for cell in experiment.cells(quick=True)]
    cells.append(Cell.of(("pomcp:sims=200,assume=oehm:0.2", "one-third"), 4, bids="sixes", faces=4, wild=None,
                         opener="loser"))
    assert [Cell.from_id(cell.id) for cell in cells] == cells
    for text in ("players=a|b;dice=2", "players=a|b;dice=two;bids=full;faces=6;wild=1;opener=loser",
                 "players=a|b;dice=2;bids=full;faces=6;wild=1;opener=loser;extra=1"):
        with pytest.raises(ValueError, match="is not a cell id"):
            Cell.from_id(text)


def test_the_cells_of_todays_sweeps_keep_their_ids_and_seeds():
    """fig4, fig6 and a pomcp sweep name their players in canonical text: their ids (so every game's seed) are the
    specs as written, exactly as before specs had a canonical text."""
    cells = [*EXPERIMENTS["fig4"].cells(quick=True), *EXPERIMENTS["fig6"].cells(quick=True),
             *(Cell.of(("pomcp:sims=200", "one-third"), d) for d in (1, 3, 35))]
    for cell in cells:
        assert cell.id == (f"players={'|'.join(cell.players)};dice={cell.dice};bids={cell.config.bids};faces=6;"
                           f"wild=1;opener=after_challenger")
        assert set(cell.players) <= {"expected-count:particles=10000", "one-third", "pomcp:sims=200"}


def test_a_player_spelled_otherwise_is_the_same_cell_with_the_same_seeds():
    canonical = Cell.of(("pomcp:sims=200,depth=4", "bluff:0.3"), 3)
    for spelled in [("pomcp:num_sims=200,max_depth=4", "bluff:0.30"),
                    (" pomcp : depth = 4 , sims = 200", "bluff:bluff=.3")]:
        cell = Cell.of(spelled, 3)
        assert cell == canonical and cell.id == canonical.id == (
            "players=pomcp:depth=4,sims=200|bluff:0.3;dice=3;bids=full;faces=6;wild=1;opener=after_challenger")
        assert game_seed(0, cell, 5).entropy == game_seed(0, canonical, 5).entropy


def test_an_id_written_before_canonical_specs_keeps_its_games_seeds():
    old = "players=pomcp:num_sims=200|bluff:0.30;dice=3;bids=full;faces=6;wild=1;opener=after_challenger"
    cell = Cell.from_id(old)
    assert cell.players == ("pomcp:sims=200", "bluff:0.3") and cell.legacy_id == old and cell.id == old
    assert cell.canonical_id == Cell.of(("pomcp:sims=200", "bluff:0.3"), 3).id != old
    assert game_seed(0, cell, 2).entropy != game_seed(0, Cell.of(cell.players, 3), 2).entropy
    with pytest.raises(ValueError, match="is not a cell id"):  # a spec's spelling differs, not the rules' text
        Cell.from_id(old.replace("wild=1", "wild=01"))


def test_a_permuting_cell_says_so_in_its_id_and_reads_back():
    rotating = Cell.of(("one-third", "random", "random"), 2)
    permuting = Cell(rotating.players, rotating.config, seating="permute")
    assert permuting.id == rotating.id + ";seating=permute" and rotating.seating == "rotate"
    perudo = Cell(rotating.players, GameConfig.preset("perudo", num_players=3, dice=2), seating="permute")
    for cell in (permuting, perudo, rotating):
        assert Cell.from_id(cell.id) == cell
    with pytest.raises(ValueError, match=r"^cell players=one-third\|random\|random: seating must be one of rotate, "
                                         r"permute, got 'shuffle'$"):
        Cell(rotating.players, rotating.config, seating="shuffle")
