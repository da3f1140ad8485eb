"""What both planners share: the opponent models they assume and the round's belief, fed from game events."""

from __future__ import annotations

import numpy as np

from ldpomdp.belief import TableBelief
from ldpomdp.errors import UsageError
from ldpomdp.game import ActionTaken, Event, Player, PlayerView, RoundStart
from ldpomdp.hands import MAX_SUPPORT, support_size
from ldpomdp.registry import make_player
from ldpomdp.rules import Bid, GameConfig, matching_count
from ldpomdp.validation import int_at_least, one_of, probability

__all__ = ["BeliefPlayer"]


class BeliefPlayer:
    """A player that keeps a ``TableBelief`` over the other hands of the current round.

    The belief restarts at every ``RoundStart`` and is updated with every bid of another player through the model
    ``assume`` (a player spec with ``action_probabilities``); the assumed models see every event, like real players.
    ``belief`` is "particles" or "exact"; the parameters (``n_particles``, ``injection``, ``refresh``, ``seed``,
    ``name``) are listed on the Planners page.
    """

    BELIEFS = TableBelief.KINDS

    def __init__(
        self, belief: str = "particles", n_particles: int = 10_000, injection: float = 0.0, refresh: float = 0.0,
        assume: str = "one-third", seed: int | None = None, name: str | None = None,
    ):
        owner = type(self).__name__
        one_of(owner, "belief", belief, self.BELIEFS)
        n_particles = int_at_least(owner, "n_particles", n_particles, 1)
        injection, refresh = probability(owner, "injection", injection), probability(owner, "refresh", refresh)
        if not callable(getattr(make_player(assume), "action_probabilities", None)):
            raise UsageError(f"{owner}.assume: {assume!r} has no action_probabilities, so no belief can use it")
        self.belief_kind, self.n_particles = belief, n_particles
        self.injection, self.refresh, self.assume = float(injection), float(refresh), assume
        self.rng = np.random.default_rng(seed)
        if name:
            self.name = name
        self.seat = -1
        self.config: GameConfig | None = None
        self.models: dict[int, Player] = {}
        self.belief: TableBelief | None = None

    def reseed(self, seq: np.random.SeedSequence) -> None:
        """The optional ``reseed`` hook of ``Player``: the beliefs draw from ``seq`` from now on."""
        self.rng = np.random.default_rng(seq)

    def reset(self, seat: int, config: GameConfig) -> None:
        largest = max(d for s, d in enumerate(config.starting_dice) if s != seat)
        if self.belief_kind == "exact" and support_size(largest, config.faces) > MAX_SUPPORT:
            raise UsageError(f"{type(self).__name__}: belief='exact' enumerates every hand, and an opponent's "
                             f"{largest} dice of {config.faces} faces make {support_size(largest, config.faces):,}, "
                             f"more than MAX_SUPPORT = {MAX_SUPPORT:,}; use belief='particles'")
        self.seat, self.config = seat, config
        self.models = {s: make_player(self.assume) for s in range(config.num_players) if s != seat}
        for s, model in self.models.items():
            model.reset(s, config)
        self.belief = None

    def standing_bid_odds(self, view: PlayerView) -> tuple[np.ndarray, int]:
        """For the bid standing at ``view``: the belief's distribution of the other hands' matching dice, and how
        many of them the bid needs beyond our own (<= 0: our hand makes it true)."""
        bid, config = view.bid, view.config
        if bid is None:
            raise ValueError(f"{type(self).__name__}.standing_bid_odds: no bid stands (the seat opens)")
        needed = bid.quantity - int(matching_count(view.hand, bid.face, config))
        return self.round_belief().total_distribution(bid.face, config.wild), needed

    def round_belief(self) -> TableBelief:
        """The belief of the round under way; ValueError before a round has started."""
        if self.belief is None:
            raise ValueError(f"{type(self).__name__}: no round has started (no RoundStart event observed)")
        return self.belief

    def observe(self, event: Event) -> None:
        for model in self.models.values():
            model.observe(event)
        if isinstance(event, RoundStart):
            if self.config is None:
                raise ValueError(f"{type(self).__name__}: a round started before reset")
            models = {s: m for s, m in self.models.items() if event.dice[s] > 0}
            self.belief = TableBelief(
                self.config, self.seat, event.dice, models, kind=self.belief_kind, n_particles=self.n_particles,
                injection=self.injection, refresh=self.refresh, rng=self.rng,
            )
        elif isinstance(event, ActionTaken) and event.seat != self.seat and isinstance(event.action, Bid):
            # a call (challenge, exact call) ends the round: no decision is left to take on this belief
            self.round_belief().observe_action(event.seat, event.action, event.view)
