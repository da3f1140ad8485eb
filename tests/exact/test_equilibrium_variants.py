"""The equilibrium solver under the rule variants: each variant field against the exact LP (chained by a value
iteration written here), the end probabilities, tables for other rules refused, and the shipped preset tables."""

from __future__ import annotations

import numpy as np
import pytest

from ldpomdp.datafiles import read_npz, write_npz
from ldpomdp.exact import solve_round
from ldpomdp.exact.two_player import equilibrium
from ldpomdp.exact.two_player.equilibrium import (
    SWEEP_TOLERANCE,
    discard_checkpoint,
    game_iterations,
    game_rounds,
    solve_game,
    sweep_targets,
)
from ldpomdp.exact.two_player.round_cfr import RoundCFR
from ldpomdp.exact.two_player.states import (
    RoundOutcome,
    canonical_state,
    game_config,
    round_name,
    round_outcome,
    round_slots,
    successor,
)
from ldpomdp.exact.two_player.table import quantize
from ldpomdp.exact.two_player.tree import build_tree
from ldpomdp.game import play_game
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig


def _brute_force(config: GameConfig, top: int, sweeps: int = 60) -> dict[tuple, float]:
    """Every state's game value by the exact LP of its round, chained by value iteration over states (a, b,
    palifico round, opener had palifico, responder had palifico), the rules' ends written out here."""
    starts = [(a, b, False, False, False) for a in range(1, top + 1) for b in range(1, top + 1)]
    if config.exact_call:
        starts = [(top, top, False, False, False)]

    def ends(state):  # (caller, kind, missing or right) -> (value or None, next state, sign)
        a, b, _, fa, fb = state
        dice, had = [a, b], [fa, fb]
        out = {}
        kinds = [("challenge", m) for m in range(-(a + b), a + b + 1)]
        kinds += [("exact", 0), ("exact", 1)] if config.exact_call else []
        for caller in (0, 1):
            for kind, m in kinds:
                after = list(dice)
                if kind == "exact":
                    loser = -1 if m == 0 else caller
                    lost = 1
                    if m == 0 and after[caller] < top:
                        after[caller] += 1
                else:
                    loser = caller if m <= 0 else 1 - caller
                    lost = 1 if config.loss == "one" else (1 - m if m <= 0 else m)
                if loser >= 0:
                    after[loser] = max(after[loser] - lost, 0)
                if 0 in after:
                    out[(caller, kind, m)] = (1.0 if after[0] else -1.0, None, 0.0)
                    continue
                opener = 1 - caller  # after_challenger, two players
                palifico = config.palifico and loser >= 0 and after[loser] == 1 and not had[loser]
                now = [had[0] or (palifico and loser == 0), had[1] or (palifico and loser == 1)]
                out[(caller, kind, m)] = (0.0, (after[opener], after[1 - opener], palifico, now[opener],
                                                now[1 - opener]), 1.0 if opener == 0 else -1.0)
        return out

    states, todo = set(starts), list(starts)
    while todo:
        for _, following, _ in ends(todo.pop()).values():
            if following is not None and following not in states:
                states.add(following)
                todo.append(following)
    values = dict.fromkeys(states, 0.0)
    for _ in range(sweeps):
        before = dict(values)
        for state in sorted(states, key=lambda s: (s[0] + s[1], s)):
            table = state[0] + state[1]
            e = ends(state)
            value = {key: v if nxt is None else sign * values[nxt] for key, (v, nxt, sign) in e.items()}
            challenge = np.array([[value[(c, "challenge", m)] for m in range(-table, table + 1)] for c in (0, 1)])
            exact = np.array([[value[(c, "exact", m)] for m in (1, 0)] for c in (0, 1)]) if config.exact_call else None
            rules = config.round_rules(state[2])
            values[state] = solve_round(rules, state[:2], RoundOutcome(challenge, exact, table)).value
        if max(abs(values[s] - before[s]) for s in states) < 1e-10:
            break
    return values


VARIANTS = {  # 2 faces, no wild unless the variant needs it; up to 2 dice each (the exact call: games from 2 each)
    "exact call": GameConfig(dice=2, faces=2, wild=None, exact_call=True),
    "palifico": GameConfig(dice=2, faces=2, wild=None, palifico=True),
    "loss by the difference": GameConfig(dice=2, faces=2, wild=None, loss="difference"),
    "Perudo bids": GameConfig(dice=1, faces=3, wild=1, wild_bids="perudo"),
}


@pytest.mark.parametrize("name", VARIANTS)
def test_each_variant_field_matches_the_chained_lp(name):
    """Full recall (the abstraction is exact), 300 CFR+ iterations: every solved round's game value within 0.004 of
    the chained LPs' (the exact call's rounds repeat: the brute force iterates the LPs to their fixed point)."""
    config = VARIANTS[name]
    top = config.starting_dice[0]
    table = solve_game(config, top, 12, 300, sweeps=3)
    exact = _brute_force(config, top)
    assert table.residual < 1e-3
    for key in game_rounds(game_config(config, top)):
        state = canonical_state(table.config, key)
        same_round = [v for s, v in exact.items() if s[:3] == (*state.dice, state.palifico)]
        brute = exact.get((*state.dice, state.palifico, *state.had_palifico))
        if brute is None:  # the usual state is not reached (1 die each: no palifico history can matter there)
            assert max(same_round) - min(same_round) < 1e-9
            brute = same_round[0]
        assert abs(table.value(key[:2], len(key) > 2) - brute) < 0.004, (key, table.value(key[:2], len(key) > 2),
                                                                         brute)


def test_the_one_die_perudo_game_repeats_on_a_right_exact_call():
    """With 1 die each a right exact call wins nothing back (the start caps it): the round repeats, its caller
    opening. The solved value is the LP's fixed point (value iteration written here) within 0.002."""
    config = GameConfig.preset("perudo", dice=1, faces=3)
    table = solve_game(config, 1, 6, 300, sweeps=3)
    value = 0.0
    for _ in range(60):
        challenge = np.where(np.arange(-2, 3)[None, :] <= 0, [[-1.0], [1.0]], [[1.0], [-1.0]])
        exact = np.array([[-1.0, value], [1.0, -value]])  # [caller, right]; right: the caller opens the same round
        value = solve_round(config, (1, 1), RoundOutcome(challenge, exact, 2)).value
    assert abs(table.values[1, 1] - value) < 0.002


def test_sweep_targets_continue_each_round():
    """Coarse sweeps of a tenth, the first full sweep up to the iterations, each further one a tenth more; without
    the exact call one sweep."""
    perudo = GameConfig.preset("perudo")
    assert sweep_targets(perudo, 150, 3) == [15, 30, 150, 165, 180]
    assert sweep_targets(perudo, 135, 2) == [13, 26, 135, 148]  # the shipped tables'
    assert sweep_targets(perudo, 2, 1) == [1, 2, 2]
    assert sweep_targets(GameConfig.preset("dudo"), 150, 3) == [150]


class _Stop(Exception):
    pass


def _stop_after(iterations: int):
    """A progress callback raising _Stop once more than ``iterations`` are done."""
    done = []

    def stop(n: int) -> None:
        done.append(n)
        if sum(done) > iterations:
            raise _Stop

    return stop


def _assert_same_table(got, want) -> None:
    assert got.residual == want.residual
    np.testing.assert_array_equal(got.values, want.values)
    for key, strategies in want.strategies.items():
        for mine, theirs in zip(got.strategies[key], strategies, strict=True):  # checkpoints store them quantized
            np.testing.assert_array_equal(mine, quantize(theirs) if mine.dtype == np.uint8 else theirs)


# iterations done before the stop (7 rounds; sweeps to 2, 4, 20 and 22 iterations a round: 14, 28, 140, 154 done)
@pytest.mark.parametrize("stop_after", [10, 60, 148], ids=["coarse sweep", "first full sweep", "second full sweep"])
def test_a_solve_stopped_inside_a_sweep_resumes_to_the_same_table(tmp_path, stop_after):
    """Each sweep continues the rounds' CFR+ from the last: stopped inside a sweep, the run resumes from the
    checkpoint and its round states to the table an uninterrupted run gives, counting every iteration once, and
    discard_checkpoint removes both."""
    config = GameConfig.preset("perudo", dice=2, faces=3)
    checkpoint = tmp_path / "run.npz"
    with pytest.raises(_Stop):
        solve_game(config, 2, 2, 20, checkpoint=checkpoint, checkpoint_every=1, progress=_stop_after(stop_after),
                   sweeps=2)
    assert checkpoint.exists() and (tmp_path / "run.npz.rounds").is_dir()
    counted = []
    resumed = solve_game(config, 2, 2, 20, checkpoint=checkpoint, checkpoint_every=1, progress=counted.append,
                         sweeps=2)
    assert sum(counted) == game_iterations(config, 20, 2) == 154
    _assert_same_table(resumed, solve_game(config, 2, 2, 20, sweeps=2))
    discard_checkpoint(checkpoint)
    assert list(tmp_path.iterdir()) == []


def test_a_solve_stopped_between_a_rounds_state_and_the_checkpoint_resumes_to_the_same_table(tmp_path, monkeypatch):
    """A kill after a round's new state is written but before the checkpoint records the round: the resumed run
    finds the round finished (it runs no iteration twice) and gives the uninterrupted run's table."""
    config = GameConfig.preset("perudo", dice=2, faces=3)
    checkpoint = tmp_path / "run.npz"
    put = equilibrium._RoundStates.put
    written = []

    def put_then_stop(self, key, state):
        put(self, key, state)
        written.append(key)
        if len(written) == 7 * 3 + 2:  # the second round of the second full sweep
            raise _Stop

    monkeypatch.setattr(equilibrium._RoundStates, "put", put_then_stop)
    with pytest.raises(_Stop):
        solve_game(config, 2, 2, 20, checkpoint=checkpoint, sweeps=2)
    monkeypatch.undo()
    stopped_in = written[-1]  # its new state is written, its seconds with it; the checkpoint does not have it
    path = tmp_path / "run.npz.rounds" / f"{round_name(stopped_in)}.npz"
    write_npz(path, {**read_npz(path, "state"), "seconds": np.array(1000.0)}, compress=False)  # a mark to find
    earlier = read_npz(checkpoint, "checkpoint")["spent"][game_rounds(game_config(config, 2)).index(stopped_in)]
    counted = []
    resumed = solve_game(config, 2, 2, 20, checkpoint=checkpoint, progress=counted.append, sweeps=2)
    assert sum(counted) == game_iterations(config, 20, 2)
    assert resumed.seconds[stopped_in] >= earlier + 1000.0  # this sweep's seconds of that round are kept
    _assert_same_table(resumed, solve_game(config, 2, 2, 20, sweeps=2))


def test_a_solve_stopped_in_a_later_sweep_finishes_it_when_rerun_with_fewer_sweeps(tmp_path):
    config = GameConfig.preset("perudo", dice=2, faces=3)
    checkpoint = tmp_path / "run.npz"
    with pytest.raises(_Stop):
        solve_game(config, 2, 2, 20, checkpoint=checkpoint, checkpoint_every=1,
                   progress=_stop_after(game_iterations(config, 20, 3) - 6), sweeps=3)
    resumed = solve_game(config, 2, 2, 20, checkpoint=checkpoint, sweeps=1)
    _assert_same_table(resumed, solve_game(config, 2, 2, 20, sweeps=3))


def test_round_states_left_without_their_checkpoint_are_not_continued(tmp_path):
    """A fresh run (no checkpoint) clears round states an older run left beside it; a checkpoint whose round states
    are gone, or one an older solver wrote, is refused with a way out; sweeps < 1 are refused."""
    config = GameConfig.preset("perudo", dice=2, faces=3)
    checkpoint = tmp_path / "run.npz"
    folder = tmp_path / "run.npz.rounds"
    solve_game(config, 2, 2, 20, checkpoint=checkpoint, sweeps=1)  # residual above the tolerance: both kept
    checkpoint.unlink()
    write_npz(folder / "9_9.npz", {"iteration": np.array(99)})
    fresh = solve_game(config, 2, 2, 5, checkpoint=checkpoint, sweeps=1)
    assert not (folder / "9_9.npz").exists()
    np.testing.assert_array_equal(fresh.values, solve_game(config, 2, 2, 5, sweeps=1).values)
    (folder / "2_2.npz").unlink()
    with pytest.raises(ValueError, match=r"round states in .*run.npz.rounds lack round\(s\) 2_2 or are from another "
                                         r"sweep; delete the checkpoint to start afresh"):
        solve_game(config, 2, 2, 5, checkpoint=checkpoint, sweeps=2)
    older = {name: array for name, array in read_npz(checkpoint, "checkpoint").items() if name != "schedule"}
    write_npz(checkpoint, older)  # as the solver that solved every sweep afresh left it
    with pytest.raises(ValueError, match="written by an older solver .* delete it to start afresh"):
        solve_game(config, 2, 2, 5, checkpoint=checkpoint, sweeps=2)
    with pytest.raises(ValueError, match="sweeps must be >= 1, got 0"):
        solve_game(config, 2, 2, 5, sweeps=0)


def test_end_probabilities_sum_to_one_and_give_the_value():
    config = game_config(GameConfig.preset("perudo", dice=2, faces=3), 2)
    table = solve_game(config, 2, 2, 20)
    for key, p in table.ends.items():
        assert p.min() >= -1e-9 and abs(p.sum() - 1.0) < 1e-6, key
    key = (2, 2)
    state = canonical_state(config, key)
    outcome_values = []
    for slot in round_slots(config, state.dice):
        end, following, sign = successor(config, state, slot)
        outcome_values.append(end if following is None else sign * 0.3)  # any value of the next states
    solver = RoundCFR(config, (2, 2), 2, RoundOutcome(np.array(outcome_values[:18]).reshape(2, 9),
                                                       np.array(outcome_values[18:]).reshape(2, 2), 4))
    solver.run(20)
    from ldpomdp.exact.two_player.equilibrium import _end_probabilities
    p = _end_probabilities(solver, solver.average_strategy(), config, [state])
    assert abs(p @ np.array(outcome_values) - solver.value()) < 1e-6


def test_a_table_for_other_rules_is_refused_naming_both(tmp_path):
    path = solve_game(GameConfig.preset("dudo", dice=1), 1, 2, 5).save(tmp_path / "dudo.npz")
    with pytest.raises(ValueError, match="is for .*loss by the difference; the game is .*exact call, palifico"):
        make_player(f"cfr:table={path}").reset(0, GameConfig.preset("perudo", dice=1))
    with pytest.raises(ValueError, match="is for full game, 6 faces, ones wild, Perudo bids on ones, loss by the "
                                         "difference; the game is full game, 6 faces, ones wild$"):
        make_player(f"cfr:table={path}").reset(0, GameConfig(dice=1))


def test_an_exact_call_table_is_for_its_starting_dice(tmp_path):
    path = solve_game(GameConfig.preset("perudo", dice=2, faces=3), 2, 2, 5).save(tmp_path / "p.npz")
    player = make_player(f"cfr:table={path}")
    player.reset(0, GameConfig.preset("perudo", dice=2, faces=3))
    with pytest.raises(ValueError, match="starting with 2 dice each; the game is .* starting with 1 die each"):
        player.reset(0, GameConfig.preset("perudo", dice=1, faces=3))
    with pytest.raises(ValueError, match="equal starting dice"):
        player.reset(0, GameConfig.preset("perudo", dice=(1, 2), faces=3))


@pytest.mark.parametrize("preset,dice", [(preset, d) for preset in ("perudo", "dudo") for d in range(1, 6)])
def test_the_shipped_preset_tables_play_whole_games(preset, dice):
    config = GameConfig.preset(preset, dice=dice)
    rng = np.random.default_rng(dice)
    for game in range(2):
        record = play_game(config, [make_player("cfr"), make_player("one-third")], rng, first_opener=game % 2)
        assert record.winner in (0, 1)
    table = CFRPlayer().table(config)
    iterations = 135 if config.exact_call else 150  # Perudo's: --iterations 135 --sweeps 2 (148 a round in all)
    assert (table.recall, table.iterations) == ("3@4,2", iterations) and table.config.variants == config.variants
    assert table.residual <= SWEEP_TOLERANCE


@pytest.mark.parametrize("preset", ["perudo", "dudo"])
def test_a_preset_game_beyond_the_shipped_tables_is_refused(preset):
    with pytest.raises(ValueError, match="covers up to 5 dice each"):
        make_player("cfr").reset(0, GameConfig.preset(preset, dice=6))


@pytest.mark.parametrize("preset", ["perudo", "dudo"])
@pytest.mark.parametrize("faces", [3, 6])
def test_round_outcome_values_the_ends_as_the_rules_settle_them(preset, faces):
    """With 1 die each every end but a right exact call ends the game, and a right call repeats the round (no die
    back above the start): round_outcome with the repeat worth 0, as the tree reads it, is the rules' own dice
    change (RoundTree.opener_payoff, from settle_round's arithmetic) at every end, a right exact call included."""
    config = GameConfig.preset(preset, dice=1, faces=faces)
    tree = build_tree(config, (1, 1))
    outcome = round_outcome(config, canonical_state(config, (1, 1)), lambda following: 0.0)
    np.testing.assert_array_equal(tree.outcome_payoff(outcome), tree.opener_payoff)
    assert (tree.edge_bid[tree.terminal_edges] == -2).any() == config.exact_call


def test_sweeps_that_run_out_above_the_tolerance_keep_their_table_to_return_or_continue_from(tmp_path):
    """One sweep leaves its table and the next sweep's start in the checkpoint: the same run returns that table
    without solving, and two sweeps continue from it to the table two sweeps give in one run."""
    config = GameConfig.preset("perudo", dice=2, faces=3)
    checkpoint = tmp_path / "run.npz"
    first = solve_game(config, 2, 2, 20, checkpoint=checkpoint, sweeps=1)
    assert first.residual > SWEEP_TOLERANCE and checkpoint.exists()
    again = solve_game(config, 2, 2, 20, checkpoint=checkpoint, sweeps=1,
                       progress=lambda n: pytest.fail("the finished sweep was solved again"))
    assert again.residual == first.residual and again.strategies.keys() == first.strategies.keys()
    np.testing.assert_array_equal(again.values, first.values)
    continued = solve_game(config, 2, 2, 20, checkpoint=checkpoint, sweeps=2)
    whole = solve_game(config, 2, 2, 20, sweeps=2)
    assert continued.residual == whole.residual
    np.testing.assert_array_equal(continued.values, whole.values)
    for key, (opener, responder) in whole.strategies.items():
        np.testing.assert_array_equal(continued.strategies[key][0], opener)
        np.testing.assert_array_equal(continued.strategies[key][1], responder)
