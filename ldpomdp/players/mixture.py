"""A Bayesian opponent-type model: learns which of K known models, or a safe type, the seat plays like.

The seat plays like one of K known models, or like the safe (equilibrium) type when none of them fits, and which
one is learnt from the hands it shows at the end of each round.

Within a round the posterior w does not move, so ``action_probabilities`` = sum_k w_k P_k(a | h, view), exactly
what a belief over the hidden hand needs. Why a safe type, and its slip: the Robustness page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from ..errors import TableError, UsageError
from ..game import ActionTaken, Event, PlayerView, PublicView, RoundEnd, RoundStart
from ..opponent import BaseOpponent, OpponentModel
from ..registry import canonical_spec, make_player, spec_list, spec_text
from ..rules import Action, GameConfig
from ..validation import number

__all__ = ["TypeMixture", "DEFAULT_TYPES", "DEFAULT_SAFE", "DEFAULT_TREMBLE"]

DEFAULT_TYPES = ("one-third", "random", "aggressive", "conservative", "oehm:0.2")
DEFAULT_SAFE = "cfr"  # the equilibrium type; it plays only where it can (see TypeMixture)
DEFAULT_TREMBLE = 0.02  # chance that the safe type's move is a uniform slip, in the likelihood (see TypeMixture)


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
    """Posterior mixture of K opponent models (``types``, specs with ``action_probabilities``) and a ``safe`` type.

    At each ``RoundEnd`` (before the components see it) w takes the Bayes step on the revealed hand, the safe type's
    move slipping to a uniform legal one with probability ``tremble``; then w <- (1 - floor) w + floor e_safe, or
    floor / K on every type while no safe type plays. ``safe="none"`` drops it; a safe type whose ``reset`` raises
    a UsageError sits the game out, and an unreadable table raises ``TableError``.
    """

    def __init__(self, types: Sequence[str] | str = DEFAULT_TYPES, floor: float = 0.01, safe: str | None = DEFAULT_SAFE,
                 tremble: float = DEFAULT_TREMBLE, name: str | None = None):
        self.types = _type_specs(types)
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
            "tremble": None if self.tremble == DEFAULT_TREMBLE else self.tremble})
        self.safe_active = False  # whether the safe type plays in this game (set by reset)
        self.posterior = np.full(len(self.types), 1.0 / len(self.types))
        self._pending: list[tuple[Action, PublicView]] = []

    @property
    def weights(self) -> dict[str, float]:
        """The current posterior, by type spec (the safe type's included while it plays)."""
        return dict(zip(self._active_specs, self.posterior.tolist(), strict=True))

    @property
    def _active_specs(self) -> tuple[str, ...]:
        return self.types + ((self.safe,) if self.safe_active else ())  # type: ignore[operator]

    @property
    def _active(self) -> list[OpponentModel]:
        """The components that play this game: the types, then the safe type while it plays."""
        return self.components[:len(self._active_specs)]

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
        self.posterior = np.full(len(self._active), 1.0 / len(self._active))
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
        log_lik = np.zeros(len(models))
        with np.errstate(divide="ignore"):
            for k, model in enumerate(models):
                tremble = self.tremble if self.safe_active and k == len(models) - 1 else 0.0
                log_lik[k] = sum(float(np.log((1.0 - tremble) * model.action_probabilities(hand, view, action)[0]
                                              + tremble * uniform))
                                 for (action, view), uniform in zip(self._pending, slip, strict=True))
            log_post = np.log(self.posterior) + log_lik
        top = log_post.max()
        if np.isfinite(top):  # if no type explains the round, the round teaches nothing
            post = np.exp(log_post - top)
            self.posterior = post / post.sum()
        if self.safe_active:
            mixed = (1.0 - self.floor) * self.posterior
            mixed[-1] += self.floor
        else:
            mixed = (1.0 - self.floor) * self.posterior + self.floor / len(models)
        self.posterior = mixed / mixed.sum()

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        total = np.zeros(np.asarray(hands).shape[0])
        for w, model in zip(self.posterior, self._active, strict=True):
            if w > 0.0:
                total += w * np.asarray(model.action_probabilities(hands, view, action), dtype=np.float64)
        return np.minimum(total, 1.0)  # the weights sum to one up to rounding

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        k = int(rng.choice(len(self.posterior), p=self.posterior))
        return self.components[k].act(view, rng)
