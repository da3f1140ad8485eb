"""The N-seat round solvers (exact.many_players.round_cfr): which regret minimiser, their cost, the abstraction's size.

    python benchmarks/nplayer_round.py [--part method,cost,size,states,sampling,decide,chain] [--no-record]

``method``: NashConv (the sum over seats of a perfect-recall best response's gain, in the unabstracted round) of
the average strategy against CPU seconds, for vector CFR+ with alternating and with simultaneous updates and for
external-sampling MCCFR (defined here, scalar, on the same abstraction). ``cost``: CPU seconds per CFR+ iteration
by public tree size. ``size``: the abstraction's information sets and the solver's regrets and sums at 5 dice each.
``states``: CPU seconds per iteration of the solver over information sets (NRoundCFR, 16 sampled joint hands) at
5 dice each. ``sampling``: its NashConv with sampled joint hands against every joint hand, on a round small enough
for the public tree's best response. ``decide``: CPU milliseconds a ``cfr`` decision takes with the shipped
three-player blueprint, over self-play games at 5 dice each. ``chain``: what a blueprint's rounds of N seats holding
dice would cost at 5 dice each (N = 3-6): CPU per iteration at sampled rounds, fitted to their raw size and summed
over every round; at N = 3 every round is measured too, to check the fit.
Run it with ``OPENBLAS_NUM_THREADS=1`` for one core's figures.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from _record import record

from ldpomdp.exact.many_players.blueprint import BLUEPRINT_RECALL
from ldpomdp.exact.many_players.round import NRound, n_round, public_tree_size
from ldpomdp.exact.many_players.round_cfr import NRoundCFR, PublicTreeCFR
from ldpomdp.exact.tables import SHIPPED
from ldpomdp.game import PlayerView, play_game
from ldpomdp.hands import hand_support
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.rules import CHALLENGE, Action, Bid, GameConfig

METHOD_ROUND = (GameConfig(num_players=3, dice=1, faces=3), (1, 1, 1), 2)
COST_ROUNDS = [((1, 1, 1), 3), ((1, 1, 1), 4), ((2, 1, 1), 3), ((2, 2, 1), 3), ((1, 1, 1, 1), 4)]
SIZE_ROUNDS = [((5, 5, 5), 1), ((5, 5, 5), 2), ((5,) * 6, 1), ((5,) * 6, 2)]
STATES_ROUNDS = [((5, 5, 5), 1), ((5, 5, 5), 2), ((5, 5, 5, 5), 1)]
SAMPLING_ROUND = (GameConfig(num_players=3, dice=2, faces=4), (1, 2, 2), 1)
CHAIN_SEATS, CHAIN_SAMPLE = (3, 4, 5, 6), 12  # seats holding dice; rounds measured per count (and every seat at 5)


def _matched(row: np.ndarray) -> np.ndarray:
    total = row.sum()
    return row / total if total > 0 else np.full(len(row), 1.0 / len(row))


class ExternalSampling:
    """External-sampling MCCFR (Lanctot et al. 2009) with linear averaging on an NRound: per iteration and seat,
    one joint hand drawn from the prior, every action of the seat explored, the others' sampled."""

    def __init__(self, solver: PublicTreeCFR, seed: int):
        self.solver, self.r = solver, solver.round
        self.regrets = [np.zeros_like(x) for x in solver.regrets]
        self.sums = [np.zeros_like(x) for x in solver.regrets]
        self.rng = np.random.default_rng(seed)
        self.iteration = 0

    def _walk(self, hands: tuple[int, ...], history: list, seat: int, t: int) -> float:
        r, p = self.r, self.solver.payoff
        actor = len(history) % r.seats
        s = r.index[(actor, tuple(history[-r.k:]))]
        e0, acts, h = int(r.edge_start[s]), r.actions(s), hands[actor]
        sigma = _matched(np.maximum(self.regrets[actor][h, e0:e0 + len(acts)], 0.0))

        def value(j: int) -> float:
            action = acts[j]
            if isinstance(action, Bid):
                return self._walk(hands, history + [action], seat, t)
            bid = history[-1]
            total = sum(int(r.matches[i][hands[i], bid.face - 1]) for i in range(r.seats))
            if action is CHALLENGE:
                return float(p.challenge[seat, actor, bid.quantity - total + r.table_dice])
            assert p.exact is not None
            return float(p.exact[seat, actor, int(total == bid.quantity)])

        if actor != seat:
            self.sums[actor][h, e0:e0 + len(acts)] += t * sigma
            return value(int(self.rng.choice(len(acts), p=sigma)))
        utils = np.array([value(j) for j in range(len(acts))])
        node = float(sigma @ utils)
        self.regrets[seat][h, e0:e0 + len(acts)] += utils - node
        return node

    def run(self, iterations: int) -> None:
        for _ in range(iterations):
            self.iteration += 1
            for seat in range(self.r.seats):
                hands = tuple(int(self.rng.choice(len(q), p=q)) for q in self.r.priors)
                self._walk(hands, [], seat, self.iteration)

    def average_strategy(self) -> list[np.ndarray]:
        r = self.r
        return [np.array([np.concatenate([_matched(x[h, r.edge_start[s]:r.edge_start[s] + r.widths[s]])
                                          for s in r.seat_sets[i]]) for h in range(len(x))])
                for i, x in enumerate(self.sums)]


def _runs(label: str, solver, targets: tuple[int, ...], nash_conv, digits: tuple[int, int]) -> list[list]:
    """Rows (label, iterations, CPU s, NashConv) with ``solver`` run on to each of ``targets`` iterations;
    ``nash_conv()`` measures it, ``digits`` the decimals of the CPU seconds and of the NashConv."""
    rows, spent = [], 0.0
    for target in targets:
        start = time.process_time()
        solver.run(target - solver.iteration)
        spent += time.process_time() - start
        rows.append([label, target, f"{spent:.{digits[0]}f}", f"{nash_conv():.{digits[1]}f}"])
        print(rows[-1], flush=True)
    return rows


def method_rows() -> list[list]:
    config, dice, k = METHOD_ROUND
    rows = []
    for label, alternating in (("vector CFR+, alternating", True), ("vector CFR+, simultaneous", False)):
        solver = PublicTreeCFR(config, dice, k, alternating=alternating)
        rows += _runs(label, solver, (10, 40, 160), lambda s=solver: s.gains().sum(), (2, 5))
    sampler = ExternalSampling(PublicTreeCFR(config, dice, k), seed=0)
    rows += _runs("external-sampling MCCFR", sampler, (1000, 4000, 16000),
                  lambda: sampler.solver.gains(sampler.average_strategy()).sum(), (2, 5))
    return rows


def cost_rows() -> list[list]:
    rows = []
    for dice, faces in COST_ROUNDS:
        config = GameConfig(num_players=len(dice), dice=max(dice), faces=faces)
        solver = PublicTreeCFR(config, dice, 2)
        solver.run(1)  # warm the caches
        start = time.process_time()
        solver.run(3)
        per = (time.process_time() - start) / 3
        rows.append([f"{dice}, {faces} faces", f"{solver.tree.size:,}", f"{per:.4f}",
                     f"{per / solver.tree.size / sum(len(h) for h in solver.round.hands) * 1e6:.2f}"])
        print(rows[-1], flush=True)
    return rows


def size_rows() -> list[list]:
    rows = []
    for dice, k in SIZE_ROUNDS:
        r: NRound = n_round(GameConfig(num_players=len(dice), dice=5, faces=6), dice, k)
        rows.append([f"{len(dice)} x 5 dice", k, f"{len(r.keys):,}", f"{sum(r.edges):,}",
                     f"{r.memory_bytes() / 2 ** 20:,.0f}", f"{public_tree_size(r.config, r.table_dice):.3g}"])
        print(rows[-1], flush=True)
    return rows


def states_rows() -> list[list]:
    rows = []
    for dice, k in STATES_ROUNDS:
        start = time.process_time()
        solver = NRoundCFR(GameConfig(num_players=len(dice), dice=5), dice, k)
        built = time.process_time() - start
        start = time.process_time()
        solver.run(1)
        rows.append([f"{dice}", k, f"{len(solver.round.keys):,}", f"{built:.2f}", f"{time.process_time() - start:.2f}"])
        print(rows[-1], flush=True)
    return rows


def sampling_rows() -> list[list]:
    config, dice, k = SAMPLING_ROUND
    reference = PublicTreeCFR(config, dice, k)
    rows = []
    for label, samples, max_tuples in (("8 sampled", 8, 1), ("16 sampled", 16, 1), ("64 sampled", 64, 1),
                                       ("every joint hand", 16, 10 ** 6)):
        solver = NRoundCFR(config, dice, k, samples=samples, max_tuples=max_tuples)
        rows += _runs(label, solver, (50, 150, 600), lambda s=solver: reference.gains(s.average_strategy()).sum(),
                      (1, 4))
    return rows


def decide_rows(games: int = 100) -> list[list]:
    spent, decisions = 0.0, 0
    config = GameConfig(num_players=3, dice=5)

    class Timed(CFRPlayer):
        def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
            nonlocal spent, decisions
            start = time.process_time()
            action = super().act(view, rng)
            spent, decisions = spent + time.process_time() - start, decisions + 1
            return action

    players = [Timed() for _ in range(3)]
    play_game(config, players, games)  # loads the table: not timed
    spent, decisions = 0.0, 0
    for game in range(games):
        play_game(config, players, game)
    rows = [["3 players, 5 dice each", games, decisions, f"{1000 * spent / decisions:.3f}"]]
    print(rows[-1], flush=True)
    return rows


def _per_iteration(dice: tuple[int, ...]) -> tuple[float, int]:
    """CPU seconds per CFR+ iteration of the blueprint's solver on the round ``dice`` (after one), and the bytes of
    its regrets and strategy sums."""
    solver = NRoundCFR(GameConfig(num_players=len(dice), dice=5), dice, BLUEPRINT_RECALL)
    solver.run(1)
    start = time.process_time()
    solver.run(2)
    return (time.process_time() - start) / 2, solver.round.memory_bytes()


def _raw_sizes(rounds: list[tuple[int, ...]]) -> np.ndarray:
    """Each round's strategies in bytes as the table stores them before compression (uint8 per hand and column):
    a seat's columns depend only on the seats and the table's dice (k = 1), so one round stands for each total."""
    edges = {}
    for dice in rounds:
        if sum(dice) not in edges:
            edges[sum(dice)] = n_round(GameConfig(num_players=len(dice), dice=5), dice, BLUEPRINT_RECALL).edges
    hands = {d: len(hand_support(d, 6)[0]) for d in range(1, 6)}
    return np.array([sum(hands[d] * e for d, e in zip(dice, edges[sum(dice)], strict=True)) for dice in rounds])


def chain_rows() -> list[list]:
    iterations, rows, blueprint_hours, blueprint_mb = SHIPPED.iterations, [], 0.0, 0.0
    rng = np.random.default_rng(0)
    for seats in CHAIN_SEATS:
        rounds = list(itertools.product(range(1, 6), repeat=seats))
        sizes = _raw_sizes(rounds)
        picked = sorted(set(rng.choice(len(rounds), CHAIN_SAMPLE, replace=False)) | {len(rounds) - 1})  # + all 5s
        every = seats == 3  # few enough to measure them all, to check the fit
        measured = {i: _per_iteration(rounds[i]) for i in (range(len(rounds)) if every else picked)}
        cost = {i: seconds for i, (seconds, _) in measured.items()}
        for i, (_, solver_bytes) in measured.items():  # the sizes are exact: the solver's own count agrees
            if 16 * sizes[i] != solver_bytes:
                raise RuntimeError(f"the raw size of round {rounds[i]} is not its solver's")
        slope, intercept = np.polyfit(np.log(sizes[picked]), np.log([cost[i] for i in picked]), 1)
        fitted = iterations * np.exp(intercept + slope * np.log(sizes)).sum() / 3600
        blueprint_hours += fitted
        blueprint_mb += sizes.sum() / 1e6
        rows.append([seats, f"{len(rounds):,}", len(picked), f"{cost[len(rounds) - 1]:.2f}", f"{fitted:,.2f}",
                     f"{iterations * sum(cost.values()) / 3600:.2f}" if every else "", f"{sizes.sum() / 1e6:,.0f}",
                     f"{blueprint_hours:,.1f}", f"{blueprint_mb:,.0f}"])
        print(rows[-1], flush=True)
    return rows


NOTE = "One process on 2 cores, shared (other jobs running): CPU seconds are process time."
PARTS = {  # part: (rows, title, columns, what the note adds)
    "method": (method_rows, "Regret minimisers on one 3-seat round (1 die each, 3 faces, ones wild, k = 2)",
               ["method", "iterations", "CPU s", "NashConv of the average"], ""),
    "cost": (cost_rows, "Vector CFR+ (alternating), CPU seconds per iteration by public tree size (k = 2)",
             ["dice per seat", "public tree nodes", "CPU s / iteration", "CPU us per node x hand"], ""),
    "size": (size_rows, "The abstraction at 5 dice each (6 faces, ones wild)",
             ["table", "recall k", "information sets", "columns (all seats)", "regrets + sums, MB",
              "public tree nodes"], ""),
    "states": (states_rows, "The solver over information sets (16 sampled joint hands), 5 dice each",
               ["dice per seat", "recall k", "information sets", "CPU s to build", "CPU s / iteration"], ""),
    "sampling": (sampling_rows, "Sampled joint hands against every joint hand (3 seats with 1, 2, 2 dice, 4 faces, "
                 "ones wild, k = 1)", ["joint hands per update", "iterations", "CPU s", "NashConv of the average"],
                 " NashConv: perfect-recall best responses in the unabstracted round, so it keeps the abstraction's "
                 "own loss."),
    "decide": (decide_rows, "CPU ms a `cfr` decision with the shipped three-player blueprint (self-play)",
               ["table", "games", "decisions", "CPU ms a decision"],
               " Every decision of the games, the rounds of two seats (the two-player table) too."),
    "chain": (chain_rows, "What a blueprint's rounds of N seats holding dice cost to solve at 5 dice each (k = 1, 16 "
              f"sampled joint hands, {SHIPPED.iterations} iterations a round as the solve's default)",
              ["seats holding dice", "rounds", "rounds measured", "CPU s / iteration at 5 dice each",
               "CPU hours, fitted", "CPU hours, every round measured", "strategies, raw MB",
               "the blueprint for that many players (rounds of 3 seats up): CPU hours, fitted",
               "the blueprint for that many players: raw MB"],
              " Fitted: log CPU s per iteration linear in the log of the round's raw size, fitted to the rounds "
              "measured (drawn with seed 0, and every seat at 5 dice), summed over every round. CFR+ iterations "
              "only: the rounds' values (8,192 joint hands each) and the checkpoint's writes are not counted. Raw "
              "MB: uint8 strategies before compression, exact (the shipped three-player blueprint's file "
              "compresses 69 MB to 6.6)."),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default=",".join(PARTS))
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    for part in args.part.split(","):
        rows_of, title, columns, more = PARTS[part]
        rows = rows_of()
        if not args.no_record:
            record(f"nplayer_{part}", title, columns, rows, command=f"python benchmarks/nplayer_round.py --part {part}",
                   notes=NOTE + more)


if __name__ == "__main__":
    main()
