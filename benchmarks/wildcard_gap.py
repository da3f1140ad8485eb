"""How far a player is from the best possible play against report 004's hand-independent dummies (5 dice, ones
wild, full bids): heads-up against Aggressive and Random, and the 1 vs 2 pairs {R,A}, {R,R}, {A,A}.

At every decision of the player the exact best response (``solve_fixed_opponents``) gives the
P(win) of each legal action followed by optimal play; the action's *regret* is the best value minus the chosen one.
Summed over a game, the regrets are an unbiased estimate of the player's P(win) below the best response from that
start (the performance difference lemma), with far less noise than counting wins: 1000 games measure a gap of 2%
to about +-0.3. Reported per cell: the wins, the exact ceiling (the best response's P(win) over the same schedule),
the gap with its 95% interval (normal, from the per-game sums), and ceiling - gap, an estimate of the player's win
rate. The player sits at seat 0; game g is opened by seat g mod players, and against two different dummies every
second block of ``players`` games swaps their order. Game g's generator (and the player's ``reseed``) come from
the seed sequence (seed, g), so a game never depends on the games before it.

    python benchmarks/wildcard_gap.py [--players dqn,...] [--cells aggressive,...] [--games 1000] [--quick] [--record]
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
from _record import record
from _wrapped import Wrapped

from ldpomdp.caches import memo
from ldpomdp.exact import FixedOpponentsSolution, solve_fixed_opponents
from ldpomdp.game import PlayerView, play_game, seeded_rng
from ldpomdp.registry import make_player, split_specs
from ldpomdp.rules import Action, GameConfig
from ldpomdp.sweeps.statistics import wilson_interval

CELLS = ("aggressive", "random", "random+aggressive", "random+random", "aggressive+aggressive")  # opponents, "+"-joined


def column(cell: str) -> str:
    """A cell's column title: ``vs A (1v1)``, ``vs {R,A}``."""
    letters = [d[0].upper() for d in cell.split("+")]
    return f"vs {letters[0]} (1v1)" if len(letters) == 1 else "vs {" + ",".join(letters) + "}"


@dataclass(frozen=True)
class Gap:
    """One cell: ``wins`` of ``games``, the mean exact ceiling, and the per-game regret sums."""

    games: int
    wins: int
    ceiling: float
    regrets: np.ndarray

    @property
    def gap(self) -> tuple[float, float]:
        """The mean regret per game and the half-width of its 95% interval."""
        return float(self.regrets.mean()), 1.96 * float(self.regrets.std(ddof=1)) / math.sqrt(self.games)

    def text(self) -> str:
        """``gap +- half-width (ceiling - gap)``, in percentage points."""
        gap, half = self.gap
        return f"{100 * gap:.2f} +- {100 * half:.2f} ({100 * (self.ceiling - gap):.1f})"


class Audited(Wrapped):
    """Plays ``player`` (any ``Player``) and adds the regret of each of its actions under
    ``solution`` to ``total``."""

    def __init__(self, player: object, solution: FixedOpponentsSolution):
        super().__init__(player)
        self.solution, self.total = solution, 0.0

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        """The player's action, its regret added to ``total``."""
        action = self.player.act(view, rng)
        self.total += self.solution.regret(view, action)
        return action


@memo(maxsize=32)
def solutions(cell: str, dice: int) -> dict[tuple[str, ...], FixedOpponentsSolution]:
    """Per seating order of ``cell``'s opponents (seats 1, 2, ...), the best response of seat 0, solved once."""
    dummies = tuple(cell.split("+"))
    config = GameConfig(num_players=len(dummies) + 1, dice=dice, bids="full", wild=1)
    orders = [dummies] if len(set(dummies)) == 1 else [dummies, dummies[::-1]]
    return {o: solve_fixed_opponents(config, {s + 1: make_player(m) for s, m in enumerate(o)}) for o in orders}


def measure(spec: str, cell: str, games: int, seed: int, dice: int = 5) -> Gap:
    """Play ``games`` games of ``spec`` at seat 0 against the opponents of ``cell`` and audit every decision."""
    solved = solutions(cell, dice)
    orders = list(solved)
    config = solved[orders[0]].config
    player, n = make_player(spec), config.num_players
    wins, ceiling, regrets = 0, 0.0, np.zeros(games)
    for g in range(games):
        order = orders[(g // n) % len(orders)]
        audited = Audited(player, solved[order])
        seated = [audited, *map(make_player, order)]
        record_ = play_game(config, seated, seeded_rng(np.random.SeedSequence([seed, g]), seated), first_opener=g % n)
        wins += record_.winner == 0
        ceiling += solved[order].win_probability(opener=g % n)
        regrets[g] = audited.total
    return Gap(games, wins, ceiling / games, regrets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="dqn", help="comma-separated specs, one row each (default dqn)")
    parser.add_argument("--games", type=int, default=None, help="games per cell (default 1000; --quick 60)")
    parser.add_argument("--quick", action="store_true", help="60 games per cell, 3 dice")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cells", default=",".join(CELLS), help=f"comma-separated opponents of each cell, '+' "
                                                                  f"between two (default {','.join(CELLS)})")
    parser.add_argument("--record", action="store_true", help="write the table to docs/data/NAME.json (stamped)")
    parser.add_argument("--name", default="wildcard_gap", help="with --record: the data file's name")
    parser.add_argument("--notes", default="", help="with --record: what the rows are")
    args = parser.parse_args()
    specs, games, dice = split_specs(args.players), args.games or (60 if args.quick else 1000), 3 if args.quick else 5
    cells = args.cells.split(",")
    columns = [column(c) for c in cells]
    rows, start = [], time.process_time()
    for cell in cells:
        solutions(cell, dice)
    print(f"best responses solved in {time.process_time() - start:.1f} CPU s")
    print(f"gap % to the exact best response +- 95% half-width (ceiling - gap, %); {games} games per cell, {dice} dice")
    print(f"{'player':40}" + "".join(f"{c:>24}" for c in columns))
    for spec in specs:
        start = time.process_time()
        gaps = [measure(spec, cell, games, args.seed, dice) for cell in cells]
        for cell, gap in zip(cells, gaps, strict=True):
            low, high = wilson_interval(gap.wins, gap.games)
            print(f"  {spec} vs {cell}: won {gap.wins}/{gap.games} [{100 * low:.1f}-{100 * high:.1f}], "
                  f"ceiling {100 * gap.ceiling:.2f}%, gap {gap.text()}")
        print(f"{spec:40}" + "".join(f"{g.text():>24}" for g in gaps) + f"   ({time.process_time() - start:.0f} CPU s)")
        rows.append([f"`{spec}`", *(g.text() for g in gaps)])
    if args.record:
        record(args.name, f"Distance from the best possible play against report 004's dummies ({dice} dice)",
               ["player", *columns], rows,
               command=f"python benchmarks/wildcard_gap.py --players {','.join(specs)} --cells {args.cells} "
                       f"--games {games} --seed {args.seed}" + (" --quick" if args.quick else "")
                       + f" --record --name {args.name}",
               notes="Each cell: the player's P(win) below the exact best response, in points, +- the 95% interval "
                     "(from the summed regrets of its decisions), and in brackets the exact ceiling minus that gap, "
                     "its estimated win %. " + args.notes)


if __name__ == "__main__":
    main()
