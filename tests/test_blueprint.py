"""The blueprint for three to six players (ldpomdp.exact.blueprint): the rounds' ends against a walk over every
history and joint hand, the values after a round against the rules, the table's file, the cfr player at tables of
3, 4 and 6, and the command that solves it."""

import itertools
import shutil

import numpy as np
import pytest

from ldpomdp.cli import main
from ldpomdp.errors import TableError
from ldpomdp.exact.blueprint import (
    BlueprintTable,
    end_probabilities,
    end_values,
    next_round_values,
    round_payoff,
    solve_blueprint,
)
from ldpomdp.exact.equilibrium import discard_checkpoint, rounds_folder
from ldpomdp.exact.multiplayer import NRoundCFR
from ldpomdp.exact.tables import SHIPPED_BLUEPRINT, SHIPPED_TABLE, table_for
from ldpomdp.game import PublicView, RoundStart, play_game
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.players.lbr import LocalBestResponse
from ldpomdp.players.robust import RobustPlayer
from ldpomdp.registry import make_player
from ldpomdp.rules import Bid, GameConfig, legal_actions
from ldpomdp.sweeps.runner import worker_pool

TWO = table_for(GameConfig())  # the shipped two-player table (today's rules, 1-5 dice each)


@pytest.mark.parametrize("preset", [None, "dudo"])
def test_round_ends_equal_a_walk_over_every_history_and_joint_hand(preset):
    """Each challenge's probability, by caller and by what the bid missed by (Dudo: Perudo bids on ones)."""
    config = (GameConfig(num_players=3, dice=1, faces=3) if preset is None
              else GameConfig.preset(preset, num_players=3, dice=1, faces=3))
    solver = NRoundCFR(config, (1, 1, 1), 1, samples=4, max_tuples=1, seed=1)
    solver.run(20)  # any strategy far from uniform
    strategy, r = solver.average_strategy(), solver.round
    tuples = list(itertools.product(*(range(len(h)) for h in r.hands)))
    rows = np.array(tuples).T
    weight = np.prod([r.priors[j][rows[j]] for j in range(3)], axis=0)
    got = end_probabilities(solver, strategy, rows, weight)
    want = np.zeros((3, 7))  # (caller, missed by + 3 dice)

    def walk(hands, history, p):
        seat = len(history) % 3
        window = tuple(history[-1:])
        s = r.index[(seat, window)]
        actions = r.actions(s)
        sigma = strategy[seat][hands[seat], r.edge_start[s] + np.arange(len(actions))]
        for action, q in zip(actions, sigma, strict=True):
            if isinstance(action, Bid):
                walk(hands, history + [action], p * q)
            else:
                bid = history[-1]
                count = sum(int(r.matches[j][hands[j], bid.face - 1]) for j in range(3))
                want[seat, bid.quantity - count + 3] += p * q

    for hands, w in zip(tuples, weight, strict=True):
        walk(hands, [], w)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert abs(got.sum() - 1.0) < 1e-12 and got[:, :3].sum() > 0 and got[:, 4:].sum() > 0


def test_values_after_a_round_follow_the_rules():
    table = BlueprintTable(GameConfig(num_players=3, dice=2), TWO, 1, 1, 1, 0)
    table.values[(2, 1, 1)] = np.array([0.5, 0.2, 0.3])
    # seat 0 (1 die) loses seat 1's challenge: out; seat 2 opens (the next seat with dice after the challenger)
    v = TWO.value((1, 2))
    np.testing.assert_allclose(next_round_values(table, (1, 2, 1), 1, 1), [0.0, (1 - v) / 2, (1 + v) / 2])
    # seat 2 loses its own challenge in (1, 2, 2): (1, 2, 1), seat 0 opens after the challenger
    table.values[(1, 2, 1)] = np.array([0.1, 0.6, 0.3])
    np.testing.assert_allclose(next_round_values(table, (1, 2, 2), 2, 0), [0.1, 0.6, 0.3])
    np.testing.assert_allclose(next_round_values(table, (1, 2, 2), 2, -3), [0.1, 0.6, 0.3])  # one die, by how much
    # seat 1 loses seat 2's challenge in (1, 2, 1): (1, 1, 1) from seat 0, the seat after the challenger
    table.values[(1, 1, 1)] = np.array([0.4, 0.35, 0.25])
    np.testing.assert_allclose(next_round_values(table, (1, 2, 1), 2, 2), [0.4, 0.35, 0.25])
    # seat 0 loses seat 0's challenge in (2, 1, 1): (1, 1, 1) opened by seat 1
    np.testing.assert_allclose(next_round_values(table, (2, 1, 1), 0, 0), [0.25, 0.4, 0.35])


def test_values_after_a_round_lost_by_the_difference():
    """Dudo: the loser loses what the bid missed by (the challenger one more), several dice at once."""
    two = table_for(GameConfig.preset("dudo", dice=2))
    table = BlueprintTable(GameConfig.preset("dudo", num_players=3, dice=2), two, 1, 1, 1, 0)
    table.values[(2, 1, 1)] = np.array([0.5, 0.2, 0.3])  # in turn from the opener
    # seat 2's bid missed seat 0's challenge by 2: its 2 dice lost, seat 1 (after the challenger) opens 1 against 2
    v = two.value((1, 2))
    np.testing.assert_allclose(next_round_values(table, (2, 1, 2), 0, 2), [(1 - v) / 2, (1 + v) / 2, 0.0])
    # seat 1 challenges a bid holding with one to spare: it loses 2 dice, its one; seat 2 opens 2 against 2
    w = two.value((2, 2))
    np.testing.assert_allclose(next_round_values(table, (2, 1, 2), 1, -1), [(1 - w) / 2, 0.0, (1 + w) / 2])
    # the bid missed by 1: seat 0 (seat 1's bidder) loses one die of its 2; seat 2 opens (2, 1, 1) from it
    np.testing.assert_allclose(next_round_values(table, (2, 1, 2), 1, 1), [0.2, 0.3, 0.5])


@pytest.fixture(scope="module")
def blueprints(tmp_path_factory):
    """Blueprints for 3, 4 and 6 players with 1 die each (few iterations: the tests check play, not strength)."""
    folder = tmp_path_factory.mktemp("blueprints")
    paths = {}
    for n in (3, 4, 6):
        table = solve_blueprint(GameConfig(num_players=n, dice=1), TWO, iterations=3, samples=4, seed=n)
        paths[n] = table.save(folder / f"blueprint{n}.npz")
    return paths


def test_table_file_round_trip_and_refusals(blueprints, tmp_path):
    solved = solve_blueprint(GameConfig(num_players=3, dice=2), TWO, iterations=3, samples=4, seed=1)
    loaded = BlueprintTable.load(solved.save(tmp_path / "b.npz"), TWO)
    assert set(loaded.strategies) == set(solved.strategies) == {(1, 1, 1), (1, 1, 2), (1, 2, 1), (2, 1, 1),
                                                                (1, 2, 2), (2, 1, 2), (2, 2, 1), (2, 2, 2)}
    for dice, per_seat in solved.strategies.items():
        assert all(np.array_equal(a, b) for a, b in zip(per_seat, loaded.strategies[dice], strict=True))
        np.testing.assert_array_equal(loaded.values[dice], solved.values[dice])
        assert abs(solved.values[dice].sum() - 1.0) < 1e-9
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(blueprints[3].read_bytes()[:200])
    with pytest.raises(TableError, match="damaged.npz"):
        BlueprintTable.load(damaged, TWO)
    player = CFRPlayer(str(blueprints[3]))
    with pytest.raises(ValueError, match="is for 3 players"):
        player.reset(0, GameConfig(num_players=4, dice=1))
    with pytest.raises(TableError, match="it is a blueprint for 3 players"):
        CFRPlayer(str(blueprints[3])).reset(0, GameConfig(dice=1))
    with pytest.raises(TableError, match="it is a two-player table"):
        BlueprintTable.load(SHIPPED_TABLE, TWO)
    with pytest.raises(ValueError, match="checkpoint .* other settings"):
        solve_blueprint(GameConfig(num_players=3, dice=1), TWO, iterations=4, samples=4, seed=3,
                        checkpoint=blueprints[3])
    with pytest.raises(ValueError, match="today's and Dudo's"):
        CFRPlayer().reset(0, GameConfig(num_players=3, dice=1, exact_call=True))


def _same_tables(a: BlueprintTable, b: BlueprintTable) -> bool:
    return a.settings() == b.settings() and a.strategies.keys() == b.strategies.keys() and all(
        all(np.array_equal(x, y) for x, y in zip(a.strategies[d], b.strategies[d], strict=True))
        and np.array_equal(a.values[d], b.values[d]) for d in a.strategies)


def test_workers_and_a_resumed_solve_give_the_same_table(tmp_path):
    config = GameConfig(num_players=4, dice=2, faces=3)
    two = table_for(GameConfig(dice=2, faces=3))
    alone = solve_blueprint(config, two, iterations=3, samples=4, seed=2)
    checkpoint = tmp_path / "b4.npz.checkpoint.npz"
    with worker_pool(2) as (pool, _):
        shared = solve_blueprint(config, two, iterations=3, samples=4, seed=2, checkpoint=checkpoint, executor=pool)
    assert _same_tables(alone, shared) and len(alone.strategies) == 8 + 16
    files = sorted(rounds_folder(checkpoint).glob("round_*.npz"))
    assert len(files) == 24
    for path in files[::3]:  # as if stopped before these rounds were saved, one write's temporary file left
        path.rename(path.with_name(path.name + ".123.456.tmp.npz"))
    damaged = files[1].read_bytes()
    files[1].write_bytes(damaged[:100])
    with pytest.raises(TableError, match=rf"{files[1].name}: .*delete this file to solve its round again"):
        solve_blueprint(config, two, iterations=3, samples=4, seed=2, checkpoint=checkpoint)
    files[1].write_bytes(damaged)
    done: list[int] = []
    resumed = solve_blueprint(config, two, iterations=3, samples=4, seed=2, checkpoint=checkpoint,
                              progress=done.append)
    assert _same_tables(alone, resumed)
    assert done == [3 * 16] + [1] * 3 * 8  # the 16 rounds saved, then the 8 missing solved again
    assert list(alone.arrays()) == list(resumed.arrays())  # saved in one order, however solved
    other = tmp_path / "b3.npz.checkpoint.npz"
    solve_blueprint(GameConfig(num_players=3, dice=1, faces=3), two, iterations=3, samples=4, seed=2,
                    checkpoint=other)
    shutil.copy(rounds_folder(other) / "round_1_1_1.npz", rounds_folder(checkpoint) / "round_1_1_1.npz")
    with pytest.raises(ValueError, match=r"round_1_1_1\.npz was solved with other settings \(3 players"):
        solve_blueprint(config, two, iterations=3, samples=4, seed=2, checkpoint=checkpoint)
    checkpoint.unlink()  # round files left without their checkpoint are cleared by the next solve
    again = solve_blueprint(config, two, iterations=3, samples=4, seed=3, checkpoint=checkpoint)
    assert len(list(rounds_folder(checkpoint).glob("round_*"))) == 24 and again.seed == 3
    discard_checkpoint(checkpoint)
    assert not checkpoint.exists() and not rounds_folder(checkpoint).exists()


DUDO3 = GameConfig.preset("dudo", num_players=3, dice=2)


@pytest.fixture(scope="module")
def dudo3(tmp_path_factory):
    """A Dudo blueprint for three players, 2 dice each (few iterations: the tests check values and play), its file."""
    two = table_for(GameConfig.preset("dudo", dice=2))
    table = solve_blueprint(DUDO3, two, iterations=3, samples=4, seed=1)
    return table.save(tmp_path_factory.mktemp("dudo") / "dudo3.npz")


def test_a_dudo_blueprint_keeps_its_rules_and_plays_whole_games(dudo3):
    """Under Dudo's rules (Perudo bids, loss by the difference) at three players, 2 dice each: the file keeps the
    rules (in a format today's readers refuse; today's table refuses the game and this one today's), and cfr, lbr
    valuing its ends by it, and robust on it play whole games, where a round can take two dice from a seat; robust
    exploits two one-third."""
    two = table_for(GameConfig.preset("dudo", dice=2))
    loaded = BlueprintTable.load(dudo3, two)
    assert (loaded.config.wild_bids, loaded.config.loss) == ("perudo", "difference") and len(loaded.strategies) == 8
    assert all(abs(v.sum() - 1.0) < 1e-9 for v in loaded.values.values())
    assert int(np.load(dudo3)["format"]) == BlueprintTable.VARIANTS_FORMAT != BlueprintTable.FORMAT
    with pytest.raises(ValueError, match="loss by the difference; the game has 3 players, full game"):
        CFRPlayer(str(dudo3)).reset(0, GameConfig(num_players=3, dice=2))
    with pytest.raises(ValueError, match="the two-player table is for full game, 6 faces, ones wild; the blueprint's"):
        solve_blueprint(DUDO3, TWO, iterations=1, samples=4)
    spec = f"cfr:table={dudo3}"
    lbr, robust = make_player(f"lbr:one-third,table={dudo3}"), RobustPlayer(safe=spec)
    lost_two = exploited = 0
    for seats in ([make_player(spec), make_player("one-third"), make_player(spec)],
                  [lbr, make_player(spec), make_player("one-third")], [robust, make_player("one-third"), lbr]):
        for seed in range(4):
            record = play_game(DUDO3, seats, seed)
            assert record.winner in (0, 1, 2)
            lost_two += any(abs(r.matching - r.final_bid.quantity) >= 2 - (r.loser == r.challenger)
                            for r in record.rounds)
    for seed in range(12):
        seats = [robust, make_player("one-third"), make_player("one-third")]
        play_game(DUDO3, seats[seed % 3:] + seats[:seed % 3], seed)
        exploited += robust.exploited
    assert lost_two > 0 and exploited > 0


def test_end_values_take_each_challenge_by_what_the_bid_missed_by(dudo3):
    """Dudo, (2, 1, 2) in turn from the opener: each end is :func:`next_round_values` of its caller and what the bid
    missed by (a bid missing by 2 costs its bidder 2 dice, by 1 one), and the round's payoff gives each seat its own."""
    table = BlueprintTable.load(dudo3, table_for(GameConfig.preset("dudo", dice=2)))
    dice, t = (2, 1, 2), 5
    ends = end_values(table, dice)
    for caller, m in itertools.product(range(3), range(-t, t + 1)):
        np.testing.assert_array_equal(ends[caller, m + t], next_round_values(table, dice, caller, m))
    assert ends[0, t + 2, 2] == 0.0 < ends[0, t + 1, 2]  # seat 0 challenges seat 2's bid: out of dice, or one left
    drawn = np.random.default_rng(0).random((3, 2 * t + 1, 3))
    payoff = round_payoff(dice, drawn)
    for seat, caller, column in itertools.product(range(3), range(3), range(2 * t + 1)):
        assert payoff.challenge[seat, caller, column] == drawn[caller, column, seat]


def test_lbr_reads_the_blueprints_ends_for_its_own_seat(dudo3):
    """LBR at seat 1 of a Dudo round opened by seat 2: each seat's challenge of what missed by m is worth to LBR what
    the blueprint's ends give LBR's place from the opener."""
    lbr = LocalBestResponse("one-third", table=str(dudo3))
    lbr.reset(1, DUDO3)
    lbr.observe(RoundStart(0, (1, 2, 2), 2))
    order, t = [2, 0, 1], 5  # seats in turn from the opener
    table = lbr._blueprint
    for caller, m in itertools.product(range(3), range(-t, t + 1)):
        want = next_round_values(table, (2, 1, 2), order.index(caller), m)[order.index(1)]
        assert lbr._ends.challenge[caller, m + t] == want


@pytest.mark.parametrize("players", [3, 4, 6])
def test_cfr_plays_whole_games_at_tables_of_three_to_six(blueprints, players):
    config = GameConfig(num_players=players, dice=1)
    spec = f"cfr:table={blueprints[players]}"
    seats = [make_player(spec)] + [make_player("one-third") for _ in range(players - 2)] + [make_player(spec)]
    winners = {play_game(config, seats, seed).winner for seed in range(12)}
    assert winners <= set(range(players)) and len(winners) > 1


@pytest.mark.parametrize("players", [4, 6])
def test_lbr_and_robust_play_whole_games_with_a_blueprint_for_their_table(blueprints, players):
    """At 4 and 6 players ``lbr`` against a ``cfr`` policy values its round ends by that policy's blueprint (its
    lookahead runs at every turn of its seat), against another policy by the blueprint its ``table`` names, and
    ``robust`` plays the blueprint it is given."""
    config = GameConfig(num_players=players, dice=1)
    spec = f"cfr:table={blueprints[players]}"
    lbr, robust = LocalBestResponse(spec), RobustPlayer(safe=spec)
    quantal = make_player(f"lbr:quantal,table={blueprints[players]}")
    for seats in ([lbr] + [make_player(spec) for _ in range(players - 1)],
                  [robust] + [make_player("one-third") for _ in range(players - 1)],
                  [quantal] + [make_player("one-third") for _ in range(players - 1)]):
        assert {play_game(config, seats, seed).winner for seed in range(4)} <= set(range(players))
    assert lbr._blueprint is CFRPlayer(str(blueprints[players])).blueprint(config)  # the same cached table
    assert quantal._blueprint is lbr._blueprint
    assert robust.decisions > 0 and len(robust.exploiter.models) == players - 1
    with pytest.raises(ValueError, match="blueprint valuing its round's ends covers up to 1 dice each"):
        LocalBestResponse(spec).reset(0, GameConfig(num_players=players, dice=2))


def test_action_probabilities_are_a_distribution_over_the_legal_actions(blueprints):
    config = GameConfig(num_players=4, dice=1)
    player = CFRPlayer(str(blueprints[4]))
    player.reset(2, config)
    table = BlueprintTable.load(blueprints[4], TWO)
    hands = np.eye(6, dtype=np.int64)  # every one-die hand, rows 5..0 of hand_support(1, 6)
    rows = np.arange(6)[::-1]
    # seat 1 has no dice: seat 2 is the second of the three seats with dice from the opener, seat 0
    view = PublicView(config, seat=2, dice=(1, 0, 1, 1), history=((0, Bid(1, 3)),))
    legal = legal_actions(config, 3, Bid(1, 3))
    r = table.round((1, 1, 1))
    want = table.probabilities((1, 1, 1), 1, r.index[(1, (Bid(1, 3),))], rows)
    got = np.stack([player.action_probabilities(hands, view, a) for a in legal], axis=1)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)
    # two seats left (2 and 3): the two-player table, seat 3 the responder of the round seat 2 opened
    two = PublicView(config, seat=3, dice=(0, 0, 1, 1), history=((2, Bid(1, 3)),))
    pair = TWO.round((1, 1))
    state = pair.state_of(1, (pair.bid_index[Bid(1, 3)],))
    want = TWO.probabilities((1, 1), 1, state, pair.hand_rows(1, hands))
    got = np.stack([player.action_probabilities(hands, two, a) for a in pair.actions(state)], axis=1)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seat, opener", [(1, 2), (0, 1), (3, 0), (2, 2), (0, 3)])
def test_every_seat_of_a_four_seat_round_plays_its_position_from_the_opener(blueprints, seat, opener):
    config = GameConfig(num_players=4, dice=1)
    table = BlueprintTable.load(blueprints[4], TWO)
    r, position = table.round((1, 1, 1, 1)), (seat - opener) % 4
    bids = [Bid(1, 3), Bid(1, 4), Bid(1, 6)][:position]
    history = tuple(((opener + i) % 4, bid) for i, bid in enumerate(bids))
    player = CFRPlayer(str(blueprints[4]))
    player.reset(seat, config)
    hands = np.asarray(r.hands[position])
    view = PublicView(config, seat=seat, dice=(1, 1, 1, 1), history=history)
    state = r.index[(position, tuple(bids[-1:]))]
    got = np.stack([player.action_probabilities(hands, view, a) for a in r.actions(state)], axis=1)
    want = table.probabilities((1, 1, 1, 1), position, state, np.arange(len(hands)))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert tuple(legal_actions(config, 4, bids[-1] if bids else None)) == r.actions(state)


def test_solve_command_writes_a_blueprint_and_refuses_variants(tmp_path, capsys):
    out = tmp_path / "b3.npz"
    assert main(["solve", "equilibrium", "--players", "3", "--dice", "1", "--iterations", "2", "--out", str(out),
                 "--workers", "2", "--no-progress"]) == 0
    assert "cfr:table=" in capsys.readouterr().out
    assert set(BlueprintTable.load(out, TWO).strategies) == {(1, 1, 1)}
    checkpoint = out.with_name(out.name + ".checkpoint.npz")
    assert not checkpoint.exists() and not rounds_folder(checkpoint).exists()
    assert main(["solve", "equilibrium", "--dice", "1", "--workers", "2", "--out", str(tmp_path / "t.npz")]) == 2
    assert "--workers: two-player rounds are solved one after another" in capsys.readouterr().err
    assert main(["solve", "equilibrium", "--players", "3", "--rules", "perudo", "--dice", "1", "--out",
                 str(tmp_path / "p.npz")]) == 2
    assert "today's and Dudo's (full bids, no exact call, no palifico)" in capsys.readouterr().err


def test_shipped_tables_fit_the_wheel_budget():
    data = SHIPPED_BLUEPRINT.parent
    assert SHIPPED_BLUEPRINT.is_file()
    assert sum(f.stat().st_size for f in data.glob("*.npz")) < 40_000_000  # issue 32's budget for all tables


def test_default_cfr_plays_the_shipped_blueprint_at_three_players_5_dice():
    config = GameConfig(num_players=3, dice=5)
    player = make_player("cfr")
    player.reset(0, config)
    table = player._table_of(config)
    assert isinstance(table, BlueprintTable) and table.max_dice == 5 and len(table.strategies) == 125
    assert all(abs(v.sum() - 1.0) < 1e-9 for v in table.values.values())
    seats = [player, make_player("expected-count"), make_player("one-third")]
    assert play_game(config, seats, 0).winner in (0, 1, 2)
