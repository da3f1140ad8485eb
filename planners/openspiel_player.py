"""The ``openspiel`` player: an OpenSpiel bot at the package's table (extra ``openspiel``)."""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms.ismcts import ISMCTSBot
from open_spiel.python.algorithms.mcts import RandomRolloutEvaluator

from ldpomdp.errors import UsageError
from ldpomdp.game import ActionTaken, Event, PlayerView, RoundEnd, RoundStart
from ldpomdp.openspiel.bots import load_policy_table
from ldpomdp.openspiel.game import LiarsDiceGame, LiarsDiceState, load, params_of
from ldpomdp.rules import Action, Bid, GameConfig
from ldpomdp.validation import int_at_least, number, one_of

from ._common import BeliefPlayer

__all__ = ["OpenSpielPlayer"]


class OpenSpielPlayer(BeliefPlayer):
    """An OpenSpiel bot at the package's table (spec ``openspiel:bot=ismcts[,sims=...]`` or ``openspiel:policy=PATH``).

    It completes the bridged game's state of the finished rounds with its own hand and the round's bids. ``ismcts``:
    OpenSpiel's ``ISMCTSBot`` (``sims``, ``uct_c``, ``rollouts`` random rollouts per leaf), resampling the other
    hands from the package's belief (``assume``, ``belief``, ``n_particles``, ``seed`` as for the planners).
    ``policy``: samples the saved table's probabilities at its information state (``load_policy_table``).
    """

    BOTS = ("ismcts", "policy")

    def __init__(self, bot: str | None = None, policy: str | None = None, sims: int = 1000, uct_c: float = 2.0,
                 rollouts: int = 1, belief: str = "particles", n_particles: int = 10_000, assume: str = "one-third",
                 seed: int | None = None, name: str | None = None):
        bot = bot if bot is not None else ("policy" if policy is not None else "ismcts")
        one_of("OpenSpielPlayer", "bot", bot, self.BOTS)
        if (bot == "policy") != (policy is not None):
            raise UsageError("OpenSpielPlayer: bot=policy needs policy=PATH, and policy=PATH goes with bot=policy only")
        super().__init__(belief=belief, n_particles=n_particles, assume=assume, seed=seed,
                         name=name or f"openspiel:{bot}")
        self.bot = bot
        self.table = load_policy_table(policy) if policy is not None else None
        self.sims = int_at_least("OpenSpielPlayer", "sims", sims, 1)
        self.uct_c = number("OpenSpielPlayer", "uct_c", uct_c)
        self.rollouts = int_at_least("OpenSpielPlayer", "rollouts", rollouts, 1)
        self.game: LiarsDiceGame | None = None
        self._start: LiarsDiceState | None = None  # the state at the current round's first roll
        self._bids: list[int] = []

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        params_of(config)  # refuse a config the bridged game cannot express before the game starts
        self.game, self._start = None, None

    def observe(self, event: Event) -> None:
        super().observe(event)
        if isinstance(event, RoundStart):
            if event.round_index == 0:
                assert self.config is not None, "BeliefPlayer.observe refuses a round before reset"
                self.game = load(**params_of(self.config, first_opener=event.opener))
                self._start = self.game.new_initial_state()
            start = self._round_start()
            if start.is_terminal():
                raise ValueError(f"{self.name}: round {event.round_index} is past the bridged game's cap of "
                                 f"{start.rules.max_rounds} rounds (exact calls gave dice back that often)")
            if (start.dice, start.opener, start.palifico) != (event.dice, event.opener, event.palifico):
                raise ValueError(f"{self.name}: round {event.round_index} starts with dice {event.dice} opened by "
                                 f"seat {event.opener} (palifico {event.palifico}); the bridged game says "
                                 f"{start.dice}, {start.opener} (palifico {start.palifico})")
            self._bids = []
        elif isinstance(event, ActionTaken) and isinstance(event.action, Bid):
            self._bids.append(self._round_start().rules.encode(event.action))
        elif isinstance(event, RoundEnd):
            self._start = self._complete(event.hands, self._bids + [self._round_start().rules.call(event.exact)])

    def _round_start(self) -> LiarsDiceState:
        """The bridged state at the current round's first roll (set from the game's first ``RoundStart`` on)."""
        assert self._start is not None, f"{self.name}: no game under way (no RoundStart of round 0 observed)"
        return self._start

    def _complete(self, hands, actions: list[int]) -> LiarsDiceState:
        """The round's start state with ``hands`` rolled and ``actions`` played."""
        state = self._round_start().clone()
        for seat, hand in enumerate(hands):
            if state.dice[seat]:
                state.apply_action(state.rules.outcome(tuple(int(c) for c in hand)))
        for action in actions:
            state.apply_action(action)
        return state

    def _resample(self, state: pyspiel.State, player: int) -> LiarsDiceState:
        """ISMCTS's resampler: the other hands drawn from the belief, ours and the bids kept."""
        hands = self.round_belief().sample_hands(1, self.rng)[0]
        hands[self.seat] = state.hands[self.seat]
        return self._complete(hands, list(state.bid_ids))

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        rules = self._round_start().rules
        hands = [view.hand if s == self.seat else rules.hands(d)[0] for s, d in enumerate(view.dice)]
        state = self._complete(hands, self._bids)  # its rules are the start state's (never copied with a state)
        if self.bot == "policy":
            key = state.information_state_string(self.seat)
            entry = (self.table or {}).get(key)
            if entry is None:
                raise UsageError(f"{self.name}: the policy has no entry for information state {key!r} (saved for "
                                 f"another game?)")
            legal, listed = set(state.legal_actions()), {a for a, _ in entry}
            played = {a for a, p in entry if p > 0}
            if not played or not played <= legal or not legal <= listed:
                raise UsageError(f"{self.name}: the policy's entry at information state {key!r} plays {sorted(played)} "
                                 f"and lists {len(listed)} actions; the legal ones are {sorted(legal)} (saved for "
                                 f"other rules?)")
            weights = np.array([p for _, p in entry], dtype=float)
            return rules.decode(entry[int(rng.choice(len(entry), p=weights / weights.sum()))][0])
        random_state = np.random.RandomState(int(self.rng.integers(2**31)))
        search = ISMCTSBot(self.game, RandomRolloutEvaluator(self.rollouts, random_state), self.uct_c, self.sims,
                           random_state=random_state)
        search.set_resampler(self._resample)
        return rules.decode(int(search.step(state)))
