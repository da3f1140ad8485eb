"""POMCP (pomdp-py) over the one-round POMDP of ``ldpomdp.pomdp``, re-planned at every decision.

Each search draws its root particles from the belief core."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pomdp_py

from ldpomdp.errors import UsageError
from ldpomdp.exact.against_models.count_rounds import CountRound
from ldpomdp.exact.against_models.game_values import GameValue, seat_values
from ldpomdp.exact.against_models.solver import FixedOpponentsSolution, round_outcomes
from ldpomdp.game import ActionTaken, Event, PlayerView, RoundStart
from ldpomdp.pomdp import (
    ROLLOUTS,
    LDAction,
    LDObservation,
    LDState,
    RoundPOMCP,
    die_outcomes,
    end_outcomes,
    make_agent,
    reset_root,
)
from ldpomdp.round_end import settled_by_count
from ldpomdp.rules import CHALLENGE, Action, GameConfig, is_legal, matching_count
from ldpomdp.validation import int_at_least, number, one_of

from ._common import BeliefPlayer

__all__ = ["POMCPPlanner", "ROLLOUT_SEARCH", "EXACT_SEARCH", "SETTLE_EXTEND"]

# the defaults of (depth, exploration_const, settle): with rollouts, and where the round's values are exact (the
# search then looks one step ahead, explores evenly and stops once settled; docs/planners.md)
ROLLOUT_SEARCH = (12, 1.0, 0.0)
EXACT_SEARCH = (1, 3.0, 2.5)
SETTLE_EXTEND = 4  # with the stopping rule, a search that has not settled runs on up to this many times num_sims


def _centring(outcomes: dict[tuple[int, int], float]) -> Callable[[float], float]:
    """The one increasing affine map sending the lowest game value of ``outcomes`` to -1 and the highest to +1.

    Every value goes to 0 if they are equal. Every comparison of actions is unchanged, and a simulation that ends
    before the round does (reward 0, as pomdp-py scores it) or a node not yet valued sits in the middle, not below
    every outcome."""
    low, high = min(outcomes.values()), max(outcomes.values())
    half = (high - low) / 2
    return lambda value: (value - low - half) / half if half > 0 else 0.0


class POMCPPlanner(BeliefPlayer):
    """POMCP player: ``num_sims`` simulations (or ``planning_time`` seconds) per searched decision, for the game.

    ``reward="game"``: a round ends with the planner's P(win the game) from the dice state it leads to
    (``seat_values``; ``value_kind`` says which kind); ``"die"``: -1 / +1 for losing / taking the die. Parameters on
    the Planners page; the belief's as in ``BeliefPlayer``. Counters: ``decisions`` searched, ``skipped`` not,
    ``deprivations`` trees rebuilt; ``last_search`` (read only) is the last search's root,
    ``{action: (visits, value)}``, or None when that decision was not searched. """

    name = "pomcp"
    REWARDS = ("game", "die")

    def __init__(
        self, num_sims: int = 500, planning_time: float | None = None, max_depth: int | None = None,
        exploration_const: float | None = None, rollout: str = "expected-count", n_root: int | None = None,
        belief: str = "particles", n_particles: int = 10_000, injection: float = 0.0, refresh: float = 0.0,
        assume: str = "one-third", seed: int | None = None, name: str | None = None, reward: str = "game",
        settle: float | None = None,
    ):
        super().__init__(belief, n_particles, injection, refresh, assume, seed, name)
        self.reward = one_of("POMCPPlanner", "reward", reward, self.REWARDS)
        one_of("POMCPPlanner", "rollout", rollout, ROLLOUTS)
        if planning_time is None:
            num_sims = int_at_least("POMCPPlanner", "num_sims", num_sims, 1)
        else:  # seconds
            number("POMCPPlanner", "planning_time", planning_time, 0.0, low_open=True)
            if settle:
                raise UsageError("POMCPPlanner: settle stops a search of sims simulations early; a search of time "
                                 "seconds takes no settle")
        self.max_depth = None if max_depth is None else int_at_least("POMCPPlanner", "max_depth", max_depth, 1)
        self.exploration_const = (None if exploration_const is None
                                  else float(number("POMCPPlanner", "exploration_const", exploration_const, 0.0)))
        self.settle = None if settle is None else float(number("POMCPPlanner", "settle", settle, 0.0))
        self.num_sims, self.planning_time, self.rollout = num_sims, planning_time, rollout
        if n_root is not None:
            n_root = int_at_least("POMCPPlanner", "n_root", n_root, 1)
        self.n_root = n_root if n_root is not None else min(max(num_sims, 200), 2000)
        self.deprivations = self.decisions = self.skipped = self.simulations = 0
        self.planning_seconds = 0.0
        self.last_search: dict[Action, tuple[int, float]] | None = None
        self.values: GameValue | None = None
        self.value_kind = reward
        self._outcomes: dict[tuple[int, int], float] = {}
        self._centre: Callable[[float], float] = float
        self._opener = 0
        self._new_round()

    def reseed(self, seq: np.random.SeedSequence) -> None:
        """The beliefs draw from ``seq`` from now on, and Python's global ``random`` (pomdp-py draws from it) is
        reseeded from it too."""
        super().reseed(seq)
        random.seed(int(seq.generate_state(2, np.uint64)[0]))

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        if self.reward == "game":
            self.values, self.value_kind = seat_values(config, seat, self.assume)
        self._new_round()

    def _new_round(self) -> None:
        self.agent: pomdp_py.Agent | None = None
        self.planner: pomdp_py.POMCP | None = None
        self._last: LDAction | None = None
        self._seen: list[tuple[int, Action]] = []

    @property
    def by_count(self) -> bool:
        """Whether the search runs on one hand per matching count (an exactly solved sixes game)."""
        return self.value_kind == "exact" and self.config is not None and self.config.bids == "sixes"

    def _exact_leaf(self, view: PlayerView) -> Callable[[LDState], float | None]:
        """State -> the round's exact value from its standing bid on, for the search in an exactly solved sixes game.

        The value is the best response's, given what the models reached there tell, in reward units; the search
        runs so where ``by_count`` holds."""
        assert isinstance(self.values, FixedOpponentsSolution)  # what by_count implies
        solved = self.values.round(view.dice)
        assert isinstance(solved, CountRound)  # the sixes game's rounds
        c0 = int(matching_count(view.hand, view.config.faces, view.config))
        table = [None if np.isnan(v) else self._centre(float(v)) for v in solved.values[self._opener][:, c0]]

        def leaf(state: LDState) -> float | None:
            bid = state.bid
            return table[0 if bid is None else bid.quantity]

        return leaf

    def _make_planner(self, agent: pomdp_py.Agent, leaf_value: Callable[[LDState], float | None] | None
                      ) -> pomdp_py.POMCP:
        defaults = ROLLOUT_SEARCH if leaf_value is None else EXACT_SEARCH
        depth, exploration, settle = (default if given is None else given for given, default in
                                      zip((self.max_depth, self.exploration_const, self.settle), defaults, strict=True))
        timed = self.planning_time is not None
        sims = -1 if timed else self.num_sims * (SETTLE_EXTEND if settle > 0 else 1)
        return RoundPOMCP(
            agent, leaf_value, settle, max_depth=depth, planning_time=self.planning_time if timed else -1,
            num_sims=sims, discount_factor=1.0, exploration_const=exploration, rollout_policy=agent.policy_model,
            show_progress=False,
        )

    def _advance(self, view: PlayerView, plan: bool) -> None:
        """Move the agent to this decision: history, tree (or a fresh one on deprivation), and root particles
        if it will ``plan`` here."""
        agent, planner = self.agent, self.planner
        assert agent is not None and planner is not None  # called once the round's search exists
        observation = LDObservation(tuple(self._seen))
        agent.update_history(self._last, observation)
        try:
            planner.update(agent, self._last, observation)
        except ValueError as exc:
            if "deprivation" not in str(exc).lower():
                raise
            self.deprivations += 1
            agent.tree = None
        if plan:
            reset_root(agent, view, self.round_belief(), self.n_root, self.rng, self.rollout, self.by_count)

    def _unsearched(self, view: PlayerView) -> Action | None:
        """The move when no search is needed, else None.

        The only legal one; CHALLENGE when the belief gives the bid no chance and the bidder's loss is the best end
        of the round; or the only raise when the belief makes the bid sure (matching dice counted in our hand and in
        every hand the belief holds possible) and losing our own die is the worst end. The search, drawing its root
        particles from that belief, would value those moves alike."""
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if view.bid is None or settled_by_count(view.config):  # the shortcuts read (loser, challenger) outcomes
            return None
        outcomes = self._outcomes
        others, needed = self.standing_bid_odds(view)
        surely_true, surely_false = not others[:max(needed, 0)].any(), not others[max(needed, 0):].any()
        if surely_false and outcomes[(view.history[-1][0], self.seat)] >= max(outcomes.values()):
            return CHALLENGE
        if surely_true and len(legal) == 2 and outcomes[(self.seat, self.seat)] <= min(outcomes.values()):
            return legal[0]
        return None

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        self.last_search = None
        move = self._unsearched(view)
        if self.agent is not None:
            self._advance(view, plan=move is None)
        if move is not None:
            self.skipped += 1
            return move
        agent, planner = self.agent, self.planner
        if agent is None or planner is None:  # the round's first search
            belief = self.round_belief()
            agent = self.agent = make_agent(
                view.config, self.seat, belief.models, belief, view, self.n_root, self.rollout, self.rng,
                self._outcomes, self.by_count,
            )
            planner = self.planner = self._make_planner(agent, self._exact_leaf(view) if self.by_count else None)
        action = planner.plan(agent).move
        self.last_search = {node_action.move: (int(node.num_visits), float(node.value))
                            for node_action, node in agent.tree.children.items()}
        self.decisions += 1
        self.simulations += planner.last_num_sims
        self.planning_seconds += planner.last_planning_time
        if not is_legal(view.config, view.table_dice, view.bid, action):  # a bug in the domain, not the player
            raise RuntimeError(f"POMCPPlanner chose illegal {action!r} over {view.bid}")
        return action

    def observe(self, event: Event) -> None:
        super().observe(event)
        if isinstance(event, RoundStart):
            self._new_round()
            assert self.config is not None  # reset sets it before any round starts
            if settled_by_count(self.config):  # the ends of the round (exact call, loss by the difference)
                value = None if self.values is None else self.values.win_probability
                outcomes = end_outcomes(self.config, self.seat, event.dice, value)
                self._centre = _centring(outcomes)
            elif self.values is None:
                outcomes = die_outcomes(self.seat, event.dice)
                self._centre = float
            else:
                outcomes = round_outcomes(self.config, self.seat, event.dice, self.values.win_probability)
                self._centre = _centring(outcomes)
            self._outcomes = {key: self._centre(value) for key, value in outcomes.items()}
            self._opener = event.opener
        elif isinstance(event, ActionTaken):
            if event.seat == self.seat:
                self._last, self._seen = LDAction(event.action), []
            else:
                self._seen.append((event.seat, event.action))
