"""Games per second of the game runner: one-third rule vs one-third rule (issue 2's figure).

    python benchmarks/game_speed.py [--quick]
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ldpomdp import GameConfig, OneThirdRule, play_game, rotate


def games_per_second(config: GameConfig, games: int, seed: int = 0) -> tuple[float, float]:
    """Play ``games`` seat-rotated games; return (games/second, mean rounds per game)."""
    rng = np.random.default_rng(seed)
    players = [OneThirdRule(), OneThirdRule()]
    rounds = 0
    start = time.perf_counter()
    for g in range(games):
        seated, _ = rotate(players, g)
        rounds += len(play_game(config, seated, rng).rounds)
    return games / (time.perf_counter() - start), rounds / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games")
    parser.add_argument("--out", default="results/game_speed")
    args = parser.parse_args()
    cells = [(dice, bids) for dice in (5, 35) for bids in ("full", "sixes")]
    rows = []
    for dice, bids in tqdm(cells, desc="cells"):
        games = (100 if dice == 5 else 10) if args.quick else (2000 if dice == 5 else 200)
        rate, rounds = games_per_second(GameConfig(dice=dice, bids=bids), games)
        rows.append({"dice": dice, "bids": bids, "games": games, "games_per_s": round(rate, 1),
                     "rounds_per_game": round(rounds, 1)})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "game_speed.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"{'dice':>5} {'bids':>6} {'games':>6} {'games/s':>9} {'rounds':>7}")
    for r in rows:
        print(f"{r['dice']:>5} {r['bids']:>6} {r['games']:>6} {r['games_per_s']:>9} {r['rounds_per_game']:>7}")


if __name__ == "__main__":
    main()
