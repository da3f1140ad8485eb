"""Belief core: the particle filter against the exact belief, closed forms, injection, depletion, input checks."""

from __future__ import annotations

import ast
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import all_hands

import ldpomdp.belief
import ldpomdp.hands
from ldpomdp import (
    CHALLENGE,
    ActionTaken,
    Bid,
    ExactBelief,
    GameConfig,
    OneThirdRule,
    PlayerError,
    PublicView,
    RejectionParticleBelief,
    TableBelief,
    make_player,
    play_game,
    play_round,
)
from ldpomdp.estimate import probability_of as _probability_of
from ldpomdp.hands import alias_arrays, count_hands, hand_support
from ldpomdp.hooks import deciding_face_of
from ldpomdp.opponent import BaseOpponent
from ldpomdp.rules import match_matrix, matching_count


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return imported | {
        "." * node.level + (node.module or "") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    }


def test_belief_module_imports_only_numpy_and_rules():
    """belief.py stands alone: numpy, ldpomdp.rules, the numpy-only parameter checks and the standard-library-only
    error kinds (no pomdp-py, no game)."""
    package = Path(ldpomdp.belief.__file__).parent
    stdlib_and_numpy = {"__future__", "collections.abc", "math", "functools", "typing", "numpy"}
    numpy_only = {".rules", ".validation", ".hands", ".hooks", ".caches", ".errors"}
    assert _imports(package / "belief.py") <= stdlib_and_numpy | numpy_only
    assert _imports(package / "hands.py") <= stdlib_and_numpy | {".rules", ".validation", ".caches", ".errors",
                                                                 ".moved"}
    assert _imports(package / "hooks.py") <= stdlib_and_numpy | {".validation", ".caches"}
    assert _imports(package / "validation.py") <= stdlib_and_numpy | {".errors"}
    assert _imports(package / "errors.py") <= stdlib_and_numpy | {"importlib", "os", "traceback", "pathlib"}
    assert _imports(package / "caches.py") <= stdlib_and_numpy | {"collections", "threading", "os", "pathlib"}
    assert _imports(package / "moved.py") <= stdlib_and_numpy | {"importlib", "importlib.abc", "importlib.machinery",
                                                                 "sys", "warnings", "types"}  # the standard library
    code = "import sys; sys.modules['pomdp_py'] = None; import ldpomdp.belief"  # pomdp-py import would fail
    subprocess.run([sys.executable, "-c", code], check=True)


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    return 0.5 * float(np.abs(p - q).sum())


class Recording(OneThirdRule):
    """A one-third player that also logs every action taken at the table."""

    def __init__(self, bluff: float, log: list):
        super().__init__(bluff)
        self.log = log

    def observe(self, event) -> None:
        if isinstance(event, ActionTaken):
            self.log.append(event)


def played_round(config: GameConfig, bluff: float, seed: int) -> list[ActionTaken]:
    """The actions of one round played by one-third players (seat 0 records them)."""
    log: list[ActionTaken] = []
    players = [Recording(bluff, log)] + [OneThirdRule(bluff) for _ in range(config.num_players - 1)]
    play_round(config, players, config.starting_dice, seed % config.num_players, np.random.default_rng(seed))
    return log


# --- the support and the prior ---------------------------------------------------------------------


@pytest.mark.parametrize("dice,faces", [(0, 6), (1, 2), (4, 3), (5, 6), (7, 4)])
def test_support_is_every_hand_with_multinomial_prior(dice, faces):
    support, prior = hand_support(dice, faces)
    assert len(support) == math.comb(dice + faces - 1, faces - 1)
    assert sorted(map(tuple, support)) == sorted(map(tuple, all_hands(dice, faces)))
    expected = [math.factorial(dice) / math.prod(math.factorial(c) for c in row) / faces**dice for row in support]
    np.testing.assert_allclose(prior, expected, rtol=1e-12)
    assert not support.flags.writeable and not prior.flags.writeable


def test_support_at_35_dice_and_size_limit():
    support, prior = hand_support(35, 6)
    assert support.shape == (658_008, 6) and (support.sum(axis=1) == 35).all()
    assert prior.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="RejectionParticleBelief"):
        hand_support(400, 6)


def test_alias_arrays_give_back_the_probabilities_exactly():
    """Row r is drawn with P = (threshold[r] + sum of (1 - threshold[s]) over s aliased to r) / M: equal to
    the input up to rounding, for skewed vectors, zeros, uniform ones and the 35-dice hand prior."""
    rng = np.random.default_rng(3)
    cases = [rng.random(int(rng.integers(1, 60))) ** int(rng.integers(1, 9)) for _ in range(300)]
    cases += [np.ones(7), np.array([0.0, 1.0, 0.0]), np.array([5.0]), hand_support(35)[1]]
    for p in cases:
        if rng.random() < 0.3 and len(p) > 1:
            p = p.copy()
            p[int(rng.integers(len(p)))] = 0.0
        threshold, alias = alias_arrays(p)
        m = len(p)
        assert ((threshold >= 0) & (threshold <= 1)).all()
        mass = threshold / m + np.bincount(alias, weights=(1 - threshold) / m, minlength=m)
        np.testing.assert_allclose(mass, p / p.sum(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("alias", [True, False])
def test_prior_particles_and_exact_prior_agree(alias, monkeypatch):
    """The particle prior is Multinomial(d, 1/6), through the alias method or (support too large to
    enumerate) rolled dice: each face count's mean d/6 (4-sigma from N draws), count distributions."""
    if not alias:
        monkeypatch.setattr(ldpomdp.hands, "PRIOR_ALIAS_MAX", 0)
        ldpomdp.hands.prior_alias.cache_clear()
    n, d = 100_000, 35
    belief = RejectionParticleBelief(d, n_particles=n, rng=1)
    assert (ldpomdp.hands.prior_alias(d, 6) is not None) == alias
    ldpomdp.hands.prior_alias.cache_clear()
    assert belief.particles.dtype == np.int16 and (belief.particles.sum(axis=1) == d).all()
    sigma = math.sqrt(d * (1 / 6) * (5 / 6) / n)
    assert np.abs(belief.particles.mean(axis=0) - d / 6).max() < 4 * sigma
    exact = ExactBelief(d)
    for face, wild in [(6, 1), (1, 1), (3, None)]:
        distance = total_variation(belief.count_distribution(face, wild), exact.count_distribution(face, wild))
        assert distance < 4 / math.sqrt(n)
    assert belief.effective_sample_size == n
    assert exact.expected_count(6, 1) == pytest.approx(d / 3)


# --- particles against the exact belief ------------------------------------------------------------


@pytest.mark.parametrize("n", [10_000, 100_000])
@pytest.mark.parametrize("bluff", [0.0, 0.3])
@pytest.mark.parametrize("bids", ["sixes", "full"])
def test_particles_match_exact_after_one_third_rounds(bids, bluff, n):
    """After every bid of rounds played by one-third players (3 players, 5 dice), the particle belief of
    each opponent matches the exact belief on every bid face.

    Tolerance: 4 / sqrt(ESS). The particles are copies of about ESS independent posterior draws, and the
    expected total variation of an empirical distribution of M draws over K = 6 counts is at most
    sqrt(K - 1) / (2 sqrt(M)) = 1.12 / sqrt(M) (Cauchy-Schwarz). ESS equals N only while observations
    reject little; when the full game's face choice pins a hand down it drops to a few percent of N
    (then 4 / sqrt(N) is not a valid bound: over 1,680 such checks, 30 seeds, TV * sqrt(N) reached 8.1
    while TV * sqrt(ESS) stayed below 2.1). The check also asserts it could fail: the exact posterior is
    farther than the tolerance from the prior at least once per case.
    """
    config = GameConfig(num_players=3, dice=5, bids=bids)
    models = {seat: OneThirdRule(bluff) for seat in range(3)}
    informative = 0
    for seed in range(3):
        particles = TableBelief(config, 0, config.starting_dice, models, n_particles=n, rng=seed)
        exact = TableBelief(config, 0, config.starting_dice, models, kind="exact")
        for event in played_round(config, bluff, seed):
            particles.observe_action(event.seat, event.action, event.view)
            exact.observe_action(event.seat, event.action, event.view)
            for seat, belief in particles.beliefs.items():
                reference = exact.beliefs[seat]
                tolerance = 4 / math.sqrt(belief.effective_sample_size)
                assert not belief.depleted
                for face in config.bid_faces:
                    got, want = belief.count_distribution(face, 1), reference.count_distribution(face, 1)
                    assert total_variation(got, want) < tolerance, (seed, event, seat, face)
                    prior = ExactBelief(5).count_distribution(face, 1)
                    informative += total_variation(prior, want) > tolerance
    assert informative > 0


@pytest.mark.parametrize("injection,refresh", [(0.3, 0.0), (0.0, 0.2), (0.2, 0.1)])
def test_injection_and_refresh_match_exact(injection, refresh):
    """With injection and refresh, particles track the exact belief with the same settings."""
    n, d = 100_000, 5
    config = GameConfig(dice=d, bids="sixes")
    rule = OneThirdRule()
    particles = RejectionParticleBelief(d, n_particles=n, injection=injection, refresh=refresh, rng=3)
    exact = ExactBelief(d, injection=injection, refresh=refresh)
    history: list = []
    for q in range(1, 6):  # seat 1 raises to 1, 3, 5 sixes; seat 0 to 2 and 4
        if q % 2:
            view = PublicView(config, 1, (d, d), tuple(history))
            particles.update_from(rule, Bid(q, 6), view)
            exact.update_from(rule, Bid(q, 6), view)
        history.append(((q + 1) % 2, Bid(q, 6)))
        tolerance = 4 / math.sqrt(particles.effective_sample_size)
        assert total_variation(particles.count_distribution(6, 1), exact.count_distribution(6, 1)) < tolerance
    assert exact.weights.min() > 0  # injection and refresh both keep every hand possible


# --- closed forms ----------------------------------------------------------------------------------


def truncated_binomial(d: int, others: int, standing: list[int], bluff: float) -> np.ndarray:
    """Sixes game, ones wild: own matching ~ Binomial(d, 1/3); raising over a standing bid q needs
    own + others / 3 >= q (else it is a bluff, probability ``bluff``)."""
    pmf = np.array([math.comb(d, k) * 2 ** (d - k) / 3**d for k in range(d + 1)])
    for q in standing:
        pmf = pmf * np.where(3 * np.arange(d + 1) + others >= 3 * q, 1.0, bluff)
    return pmf / pmf.sum()


@pytest.mark.parametrize("d,others", [(5, 5), (4, 7), (6, 3), (8, 12)])
@pytest.mark.parametrize("bluff", [0.0, 0.25])
def test_sixes_exact_belief_is_truncated_binomial(d, others, bluff):
    """The exact posterior after each raise by a one-third player equals the closed form."""
    config = GameConfig(num_players=2, dice=(others, d), bids="sixes")
    rule = OneThirdRule(bluff)
    exact = ExactBelief(d)
    standing: list[int] = []
    history: list = [(0, Bid(1, 6))]
    for q in range(2, d + others, 2):  # seat 1 raises over q - 1, seat 0 answers with q + 1
        view = PublicView(config, 1, (others, d), tuple(history))
        if rule.action_probabilities(exact.support, view, Bid(q, 6)) @ exact.weights == 0:
            break  # no hand raises here: the rest is the depletion test's business
        exact.update_from(rule, Bid(q, 6), view)
        standing.append(q - 1)
        np.testing.assert_allclose(
            exact.count_distribution(6, 1), truncated_binomial(d, others, standing, bluff), atol=1e-12
        )
        history += [(1, Bid(q, 6)), (0, Bid(q + 1, 6))]
    assert len(standing) >= 2


# --- injection, depletion ------------------------------------------------------------------------


def test_full_injection_leaves_the_prior():
    particles = RejectionParticleBelief(5, n_particles=1000, injection=1.0, rng=0)
    before = particles.particles.copy()
    particles.update(np.zeros(1000))
    np.testing.assert_array_equal(particles.particles, before)
    assert particles.effective_sample_size == 1000 and not particles.depleted
    exact = ExactBelief(5, injection=1.0)
    exact.update(np.zeros(len(exact.support)))
    np.testing.assert_allclose(exact.weights, exact.prior)


@pytest.mark.parametrize("kind", ["particles", "exact"])
def test_contradictory_observation_flags_depleted_and_keeps_a_usable_belief(kind):
    """A one-third player with 2 dice cannot raise 5 sixes to 6 with 3 other dice (2 + 3/3 < 5)."""
    config = GameConfig(num_players=2, dice=(3, 2), bids="sixes")
    table = TableBelief(config, 0, (3, 2), {1: OneThirdRule()}, kind=kind, n_particles=5000, rng=0)
    view = PublicView(config, 1, (3, 2), ((0, Bid(5, 6)),))
    table.observe_action(1, Bid(6, 6), view)
    belief = table.beliefs[1]
    assert belief.depleted and table.depleted
    assert (belief.particles.sum(axis=1) == 2).all()
    dist = belief.count_distribution(6, 1)
    assert dist.sum() == pytest.approx(1.0)
    prior = truncated_binomial(2, 3, [], 0.0)
    assert total_variation(dist, prior) < 4 / math.sqrt(belief.effective_sample_size) + 1e-12
    assert table.sample_hands(10, np.random.default_rng(0)).shape == (10, 2, 6)
    belief.update(np.ones(len(belief.particles)))
    assert not belief.depleted


# --- the effective sample size -------------------------------------------------------------------


def test_effective_sample_size_counts_independent_draws():
    n = 20_000
    belief = RejectionParticleBelief(5, n_particles=n, rng=4)
    one = np.zeros(n)
    one[7] = 1.0
    kept = belief.particles[7].copy()
    belief.update(one)
    assert belief.effective_sample_size == pytest.approx(1.0) and (belief.particles == kept).all()
    belief = RejectionParticleBelief(5, n_particles=n, rng=4)
    half = (np.arange(n) % 2).astype(float)
    belief.update(half)
    # N/2 survivors, each copied 1 + Binomial(N/2, 2/N) times: ESS = N^2 / (N/2 * E[m^2]) ~ 0.4 N
    assert 0.38 * n < belief.effective_sample_size < 0.42 * n
    # survivors stay in their (odd) slots, only rejected slots are rewritten: the same half again keeps
    # exactly the first survivors, once each, so the ESS is back to ~0.4 N
    odd_lineages = belief._lineage[1::2].copy()
    belief.update(half)
    np.testing.assert_array_equal(belief._lineage[1::2], odd_lineages)
    assert 0.38 * n < belief.effective_sample_size < 0.42 * n


@pytest.mark.parametrize("rejected_share", [0.05, 0.6])  # the two ways of rewriting slots: scatter, gather
def test_survivors_keep_their_slots_and_rejected_slots_copy_survivors(rejected_share):
    n = 10_000
    belief = RejectionParticleBelief(8, n_particles=n, rng=9)
    before, lineage = belief.particles.copy(), belief._lineage.copy()
    keep = (np.random.default_rng(2).random(n) >= rejected_share).astype(float)
    belief.update(keep)
    kept = keep == 1.0
    np.testing.assert_array_equal(belief.particles[kept], before[kept])
    np.testing.assert_array_equal(belief._lineage[kept], lineage[kept])
    copied = belief._lineage[~kept]
    assert set(copied.tolist()) <= set(lineage[kept].tolist())
    np.testing.assert_array_equal(belief.particles[~kept], before[copied])  # lineage i is the i-th prior draw


def test_refresh_takes_rejected_slots_first():
    """With half the particles rejected and a 10% refresh share, every survivor stays (once, in its slot),
    the fresh draws are new lineages, and the other rejected slots hold copies of survivors."""
    n = 10_000
    belief = RejectionParticleBelief(5, n_particles=n, refresh=0.1, rng=8)
    before = belief._lineage.copy()
    belief.update((np.arange(n) % 2).astype(float))
    np.testing.assert_array_equal(belief._lineage[1::2], before[1::2])
    even = belief._lineage[0::2]
    fresh = even >= n  # ids from n on are new draws
    assert fresh.sum() == round(0.1 * n)
    assert set(even[~fresh].tolist()) <= set(before[1::2].tolist())


def test_refresh_gives_new_lineages_through_renumbering():
    """Keeping everything with refresh 0.5: half the survivors make room for fresh draws, all distinct,
    so ESS stays N through many updates (and the lineage ids' periodic renumbering)."""
    belief = RejectionParticleBelief(4, n_particles=1000, refresh=0.5, rng=6)
    for _ in range(20):
        belief.update(np.ones(1000))
        assert belief.effective_sample_size == pytest.approx(1000)
    assert (belief.particles.sum(axis=1) == 4).all()


# --- update_from, sampling, reproducibility ------------------------------------------------------


BROKEN = """from ldpomdp.players import OneThirdRule


class Broken(OneThirdRule):
    def action_probabilities(self, hands, view, action):
        return hands / 0.0 if view.history else super().action_probabilities(hands, view, action)


class BrokenFace(OneThirdRule):
    def deciding_face(self, view):
        raise KeyError("the user's bug")
"""


@pytest.mark.parametrize("model", ["Broken", "BrokenFace"])
def test_an_error_in_a_models_own_code_names_its_class(tmp_path, monkeypatch, model):
    # the error used to name the planner whose belief asked the model, never the user's class
    (tmp_path / "brokenpkg").mkdir()
    (tmp_path / "brokenpkg" / "__init__.py").write_text("")
    (tmp_path / "brokenpkg" / "bots.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("brokenpkg", "brokenpkg.bots"):  # imported afresh from this test's folder, and forgotten after it
        monkeypatch.delitem(sys.modules, name, raising=False)
    note = f"(raised in brokenpkg.bots:{model}, the model of seat 1, during a belief update)"
    config = GameConfig(dice=3)
    view = PublicView(config, 1, (3, 3), ((0, Bid(1, 3)),))
    with np.errstate(divide="raise"), pytest.raises((FloatingPointError, KeyError)) as err:
        RejectionParticleBelief(3, n_particles=100, rng=0).update_from(make_player(f"brokenpkg.bots:{model}"),
                                                                         Bid(2, 3), view)
    assert err.value.__notes__ == [note]
    planner = make_player(f"expected-count:particles=100,assume=brokenpkg.bots:{model}")
    with np.errstate(divide="raise"), pytest.raises(PlayerError) as err:
        play_game(config, [planner, OneThirdRule()], 0)
    assert str(err.value).startswith("player expected-count (seat 0) raised ")
    assert str(err.value).endswith(note)
    assert f'{tmp_path / "brokenpkg" / "bots.py"}' in str(err.value)  # the user's own line is shown


class _Leaky(OneThirdRule):
    """The one-third rule's probabilities times 0.9: they sum to 0.9 over the legal actions."""

    def action_probabilities(self, hands, view, action):
        return 0.9 * super().action_probabilities(hands, view, action)


def test_every_games_first_round_checks_that_a_models_probabilities_sum_to_one_whatever_ran_before():
    """The check does not depend on what the process did before: every belief's first update with a model in a
    game's first round asks the model (it used to ask only the first 3 updates per model class and process)."""
    view = PublicView(GameConfig(dice=3), 1, (3, 3), ((0, Bid(1, 3)),))
    for kind in (RejectionParticleBelief(3, n_particles=100, rng=0), ExactBelief(3), RejectionParticleBelief(3),
                 ExactBelief(3), RejectionParticleBelief(3, n_particles=50, rng=1)):
        with pytest.raises(ValueError, match=r"_Leaky\.action_probabilities sums to 0\.9 \(not 1\)"):
            kind.update_from(_Leaky(), Bid(2, 3), view)


def test_update_from_equals_update_with_model_likelihoods():
    config = GameConfig(num_players=2, dice=5)
    view = PublicView(config, 1, (5, 5), ((0, Bid(2, 3)),))
    rule = OneThirdRule(bluff=0.2)
    a = RejectionParticleBelief(5, n_particles=5000, rng=9)
    b = RejectionParticleBelief(5, n_particles=5000, rng=9)
    a.update_from(rule, Bid(2, 5), view)
    b.update(rule.action_probabilities(b.particles, view, Bid(2, 5)))
    np.testing.assert_array_equal(a.particles, b.particles)


@pytest.mark.parametrize("refresh", [0.0, 0.2])
@pytest.mark.parametrize("bluff, bid, action", [(0.0, Bid(1, 6), Bid(2, 6)), (0.3, Bid(7, 6), Bid(8, 6)),
                                                (0.0, Bid(7, 6), Bid(8, 6))])
def test_an_action_every_hand_makes_alike_leaves_the_posterior(bluff, bid, action, refresh):
    """Sixes game, bids every hand answers alike (always believed; always doubted, so a raise is a bluff or
    impossible). The exact posterior is the prior: the exact belief's per-hand update says so, and the particle
    belief keeps every particle (no random thinning), renewing only the refresh share exactly as an update that
    keeps every hand would; an impossible action depletes both."""
    config = GameConfig(num_players=2, dice=5, bids="sixes")
    view = PublicView(config, 1, (5, 5), ((0, bid),))
    rule = OneThirdRule(bluff=bluff)
    shared = rule.shared_probability(view, action)
    assert shared == pytest.approx(1.0 if bid.quantity < 5 else bluff, abs=1e-15)
    exact, reference = ExactBelief(5, refresh=refresh), ExactBelief(5, refresh=refresh)
    exact.update_from(rule, action, view)
    reference.update(rule.action_probabilities(reference.support, view, action))
    np.testing.assert_allclose(exact.weights, reference.weights, rtol=1e-12)
    particles, twin = (RejectionParticleBelief(5, n_particles=3000, refresh=refresh, rng=4) for _ in range(2))
    particles.update_from(rule, action, view)
    if shared == 0.0:
        assert particles.depleted and exact.depleted
        return
    assert not particles.depleted and not exact.depleted
    twin.update(np.ones(3000))  # keeps every hand; with refresh, the same fresh draws in the same slots
    np.testing.assert_array_equal(particles.particles, twin.particles)
    assert particles.effective_sample_size == pytest.approx(twin.effective_sample_size)
    fresh = np.any(particles.particles != RejectionParticleBelief(5, n_particles=3000, rng=4).particles, axis=1)
    assert fresh.sum() <= round(refresh * 3000)


@pytest.mark.parametrize("config", [GameConfig(dice=4), GameConfig(dice=4, wild=None), GameConfig(dice=4, wild=6),
                                    GameConfig(dice=4, faces=2), GameConfig(dice=4, faces=3, wild=None)],
                         ids=["ones-wild", "no-wild", "high-wild", "two-faces", "three-faces"])
def test_count_hands_row_c_holds_c_matching_dice(config):
    for face in range(1, config.faces + 1):
        hands = count_hands(4, face, config)
        assert hands.shape == (5, config.faces) and not hands.flags.writeable
        np.testing.assert_array_equal(hands.sum(axis=1), 4)
        counts = matching_count(hands, face, config)
        every_die_matches = bool(np.all(match_matrix(config)[:, face - 1]))
        np.testing.assert_array_equal(counts, np.full(5, 4) if every_die_matches else np.arange(5))


def _per_hand(rule: OneThirdRule, action, view):
    """The rule's likelihoods computed hand by hand (no count lookup): the reference for the shortcut."""
    return lambda hands: _probability_of(action, *rule._policy_by_hand(hands, view))


@pytest.mark.parametrize("injection", [0.0, 0.2])
@pytest.mark.parametrize("bluff", [0.0, 0.3])
@pytest.mark.parametrize("action", [Bid(4, 6), CHALLENGE])
@pytest.mark.parametrize("wild", [1, None, 6])
def test_update_by_matching_count_equals_the_per_hand_update(wild, action, bluff, injection):
    """Where the one-third rule names a deciding face (the sixes game: one raise legal), the beliefs look each
    hand's count up; the result is the update with the rule's likelihoods computed for every hand: the same
    particles (same random stream) and the same exact weights. (In the full game one raise is legal only at
    the top, where no hand believes the bid: the shared shortcut answers first.)"""
    config, bid = GameConfig(dice=5, bids="sixes", wild=wild), Bid(3, 6)
    view = PublicView(config, 1, (5, 5), ((0, bid),))
    rule = OneThirdRule(bluff=bluff)
    assert rule.deciding_face(view) == bid.face and rule.shared_probability(view, action) is None
    reference = _per_hand(rule, action, view)
    looked_up, per_hand = (RejectionParticleBelief(5, n_particles=4000, injection=injection, rng=3) for _ in range(2))
    looked_up.expected_count(bid.face, config.wild)  # the cached counts are used, and dropped after the update
    looked_up.update_from(rule, action, view)
    per_hand.update(reference(per_hand.particles))
    np.testing.assert_array_equal(looked_up.particles, per_hand.particles)
    assert looked_up.expected_count(bid.face, config.wild) == per_hand.expected_count(bid.face, config.wild)
    exact, exact_reference = ExactBelief(5, injection=injection), ExactBelief(5, injection=injection)
    exact.update_from(rule, action, view)
    exact_reference.update(reference(exact_reference.support))
    np.testing.assert_allclose(exact.weights, exact_reference.weights, rtol=1e-12, atol=0)


class SixesCountRule(BaseOpponent):
    """Raises iff its count of sixes (ones wild) is in ``raising``: a deterministic rule decided by one face."""

    def __init__(self, raising):
        self.raising = sorted(raising)

    def deciding_face(self, view):
        return 6

    def action_probabilities(self, hands, view, action):
        raises = np.isin(matching_count(hands, 6, view.config), self.raising).astype(float)
        return 1.0 - raises if action is CHALLENGE else raises


@pytest.mark.parametrize("raising", [[0, 1], [2, 3], [3, 4, 5], [0, 2, 4], [], list(range(6))],
                         ids=["low run", "inner run", "high run", "scattered", "none", "all"])
def test_counted_survivors_equal_the_per_hand_update_for_any_set_of_counts(raising):
    """Runs of kept counts are read by comparisons, other sets by a lookup: both equal the per-hand update."""
    config = GameConfig(dice=5, bids="sixes")
    view = PublicView(config, 1, (5, 5), ((0, Bid(3, 6)),))
    model = SixesCountRule(raising)
    counted, per_hand = (RejectionParticleBelief(5, n_particles=3000, rng=8) for _ in range(2))
    counted.update_from(model, Bid(4, 6), view)
    per_hand.update(model.action_probabilities(per_hand.particles, view, Bid(4, 6)))
    assert counted.depleted == per_hand.depleted == (not raising)
    np.testing.assert_array_equal(counted.particles, per_hand.particles)
    if raising:
        assert set(np.unique(matching_count(counted.particles, 6, config))) <= set(raising)


def test_a_subclass_overriding_only_the_per_hand_probabilities_is_asked_per_hand():
    class Contrarian(OneThirdRule):  # inherits the shortcut, which no longer describes it
        def action_probabilities(self, hands, view, action):
            return 1.0 - super().action_probabilities(hands, view, action)

    config = GameConfig(num_players=2, dice=5, bids="sixes")
    view = PublicView(config, 1, (5, 5), ((0, Bid(1, 6)),))
    assert OneThirdRule().shared_probability(view, Bid(2, 6)) == 1.0
    belief = RejectionParticleBelief(5, n_particles=500, rng=0)
    belief.update_from(Contrarian(), Bid(2, 6), view)  # probability 0 for every hand: nothing survives
    assert belief.depleted
    doubted = PublicView(config, 1, (5, 5), ((0, Bid(4, 6)),))  # the count decides; the contrarian inverts it
    assert OneThirdRule().deciding_face(doubted) == 6 and deciding_face_of(Contrarian(), doubted) is None
    belief = RejectionParticleBelief(5, n_particles=500, rng=0)
    belief.update_from(Contrarian(), CHALLENGE, doubted)
    np.testing.assert_array_equal(matching_count(belief.particles, 6, config) + (4 - 5 * 2 / 6) >= 4, True)


def test_exact_sampling_follows_the_weights():
    exact = ExactBelief(3)
    likelihood = (exact.support[:, 5] >= 2).astype(float)
    exact.update(likelihood)
    draws = exact.sample(40_000, np.random.default_rng(2))
    assert draws.shape == (40_000, 6) and (draws[:, 5] >= 2).all()
    p = float(exact.weights[(exact.support[:, 5] == 3)].sum())  # P(three sixes | at least two)
    assert abs((draws[:, 5] == 3).mean() - p) < 4 * math.sqrt(p * (1 - p) / 40_000)


def test_table_belief_structure_and_reproducibility():
    config = GameConfig(num_players=4, dice=(3, 1, 4, 3))
    models = {s: OneThirdRule() for s in range(4)}
    dice = (3, 0, 4, 3)  # seat 1 is out
    table = TableBelief(config, 2, dice, models, n_particles=2000, rng=5)
    assert sorted(table.beliefs) == [0, 3]
    twin = TableBelief(config, 2, dice, models, n_particles=2000, rng=5)
    np.testing.assert_array_equal(table.beliefs[3].particles, twin.beliefs[3].particles)
    assert not np.array_equal(table.beliefs[0].particles, table.beliefs[3].particles), "independent streams"
    view = PublicView(config, 2, dice, ((0, Bid(1, 2)),))
    table.observe_action(2, Bid(2, 2), view)  # our own action: ignored
    total = table.total_distribution(4, 1)
    assert total.shape == (7,) and total.sum() == pytest.approx(1.0)
    assert float(np.arange(7) @ total) == pytest.approx(table.expected_total(4, 1))
    np.testing.assert_allclose(
        total, np.convolve(table.beliefs[0].count_distribution(4, 1), table.beliefs[3].count_distribution(4, 1))
    )
    hands = table.sample_hands(50, np.random.default_rng(1))
    assert hands.shape == (50, 4, 6)
    assert (hands[:, [1, 2]] == 0).all()
    assert (hands[:, 0].sum(axis=1) == 3).all() and (hands[:, 3].sum(axis=1) == 3).all()


# --- input validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: RejectionParticleBelief(-1), "num_dice must be an integer >= 0"),
        (lambda: ExactBelief(-2), "num_dice must be an integer >= 0"),
        (lambda: RejectionParticleBelief(3, faces=1), "faces must be an integer >= 2"),
        (lambda: RejectionParticleBelief(3, n_particles=0), "n_particles must be an integer >= 1"),
        (lambda: RejectionParticleBelief(3, injection=1.5), r"injection must be a probability in \[0, 1\]"),
        (lambda: ExactBelief(3, refresh=-0.1), r"refresh must be a probability in \[0, 1\]"),
        (lambda: RejectionParticleBelief(2.5), "num_dice must be an integer"),
    ],
)
def test_bad_arguments_name_the_field(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("belief", [RejectionParticleBelief(3, n_particles=100, rng=0), ExactBelief(3)])
def test_bad_likelihoods_and_queries(belief):
    rows = len(belief.particles)
    with pytest.raises(ValueError, match=rf"shape \({rows - 1},\), expected \({rows},\)"):
        belief.update(np.ones(rows - 1))
    with pytest.raises(ValueError, match="shape"):
        belief.update(np.ones((rows, 1)))
    for bad in (1.5, -0.1, np.nan):
        values = np.full(rows, 0.5)
        values[3] = bad
        with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
            belief.update(values)
    with pytest.raises(ValueError, match=r"face must be an integer in 1\.\.6"):
        belief.count_distribution(7)
    with pytest.raises(ValueError, match="wild must be 1, the highest face"):
        belief.expected_count(3, wild=3)
    with pytest.raises(ValueError, match="k must be an integer >= 0"):
        belief.sample(-1, np.random.default_rng(0))


def test_bad_model_output_names_the_model():
    class Broken(OneThirdRule):
        def action_probabilities(self, hands, view, action):
            return np.full(len(hands), 2.0)

    config = GameConfig(dice=3)
    belief = RejectionParticleBelief(3, n_particles=50, rng=0)
    with pytest.raises(ValueError, match=r"one-third\.action_probabilities"):
        belief.update_from(Broken(), Bid(1, 2), PublicView(config, 1, (3, 3)))


def test_bad_shared_probability_names_the_model():
    class Broken(OneThirdRule):
        def shared_probability(self, view, action):
            return 1.5

    config = GameConfig(dice=3)
    belief = RejectionParticleBelief(3, n_particles=50, rng=0)
    with pytest.raises(ValueError, match=r"one-third\.shared_probability\(2x2\) must be a probability"):
        belief.update_from(Broken(), Bid(2, 2), PublicView(config, 1, (3, 3), ((0, Bid(1, 2)),)))


def test_bad_table_arguments():
    config = GameConfig(num_players=3, dice=2)
    models = {s: OneThirdRule() for s in range(3)}
    with pytest.raises(ValueError, match="kind must be one of"):
        TableBelief(config, 0, (2, 2, 2), models, kind="grid")
    with pytest.raises(ValueError, match="lists 2 players"):
        TableBelief(config, 0, (2, 2), models)
    with pytest.raises(ValueError, match="dice must be an integer >= 0"):
        TableBelief(config, 0, (2, -1, 2), models)
    with pytest.raises(ValueError, match=r"seat must be in 0\.\.2"):
        TableBelief(config, 3, (2, 2, 2), models)
    with pytest.raises(ValueError, match=r"no opponent model for seat\(s\) \[2\]"):
        TableBelief(config, 0, (2, 2, 2), {1: OneThirdRule()})
    table = TableBelief(config, 0, (2, 2, 0), models, n_particles=10, rng=0)
    with pytest.raises(ValueError, match="seat 2 has no belief"):
        table.observe_action(2, Bid(1, 2), PublicView(config, 2, (2, 2, 0)))
    with pytest.raises(ValueError, match="view is for seat 0"):
        table.observe_action(1, Bid(1, 2), PublicView(config, 0, (2, 2, 0)))
