"""The blueprint for three to six players (exact.many_players.blueprint): the rounds' ends against a walk over every
history and joint hand, the values after a round against the rules, the table's file, the cfr player at tables of
3, 4 and 6, and the command that solves it."""

import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

from ldpomdp.cli import main
from ldpomdp.datafiles import write_npz
from ldpomdp.errors import TableError
from ldpomdp.exact.many_players.blueprint import (
    _expected,
    blueprint_rounds,
    end_probabilities,
    end_values,
    solve_blueprint,
)
from ldpomdp.exact.many_players.round_cfr import NRoundCFR
from ldpomdp.exact.many_players.states import (
    SeatsState,
    chain_win_probabilities,
    follow,
    seat_slots,
    seat_states,
    usual_state,
)
from ldpomdp.exact.many_players.table import BlueprintTable
from ldpomdp.exact.tables import SHIPPED_BLUEPRINT, SHIPPED_TABLE, table_for
from ldpomdp.exact.two_player.equilibrium import discard_checkpoint, rounds_folder
from ldpomdp.game import GameRecord, PublicView, RoundStart, play_game
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.players.lbr import LocalBestResponse
from ldpomdp.players.robust import RobustPlayer
from ldpomdp.registry import make_player
from ldpomdp.rules import CHALLENGE, EXACT, Bid, GameConfig, legal_actions
from ldpomdp.sweeps.runner import worker_pool

TWO = table_for(GameConfig())  # the shipped two-player table (today's rules, 1-5 dice each)


@pytest.mark.parametrize("preset", [None, "dudo", "perudo"])
def test_round_ends_equal_a_walk_over_every_history_and_joint_hand(preset):
    """Each challenge's probability, by caller and by what the bid missed by (Dudo: Perudo bids on ones), and under
    Perudo's rules each caller's wrong and right exact calls."""
    config = (GameConfig(num_players=3, dice=1, faces=3) if preset is None
              else GameConfig.preset(preset, num_players=3, dice=1, faces=3))
    solver = NRoundCFR(config, (1, 1, 1), 1, samples=4, max_tuples=1, seed=1)
    solver.run(20)  # any strategy far from uniform
    strategy, r = solver.average_strategy(), solver.round
    tuples = list(itertools.product(*(range(len(h)) for h in r.hands)))
    rows = np.array(tuples).T
    weight = np.prod([r.priors[j][rows[j]] for j in range(3)], axis=0)
    got = end_probabilities(solver, strategy, rows, weight)
    want = np.zeros(3 * 7 + (6 if config.exact_call else 0))  # (caller, missed by + 3 dice), then (caller, right)

    def walk(hands, history, p):
        seat = len(history) % 3
        window = tuple(history[-1:])
        s = r.index[(seat, window)]
        actions = r.actions(s)
        sigma = strategy[seat][hands[seat], r.edge_start[s] + np.arange(len(actions))]
        for action, q in zip(actions, sigma, strict=True):
            if isinstance(action, Bid):
                walk(hands, history + [action], p * q)
                continue
            bid = history[-1]
            count = sum(int(r.matches[j][hands[j], bid.face - 1]) for j in range(3))
            if action is EXACT:
                want[21 + 2 * seat + int(count == bid.quantity)] += p * q
            else:
                want[7 * seat + bid.quantity - count + 3] += p * q

    for hands, w in zip(tuples, weight, strict=True):
        walk(hands, [], w)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert abs(got.sum() - 1.0) < 1e-12 and got[:21].reshape(3, 7)[:, :3].sum() > 0
    assert got[:21].reshape(3, 7)[:, 4:].sum() > 0 and (not config.exact_call or got[21:].min() > 0)


def _after(table: BlueprintTable, dice: tuple[int, ...], caller: int, missing: int) -> np.ndarray:
    """Each seat's win probability after ``caller`` challenges a bid that missed by ``missing`` in the round with
    ``dice`` (in turn from the opener), as ``end_values`` gives it."""
    table.values = {key: table.values.get(key, np.full(3, 1 / 3)) for key in blueprint_rounds(table.config)}
    return end_values(table, SeatsState(dice)).challenge[:, caller, missing + sum(dice)]


def test_values_after_a_round_follow_the_rules():
    table = BlueprintTable(GameConfig(num_players=3, dice=2), TWO, 1, 1, 1, 0)
    table.values[((2, 1, 1), False)] = np.array([0.5, 0.2, 0.3])
    # seat 0 (1 die) loses seat 1's challenge: out; seat 2 opens (the next seat with dice after the challenger)
    v = TWO.value((1, 2))
    np.testing.assert_allclose(_after(table, (1, 2, 1), 1, 1), [0.0, (1 - v) / 2, (1 + v) / 2])
    # seat 2 loses its own challenge in (1, 2, 2): (1, 2, 1), seat 0 opens after the challenger
    table.values[((1, 2, 1), False)] = np.array([0.1, 0.6, 0.3])
    np.testing.assert_allclose(_after(table, (1, 2, 2), 2, 0), [0.1, 0.6, 0.3])
    np.testing.assert_allclose(_after(table, (1, 2, 2), 2, -3), [0.1, 0.6, 0.3])  # one die, by how much
    # seat 1 loses seat 2's challenge in (1, 2, 1): (1, 1, 1) from seat 0, the seat after the challenger
    table.values[((1, 1, 1), False)] = np.array([0.4, 0.35, 0.25])
    np.testing.assert_allclose(_after(table, (1, 2, 1), 2, 2), [0.4, 0.35, 0.25])
    # seat 0 loses seat 0's challenge in (2, 1, 1): (1, 1, 1) opened by seat 1
    np.testing.assert_allclose(_after(table, (2, 1, 1), 0, 0), [0.25, 0.4, 0.35])


def test_values_after_a_round_lost_by_the_difference():
    """Dudo: the loser loses what the bid missed by (the challenger one more), several dice at once."""
    two = table_for(GameConfig.preset("dudo", dice=2))
    table = BlueprintTable(GameConfig.preset("dudo", num_players=3, dice=2), two, 1, 1, 1, 0)
    table.values[((2, 1, 1), False)] = np.array([0.5, 0.2, 0.3])  # in turn from the opener
    # seat 2's bid missed seat 0's challenge by 2: its 2 dice lost, seat 1 (after the challenger) opens 1 against 2
    v = two.value((1, 2))
    np.testing.assert_allclose(_after(table, (2, 1, 2), 0, 2), [(1 - v) / 2, (1 + v) / 2, 0.0])
    # seat 1 challenges a bid holding with one to spare: it loses 2 dice, its one; seat 2 opens 2 against 2
    w = two.value((2, 2))
    np.testing.assert_allclose(_after(table, (2, 1, 2), 1, -1), [(1 - w) / 2, 0.0, (1 + w) / 2])
    # the bid missed by 1: seat 0 (seat 1's bidder) loses one die of its 2; seat 2 opens (2, 1, 1) from it
    np.testing.assert_allclose(_after(table, (2, 1, 2), 1, 1), [0.2, 0.3, 0.5])


def test_states_after_a_round_under_perudos_rules():
    """Perudo (3 players, 3 dice each, in turn from the opener; the seat after the caller opens next): a right exact
    call gives the caller a die back (none above 3), a wrong one costs it a die; a seat dropping to one die for the
    first time plays its palifico round and has had it; a seat back above one die keeps having had it."""
    config = GameConfig.preset("perudo", num_players=3, dice=3)
    state = SeatsState((2, 3, 1), False, (False, False, True))
    # seat 1 (3 dice, its start) is right: no die back; seat 2 opens
    assert follow(config, state, (EXACT, 1, 0)) == (SeatsState((1, 2, 3), False, (True, False, False)), (1, 2, 0))
    # seat 0 is right: 3 dice; seat 1 opens
    assert follow(config, state, (EXACT, 0, 0)) == (SeatsState((3, 1, 3), False, (False, True, False)), (2, 0, 1))
    # seat 0 is wrong: one die left, its palifico round follows, opened by seat 1
    assert follow(config, state, (EXACT, 0, 1)) == (SeatsState((3, 1, 1), True, (False, True, True)), (2, 0, 1))
    # seat 2 challenges seat 1's bid that held: seat 2 is out, seat 0 (after the challenger) opens 2 against 3
    assert follow(config, state, (CHALLENGE, 2, 0)) == (SeatsState((2, 3)), (0, 1, -1))
    # seat 2, back to 2 dice, loses one: no second palifico round
    again = SeatsState((2, 3, 2), False, (False, False, True))
    assert follow(config, again, (CHALLENGE, 2, -1)) == (SeatsState((2, 3, 1), False, (False, False, True)),
                                                        (0, 1, 2))
    assert usual_state(config, ((2, 3, 1), False)) == state
    assert len(seat_slots(config, 3, 6)) == 3 * 13 + 6 and seat_slots(config, 3, 6)[-1] == (EXACT, 2, 0)


def test_the_chain_equals_value_iteration_where_rounds_give_dice_back():
    """Perudo, 3 players, 2 dice each: with random end probabilities per round, the chain's linear solution equals
    iterating each state's win probabilities to convergence; they sum to 1 at every state."""
    config = GameConfig.preset("perudo", num_players=3, dice=2)
    two = table_for(GameConfig.preset("perudo", dice=2))
    table = BlueprintTable(config, two, 1, 1, 1, 0)
    states = seat_states(config, [SeatsState((2, 2, 2))])
    rng = np.random.default_rng(4)
    ends = {}
    for s in states:
        p = rng.random(len(seat_slots(config, 3, sum(s.dice)))) ** 4
        ends[s.key] = p / p.sum()
    got = chain_win_probabilities(config, states, ends, table.state_win_probabilities)
    values = {s: np.full(3, 1 / 3) for s in states}
    for _ in range(2000):
        values = {s: sum(p * np.array([0.0 if k < 0 else (values[f] if f in values else
                                                           table.state_win_probabilities(f))[k] for k in place])
                         for p, (f, place) in ((p, follow(config, s, slot))
                                               for p, slot in zip(ends[s.key], seat_slots(config, 3, sum(s.dice)),
                                                                  strict=True)))
                  for s in states}
    assert len(states) > 20 and any(s.palifico for s in states) and any(s.had_palifico[0] and s.dice[0] > 1
                                                                          for s in states)
    for s in states:
        np.testing.assert_allclose(got[s], values[s], rtol=0, atol=1e-9)
        assert abs(got[s].sum() - 1.0) < 1e-9


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
    assert set(loaded.strategies) == set(solved.strategies) == {
        (d, False) for d in [(1, 1, 1), (1, 1, 2), (1, 2, 1), (2, 1, 1), (1, 2, 2), (2, 1, 2), (2, 2, 1), (2, 2, 2)]}
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
    with pytest.raises(ValueError, match="is for 3 players, full game.*the game has 3 players, sixes game"):
        CFRPlayer(str(blueprints[3])).reset(0, GameConfig(num_players=3, dice=1, bids="sixes"))
    with pytest.raises(ValueError, match="the exact call the blueprint takes equal starting dice"):
        CFRPlayer().reset(0, GameConfig(num_players=3, dice=(1, 2, 2), exact_call=True))


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


def _solved(preset: str, iterations: int, folder: Path) -> Path:
    """The file of a blueprint of ``preset``'s rules for three players, 2 dice each, seed 1 (few iterations: the
    tests check values and play)."""
    two = table_for(GameConfig.preset(preset, dice=2))
    table = solve_blueprint(GameConfig.preset(preset, num_players=3, dice=2), two, iterations, samples=4, seed=1)
    return table.save(folder / f"{preset}3.npz")


def _whole_games(config: GameConfig, path: Path, games: int) -> tuple[list[GameRecord], RobustPlayer]:
    """``games`` whole games in each of three seatings of cfr on the blueprint at ``path``, lbr valuing its ends by
    it, robust on it and one-third, each won by a seat: their records, and the robust player."""
    spec = f"cfr:table={path}"
    lbr, robust = make_player(f"lbr:one-third,table={path}"), RobustPlayer(safe=spec)
    records = []
    for seats in ([make_player(spec), make_player("one-third"), make_player(spec)],
                  [lbr, make_player(spec), make_player("one-third")], [robust, make_player("one-third"), lbr]):
        for seed in range(games):
            records.append(play_game(config, seats, seed))
            assert records[-1].winner in (0, 1, 2)
    return records, robust


@pytest.fixture(scope="module")
def dudo3(tmp_path_factory):
    return _solved("dudo", 3, tmp_path_factory.mktemp("dudo"))


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
    records, robust = _whole_games(DUDO3, dudo3, 4)
    lost_two = sum(abs(r.matching - r.final_bid.quantity) >= 2 - (r.loser == r.challenger)
                   for record in records for r in record.rounds)
    exploited = 0
    for seed in range(12):
        seats = [robust, make_player("one-third"), make_player("one-third")]
        play_game(DUDO3, seats[seed % 3:] + seats[:seed % 3], seed)
        exploited += robust.exploited
    assert lost_two > 0 and exploited > 0


def test_end_values_take_each_challenge_by_what_the_bid_missed_by(dudo3):
    """Dudo, (2, 1, 2) in turn from the opener: each end is worth to each seat its win probability from where the
    rules lead (a bid missing by 2 costs its bidder 2 dice, by 1 one), laid out as the round's payoff."""
    table = BlueprintTable.load(dudo3, table_for(GameConfig.preset("dudo", dice=2)))
    state, t = SeatsState((2, 1, 2)), 5
    payoff = end_values(table, state)
    assert payoff.exact is None and payoff.challenge.shape == (3, 3, 2 * t + 1)
    for caller, m in itertools.product(range(3), range(-t, t + 1)):
        following, place = follow(table.config, state, (CHALLENGE, caller, m))
        v = table.state_win_probabilities(following)
        want = [v[k] if k >= 0 else 0.0 for k in place]
        np.testing.assert_array_equal(payoff.challenge[:, caller, m + t], want)
    assert payoff.challenge[2, 0, t + 2] == 0.0 < payoff.challenge[2, 0, t + 1]  # out of dice, or one left
    worth = payoff.by_slot()
    assert worth.shape == (3, 3 * (2 * t + 1)) and worth[1, 2 * (2 * t + 1) + t + 1] == payoff.challenge[1, 2, t + 1]


def test_lbr_reads_the_blueprints_ends_for_its_own_seat(dudo3):
    """LBR at seat 1 of a Dudo round opened by seat 2: each seat's challenge of what missed by m is worth to LBR what
    the blueprint's ends give LBR's place from the opener."""
    lbr = LocalBestResponse("one-third", table=str(dudo3))
    lbr.reset(1, DUDO3)
    lbr.observe(RoundStart(0, (1, 2, 2), 2))
    order, t = [2, 0, 1], 5  # seats in turn from the opener
    payoff = end_values(lbr._blueprint, SeatsState((2, 1, 2)))
    for caller, m in itertools.product(range(3), range(-t, t + 1)):
        assert lbr._ends.challenge[caller, m + t] == payoff.challenge[order.index(1), order.index(caller), m + t]


PERUDO3 = GameConfig.preset("perudo", num_players=3, dice=2)


@pytest.fixture(scope="module")
def perudo3(tmp_path_factory):
    return _solved("perudo", 10, tmp_path_factory.mktemp("perudo"))


def test_a_perudo_blueprint_chains_its_rounds_to_their_fixed_point_and_plays_whole_games(perudo3):
    """Under Perudo's rules at three players, 2 dice each: the table holds the palifico rounds, two coarse sweeps
    and a full one; each round's values are the chain's fixed point under its ends (what its ends are worth there,
    weighed by their probabilities, the states after them in their own palifico history); cfr, lbr valuing its ends
    by it, and robust on it play whole games with exact calls and palifico rounds."""
    two = table_for(GameConfig.preset("perudo", dice=2))
    table = BlueprintTable.load(perudo3, two)
    assert table.config == PERUDO3 and table.sweeps == 3 and 0.0 < table.residual
    assert int(np.load(perudo3)["format"]) == BlueprintTable.CHAIN_FORMAT
    # a palifico round of one die first from the opener: only if another seat just dropped to one die, here 2
    assert len(table.strategies) == 14 and {d for d, palifico in table.strategies if palifico} == {
        (1, 1, 1), (1, 1, 2), (1, 2, 1), (2, 1, 1), (2, 1, 2), (2, 2, 1)}
    fixed = chain_win_probabilities(PERUDO3, seat_states(PERUDO3, [SeatsState((2, 2, 2))]), table.ends,
                                    table.state_win_probabilities)
    for key, values in table.values.items():
        np.testing.assert_array_equal(values, fixed[usual_state(PERUDO3, key)])
        payoff = end_values(table, usual_state(PERUDO3, key), fixed.__getitem__)
        np.testing.assert_allclose(payoff.by_slot() @ table.ends[key], values, rtol=0, atol=1e-9)
        np.testing.assert_allclose(_expected(payoff, table.ends[key]), values, rtol=0, atol=1e-9)
        assert abs(values.sum() - 1.0) < 1e-9 and abs(table.ends[key].sum() - 1.0) < 1e-9
    with pytest.raises(ValueError, match="is for 3 players, full game, 6 faces, ones wild, Perudo bids on ones, "
                                         "exact call, palifico, starting with 2 dice each; the game has 3 players"):
        CFRPlayer(str(perudo3)).reset(0, GameConfig.preset("perudo", num_players=3, dice=1))
    records, robust = _whole_games(PERUDO3, perudo3, 6)
    rounds = [r for record in records for r in record.rounds]
    assert any(r.exact for r in rounds) and any(r.palifico for r in rounds) and robust.decisions > 0


def test_cfr_plays_a_palifico_round_as_the_blueprint_says(perudo3):
    """Seat 1 responds in a palifico round (2, 1, 2) opened by seat 0: cfr's probabilities are the palifico
    round's, not the ordinary round's of the same dice."""
    table = BlueprintTable.load(perudo3, table_for(GameConfig.preset("perudo", dice=2)))
    player = CFRPlayer(str(perudo3))
    player.reset(1, PERUDO3)
    rules = PERUDO3.round_rules(True)
    view = PublicView(rules, seat=1, dice=(2, 1, 2), history=((0, Bid(1, 4)),))
    r = table.round((2, 1, 2), True)
    state = r.index[(1, (Bid(1, 4),))]
    hands = np.asarray(r.hands[1])
    got = np.stack([player.action_probabilities(hands, view, a) for a in r.actions(state)], axis=1)
    want = table.probabilities((2, 1, 2), 1, state, np.arange(len(hands)), True)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    ordinary = table.round((2, 1, 2))
    assert r.actions(state) != ordinary.actions(ordinary.index[(1, (Bid(1, 4),))])  # the face is fixed


def test_lbr_and_robust_read_the_exact_calls_and_palifico_rounds_of_a_perudo_blueprint(perudo3):
    """LBR at seat 1 of a Perudo round opened by seat 2: each seat's challenge and its wrong and right exact calls
    are worth to LBR what the blueprint's ends give LBR's place; robust values a palifico round's start by the
    palifico round's win probabilities, not the ordinary round's of the same dice."""
    lbr = LocalBestResponse("one-third", table=str(perudo3))
    lbr.reset(1, PERUDO3)
    lbr.observe(RoundStart(0, (1, 2, 2), 2))
    order, t = [2, 0, 1], 5
    payoff = end_values(lbr._blueprint, SeatsState((2, 1, 2)))
    me = order.index(1)
    for caller in range(3):
        np.testing.assert_array_equal(lbr._ends.challenge[caller], payoff.challenge[me, order.index(caller)])
        np.testing.assert_array_equal(lbr._ends.exact[caller], payoff.exact[me, order.index(caller)])
    assert len(lbr._ends.challenge[0]) == 2 * t + 1 and lbr._ends.exact[0, 0] != lbr._ends.exact[0, 1]
    robust = RobustPlayer(safe=f"cfr:table={perudo3}")
    robust.reset(1, PERUDO3)
    table = lbr._blueprint
    palifico, ordinary = table.values[((2, 1, 2), True)], table.values[((2, 1, 2), False)]
    assert robust._value((1, 2, 2), 2, True) == 2.0 * palifico[me] - 1.0 != 2.0 * ordinary[me] - 1.0
    np.testing.assert_array_equal(table.state_win_probabilities(SeatsState((2, 1, 2), True)), palifico)


def test_palifico_rounds_where_dice_are_only_lost(tmp_path):
    """Today's rules with palifico rounds (no exact call), 3 players, 2 dice each, 3 faces: one sweep, a palifico round
    beside each ordinary round with a seat at one die, and cfr plays whole games that have palifico rounds."""
    config = GameConfig(num_players=3, dice=2, faces=3, palifico=True)
    table = solve_blueprint(config, table_for(GameConfig(dice=2, faces=3, palifico=True)), 3, samples=4, seed=1)
    assert table.sweeps == 1 and table.residual == 0.0
    assert {d for d, palifico in table.strategies if palifico} == {d for d, _ in table.strategies if 1 in d}
    seats = [CFRPlayer(str(table.save(tmp_path / "b.npz"))), make_player("one-third"), make_player("one-third")]
    rounds = [r for seed in range(6) for r in play_game(config, seats, seed).rounds]
    assert any(r.palifico for r in rounds)


def test_a_perudo_solve_resumed_in_any_sweep_gives_the_same_table(tmp_path):
    """Stopped in each of its sweeps (two coarse ones of 2 iterations a round, then full ones of 20) and resumed,
    the last time with two workers: the same table as one run; a finished solve asked for one more full sweep
    continues from its last to the table of a run of two full sweeps; no sweeps, or a damaged estimate, refused."""
    config = GameConfig.preset("perudo", num_players=3, dice=2, faces=3)
    two = table_for(GameConfig.preset("perudo", dice=2, faces=3))
    alone = solve_blueprint(config, two, iterations=20, samples=4, seed=2)
    checkpoint = tmp_path / "p.npz.checkpoint.npz"
    rounds = len(blueprint_rounds(config))

    def stop_at(iterations: int):
        done = []

        def progress(k):  # the first call counts the iterations resumed
            done.append(k)
            if sum(done) >= iterations:
                raise KeyboardInterrupt
        return progress

    for iterations in (rounds, 3 * rounds, 4 * rounds + 10 * rounds):  # within sweeps 1, 2 and 3
        with pytest.raises(KeyboardInterrupt):
            solve_blueprint(config, two, iterations=20, samples=4, seed=2, checkpoint=checkpoint,
                            progress=stop_at(iterations))
    assert int(np.load(checkpoint)["sweeps"]) == 2 and "estimate" in np.load(checkpoint)
    with worker_pool(2) as (pool, _):
        resumed = solve_blueprint(config, two, iterations=20, samples=4, seed=2, checkpoint=checkpoint, executor=pool)
    assert _same_tables(alone, resumed) and resumed.residual == alone.residual and resumed.sweeps == 3
    more = solve_blueprint(config, two, iterations=20, samples=4, seed=2, checkpoint=checkpoint, sweeps=2)
    twice = solve_blueprint(config, two, iterations=20, samples=4, seed=2, sweeps=2)
    assert more.sweeps == twice.sweeps == 4 and _same_tables(more, twice) and not _same_tables(alone, more)
    assert more.residual == twice.residual
    with pytest.raises(ValueError, match="sweeps must be >= 1"):
        solve_blueprint(config, two, iterations=20, sweeps=0)
    data = dict(np.load(checkpoint))
    write_npz(checkpoint, {**data, "estimate": data["estimate"][:-1]})
    with pytest.raises(ValueError, match="delete it to start afresh"):
        solve_blueprint(config, two, iterations=20, samples=4, seed=2, checkpoint=checkpoint, sweeps=3)


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


def test_solve_command_writes_a_blueprint_under_todays_rules_perudos_and_the_sixes_game(tmp_path, capsys):
    out = tmp_path / "b3.npz"
    assert main(["solve", "equilibrium", "--players", "3", "--dice", "1", "--iterations", "2", "--out", str(out),
                 "--workers", "2", "--no-progress"]) == 0
    assert "cfr:table=" in capsys.readouterr().out
    assert set(BlueprintTable.load(out, TWO).strategies) == {((1, 1, 1), False)}
    checkpoint = out.with_name(out.name + ".checkpoint.npz")
    assert not checkpoint.exists() and not rounds_folder(checkpoint).exists()
    assert main(["solve", "equilibrium", "--dice", "1", "--workers", "2", "--out", str(tmp_path / "t.npz")]) == 2
    assert "--workers: two-player rounds are solved one after another" in capsys.readouterr().err
    perudo = tmp_path / "p.npz"
    assert main(["solve", "equilibrium", "--players", "3", "--rules", "perudo", "--dice", "1", "--iterations", "20",
                 "--sweeps", "2", "--out", str(perudo), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    table = BlueprintTable.load(perudo, table_for(GameConfig.preset("perudo", dice=1)))
    assert table.config.exact_call and table.sweeps == 4 and "4 sweep(s), fixed point residual" in printed
    assert not perudo.with_name(perudo.name + ".checkpoint.npz").exists() or table.residual > 1e-3
    sixes = tmp_path / "s.npz"
    assert main(["solve", "equilibrium", "--players", "3", "--bids", "sixes", "--dice", "2", "--iterations", "5",
                 "--out", str(sixes), "--no-progress"]) == 0
    assert "ends are worth fair rounds' win probabilities" in capsys.readouterr().out
    assert BlueprintTable.load(sixes, table_for(GameConfig(dice=2, bids="sixes"))).continuation == "fair"


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
