"""Robustness of the package's agents (issues 23 and 31): for each agent and dice count, its exploitability and its win
rates against ``--opponents`` (default the equilibrium ``cfr`` and the one-third rule); 2 players, full game, ones
wild, seats rotated; today's rules, or with ``--rules`` a preset (Perudo, Dudo).

- exploitability, in payoff units per role (+1 win / -1 loss; 0 for an equilibrium): exact at one die each
  (``ldpomdp.exact.game_exploitability``, the whole game: under Perudo a right exact call repeats the round;
  planners read through ``ReplayPolicy``; beside it, where the game is one round, the one-round LBR's figure,
  ``ldpomdp.players.lbr_search.local_best_response``, for agents with ``action_probabilities``), elsewhere the
  local best response's lower bound 2w - 1 from its win rate w against the agent (``lbr:SPEC``), with the 95%
  Wilson interval mapped the same way, over ``--lbr-games`` games (0: not measured). LBR watches an agent that gives
  ``observed_probabilities`` (the search, ``robust``); a planner (neither that nor ``action_probabilities``) is read
  through its ``act``, affordable up to ``--replay-dice`` dice each only (0: never).
- head-to-head: the agent's win rate against each of ``--opponents``, 95% Wilson intervals, ``--games`` a cell.
- CPU seconds per cell (the sweep's worker CPU time; the exact solve's process time).

Cells are played with the sweep machinery (``run_sweep``: resumable, one folder per cell under ``--out``). An agent or
opponent that cannot play a dice count (``nash`` beyond one die each) gets "cannot play".

    python benchmarks/robustness.py [--agents one-third,dqn,...] [--dice 1-5] [--games 2000] [--lbr-games N]
                                    [--opponents cfr,one-third] [--rules perudo|dudo] [--replay-dice 2]
                                    [--workers N] [--seed S] [--out DIR] [--record] [--name NAME]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _record import record

from ldpomdp.exact import ReplayPolicy, game_exploitability
from ldpomdp.players.lbr import LocalBestResponse
from ldpomdp.players.lbr_search import local_best_response
from ldpomdp.registry import make_player, make_seat, split_specs
from ldpomdp.rules import PRESETS, GameConfig
from ldpomdp.sweeps import Cell, LowerBound, SummaryRow, parse_dice_range, read_timing, run_sweep

AGENTS = "one-third,expected-count,pomcp,dqn,nash,cfr,robust"
OPPONENTS = "cfr,one-third"


def game_config(dice: int, rules: str | None) -> GameConfig:
    """Two players, ``dice`` each, today's rules or the preset ``rules``."""
    return GameConfig(num_players=2, dice=dice) if rules is None else GameConfig.preset(rules, dice=dice)


def plays(spec: str, config: GameConfig) -> bool:
    """Whether ``spec`` accepts the game ``config`` (``nash``'s rounds must be solvable)."""
    try:
        make_player(spec).reset(0, config)
    except ValueError:
        return False
    return True


def policy_of(spec: str) -> object:
    """The agent as a policy with ``action_probabilities`` (a planner read through its ``act``)."""
    player = make_player(spec)
    if callable(getattr(player, "action_probabilities", None)):
        return player
    return ReplayPolicy(lambda: make_player(spec), name=spec)


def sweep_cell(players: tuple[str, str], config: GameConfig, games: int, out: Path, seed: int, workers: int | None
               ) -> tuple[str, float, SummaryRow]:
    """Play one cell; (``rate [low, high]`` of the first player, the cell's worker CPU seconds, its summary row)."""
    cell = Cell(players, config)
    dice = config.starting_dice[0]
    folder = out / f"dice{dice}" / "_vs_".join(p.replace(":", "-").replace(",", "-") for p in players)
    row = next(r for r in run_sweep([cell], games, folder, seed, workers=workers, progress=False, log=None,
                                     exact=False) if r.player_index == 0)
    cpu = read_timing(folder)[0]["cpu_seconds"]
    return f"{row.win_rate:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}]", cpu, row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default=AGENTS, help=f"comma-separated specs (default {AGENTS})")
    parser.add_argument("--dice", default="1-5", help="dice each (default 1-5)")
    parser.add_argument("--games", type=int, default=2000, help="games per cell (default 2000)")
    parser.add_argument("--lbr-games", type=int, default=None,
                        help="games per LBR cell (default --games; 0: exploitability not measured beyond one die)")
    parser.add_argument("--opponents", default=OPPONENTS,
                        help=f"head-to-head opponents (default {OPPONENTS}; empty: none)")
    parser.add_argument("--rules", choices=tuple(PRESETS), default=None,
                        help="a preset's rules (default: today's); its cells go to OUT/RULES")
    parser.add_argument("--replay-dice", type=int, default=2,
                        help="largest dice count at which a planner's exploitability is measured through its act "
                             "(exact at 1, LBR above; default 2; 0: never)")
    parser.add_argument("--workers", type=int, default=1, help="processes per cell (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/robustness")
    parser.add_argument("--record", action="store_true", help="write docs/data/NAME.json (stamped)")
    parser.add_argument("--name", default=None,
                        help="with --record: the data file's name (default robustness, or robustness_RULES)")
    args = parser.parse_args()
    dice_counts = parse_dice_range(args.dice)
    args.name = args.name or ("robustness_" + args.rules if args.rules else "robustness")
    out = Path(args.out) / args.rules if args.rules else Path(args.out)
    agents, opponents = split_specs(args.agents), split_specs(args.opponents) if args.opponents else []
    for spec in agents + opponents:  # every one takes a seat (a model such as mixture does not): say so before any game
        try:
            make_seat(spec)
        except ValueError as exc:
            parser.error(str(exc))
    lbr_games = args.games if args.lbr_games is None else args.lbr_games
    print(f"agents {', '.join(agents)}; opponents {', '.join(opponents)}; {args.games} games per cell, "
          f"{lbr_games} per LBR cell")
    columns = ["agent", "dice", "exploitability (per role)", "CPU s"]
    for opponent in opponents:
        columns += [f"vs `{opponent}`", "CPU s"]
    rows = []
    for spec in agents:
        for dice in dice_counts:
            config = game_config(dice, args.rules)
            if not plays(spec, config):
                rows.append([f"`{spec}`", dice, "cannot play"] + [None] * (len(columns) - 3))
                print(f"{spec} at {dice} dice: cannot play this size, skipped")
                continue
            row: list = [f"`{spec}`", dice]
            policy = policy_of(spec)
            replayed = isinstance(LocalBestResponse(spec).model, ReplayPolicy)  # how LBR reads it beyond one die
            if dice > 1 and lbr_games == 0:
                row += ["not measured", None]
            elif replayed and dice > args.replay_dice:
                row += [f"not measured (read through `act` beyond {args.replay_dice} dice)", None]
            elif dice == 1:  # the whole game's exact figure (one round, or under the exact call a repeated one)
                start = time.process_time()
                text = f"{game_exploitability(policy, config).average:.3f} (exact)"
                if not isinstance(policy, ReplayPolicy) and not config.exact_call:  # one round: what LBR finds
                    text += f"; one-round LBR {local_best_response(make_player(spec), config).average:.3f}"
                row += [text, round(time.process_time() - start, 1)]
            else:
                _, cpu, lbr = sweep_cell((f"lbr:policy=[{spec}]", spec), config, lbr_games, out, args.seed,
                                         args.workers)
                bound = LowerBound(lbr.wins, lbr.games)
                row += [f">= {bound.value:.3f} [{bound.interval[0]:.3f}, {bound.interval[1]:.3f}] (LBR)", round(cpu, 1)]
            for opponent in opponents:
                if opponent == spec:
                    row += ["(itself)", None]
                elif not plays(opponent, config):
                    row += [f"`{opponent}` cannot play", None]
                else:
                    text, cpu, _ = sweep_cell((spec, opponent), config, args.games, out, args.seed, args.workers)
                    row += [text, round(cpu, 1)]
            print(" | ".join(str(c) for c in row), flush=True)
            rows.append(row)
    if args.record:
        rules = f", {args.rules.capitalize()} rules" if args.rules else ""
        head_to_head = " and head-to-head win rates" if opponents else ""
        record(args.name, f"Robustness: exploitability{head_to_head} (2 players, full game, ones wild{rules})",
               columns, rows,
               command=f"python benchmarks/robustness.py --agents {','.join(agents)} --dice {args.dice} "
                       f"--games {args.games} --lbr-games {lbr_games} --opponents {','.join(opponents) or repr('')} "
                       + (f"--rules {args.rules} " if args.rules else "") +
                       f"--replay-dice {args.replay_dice} --seed {args.seed} --record --name {args.name}",
               notes="Exploitability in payoff units per role (+1 win / -1 loss; halve it for lost win probability): "
                     "exact at one die each, the whole game (with the one-round LBR's figure beside it where the "
                     "game is one round), else the local best "
                     "response's lower bound 2w - 1 (w its win rate "
                     f"against the agent over {lbr_games} games, 95% Wilson interval mapped alike). "
                     + ("Win rates are the agent's, seats rotated, 95% Wilson intervals. " if opponents else "") +
                     "CPU s: the cell's worker CPU seconds (the "
                     "exact solve's process seconds), on a machine of 2 cores shared with other jobs.")


if __name__ == "__main__":
    main()
