"""Beliefs over opponents' hidden dice: a vectorized rejection particle filter and its exact reference.

A belief is over one opponent's hand as face counts (``hand[f - 1]`` dice show ``f``). Both classes take
``update(likelihoods)`` (P(observed action | hand) per particle or support row) and ``update_from(model, action,
view)``, and answer ``expected_count``, ``count_distribution`` and ``sample``; ``TableBelief`` keeps one per
opponent for a round. Only numpy and numpy-only modules of the package are imported, so it can be used on its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, overload

import numpy as np

from .caches import memo
from .errors import UsageError
from .hands import HAND_DTYPE, count_hands, hand_support, prior_alias, row_width
from .hooks import deciding_face_of, shared_probability_of, sum_problem
from .rules import GameConfig, matching_count
from .validation import int_at_least as _int_at_least
from .validation import one_of
from .validation import probability as _probability

__all__ = ["RejectionParticleBelief", "ExactBelief", "TableBelief"]

SUM_CHECK_HANDS = 8  # rows asked whether a model's probabilities sum to one (see _Belief.update_from)


@memo(maxsize=64)
def _rules(faces: int, wild: int | None) -> GameConfig:
    """A rule set carrying ``faces`` and ``wild``, so that counting reuses ``rules.matching_count``."""
    return GameConfig(faces=faces, wild=wild)


@memo(maxsize=16)
def _uniform_weights(n: int) -> np.ndarray:
    """1/n for each of n particles, read-only and shared: a belief is made every round and its weights never
    change."""
    weights = np.full(n, 1.0 / n)
    weights.flags.writeable = False
    return weights


def _source(asked: tuple[Any, Any] | None) -> str:
    """Where likelihoods came from, for error messages: ``update``'s argument or a (model, action) asked."""
    return "likelihoods" if asked is None else f"{asked[0]!r}.action_probabilities({asked[1]})"


def _in_model(model: Any, view: Any) -> str:
    """The note on an exception from a model's own code during a belief update: which class raised it."""
    cls = type(model)
    return f"(raised in {cls.__module__}:{cls.__qualname__}, the model of seat {view.seat}, during a belief update)"


class _Belief:
    """What both beliefs share: validation, updates, queries. Subclasses provide ``particles``,
    ``weights``, ``effective_sample_size``, ``_apply`` (one validated update) and ``_draw_indices``."""

    weights: np.ndarray
    rng: np.random.Generator

    def __init__(self, num_dice: int, faces: int, injection: float, refresh: float):
        owner = type(self).__name__
        self.num_dice = _int_at_least(owner, "num_dice", num_dice, 0)
        self.faces = _int_at_least(owner, "faces", faces, 2)
        self.injection = _probability(owner, "injection", injection)
        self.refresh = _probability(owner, "refresh", refresh)
        self.depleted = False
        self._checked_models: list[Any] = []  # the models whose probabilities were checked to sum to one
        self._expected: dict[tuple[int, int | None], float] = {}  # expected_count's answers until the next change
        self._matches: dict[tuple[int, int | None], np.ndarray] = {}  # matching counts per row, until the next change

    def update(self, likelihoods: np.ndarray) -> None:
        """Condition on an observation: ``likelihoods[i]`` = P(observed action | hand i), shape (rows,)."""
        self._apply(self._checked(likelihoods, None))

    def _apply(self, likelihoods: np.ndarray) -> None:
        raise NotImplementedError

    def _draw_indices(self, k: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    @property
    def particles(self) -> np.ndarray:
        raise NotImplementedError

    @property
    def effective_sample_size(self) -> float:
        raise NotImplementedError

    def _checked(self, likelihoods: Any, asked: tuple[Any, Any] | None, rows: int | None = None) -> np.ndarray:
        """``likelihoods`` as float64 of shape (rows,), every value in [0, 1]; else a ValueError.

        ``rows`` defaults to one per particle. The ValueError names where the likelihoods came from: ``update``'s
        argument, or (model, action) when ``asked`` a model (the name is built only then: building it on every
        update would cost more than the check).
        """
        values = np.asarray(likelihoods, dtype=np.float64)
        rows = len(self.particles) if rows is None else rows
        if values.shape != (rows,):
            raise ValueError(
                f"{type(self).__name__}.update: {_source(asked)} has shape {values.shape}, expected ({rows},) "
                "(one probability per hand asked)"
            )
        if not (values.min(initial=0.0) >= 0.0 and values.max(initial=1.0) <= 1.0):  # NaN fails too
            inside = (values >= 0.0) & (values <= 1.0)
            raise ValueError(
                f"{type(self).__name__}.update: {_source(asked)} must be probabilities in [0, 1], "
                f"got e.g. {values[~inside][:3].tolist()}"
            )
        return values

    @overload
    def _keep_probability(self, likelihoods: float) -> float: ...

    @overload
    def _keep_probability(self, likelihoods: np.ndarray) -> np.ndarray: ...

    def _keep_probability(self, likelihoods: np.ndarray | float) -> np.ndarray | float:
        """Report 002, Alg. 7: a hand the observation rejects survives anyway with prob. ``injection``;
        so P(keep) = likelihood + (1 - likelihood) * injection, and the posterior is prior * P(keep)."""
        if self.injection == 0.0:
            return likelihoods
        return likelihoods + (1.0 - likelihoods) * self.injection

    def update_from(self, model: Any, action: Any, view: Any) -> None:
        """Condition on ``view.seat`` playing ``action`` on public ``view`` (seen before acting), per ``model``.

        The likelihoods come from the model's ``action_probabilities``, or its optional hooks: under
        ``deciding_face`` it is asked about one hand per matching count (``count_hands``); a ``shared_probability``
        rejects no hand (only the ``refresh`` share is renewed) unless it keeps none (0, without injection): then
        the belief depletes.
        """
        try:
            p = shared_probability_of(model, view, action)
            face = deciding_face_of(model, view) if p is None else None
            if p is None and face is None:
                probs = model.action_probabilities(self.particles, view, action)
            elif p is None and face is not None:
                matching = self._matching(face, view.config.wild)  # checks the face first
                probs = model.action_probabilities(count_hands(self.num_dice, face, view.config), view, action)
        except Exception as exc:
            exc.add_note(_in_model(model, view))
            raise
        if p is None and face is None:
            self._apply(self._checked(probs, (model, action)))
        elif p is None:
            self._apply_counted(matching, self._checked(probs, (model, action), self.num_dice + 1))
        else:
            p = _probability(type(self).__name__ + ".update", f"{model!r}.shared_probability({action})", p)
            if self._keep_probability(p) == 0.0:  # no hand explains the action
                self._apply(np.zeros(len(self.particles)))
            elif self.refresh:
                self._apply(np.ones(len(self.particles)))  # every hand kept: only the refresh share changes
            else:
                self.depleted = False
        if view.round_index == 0 and not any(m is model for m in self._checked_models):
            self._checked_models.append(model)
            self._check_sums(model, view)

    def _check_sums(self, model: Any, view: Any) -> None:
        """Check on a few hands that the model's probabilities over the legal actions sum to one.

        The cheap guard of a game's first round, on a belief's first update with each model (``check_opponent``
        checks a model in depth). It asks the model once per legal action, 5-50 times an update's cost, so later
        rounds are not checked.
        """
        hands = np.asarray(self.particles[:SUM_CHECK_HANDS])
        try:
            asked = {a: model.action_probabilities(hands, view, a) for a in view.legal_actions()}
        except Exception as exc:
            exc.add_note(_in_model(model, view))
            raise
        probs = {a: self._checked(p, (model, a), len(hands)) for a, p in asked.items()}
        problem = sum_problem(hands, probs)
        if problem:
            raise ValueError(f"{type(model).__name__}.action_probabilities {problem} (seat {view.seat}, dice "
                             f"{view.dice}, history {list(view.history)}); ldpomdp.players.check_opponent "
                             f"checks a model in depth")

    def _rules_for(self, face: int, wild: int | None) -> GameConfig:
        """The rule set that counts matches of ``face`` with ``wild``, after checking both."""
        owner = type(self).__name__
        if isinstance(face, bool) or not isinstance(face, (int, np.integer)) or not 1 <= face <= self.faces:
            raise UsageError(f"{owner}: face must be an integer in 1..{self.faces}, got {face!r}")
        if wild not in (None, 1, self.faces) or isinstance(wild, bool):
            raise UsageError(f"{owner}: wild must be 1, the highest face ({self.faces}) or None, got {wild!r}")
        return _rules(self.faces, wild)

    def _apply_counted(self, matching: np.ndarray, by_count: np.ndarray) -> None:
        """Update with likelihoods that depend on a row only through its count ``matching``: ``by_count[count]``."""
        self._apply(np.take(by_count, matching))

    def _matching(self, face: int, wild: int | None) -> np.ndarray:
        """Each row's dice matching ``face`` (remembered until the rows change: a decision and the next update
        count the same face)."""
        key = (face, wild)
        if key not in self._matches:
            self._matches[key] = matching_count(self.particles, int(face), self._rules_for(face, wild))
        return self._matches[key]

    def count_distribution(self, face: int, wild: int | None = None) -> np.ndarray:
        """P(the hand holds exactly c dice matching ``face``) for c = 0 .. num_dice (wild dice count)."""
        dist = np.bincount(self._matching(face, wild), weights=self.weights, minlength=self.num_dice + 1)
        return dist / dist.sum()

    def expected_count(self, face: int, wild: int | None = None) -> float:
        """Expected number of dice matching ``face`` in the hand (remembered until the belief changes: a
        decision asks it again after every update, and most updates of the sixes game keep every particle)."""
        key = (face, wild)
        if key not in self._expected:
            self._expected[key] = self._expectation(face, wild)
        return self._expected[key]

    def _expectation(self, face: int, wild: int | None) -> float:
        # einsum, not BLAS: BLAS threads stall under load
        return float(np.einsum("i,i->", self.weights, self._matching(face, wild)))

    def sample(self, k: int, rng: np.random.Generator | None = None) -> np.ndarray:
        """``k`` hands drawn from the belief, shape (k, faces)."""
        k = _int_at_least(type(self).__name__ + ".sample", "k", k, 0)
        rng = self.rng if rng is None else rng
        return np.take(self.particles, self._draw_indices(k, rng), axis=0)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(num_dice={self.num_dice}, faces={self.faces}, rows={len(self.particles)}, "
            f"ess={self.effective_sample_size:.4g}, depleted={self.depleted})"
        )


class RejectionParticleBelief(_Belief):
    """Report 002's rejection particle filter, vectorized (parameters and the update: docs/beliefs.md).

    ``particles`` (N, faces) are hands drawn from the prior, a view of rows padded with zero columns
    (``row_width``). ``update`` keeps particle i with its likelihood (or ``injection``, see
    ``_keep_probability``), fills the other slots with uniform copies of survivors, then renews a ``refresh``
    share from the prior; no survivor: back to the prior, ``depleted``. ``rng`` (or a seed) makes every draw.
    """

    def __init__(
        self,
        num_dice: int,
        faces: int = 6,
        n_particles: int = 100_000,
        injection: float = 0.0,
        refresh: float = 0.0,
        rng: np.random.Generator | int | None = None,
    ):
        super().__init__(num_dice, faces, injection, refresh)
        self.n_particles = _int_at_least(type(self).__name__, "n_particles", n_particles, 1)
        self.rng = np.random.default_rng(rng)
        self.weights = _uniform_weights(self.n_particles)
        self._reset_to_prior()

    def _prior_draws(self, k: int) -> np.ndarray:
        """``k`` hands from Multinomial(num_dice, 1/faces) as padded rows (k, row width).

        Rows of the exact support drawn by the alias method (``prior_alias``), or, for supports too large to
        enumerate, dice rolled and counted with one ``bincount`` over row-offset faces.
        """
        drawable = prior_alias(self.num_dice, self.faces)
        if drawable is not None:
            support, alias = drawable
            scaled = self.rng.random(k)
            scaled *= len(support)  # whole part: the row; below the row's cut: keep it, else its alias
            rows = scaled.astype(np.int64)
            drawn = np.take(alias, rows, axis=0)
            rows = np.where(scaled < drawn[:, 0].view(np.float64), rows, drawn[:, 1])
            return np.take(support, rows, axis=0)
        width = row_width(self.faces)
        faces = self.rng.integers(0, self.faces, size=(k, self.num_dice), dtype=np.int64)
        faces += (np.arange(k, dtype=np.int64) * width)[:, None]
        counts = np.bincount(faces.ravel(), minlength=k * width)
        return counts.reshape(k, width).astype(HAND_DTYPE)

    def _reset_to_prior(self) -> None:
        n = self.n_particles
        # lineage[i]: which independent draw particle i copies; the effective sample size counts them
        self._set_rows(self._prior_draws(n), np.arange(n, dtype=np.int32))
        self._next_id = n

    def _set_rows(self, rows: np.ndarray, lineage: np.ndarray) -> None:
        """Install padded particle rows (N, row width) and their lineage, and the read-only view of their face
        columns that ``particles`` hands out (made once per update, not on every access)."""
        self._rows, self._lineage = rows, lineage
        self._expected.clear()
        self._matches.clear()
        self._particles = rows[:, : self.faces]
        self._particles.flags.writeable = False

    @property
    def particles(self) -> np.ndarray:
        """(N, faces) hands: a read-only view of the face columns of the padded rows (update() replaces them)."""
        return self._particles

    def _apply(self, likelihoods: np.ndarray) -> None:
        """Rejection step with P(observed action | particle) for every particle, then ``_resample``."""
        keep = self._keep_probability(likelihoods)
        kept = keep >= 1.0
        if np.count_nonzero(kept) != np.count_nonzero(keep):  # some 0 < keep < 1: a coin for each particle
            kept = self.rng.random(self.n_particles) < keep
        self._resample(kept)

    def _apply_counted(self, matching: np.ndarray, by_count: np.ndarray) -> None:
        """Rejection step with likelihoods that depend on a particle only through its count ``matching``.

        When every count's fate is certain (keep 0 or 1, the deterministic models), the survivors are read off the
        counts, without a likelihood per particle: counts kept in one run lo..hi (a threshold rule keeps such a run)
        by comparisons, other sets by a lookup per particle. Otherwise the base class's per-particle step runs.
        """
        keep = self._keep_probability(by_count)
        certain = keep >= 1.0
        if np.count_nonzero(certain) != np.count_nonzero(keep):  # some counts keep with 0 < p < 1
            super()._apply_counted(matching, by_count)
            return
        counts = np.flatnonzero(certain)
        if counts.size and counts[-1] - counts[0] + 1 == counts.size:
            lo, hi = int(counts[0]), int(counts[-1])  # Python ints: the comparison stays in int16
            if lo == 0:
                kept = matching <= hi
            elif hi == self.num_dice:
                kept = matching >= lo
            else:
                kept = (matching >= lo) & (matching <= hi)
        else:
            kept = np.take(certain, matching)
        self._resample(kept)

    def _resample(self, kept: np.ndarray) -> None:
        """Keep the particles flagged in ``kept`` and refill the other slots, rewriting only those (most
        updates reject a few particles), in new arrays: views handed out before keep showing the old particles."""
        if not self.refresh and np.count_nonzero(kept) == self.n_particles:  # resampling is the identity
            self.depleted = False
            return
        survivors = np.flatnonzero(kept)
        self.depleted = survivors.size == 0
        if self.depleted:
            self._reset_to_prior()
            return
        rejected = np.flatnonzero(~kept)
        fresh = round(self.refresh * self.n_particles)
        renewed = rejected[:0]
        if fresh:  # the refresh share takes rejected slots first, then the slots of random survivors
            if rejected.size >= fresh:
                rejected = rejected[self.rng.permutation(rejected.size)]
                renewed, rejected = rejected[:fresh], rejected[fresh:]
            else:
                dropped = survivors[self.rng.permutation(survivors.size)[: fresh - rejected.size]]
                renewed, rejected = np.concatenate([rejected, dropped]), rejected[:0]
        donors = survivors[(self.rng.random(rejected.size) * survivors.size).astype(np.intp)]  # uniform
        if 5 * rejected.size < self.n_particles:  # few slots to rewrite: copy, then scatter whole rows as records
            rows, lineage = self._rows.copy(), self._lineage.copy()
            hands = rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize)))[:, 0]
            hands[rejected], lineage[rejected] = hands[donors], lineage[donors]
        else:  # many: one gather of every slot (a scattered row costs about three gathered ones)
            order = np.arange(self.n_particles)
            order[rejected] = donors
            rows, lineage = np.take(self._rows, order, axis=0), np.take(self._lineage, order)
        if fresh:
            rows[renewed] = self._prior_draws(fresh)
            lineage[renewed] = np.arange(self._next_id, self._next_id + fresh, dtype=np.int32)
            self._next_id += fresh
            if self._next_id > 4 * self.n_particles:  # renumber lineages 0.. so ids stay small
                present = np.bincount(lineage, minlength=self._next_id) > 0
                lineage = (np.cumsum(present, dtype=np.int32) - 1)[lineage]
                self._next_id = int(present.sum())
        self._set_rows(rows, lineage)

    def _draw_indices(self, k: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(self.n_particles, size=k)

    def _expectation(self, face: int, wild: int | None) -> float:
        """Weights are uniform: the mean matching count (kept for the next update, which usually asks the same
        face)."""
        return int(np.add.reduce(self._matching(face, wild), dtype=np.int64)) / self.n_particles

    def count_distribution(self, face: int, wild: int | None = None) -> np.ndarray:
        return np.bincount(self._matching(face, wild), minlength=self.num_dice + 1) / self.n_particles

    @property
    def effective_sample_size(self) -> float:
        """Kish's N^2 / sum(m_j^2) over the independent draws j the particles copy (m_j copies each):
        N after a prior draw, about the number of distinct survivors after rejections."""
        copies = np.bincount(self._lineage).astype(np.float64)
        return float(self.n_particles**2 / (copies @ copies))


class ExactBelief(_Belief):
    """Every possible hand (``support``, see ``hand_support``) with its exact posterior ``weights``.

    ``update`` multiplies the weights by P(keep) (the particle filter's injection rule) and mixes in a ``refresh``
    share of the prior; an observation that no hand explains resets to the prior and sets ``depleted``. ``rng``
    draws ``sample``'s hands. The reference for tests and a planner option (parameters: docs/beliefs.md).
    """

    def __init__(
        self,
        num_dice: int,
        faces: int = 6,
        injection: float = 0.0,
        refresh: float = 0.0,
        rng: np.random.Generator | int | None = None,
    ):
        super().__init__(num_dice, faces, injection, refresh)
        self.support, self.prior = hand_support(self.num_dice, self.faces)
        self.weights = self.prior.copy()
        self.rng = np.random.default_rng(rng)

    @property
    def particles(self) -> np.ndarray:
        """Alias of ``support``, so code written for particles works on the exact belief."""
        return self.support

    def _apply(self, likelihoods: np.ndarray) -> None:
        """Exact Bayes step: posterior = prior * P(keep), renormalised."""
        self._expected.clear()
        weights = self.weights * self._keep_probability(likelihoods)
        total = weights.sum()
        self.depleted = not total > 0.0
        if self.depleted:
            self.weights = self.prior.copy()
            return
        weights /= total
        if self.refresh:
            weights = (1.0 - self.refresh) * weights + self.refresh * self.prior
        self.weights = weights

    def _draw_indices(self, k: int, rng: np.random.Generator) -> np.ndarray:
        cdf = np.cumsum(self.weights)
        return np.minimum(np.searchsorted(cdf, rng.random(k) * cdf[-1], side="right"), len(cdf) - 1)

    @property
    def effective_sample_size(self) -> float:
        """Infinite: the exact belief has no sampling error."""
        return math.inf


class TableBelief:
    """One belief per opponent for the current round, seen from ``seat`` (parameters: docs/beliefs.md).

    Create it at the start of every round from the dice per seat and ``models`` (seat -> opponent model, for every
    other seat with dice); feed it every action with ``observe_action``, which updates that opponent's belief
    through its model. ``kind`` is "particles" or "exact"; ``rng`` is one stream for every opponent's belief.
    """

    KINDS = ("particles", "exact")

    def __init__(
        self,
        config: GameConfig,
        seat: int,
        dice: tuple[int, ...],
        models: Mapping[int, Any],
        kind: str = "particles",
        n_particles: int = 10_000,
        injection: float = 0.0,
        refresh: float = 0.0,
        rng: np.random.Generator | int | None = None,
    ):
        if not isinstance(config, GameConfig):
            raise UsageError(f"TableBelief.config must be a GameConfig, got {type(config).__name__}")
        one_of("TableBelief", "kind", kind, self.KINDS)
        dice = tuple(_int_at_least("TableBelief", "dice", d, 0) for d in dice)
        if len(dice) != config.num_players:
            raise UsageError(f"TableBelief.dice lists {len(dice)} players, the config has {config.num_players}")
        if isinstance(seat, bool) or seat not in range(config.num_players):
            raise UsageError(f"TableBelief.seat must be in 0..{config.num_players - 1}, got {seat!r}")
        opponents = [s for s, d in enumerate(dice) if d > 0 and s != seat]
        missing = [s for s in opponents if s not in models]
        if missing:
            raise UsageError(f"TableBelief.models has no opponent model for seat(s) {missing}")
        self.config, self.seat, self.dice, self.kind = config, seat, dice, kind
        self.models = dict(models)
        rng = np.random.default_rng(rng)  # one stream for the table: a new belief every round needs no spawning
        self.beliefs: dict[int, RejectionParticleBelief | ExactBelief] = {}
        for s in opponents:
            if kind == "exact":
                self.beliefs[s] = ExactBelief(dice[s], config.faces, injection, refresh, rng=rng)
            else:
                self.beliefs[s] = RejectionParticleBelief(
                    dice[s], config.faces, n_particles, injection, refresh, rng=rng
                )

    def observe_action(self, seat: int, action: Any, view: Any) -> None:
        """``seat`` played ``action`` on ``view`` (the public view before acting); our own seat is ignored."""
        if seat == self.seat:
            return
        if seat not in self.beliefs:
            raise ValueError(f"TableBelief.observe_action: seat {seat!r} has no belief (seats {list(self.beliefs)})")
        if view.seat != seat:
            raise ValueError(f"TableBelief.observe_action: view is for seat {view.seat}, the action for seat {seat}")
        self.beliefs[seat].update_from(self.models[seat], action, view)

    def expected_total(self, face: int, wild: int | None) -> float:
        """Expected dice matching ``face`` over all opponents' hands."""
        return float(sum(b.expected_count(face, wild) for b in self.beliefs.values()))

    def total_distribution(self, face: int, wild: int | None) -> np.ndarray:
        """Distribution of the opponents' total matching count (hands independent: a convolution)."""
        total = np.ones(1)
        for belief in self.beliefs.values():
            total = np.convolve(total, belief.count_distribution(face, wild))
        return total

    def sample_hands(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """(k, num_players, faces) hands, opponents drawn independently from their beliefs; rows of
        our own seat and of players without dice are zeros (the caller fills in its own hand)."""
        k = _int_at_least("TableBelief.sample_hands", "k", k, 0)
        hands = np.zeros((k, self.config.num_players, self.config.faces), dtype=HAND_DTYPE)
        for s, belief in self.beliefs.items():
            hands[:, s] = belief.sample(k, rng)
        return hands

    @property
    def depleted(self) -> bool:
        """Whether any opponent's last update found no survivor."""
        return any(b.depleted for b in self.beliefs.values())
