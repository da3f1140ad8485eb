"""The package's agents in TextArena's own ``LiarsDice-v0`` env: invalid moves, and robust's win rate there.

Each cell plays whole games of TextArena's env (``ldpomdp.textarena.make_env``: 5 dice each, its default wrappers and
``ShowHands``) with package agents seated through ``TextArenaAgent``, at 2, 3 and 6 players. TextArena ships no
baseline agent for Liar's Dice (its agents are language-model clients and a human), so ``robust`` plays against
``one-third`` at every other seat; the bulk cells seat one-third and random. Game g of a cell rotates the seats by
g (Player 0 opens); the env's seed and every agent's generator come from the seed sequence (seed, cell, g).
Reported: games, moves the env refused (must be 0), robust's win rate with its 95% Wilson interval beside its share
1/n, and CPU seconds per game.

    python benchmarks/textarena_play.py [--games 600,600,300] [--bulk 200] [--seed 0] [--quick] [--record]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _record import record

from ldpomdp.game import rotate
from ldpomdp.progress import preparing
from ldpomdp.sweeps.statistics import rate_text
from ldpomdp.textarena import TextArenaAgent, make_env, play_game

PLAYERS = (2, 3, 6)


def cell(specs: list[str], games: int, seed: int, index: int) -> tuple[int, int, int, float]:
    """(games specs[0] won, invalid moves, moves, CPU s) over ``games`` games with the seats rotated."""
    wins = invalid = moves = 0
    start = time.process_time()
    with preparing(f"{games} games of LiarsDice-v0: {', '.join(specs)}", games) as advance:
        for g in range(games):
            seated, seat_of = rotate(specs, g)
            sequence = np.random.SeedSequence([seed, index, g])
            env_seed, *agent_seeds = sequence.generate_state(len(specs) + 1)
            agents = [TextArenaAgent(spec, rng=int(s)) for spec, s in zip(seated, agent_seeds, strict=True)]
            result = play_game(make_env(), agents, seed=int(env_seed))
            wins += result.winner == seat_of[0]
            invalid += result.invalid_moves
            moves += result.turns
            advance(1)
    return wins, invalid, moves, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="600,600,300", help="robust's games at 2, 3 and 6 players")
    parser.add_argument("--bulk", type=int, default=200, help="one-third and random's games at each size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="3 games per cell (smoke run)")
    parser.add_argument("--record", action="store_true", help="write docs/data/textarena_play.json")
    args = parser.parse_args()
    robust_games = [3] * 3 if args.quick else [int(n) for n in args.games.split(",")]
    bulk = 3 if args.quick else args.bulk
    command = (f"python benchmarks/textarena_play.py --games {','.join(map(str, robust_games))} --bulk {bulk} "
               f"--seed {args.seed}")
    rows, total_games, total_invalid, index = [], 0, 0, 0
    for players, games in zip(PLAYERS, robust_games, strict=True):
        table = [(["robust"] + ["one-third"] * (players - 1), games),
                 ([("one-third", "random")[s % 2] for s in range(players)], bulk)]
        for specs, n in table:
            wins, invalid, moves, cpu = cell(specs, n, args.seed, index)
            rate = rate_text(wins, n) if specs[0] == "robust" else "-"
            rows.append([players, ", ".join(specs), n, moves, invalid, rate, f"{1 / players:.3f}", f"{cpu / n:.3f}"])
            print(" | ".join(map(str, rows[-1])), flush=True)
            total_games, total_invalid, index = total_games + n, total_invalid + invalid, index + 1
    print(f"{total_games} games, {total_invalid} invalid moves", flush=True)
    if args.record:
        record("textarena_play", "The package's agents in TextArena's LiarsDice-v0 (5 dice each, seated through "
               "TextArenaAgent)",
               ["players", "seats (rotated)", "games", "moves", "invalid moves", "robust win rate [95%]",
                "share 1/n", "CPU s/game"], rows, command=command,
               notes=f"{total_games} games, {total_invalid} moves refused by the env. TextArena's own env and "
                     f"rules (textarena 0.7.4, offline); robust plays the bid-reading search there (no equilibrium "
                     f"table covers 5 dice each under these rules). Seats rotate every game; 95% Wilson intervals.")


if __name__ == "__main__":
    main()
