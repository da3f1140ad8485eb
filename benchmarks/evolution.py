"""Report 001's evolutionary simulation (Burcsi & Nagy, section 4) of the (s, t) strategies.

A mesh of (s, t) strategies starts with score 1 each; every step draws P distinct strategies with
probability proportional to score, seats them in random order, plays one game with D dice each, and adds
one to the winner's score. Figure 1: 11 x 11 mesh on [0, 1]^2, (P, D) = (2, 30), (2, 100), (3, 30), (8, 30);
figure 2: t refined to [0, 0.2], (P, D) = (2, 30), (2, 50); 300 steps each. Rules: full bids, sixes wild
(as in the report), one die lost per challenge (ldpomdp's rule; the report's challenger loses the
difference), next round opened after the challenger.

    python benchmarks/evolution.py [--quick] [--figure 1|2|all] [--steps 300] [--repeats 1] [--jobs 2]
"""

from __future__ import annotations

import argparse
import csv
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ldpomdp import GameConfig, play_game
from ldpomdp.players import BurcsiNagyPlayer

MESH_1 = (np.round(np.linspace(0, 1, 11), 3), np.round(np.linspace(0, 1, 11), 3))  # (s values, t values)
MESH_2 = (np.round(np.linspace(0, 1, 11), 3), np.round(np.linspace(0, 0.2, 11), 3))
FIGURES = {1: (MESH_1, ((2, 30), (2, 100), (3, 30), (8, 30))), 2: (MESH_2, ((2, 30), (2, 50)))}


@dataclass(frozen=True)
class Run:
    figure: int
    players: int
    dice: int
    steps: int
    repeat: int
    seed: int

    @property
    def mesh(self) -> tuple[np.ndarray, np.ndarray]:
        return FIGURES[self.figure][0]


def evolve(run: Run) -> tuple[Run, np.ndarray, float]:
    """Play one evolutionary run; return it with the final scores as (len(t), len(s)) and its CPU seconds."""
    start = time.process_time()
    s_values, t_values = run.mesh
    strategies = [(s, t) for t in t_values for s in s_values]
    scores = np.ones(len(strategies))
    config = GameConfig(num_players=run.players, dice=run.dice, wild=6, bids="full")
    rng = np.random.default_rng([run.seed, run.figure, run.players, run.dice, run.repeat])
    for _ in range(run.steps):
        chosen = rng.permutation(rng.choice(len(strategies), size=run.players, replace=False, p=scores / scores.sum()))
        players = [BurcsiNagyPlayer(s=float(strategies[i][0]), t=float(strategies[i][1])) for i in chosen]
        scores[chosen[play_game(config, players, rng).winner]] += 1
    return run, scores.reshape(len(t_values), len(s_values)), time.process_time() - start


def summary(scores: np.ndarray, mesh: tuple[np.ndarray, np.ndarray]) -> dict[str, float]:
    """Where the score went: correlation of the score with s and with t over the mesh, and the best point."""
    s_values, t_values = mesh
    s_grid, t_grid = np.meshgrid(s_values, t_values)
    gained = scores - 1.0
    best = np.unravel_index(np.argmax(scores), scores.shape)
    return {
        "corr_s": float(np.corrcoef(s_grid.ravel(), gained.ravel())[0, 1]),
        "corr_t": float(np.corrcoef(t_grid.ravel(), gained.ravel())[0, 1]),
        "best_s": float(s_values[best[1]]),
        "best_t": float(t_values[best[0]]),
        "best_score": float(scores[best]),
        "share_low_t": float(gained[t_values <= np.median(t_values)].sum() / gained.sum()),
    }


def plot(figure: int, results: dict[tuple[int, int], np.ndarray], path: Path, steps: int, repeats: int) -> bool:
    """One heatmap per (P, D), s across, t up, like the report's figures; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    s_values, t_values = FIGURES[figure][0]
    fig, axes = plt.subplots(1, len(results), figsize=(3.6 * len(results), 3.4), squeeze=False)
    for ax, ((players, dice), scores) in zip(axes[0], sorted(results.items()), strict=True):
        image = ax.imshow(scores, origin="lower", cmap="viridis", aspect="auto",
                          extent=(s_values[0] - 0.05, s_values[-1] + 0.05,
                                  t_values[0] - (t_values[1] - t_values[0]) / 2,
                                  t_values[-1] + (t_values[1] - t_values[0]) / 2))
        ax.set_title(f"(P, D) = ({players}, {dice})")
        ax.set_xlabel("s")
        ax.set_ylabel("t")
        fig.colorbar(image, ax=ax, fraction=0.046)
    fig.suptitle(f"Report 001 Fig. {figure}: scores after {steps} steps"
                 + (f" (mean of {repeats} runs)" if repeats > 1 else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figure", choices=("1", "2", "all"), default="all")
    parser.add_argument("--steps", type=int, default=None, help="games per run (default 300; --quick 10)")
    parser.add_argument("--repeats", type=int, default=1, help="independent runs per setting, averaged")
    parser.add_argument("--quick", action="store_true", help="10 steps per run")
    parser.add_argument("--jobs", type=int, default=1, help="runs played in parallel processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/evolution")
    args = parser.parse_args()
    steps = args.steps or (10 if args.quick else 300)
    if steps < 1 or args.repeats < 1 or args.jobs < 1:
        raise SystemExit("--steps, --repeats and --jobs must be >= 1")
    figures = (1, 2) if args.figure == "all" else (int(args.figure),)
    runs = [Run(f, p, d, steps, r, args.seed) for f in figures for p, d in FIGURES[f][1] for r in range(args.repeats)]
    runs.sort(key=lambda r: -r.players * r.dice)  # longest first
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scores: dict[tuple[int, int, int], list[np.ndarray]] = {}
    seconds: dict[tuple[int, int, int], float] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for run, result, cpu in pool.map(evolve, runs):
            key = (run.figure, run.players, run.dice)
            scores.setdefault(key, []).append(result)
            seconds[key] = seconds.get(key, 0.0) + cpu
            print(f"fig {run.figure} (P, D) = ({run.players}, {run.dice}) run {run.repeat}: {cpu:.0f} s CPU",
                  flush=True)
    with open(out / "scores.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["figure", "players", "dice", "steps", "repeats", "seed", "s", "t", "mean_score"])
        for (figure, players, dice), results in sorted(scores.items()):
            s_values, t_values = FIGURES[figure][0]
            mean = np.mean(results, axis=0)
            for i, t in enumerate(t_values):
                for j, s in enumerate(s_values):
                    writer.writerow([figure, players, dice, steps, args.repeats, args.seed, s, t, round(mean[i, j], 3)])
    head = f"{'fig':>3} {'P':>2} {'D':>4} {'CPU s/run':>9} {'corr(score,s)':>13} {'corr(score,t)':>13} " \
           f"{'gain at t<=median':>17} {'best (s, t)':>12} {'best score':>10}"
    print(f"\n{steps} steps per run, {args.repeats} run(s) per setting; scores start at 1")
    print(head)
    print("-" * len(head))
    for figure in figures:
        means = {}
        for players, dice in FIGURES[figure][1]:
            key = (figure, players, dice)
            means[(players, dice)] = mean = np.mean(scores[key], axis=0)
            row = summary(mean, FIGURES[figure][0])
            best = f"({row['best_s']:g}, {row['best_t']:g})"
            print(f"{figure:>3} {players:>2} {dice:>4} {seconds[key] / args.repeats:9.0f} {row['corr_s']:13.2f} "
                  f"{row['corr_t']:13.2f} {row['share_low_t']:17.0%} {best:>12} {row['best_score']:10.1f}")
        path = out / f"fig{figure}.png"
        print(f"wrote {path}" if plot(figure, means, path, steps, args.repeats) else "plots need matplotlib")
    print(f"wrote {out / 'scores.csv'}")


if __name__ == "__main__":
    main()
