"""The equilibrium solvers in report 002's sixes game, where a hand counts by its matching dice: the hands they tell
apart, the round solver against the exact vector CFR, the two-player table's exploitability, and the blueprint's
file and play at three players."""

from __future__ import annotations

import numpy as np
import pytest

from ldpomdp.caches import BoundedCache
from ldpomdp.datafiles import write_npz
from ldpomdp.exact import exploitability, tables
from ldpomdp.exact.against_models.game_values import FairRounds
from ldpomdp.exact.many_players.blueprint import (
    SIXES_TUPLES,
    _expected,
    _solve_round,
    end_probabilities,
    end_values,
    solve_blueprint,
)
from ldpomdp.exact.many_players.round import RoundPayoff, loser_values
from ldpomdp.exact.many_players.round_cfr import LineRoundCFR, NRoundCFR, PublicTreeCFR
from ldpomdp.exact.many_players.states import round_rules, usual_state
from ldpomdp.exact.many_players.table import BlueprintTable
from ldpomdp.exact.two_player.equilibrium import solve_game
from ldpomdp.exact.two_player.states import game_config
from ldpomdp.exact.two_player.table import GameTable, quantize
from ldpomdp.game import play_game, seeded_rng
from ldpomdp.hands import hand_support, solver_hand_rows, solver_hands
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig, match_matrix
from ldpomdp.sweeps.experiments import EXPERIMENTS

SIXES = GameConfig(bids="sixes")


SIXES_RULES = [SIXES, GameConfig(bids="sixes", wild=None), GameConfig(bids="sixes", wild=6),
               GameConfig(bids="sixes", faces=3, wild=None), GameConfig(bids="sixes", faces=2),
               GameConfig(bids="sixes", palifico=True).round_rules(True)]


@pytest.mark.parametrize("config", SIXES_RULES, ids=lambda c: c.describe())
@pytest.mark.parametrize("dice", [0, 1, 4])
def test_a_sixes_hand_is_its_matching_count_with_the_summed_prior(dice, config):
    support, prior = hand_support(dice, config.faces)
    counts = support.astype(np.int64) @ match_matrix(config)[:, config.faces - 1]
    hands, count_prior = solver_hands(dice, config)
    np.testing.assert_allclose(count_prior, np.bincount(counts, prior, minlength=dice + 1), atol=1e-15)
    np.testing.assert_array_equal(solver_hand_rows(support, dice, config), counts)
    rows = solver_hand_rows(hands, dice, config)
    np.testing.assert_array_equal(rows[count_prior > 0], np.arange(dice + 1)[count_prior > 0])
    assert solver_hands(dice, GameConfig(faces=config.faces)) == hand_support(dice, config.faces)
    with pytest.raises(ValueError, match=r"hand \[1, 0, 0, 0, 0, 0\] is not a face-count vector of 2 dice"):
        solver_hand_rows(np.array([[1, 0, 0, 0, 0, 0]]), 2, SIXES)


@pytest.mark.parametrize("dice", [(2, 2, 2), (1, 3, 2, 1)])
def test_the_sixes_round_solver_is_the_exact_vector_cfr(dice):
    """With every joint hand enumerated, the information-set solver plays what the full-width public-tree CFR+ plays
    (the round is a line of bids, so the last bid is perfect recall), and the profile's NashConv falls."""
    config = round_rules(GameConfig(num_players=len(dice), bids="sixes"), len(dice), False)
    ours, exact = NRoundCFR(config, dice, 1, max_tuples=SIXES_TUPLES), PublicTreeCFR(config, dice, 1)
    gains = []
    for _ in range(3):
        ours.run(40)
        exact.run(40)
        for a, b in zip(ours.average_strategy(), exact.average_strategy(), strict=True):
            np.testing.assert_allclose(a, b, atol=1e-10)
        gains.append(exact.gains().sum())
    assert gains[2] < gains[0] and gains[2] < 0.01, gains


@pytest.mark.parametrize("rules", [dict(wild=None), dict(wild=1), dict(wild=6), dict(palifico=True)],
                         ids=["no wild", "ones wild", "sixes wild", "palifico round"])
@pytest.mark.parametrize("dice", [(3, 1), (2, 2, 2), (1, 3, 2, 1), (4, 2, 3)])
def test_the_line_solver_has_the_iterates_of_the_exact_vector_cfr_and_exact_ends(dice, rules):
    n, total = len(dice), sum(dice)
    config = round_rules(GameConfig(num_players=n, bids="sixes", **rules), n, "palifico" in rules)
    payoff = RoundPayoff(np.random.default_rng(total).normal(size=(n, n, 2 * total + 1)), None, total)
    line, exact = LineRoundCFR(config, dice, 1, payoff), PublicTreeCFR(config, dice, 1, payoff)
    line.run(25)
    exact.run(25)
    for ours, theirs in [(line.regrets, exact.regrets), (line.strategy_sums, exact.strategy_sums)]:
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)
    average = line.average_strategy()
    enumerated = NRoundCFR(config, dice, 1, payoff)
    rows, weight = enumerated.joint_hands(range(n), 1, np.random.default_rng(0), SIXES_TUPLES)
    np.testing.assert_allclose(line.end_probabilities(average), end_probabilities(enumerated, average, rows, weight),
                               rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="sixes game without the exact call"):
        LineRoundCFR(GameConfig(num_players=3, bids="sixes", exact_call=True), dice, 1)


@pytest.mark.parametrize("exact_call", [False, True])
def test_a_blueprint_round_of_the_sixes_game_is_solved_and_valued_exactly(exact_call):
    """A round whose joint hands are more than the full game's limit (81 > 64 for each seat's others): its strategy is
    the exact vector CFR's (by the line solver, or under the exact call every joint hand), and its values from its
    ends' probabilities are those of that strategy."""
    config, dice = GameConfig(num_players=3, bids="sixes", exact_call=exact_call), (8, 8, 8)
    payoff = RoundPayoff.by_loser(loser_values(3), sum(dice), exact_call)
    strategies, ends, _ = _solve_round(config, 1, 30, 16, 0, (dice, False), payoff)
    exact = PublicTreeCFR(round_rules(config, 3, False), dice, 1, payoff)
    exact.run(30)
    for ours, theirs in zip(strategies, exact.average_strategy(), strict=True):
        np.testing.assert_array_equal(ours, quantize(theirs))
    np.testing.assert_allclose(_expected(payoff, ends), exact.values(), rtol=0, atol=1e-9)


def test_the_sixes_two_player_table_is_unexploitable_with_one_die_each():
    """Solved on matching counts, played on full hands: the exact best response (over every hand) gains nothing."""
    table = solve_game(GameConfig(dice=2, bids="sixes"), 2, "2", 100)
    e = exploitability(CFRPlayer(table), GameConfig(dice=(1, 1), bids="sixes"), (1, 1))
    assert e.average < 1e-3, e


def test_the_sixes_blueprint_is_solved_on_demand_saved_with_its_bids_and_plays(tmp_path, monkeypatch):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))
    monkeypatch.setattr(tables, "SIXES_ON_DEMAND_DICE", 2)
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    monkeypatch.setattr(tables, "_BLUEPRINTS", BoundedCache(tables.CACHED_TABLES))
    config = GameConfig(num_players=3, dice=2, bids="sixes")
    solved = tables.blueprint_for(config)
    (saved,) = (tmp_path / "cfr").glob("blueprint-*.npz")
    (two,) = (tmp_path / "cfr").glob("table-*.npz")
    assert int(np.load(saved)["format"]) == BlueprintTable.SIXES_FORMAT
    assert int(np.load(two)["format"]) == GameTable.SIXES_FORMAT
    loaded = BlueprintTable.load(saved, GameTable.load(two))
    assert loaded.config.bids == "sixes" and loaded.two.config.bids == "sixes"
    assert len(loaded.strategies) == 8 and set(loaded.strategies) == set(solved.strategies)
    for g in range(6):
        players = [make_player(spec) for spec in ("cfr", "robust", "one-third")]
        result = play_game(config, players, seeded_rng(np.random.SeedSequence(g), players))
        assert 0 <= result.winner < 3
    with pytest.raises(ValueError, match=r"on demand for 3 players up to 2 dice each; the game has 3 players"):
        make_player("cfr").reset(0, GameConfig(num_players=3, dice=3, bids="sixes"))


@pytest.mark.parametrize("players,dice,exact_call", [(3, 3, False), (4, 2, False), (3, 2, True)])
def test_the_sixes_blueprint_values_its_rounds_ends_by_fair_rounds(players, dice, exact_call, tmp_path):
    """Every round is solved against its ends worth fair rounds' win probabilities (two seats left: the two-player
    table's), not its own chain, in one pass (also under the exact call): each round's saved values are its ends'
    expected fair worth; the file keeps it, and a checkpoint of chained ends is refused."""
    config = GameConfig(num_players=players, dice=dice, bids="sixes", exact_call=exact_call)
    two = solve_game(game_config(config, dice), dice, "1", 20)
    table = solve_blueprint(config, two, 20)
    assert table.continuation == "fair" and len(table.strategies) > 1
    assert table.sweeps == 1 and table.residual == 0.0

    def fair(state):
        return np.array([FairRounds(j).win_probability(state.dice) for j in range(len(state.dice))])

    for key in table.strategies:
        worth = end_values(table, usual_state(config, key), fair)
        np.testing.assert_allclose(table.values[key], _expected(worth, table.ends[key]), rtol=0, atol=1e-12)
        strategies, _, _ = _solve_round(config, table.k, 20, 16, 0, key, worth)
        for ours, again in zip(table.strategies[key], strategies, strict=True):
            np.testing.assert_array_equal(ours, again)
    chained = end_values(table, usual_state(config, ((dice,) * players, False)))  # its own values: another payoff
    assert np.abs(chained.by_slot() - end_values(table, usual_state(config, ((dice,) * players, False)), fair).by_slot()
                  ).max() > 1e-3
    loaded = BlueprintTable.from_arrays(table.arrays(), table.two)
    assert loaded.continuation == "fair" and loaded.settings() == table.settings()
    old = {name: value for name, value in table.arrays().items() if name != "continuation"}  # 6346334's files
    assert BlueprintTable.from_arrays(old, table.two).continuation == "chain"
    checkpoint = tmp_path / "b.npz.checkpoint.npz"
    write_npz(checkpoint, old)
    with pytest.raises(ValueError, match="other settings .*chain ends"):
        solve_blueprint(config, two, 20, checkpoint=checkpoint)


def _lbr_decisions(config: GameConfig, counts: bool) -> list[tuple[tuple, np.ndarray]]:
    """Every decision and lookahead value of an LBR against `one-third` at a table of three in the sixes game
    ``config``, its ranges over matching counts or (``counts`` False) over every hand (both checked)."""
    from ldpomdp.players import lbr, lbr_search

    original, seen = lbr_search.table_lookahead_values, []

    def spy(*args, **kwargs):
        actions, values = original(*args, **kwargs)
        rows = {len(r.support) - int(r.matching[:, -1].max()) for r in args[3].values()}  # counts: one per count
        assert rows == {1} if counts else max(rows) > 1
        seen.append((tuple(actions), np.asarray(values)))
        return actions, values

    palifico = 0
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(lbr_search, "table_lookahead_values", spy)
        if not counts:
            monkeypatch.setattr(lbr, "solver_hands", lambda dice, rules: hand_support(dice, rules.faces))
        for g in range(6):
            players = [lbr.LocalBestResponse("one-third", ends="fair"), make_player("one-third"),
                       make_player("bluff:0.3")]
            result = play_game(config, players, seeded_rng(np.random.SeedSequence(g), players))
            palifico += sum(r.palifico for r in result.rounds)
    assert palifico > 0 or not config.palifico
    return seen


@pytest.mark.parametrize("rules", [{}, {"palifico": True}, {"palifico": True, "exact_call": True}],
                         ids=["plain", "palifico", "palifico+exact"])
def test_lbr_ranges_over_matching_counts_in_the_sixes_game_decide_as_over_every_hand(rules):
    """In the sixes game LBR keeps each range over matching counts (in a palifico round, by its rules): its every
    decision and value against count-based policies is the one over every hand."""
    config = GameConfig(num_players=3, dice=3, bids="sixes", **rules)
    by_counts, by_hands = _lbr_decisions(config, True), _lbr_decisions(config, False)
    assert len(by_counts) == len(by_hands) > 20
    for (a, u), (b, v) in zip(by_counts, by_hands, strict=True):
        assert a == b
        np.testing.assert_allclose(u, v, rtol=0, atol=1e-12)


def test_the_fig6_rows_of_the_equilibrium_cover_the_sizes_solved_on_demand():
    for agent in ("cfr", "robust"):
        cells = EXPERIMENTS[f"fig6_{agent}"].cells()
        assert [c.dice for c in cells] == list(range(1, tables.SIXES_ON_DEMAND_DICE + 1))
        assert {c.players for c in cells} == {(agent, "one-third", "one-third")}
        assert {c.config.bids for c in cells} == {"sixes"}
