"""A Bayesian opponent-type model: learns which of K known models, a point of a fitted family, or a safe type, the
seat plays like.

The seat plays like one of K known models, like a point of a parametric family (``family=quantal``: a grid of noisy
honest bidders, ``QuantalFamily``), or like the safe (equilibrium) type when none of them fits, and which one is
learnt from the hands it shows at the end of each round.

Within a round the posterior w does not move, so ``action_probabilities`` = sum_k w_k P_k(a | h, view), exactly
what a belief over the hidden hand needs. Why a safe type, and its slip: the Robustness page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from ..errors import TableError, UsageError
from ..game import ActionTaken, Event, PlayerView, PublicView, RoundEnd, RoundStart
from ..opponent import BaseOpponent, OpponentModel, ViewMemo, sample_action
from ..registry import canonical_spec, make_player, spec_list, spec_text
from ..rules import Action, GameConfig
from ..validation import number, one_of
from .quantal import QuantalFamily

__all__ = ["TypeMixture", "DEFAULT_TYPES", "DEFAULT_SAFE", "DEFAULT_TREMBLE", "FAMILIES"]

DEFAULT_TYPES = ("one-third", "random", "aggressive", "conservative", "oehm:0.2")
DEFAULT_SAFE = "cfr"  # the equilibrium type; it plays only where it can (see TypeMixture)
DEFAULT_TREMBLE = 0.02  # chance that the safe type's move is a uniform slip, in the likelihood (see TypeMixture)
FAMILIES = ("none", "quantal")  # the fitted families a mixture may hold: none, or QuantalFamily's grid


def _type_specs(types: Sequence[str] | str) -> tuple[str, ...]:
    """The component specs, canonical: a sequence of spec strings, or one string listing them as a spec's
    ``types=`` does (``[one-third,oehm:0.2]``)."""
    if not isinstance(types, str) and not (isinstance(types, Sequence) and all(isinstance(s, str) for s in types)):
        raise UsageError(f"TypeMixture.types must be a sequence of player specs or a list of them in brackets, "
                         f"got {types!r}")
    if not types or (not isinstance(types, str) and not all(s.strip() for s in types)):
        raise UsageError(f"TypeMixture.types needs at least one non-empty player spec, got {types!r}")
    try:
        specs = tuple(spec_list(types) if isinstance(types, str) else map(canonical_spec, types))
    except UsageError as exc:
        raise UsageError(f"TypeMixture.types: {exc}") from None
    if len(set(specs)) != len(specs):
        raise UsageError(f"TypeMixture.types lists a spec twice: {specs}")
    return specs


class TypeMixture(BaseOpponent):
    """Posterior mixture of K opponent models (``types``, specs with ``action_probabilities``), the points of a
    ``family`` (``quantal``: ``QuantalFamily``'s grid; ``none``) and a ``safe`` type.

    The prior gives each type, the family as a whole (spread evenly over its points) and the safe type one share.
    At each ``RoundEnd`` (before the components see it) w takes the Bayes step on the revealed hand, the safe type's
    move slipping to a uniform legal one with probability ``tremble``; then w <- (1 - floor) w + floor e_safe, or
    floor spread evenly while no safe type plays. ``safe="none"`` drops it; a safe type whose ``reset`` raises
    a UsageError sits the game out, and an unreadable table raises ``TableError``. ``posterior``: types, family
    points, then the safe type while it plays.
    """

    def __init__(self, types: Sequence[str] | str = DEFAULT_TYPES, floor: float = 0.01, safe: str | None = DEFAULT_SAFE,
                 tremble: float = DEFAULT_TREMBLE, family: str = "none", name: str | None = None):
        self.types = _type_specs(types)
        self.family_name = one_of("TypeMixture", "family", family, FAMILIES)
        self.family = QuantalFamily() if self.family_name == "quantal" else None
        self.floor = number("TypeMixture", "floor", floor, 0.0, 1.0)
        self.tremble = number("TypeMixture", "tremble", tremble, 0.0, 1.0)
        try:
            self.safe = None if safe in (None, "", "none") else canonical_spec(str(safe))
        except UsageError as exc:
            raise UsageError(f"TypeMixture.safe: {exc}") from None
        if self.safe in self.types:
            raise UsageError(f"TypeMixture.safe: {self.safe!r} is also one of the types; name it once, as safe")
        self.components: list[OpponentModel] = []
        for field, spec in [("types", t) for t in self.types] + ([("safe", self.safe)] if self.safe else []):
            try:
                model = make_player(spec)
            except UsageError as exc:
                raise UsageError(f"TypeMixture.{field}: {exc}") from exc
            if not callable(getattr(model, "action_probabilities", None)):
                raise UsageError(f"TypeMixture.{field}: {spec!r} has no action_probabilities")
            self.components.append(cast(OpponentModel, model))  # its action_probabilities checked just above
        self.name = name or spec_text("mixture", {
            "types": None if self.types == DEFAULT_TYPES else self.types,
            "safe": None if self.safe == DEFAULT_SAFE else self.safe or "none",
            "tremble": None if self.tremble == DEFAULT_TREMBLE else self.tremble,
            "family": None if self.family is None else self.family_name})
        self.safe_active = False  # whether the safe type plays in this game (set by reset)
        self.posterior = self._prior()
        self._pending: list[tuple[Action, PublicView]] = []
        self._memo: ViewMemo[tuple[tuple[Action, ...], np.ndarray]] = ViewMemo()  # the family's policy at a view

    @property
    def weights(self) -> dict[str, float]:
        """The current posterior, by type spec (the safe type's included while it plays)."""
        return dict(zip(self._active_specs, self.posterior.tolist(), strict=True))

    @property
    def _active_specs(self) -> tuple[str, ...]:
        """The types, the family's points, then the safe type while it plays: what ``posterior`` weighs."""
        points = self.family.labels if self.family is not None else ()
        return self.types + points + ((self.safe,) if self.safe_active else ())  # type: ignore[operator]

    @property
    def _active(self) -> list[OpponentModel]:
        """The components that play this game: the types, then the safe type while it plays."""
        return self.components[:len(self.types) + self.safe_active]

    @property
    def _points(self) -> slice:
        """Where the family's points sit in ``posterior``."""
        return slice(len(self.types), len(self.types) + (len(self.family) if self.family is not None else 0))

    def _prior(self) -> np.ndarray:
        """One share for each type, for the family (spread over its points) and for the safe type while it plays."""
        points = len(self.family) if self.family is not None else 0
        shares = len(self.types) + (points > 0) + self.safe_active
        prior = np.full(len(self.types) + points + self.safe_active, 1.0 / shares)
        prior[self._points] /= max(points, 1)
        return prior

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        for model in self.components[:len(self.types)]:
            model.reset(seat, config)
        self.safe_active = False
        if self.safe is not None:
            try:  # a safe type that cannot play this game (e.g. cfr beyond its table's dice) sits it out
                self.components[-1].reset(seat, config)
                self.safe_active = True
            except TableError:  # a broken table is not a game it cannot play
                raise
            except UsageError:
                pass
        self.posterior = self._prior()
        self._pending = []

    def observe(self, event: Event) -> None:
        if isinstance(event, RoundStart):
            self._pending = []
        elif isinstance(event, ActionTaken) and event.seat == self.seat:
            self._pending.append((event.action, event.view))
        elif isinstance(event, RoundEnd):
            self._update(np.asarray(event.hands[self.seat])[None, :])
            self._pending = []
        for model in self._active:
            model.observe(event)

    def _update(self, hand: np.ndarray) -> None:
        """Bayes on the round's actions given the revealed ``hand`` (1 x faces), then the floor (on the safe type
        while it plays, else spread over the types)."""
        if not self._pending:
            return
        models = self._active
        slip = [1.0 / len(view.legal_actions()) for _, view in self._pending]  # a uniform slip's P, per action
        component_lik = np.zeros(len(models))
        with np.errstate(divide="ignore"):
            for k, model in enumerate(models):
                tremble = self.tremble if self.safe_active and k == len(models) - 1 else 0.0
                component_lik[k] = sum(float(np.log((1.0 - tremble) * model.action_probabilities(hand, view, action)[0]
                                                    + tremble * uniform))
                                       for (action, view), uniform in zip(self._pending, slip, strict=True))
            log_lik = np.concatenate([component_lik[:len(self.types)], self._family_log_likelihood(hand[0]),
                                      component_lik[len(self.types):]])
            log_post = np.log(self.posterior) + log_lik
        self._memo = ViewMemo()  # the family's policies were weighed by the posterior before this step
        top = log_post.max()
        if np.isfinite(top):  # if no type explains the round, the round teaches nothing
            post = np.exp(log_post - top)
            self.posterior = post / post.sum()
        if self.safe_active:
            mixed = (1.0 - self.floor) * self.posterior
            mixed[-1] += self.floor
        else:
            mixed = (1.0 - self.floor) * self.posterior + self.floor / len(self.posterior)
        self.posterior = mixed / mixed.sum()

    def _family_log_likelihood(self, hand: np.ndarray) -> np.ndarray:
        """(points,): the log-likelihood of the round's actions under each point of the family, given ``hand``."""
        if self.family is None:
            return np.zeros(0)
        total = np.zeros(len(self.family))
        for action, view in self._pending:
            actions, probs = self.family.point_probabilities(hand, view)
            total += np.log(probs[:, actions.index(action)]) if action in actions else -np.inf
        return total

    def _family_part(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        """(N,): the family's points' probabilities of ``action``, weighted by the posterior (summing to their
        weight)."""
        assert self.family is not None
        family = self.family
        actions, probs = self._memo.get(hands, view, lambda: family.policy(hands, view, self.posterior[self._points]))
        return probs[:, actions.index(action)] if action in actions else np.zeros(len(probs))

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        total = np.zeros(np.asarray(hands).shape[0])
        weights = np.concatenate([self.posterior[:len(self.types)], self.posterior[self._points.stop:]])
        for w, model in zip(weights, self._active, strict=True):
            if w > 0.0:
                total += w * np.asarray(model.action_probabilities(hands, view, action), dtype=np.float64)
        if self.family is not None:
            total += self._family_part(hands, view, action)
        return np.minimum(total, 1.0)  # the weights sum to one up to rounding

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        k = int(rng.choice(len(self.posterior), p=self.posterior))
        points = self._points
        if self.family is not None and points.start <= k < points.stop:
            actions, probs = self.family.point_probabilities(np.asarray(view.hand), view.public())
            return sample_action(actions, probs[k - points.start], rng)
        return self.components[k if k < points.start else k - (points.stop - points.start)].act(view, rng)
