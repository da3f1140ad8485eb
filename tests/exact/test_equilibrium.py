"""CFR+ on the imperfect-recall abstraction (ldpomdp.exact.two_player) and the cfr player."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from conftest import DAMAGE, damage, small_table

from ldpomdp.caches import BoundedCache
from ldpomdp.datafiles import write_npz
from ldpomdp.errors import TableError
from ldpomdp.exact import exploitability, solve_round, tables
from ldpomdp.exact.tables import (
    BLUEPRINT_ON_DEMAND,
    ON_DEMAND,
    SHIPPED,
    SHIPPED_TABLE,
    SIXES_TWO_PLAYER_DICE,
    table_for,
)
from ldpomdp.exact.two_player import round_cfr
from ldpomdp.exact.two_player.abstraction import abstract_round, recall_for
from ldpomdp.exact.two_player.equilibrium import game_rounds, solve_game
from ldpomdp.exact.two_player.round_cfr import RoundCFR, one_round_outcome
from ldpomdp.exact.two_player.states import game_config
from ldpomdp.exact.two_player.table import GameTable
from ldpomdp.game import play_game
from ldpomdp.interrupts import sigterm_as_interrupt
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig


def _round_table(config: GameConfig, solver: RoundCFR) -> GameTable:
    dice = solver.round.dice
    return GameTable(config, str(solver.round.k), solver.iteration, 0, np.zeros((3, 3)),
                     {dice: tuple(solver.average_strategy())}, {dice: 0.0})


def test_one_die_value_within_tolerance_of_the_lp():
    """1 die each, 6 faces, ones wild, last 3 bids, 100 iterations: value within 0.002 of the LP's (measured
    0.0006 off)."""
    config = GameConfig(dice=1)
    solver = RoundCFR(config, (1, 1), 3, one_round_outcome())
    solver.run(100)
    assert abs(solver.value() - solve_round(config, (1, 1)).value) < 0.002


def test_exploitability_of_the_abstraction_strategy_is_small():
    """The abstraction's own average strategy, evaluated exactly (measured 0.0067 at 100 iterations, k = 3;
    the uniform strategy is far above 0.5)."""
    config = GameConfig(dice=1)
    solver = RoundCFR(config, (1, 1), 3, one_round_outcome())
    solver.run(100)
    e = exploitability(CFRPlayer(_round_table(config, solver)), config, (1, 1))
    assert e.as_opener < 0.015 and e.as_responder < 0.015 and e.average < 0.01


def _brute_force_values(config: GameConfig, max_dice: int) -> np.ndarray:
    """Game values to the opener by the exact LP of each round, chained by a recursion written here."""
    values = np.zeros((max_dice + 1, max_dice + 1))
    for a, b in sorted(((a, b) for a in range(1, max_dice + 1) for b in range(1, max_dice + 1)), key=sum):
        outcome = np.zeros((2, 2))  # [loser, challenger], roles 0 = opener
        for loser in (0, 1):
            left = [a, b]
            left[loser] -= 1
            for challenger in (0, 1):
                if 0 in left:
                    outcome[loser, challenger] = 1.0 if left[0] else -1.0
                    continue
                # "after_challenger": the seat after the challenger opens (with two players, the other one)
                opens = 1 - challenger if config.opener == "after_challenger" else loser
                value = values[left[opens], left[1 - opens]]
                outcome[loser, challenger] = value if opens == 0 else -value
        values[a, b] = solve_round(config, (a, b), outcome).value
    return values


@pytest.mark.parametrize("opener", ["after_challenger", "loser"])
def test_chaining_matches_a_brute_force_with_full_recall(opener):
    """2 faces, no wild, up to 2 dice each: with k = 8 bids (the whole round) the abstraction is exact, so the
    chained values converge to the chained LPs' (measured 4e-4 off at 150 iterations)."""
    config = GameConfig(dice=2, faces=2, wild=None, opener=opener)
    table = solve_game(config, 2, 8, 150)
    assert np.abs(table.values - _brute_force_values(config, 2)).max() < 1e-3


@pytest.mark.parametrize("opener", ["after_challenger", "loser"])
def test_chaining_with_recall_two_on_three_faces(opener):
    """3 faces, highest wild, up to 2 dice each, last 2 bids: within 0.001 of the chained LPs (measured 2e-4 at
    150 iterations; the two opener rules' values differ by 0.003 at 2 dice each)."""
    config = GameConfig(dice=2, faces=3, wild=3, opener=opener)
    table = solve_game(config, 2, 2, 150)
    assert np.abs(table.values - _brute_force_values(config, 2)).max() < 0.001


def test_interrupted_solve_resumes_to_the_same_table(tmp_path):
    config = GameConfig(dice=2, faces=3, wild=1)
    whole = solve_game(config, 2, "3@3,2", 30, seed=1)
    whole.save(tmp_path / "whole.npz")
    checkpoint = tmp_path / "run.npz"
    done = [0]

    def interrupt(n):
        done[0] += n
        if done[0] >= 70:  # inside the third round (2 vs 1 dice), after its first checkpoint
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve_game(config, 2, "3@3,2", 30, seed=1, checkpoint=checkpoint, checkpoint_every=10, progress=interrupt)
    partial = GameTable.load(checkpoint)
    assert 0 < len(partial.strategies) < len(game_rounds(game_config(config, 2)))
    with np.load(checkpoint) as data:
        assert int(data["iteration"]) == 10  # the running round's regrets were stored
    resumed = solve_game(config, 2, "3@3,2", 30, seed=1, checkpoint=checkpoint, checkpoint_every=10)
    resumed.save(tmp_path / "resumed.npz")
    with np.load(tmp_path / "whole.npz") as a, np.load(tmp_path / "resumed.npz") as b:
        names = [n for n in a.files if not n.startswith("seconds_")]
        assert sorted(names) == sorted(n for n in b.files if not n.startswith("seconds_"))
        for name in names:
            assert np.array_equal(a[name], b[name]), name
    with pytest.raises(ValueError, match="other settings"):
        solve_game(config, 2, "3@3,2", 31, seed=1, checkpoint=checkpoint)


def test_shipped_table_plays_legal_whole_games():
    table = GameTable.load(SHIPPED_TABLE)
    assert table.config.describe() == GameConfig().describe()
    assert (table.max_dice, table.recall, table.iterations, table.seed) == (SHIPPED.dice, SHIPPED.recall,
                                                                            SHIPPED.iterations, 0)  # the defaults
    rng = np.random.default_rng(3)
    for dice in range(1, table.max_dice + 1):
        config = GameConfig(dice=dice)
        for game in range(2):
            record = play_game(config, [make_player("cfr"), make_player("one-third")], rng, first_opener=game % 2)
            assert record.winner in (0, 1)


def test_cfr_probabilities_are_a_distribution_over_legal_actions():
    """policy_behaviour (inside exploitability) checks that the legal actions' probabilities sum to one for every
    hand at every node; the shipped table's 1-die round is also near equilibrium."""
    e = exploitability(make_player("cfr"), GameConfig(dice=1), (1, 1))
    assert e.average < 0.02


def test_refuses_unsupported_games_clearly(tmp_path):
    player = make_player("cfr")
    with pytest.raises(ValueError, match="blueprints are solved on demand for 3 players up to"):  # before solving
        player.reset(0, GameConfig(num_players=4, dice=BLUEPRINT_ON_DEMAND.dice + 1))
    above = SIXES_TWO_PLAYER_DICE + 1  # refused by the on-demand cap, whatever table is in memory
    with pytest.raises(ValueError, match=rf"on demand cover up to {above - 1} dice each; the game starts with"):
        player.reset(0, GameConfig(dice=above, bids="sixes"))
    with pytest.raises(ValueError, match="covers up to"):
        player.reset(0, GameConfig(dice=GameTable.load(SHIPPED_TABLE).max_dice + 1))
    with pytest.raises(ValueError, match="cannot read the equilibrium table .*missing.npz: No such file or directory"):
        make_player(f"cfr:table={tmp_path / 'missing.npz'}")
    with pytest.raises(ValueError, match="on demand cover up to"):  # refused before any solving
        player.reset(0, GameConfig(dice=ON_DEMAND.dice + 1, wild=None))
    config = GameConfig(dice=1, faces=3, wild=None)
    solver = RoundCFR(config, (1, 1), 2, one_round_outcome())
    with pytest.raises(ValueError, match="the table is for"):
        CFRPlayer(_round_table(config, solver)).reset(0, GameConfig(dice=1))
    with pytest.raises(ValueError, match="recall"):
        recall_for("3@4", (3, 3))
    with pytest.raises(ValueError, match="outcome"):
        RoundCFR(config, (1, 1), 2, np.ones(3))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_blocks_are_runs_of_states_sharing_their_children(k):
    """The backward pass multiplies one block at a time: the blocks must cover the states in order, and every
    state of a block must have the block's raises' children (its window plus each higher bid)."""
    r = abstract_round(GameConfig(faces=3, wild=3), (2, 1), k)
    covered = []
    for lo, hi, actor, last, children in r.blocks:
        covered += list(range(lo, hi))
        for s in range(lo, hi):
            role, window = r.keys[s]
            assert role == actor and int(r.last[s]) == last
            expected = [r.index[(1 - actor, (window + (j,))[-k:])] for j in range(last + 1, len(r.bids))]
            assert list(children) == expected
    assert covered == list(range(r.num_states))
    # as few blocks as there are distinct children rows: the states sharing children are all contiguous
    assert len(r.blocks) == sum(len({tuple(c) for c in children}) for *_, children in r.groups)
    assert len(r.blocks) < r.num_states or k == 1


def test_sampled_opponents_are_seeded_and_close_to_full_width(monkeypatch):
    """Above MAX_FULL_WIDTH_CELLS each update draws opponent hands from the seeded generator: the same seed gives
    the same regrets, and the value comes within 0.035 of the LP's (1 die each, 3 faces, 300 iterations, 2 hands
    drawn per update: measured 0.026 off; the uniform strategy is 0.056 off)."""
    config = GameConfig(dice=1, faces=3, wild=None)
    monkeypatch.setattr(round_cfr, "MAX_FULL_WIDTH_CELLS", 0)
    runs = []
    for seed in (5, 5, 6):
        solver = RoundCFR(config, (1, 1), 2, one_round_outcome(), opponent_samples=2, seed=seed)
        assert solver.opponent_samples == 2
        solver.run(300)
        runs.append(solver)
    assert all(np.array_equal(a, b) for a, b in zip(runs[0].regrets, runs[1].regrets, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(runs[0].regrets, runs[2].regrets, strict=True))
    monkeypatch.undo()
    assert abs(runs[0].value() - solve_round(config, (1, 1)).value) < 0.035


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_table_is_one_error_naming_the_file_and_its_fault(tmp_path, monkeypatch, kind):
    # used to raise BadZipFile, zlib.error or "EOFError: No data left in file" (naming neither file nor spec)
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    path = small_table(tmp_path / "t.npz")
    GameTable.load(path)  # whole, it reads
    fault = damage(path, kind)
    with pytest.raises(TableError) as error:
        GameTable.load(path)
    assert str(error.value).startswith(f"cannot read the equilibrium table {path}: {fault}")
    assert "\n" not in str(error.value)
    with pytest.raises(TableError, match="cannot read the equilibrium table"):
        CFRPlayer(str(path)).reset(0, GameConfig(dice=1))


def test_a_file_that_is_no_table_is_named_with_what_it_is(tmp_path):
    np.save(tmp_path / "array.npy", np.zeros(3))
    np.savez(tmp_path / "other.npz", weights=np.zeros(3))
    (tmp_path / "folder.npz").mkdir()
    for name, fault in [("array.npy", "not an .npz file"), ("other.npz", "no array 'format' in it"),
                        ("folder.npz", "Is a directory"), ("missing.npz", "No such file or directory")]:
        with pytest.raises(TableError) as error:
            GameTable.load(tmp_path / name)
        assert str(error.value) == f"cannot read the equilibrium table {tmp_path / name}: {fault}"


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_checkpoint_is_named_with_the_advice_to_delete_it(tmp_path, kind):
    checkpoint = small_table(tmp_path / "run.npz")
    fault = damage(checkpoint, kind)
    with pytest.raises(TableError) as error:
        solve_game(GameConfig(), 1, 2, 5, checkpoint=checkpoint)
    assert str(error.value).startswith(f"cannot read the checkpoint {checkpoint}: {fault}")
    assert str(error.value).endswith("; delete it to start afresh")


def test_a_damaged_cached_table_is_solved_again(tmp_path, monkeypatch):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))
    monkeypatch.setattr(tables, "ON_DEMAND", tables.SolveSettings(1, "2", 5))
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    config = GameConfig(dice=1, faces=3, wild=None)
    first = table_for(config)
    (cached,) = (tmp_path / "cfr").glob("table-*.npz")
    damage(cached, "truncated")
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    again = table_for(config)
    np.testing.assert_array_equal(again.strategies[(1, 1)][0], first.strategies[(1, 1)][0])
    GameTable.load(cached)  # stored again, whole


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), OSError(28, "No space left on device")])
def test_an_interrupted_or_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch, stop):
    path = small_table(tmp_path / "t.npz")
    before = path.read_bytes()
    save = np.savez_compressed

    def save_then_stop(file, **arrays):
        save(file, **arrays)  # the temporary file is whole: the stop comes before it replaces the table
        raise stop

    monkeypatch.setattr(np, "savez_compressed", save_then_stop)
    with pytest.raises(type(stop)):
        write_npz(path, {"x": np.zeros(3)})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz"]
    assert path.read_bytes() == before


def test_a_kill_during_a_write_waits_for_the_file_to_be_whole(tmp_path, monkeypatch):
    """SIGTERM arriving inside the write (as Ctrl-C would) is raised once the file is written and in place: a kill
    inside zipfile used to leave a half-closed archive that printed a traceback at exit."""
    save = np.savez_compressed

    def killed_while_saving(file, **arrays):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)  # the signal has arrived; unheld, its handler would have run by now
        save(file, **arrays)

    monkeypatch.setattr(np, "savez_compressed", killed_while_saving)
    with sigterm_as_interrupt(), pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        write_npz(tmp_path / "t.npz", {"x": np.arange(3)})
    assert np.load(tmp_path / "t.npz")["x"].tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz"]


def test_an_interrupt_inside_reading_an_npz_is_the_interrupt_not_a_damaged_file(tmp_path, monkeypatch):
    # zipfile's error on closing, raised while Ctrl-C unwinds, would have read as "the file is damaged"
    from ldpomdp.datafiles import read_npz

    path = write_npz(tmp_path / "t.npz", {"x": np.arange(3)})

    def interrupted(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ValueError("Can't close the ZIP file while there is an open writing handle on it.") from None

    monkeypatch.setattr(np, "load", interrupted)
    with pytest.raises(KeyboardInterrupt):
        read_npz(path, "table")


def test_read_npz_reads_only_the_arrays_named(tmp_path):
    from ldpomdp.datafiles import read_npz
    from ldpomdp.errors import TableError

    path = write_npz(tmp_path / "t.npz", {"x": np.arange(3), "big": np.zeros(10)})
    assert list(read_npz(path, "state", names=("x",))) == ["x"]
    assert sorted(read_npz(path, "state")) == ["big", "x"]
    with pytest.raises(TableError, match="cannot read the state .*t.npz: the file is damaged"):
        read_npz(path, "state", names=("iteration",))
