"""OpenSpiel's ISMCTS against the package's planners in the full game, and the bridged game's speed in OpenSpiel.

Strength: ``openspiel:bot=ismcts`` at two simulation budgets against ``expected-count`` and ``pomcp`` (their default
specs), 2 players, 3 and 5 dice each, ones wild, full bids. Game g of a cell seats ISMCTS at seat g mod 2 (seat 0
opens), and its generator and every player's ``reseed`` come from the seed sequence (seed, cell, g). Reported: the
ISMCTS win rate with its 95% Wilson interval, and the CPU seconds per game each side spent in ``act`` and ``observe``.

Speed: OpenSpiel's random rollouts (``RandomRolloutEvaluator``, one rollout from the initial state, chance included)
of the bridged whole game with 5 dice each, beside OpenSpiel's own one-round ``liars_dice`` in the same run (and the
bridged one-round game with its rules, like for like), in games per CPU second.

    python benchmarks/openspiel_bots.py [--games 1000] [--sims 100,1000] [--dice 3,5] [--speed-seconds 5]
                                        [--quick] [--record]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from _record import record
from _wrapped import Timed
from open_spiel.python.algorithms.mcts import RandomRolloutEvaluator

from ldpomdp.game import play_game, seeded_rng
from ldpomdp.openspiel import load
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig
from ldpomdp.sweeps.statistics import rate_text

OPPONENTS = ("expected-count", "pomcp")


def strength(ismcts: str, opponent: str, dice: int, games: int, seed: int, cell: int) -> list:
    """One cell's row: ISMCTS wins, interval, CPU seconds per game of each side."""
    config = GameConfig(dice=dice)
    wins, seconds = 0, [0.0, 0.0]
    for g in range(games):
        sides = [Timed(make_player(ismcts)), Timed(make_player(opponent))]
        seated = sides if g % 2 == 0 else sides[::-1]
        rng = seeded_rng(np.random.SeedSequence([seed, cell, g]), seated)
        record_ = play_game(config, seated, rng)
        wins += record_.winner == g % 2
        seconds = [s + side.seconds for s, side in zip(seconds, sides, strict=True)]
    return [ismcts, opponent, dice, games, rate_text(wins, games),
            f"{seconds[0] / games:.2f}", f"{seconds[1] / games:.3f}"]


def rollouts_per_cpu_second(game: pyspiel.Game, seconds: float, seed: int) -> tuple[int, float]:
    """(games, CPU seconds) of OpenSpiel random rollouts from the initial state for about ``seconds``."""
    evaluator = RandomRolloutEvaluator(1, np.random.RandomState(seed))
    games, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        evaluator.evaluate(game.new_initial_state())
        games += 1
    return games, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per cell (default 1000)")
    parser.add_argument("--sims", default="100,1000", help="ISMCTS simulation budgets (default 100,1000)")
    parser.add_argument("--dice", default="3,5", help="dice per player (default 3,5)")
    parser.add_argument("--speed-seconds", type=float, default=5.0, help="CPU seconds of rollouts per game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="2 games per cell, 1 s of rollouts (smoke run)")
    parser.add_argument("--record", action="store_true", help="write docs/data/openspiel_{speed,bots}.json")
    args = parser.parse_args()
    games, speed_seconds = (2, 1.0) if args.quick else (args.games, args.speed_seconds)
    command = (f"python benchmarks/openspiel_bots.py --games {games} --sims {args.sims} --dice {args.dice} "
               f"--speed-seconds {speed_seconds:g} --seed {args.seed}")

    reference = pyspiel.load_game("liars_dice")
    speed_games = [("OpenSpiel liars_dice (one round, 1 die each)", reference),
                   ("bridged, one_round=True, 1 die each, sixes wild (the same game)",
                    load(dice=1, wild=6, one_round=True)),
                   ("bridged whole game, 5 dice each, ones wild", load(dice=5))]
    measured = [rollouts_per_cpu_second(game, speed_seconds, args.seed) for _, game in speed_games]
    reference_rate = measured[0][0] / measured[0][1]
    speed_rows = []
    for (name, _), (n, cpu) in zip(speed_games, measured, strict=True):
        speed_rows.append([name, n, f"{cpu:.1f}", f"{n / cpu:,.0f}", f"{n / cpu / reference_rate:.3f}"])
        print(" | ".join(map(str, speed_rows[-1])), flush=True)

    rows, cell = [], 0
    for dice in (int(d) for d in args.dice.split(",")):
        for sims in (int(s) for s in args.sims.split(",")):
            for opponent in OPPONENTS:
                rows.append(strength(f"openspiel:bot=ismcts,sims={sims}", opponent, dice, games, args.seed, cell))
                print(" | ".join(map(str, rows[-1])), flush=True)
                cell += 1
    if args.record:
        record("openspiel_speed", "OpenSpiel random rollouts: the bridged game beside OpenSpiel's liars_dice",
               ["game", "rollouts", "CPU s", "games per CPU s", "ratio to liars_dice"], speed_rows,
               command=command,
               notes="One `RandomRolloutEvaluator` rollout per game from the initial state (chance nodes included), "
                     "measured one after the other in the same process. The whole game with 5 dice each has up to "
                     "9 rounds.")
        record("openspiel_bots", "OpenSpiel's ISMCTS against the package's planners (full game, 2 players)",
               ["ISMCTS", "opponent", "dice each", "games", "ISMCTS win rate [95%]", "ISMCTS CPU s/game",
                "opponent CPU s/game"], rows, command=command,
               notes="ISMCTS: OpenSpiel's `ISMCTSBot` (UCT c = 2, one random rollout per leaf, max-visit final "
                     "policy), resampling the other hand from the package's particle belief under the one-third "
                     "model; planners at their default specs. Seats alternate; CPU seconds are spent in `act` and "
                     "`observe` (belief updates).")


if __name__ == "__main__":
    main()
