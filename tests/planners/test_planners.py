"""The expected-count and POMCP planners: obvious decisions, whole games, deprivation, specs."""

from __future__ import annotations

import numpy as np
import pytest
from ldpomdp.planners import ExpectedCountPlanner, POMCPPlanner

from ldpomdp import CHALLENGE, ActionTaken, Bid, GameConfig, OneThirdRule, PlayerView, RoundStart, make_player
from ldpomdp.game import play_game, rotate

PLANNERS = {
    "expected-particles": lambda: ExpectedCountPlanner(n_particles=2000, seed=1),
    "expected-exact": lambda: ExpectedCountPlanner(belief="exact", seed=1),
    "pomcp": lambda: POMCPPlanner(num_sims=300, n_root=300, n_particles=2000, seed=1),
}


def _decide(planner, config: GameConfig, hand: tuple[int, ...], opening: Bid):
    """Seat 0 hears seat 1 open with ``opening``, then decides."""
    planner.reset(0, config)
    dice = config.starting_dice
    planner.observe(RoundStart(0, dice, 1))
    view1 = PlayerView(config, 1, dice, (), 0)
    planner.observe(ActionTaken(1, opening, view1.public()))
    view = PlayerView(config, 0, dice, ((1, opening),), 0, hand=hand)
    return planner.act(view, np.random.default_rng(0))


@pytest.mark.parametrize("kind", PLANNERS)
@pytest.mark.parametrize("bids", ["sixes", "full"])
def test_challenges_a_bid_above_every_die_that_can_match(kind, bids):
    config = GameConfig(num_players=2, dice=5, bids=bids)
    hand = (0, 2, 1, 1, 1, 0)  # no one, no six: at most the opponent's 5 dice match sixes
    action = _decide(PLANNERS[kind](), config, hand, Bid(6, 6))
    assert action is CHALLENGE  # raising (7 sixes and more) is legal but hopeless


@pytest.mark.parametrize("kind", PLANNERS)
@pytest.mark.parametrize("bids", ["sixes", "full"])
def test_raises_over_a_bid_its_own_hand_proves(kind, bids):
    config = GameConfig(num_players=2, dice=5, bids=bids)
    hand = (2, 0, 0, 0, 1, 2)  # four dice match sixes (ones are wild)
    action = _decide(PLANNERS[kind](), config, hand, Bid(4, 6) if bids == "full" else Bid(1, 6))
    assert action is not CHALLENGE


@pytest.mark.parametrize("bids", ["sixes", "full"])
def test_expected_count_skips_the_belief_only_where_it_cannot_change_the_decision(bids):
    """Over every hand and standing bid: ``act`` (which does not ask the belief when the others'
    expectation cannot matter) equals the rule applied to the full estimate; it skips often in sixes."""
    from conftest import all_hands

    from ldpomdp.estimate import estimate_policy

    config = GameConfig(num_players=2, dice=(3, 4), bids=bids)
    planner = ExpectedCountPlanner(belief="exact")
    planner.reset(0, config)
    planner.observe(RoundStart(0, (3, 4), 0))
    asked, expected_total = [], planner.belief.expected_total
    planner.belief.expected_total = lambda face, wild: asked.append(face) or expected_total(face, wild)
    faces = (6,) if bids == "sixes" else range(1, 7)
    skipped, states = 0, 0
    for bid in [None] + [Bid(q, f) for q in range(1, 8) for f in faces]:
        for hand in all_hands(3, 6):
            history = () if bid is None else ((1, bid),)
            view = PlayerView(config, 0, (3, 4), history, 0, hand=tuple(int(x) for x in hand))
            p, raises, choice = estimate_policy(planner.estimate(view)[None, :], view)
            want = CHALLENGE if p[0] > 0 else raises[int(choice[0])]
            asked.clear()
            assert planner.act(view, np.random.default_rng(0)) == want
            skipped += not asked
            states += 1
    assert skipped > (states // 3 if bids == "sixes" else 0)


@pytest.mark.parametrize("bids", ["sixes", "full"])
def test_expected_count_estimate_adds_own_dice_and_belief(bids):
    config = GameConfig(num_players=2, dice=4, bids=bids)
    planner = ExpectedCountPlanner(belief="exact")
    planner.reset(0, config)
    planner.observe(RoundStart(0, (4, 4), 0))
    view = PlayerView(config, 0, (4, 4), (), 0, hand=(1, 0, 0, 0, 0, 3))
    # a fresh exact belief: 4 unseen dice, each matches six with prob. 1/3
    assert planner.estimate(view)[5] == pytest.approx(4 + 4 / 3)


def test_pomcp_deprivation_rebuilds_the_root_and_games_finish(capsys):
    """Few simulations: real observations the search never tried happen, and the planner carries on (the stopping
    rule off: every search runs its 8 simulations)."""
    totals = {"deprivations": 0, "games": 0}
    for bids, players in (("sixes", 2), ("full", 2), ("full", 3)):
        config = GameConfig(num_players=players, dice=4, bids=bids)
        planner = POMCPPlanner(num_sims=8, n_root=50, n_particles=500, max_depth=6, seed=2, settle=0)
        opponents = [OneThirdRule(0.5) for _ in range(players - 1)]
        for g in range(9 if bids == "sixes" else 8):
            seated, seat_of = rotate([planner, *opponents], g)
            record = play_game(config, seated, np.random.default_rng(g))
            assert record.winner in range(players)
            totals["games"] += 1
        totals["deprivations"] += planner.deprivations
        assert planner.decisions > 0 and planner.simulations == 8 * planner.decisions
    assert totals["games"] == 25
    assert totals["deprivations"] > 0, "the deprivation path was not exercised"
    assert capsys.readouterr().out == ""  # no stdout noise during games


@pytest.mark.parametrize("spec", ["expected-count:particles=1000", "expected-count:belief=exact,injection=0.1"])
def test_expected_count_finishes_50_games_against_bluffers(spec, capsys):
    games = 25
    for bids in ("sixes", "full"):
        config = GameConfig(num_players=2, dice=5, bids=bids)
        planner = make_player(spec)
        wins = 0
        for g in range(games):
            seated, seat_of = rotate([planner, OneThirdRule(0.5)], g)
            wins += play_game(config, seated, np.random.default_rng(g)).winner == seat_of[0]
        assert 0 <= wins <= games
    assert capsys.readouterr().out == ""


def test_pomcp_finishes_50_games_against_bluffers():
    for bids, dice in (("sixes", 3), ("full", 2)):
        config = GameConfig(num_players=2, dice=dice, bids=bids)
        planner = make_player("pomcp:sims=60,depth=6,n_root=100,particles=500")
        for g in range(25):
            seated, _ = rotate([planner, OneThirdRule(0.5)], g)
            assert play_game(config, seated, np.random.default_rng(100 + g)).winner in (0, 1)


def test_pomcp_games_are_reproducible_with_fixed_sims():
    config = GameConfig(num_players=2, dice=3, bids="full")

    def run():
        planner = POMCPPlanner(num_sims=40, n_root=60, n_particles=300, seed=5)
        return [r.actions for r in play_game(config, [planner, OneThirdRule(0.5)], np.random.default_rng(9)).rounds]

    assert run() == run()


def test_specs_and_options():
    p = make_player("expected-count:particles=500,injection=0.2,belief=exact")
    assert isinstance(p, ExpectedCountPlanner) and p.n_particles == 500 and p.injection == 0.2
    assert p.belief_kind == "exact"
    q = make_player("pomcp:sims=50,depth=4")
    assert isinstance(q, POMCPPlanner) and q.num_sims == 50 and q.max_depth == 4
    with pytest.raises(ValueError, match="belief"):
        make_player("expected-count:belief=magic")
    with pytest.raises(ValueError, match="num_sims"):
        make_player("pomcp:sims=0")
    with pytest.raises(ValueError, match="rollout"):
        make_player("pomcp:rollout=greedy")
    with pytest.raises(ValueError, match="n_root"):
        make_player("pomcp:n_root=0")
    with pytest.raises(ValueError, match="a search of time seconds takes no settle"):
        make_player("pomcp:time=0.1,settle=2")
    with pytest.raises(ValueError, match="action_probabilities"):
        ExpectedCountPlanner(assume="human")


def test_an_exact_belief_too_large_for_the_hand_space_is_refused_before_the_game():
    from ldpomdp.hands import MAX_SUPPORT, support_size

    dice = next(d for d in range(1, 200) if support_size(d, 6) > MAX_SUPPORT)
    planner = make_player("expected-count:belief=exact")
    with pytest.raises(ValueError, match=r"belief='exact' enumerates every hand.*use belief='particles'"):
        planner.reset(0, GameConfig(num_players=2, dice=dice))
    planner.reset(0, GameConfig(num_players=2, dice=dice - 1))  # the largest size it can hold still plays
