"""How an agent's rounds end at a table of N players: which of its bids are challenged, which of its challenges, and
the dice it loses in each role (the Many players page reads it to say why a blueprint loses at a table).

For each agent, a table of it and N - 1 copies of ``--opponent``, played as a sweep's cell plays its games
(``ldpomdp.sweeps.games.play_one``: game g seated in permutation g mod N!, seeded from ``--seed``, the cell and g).
Of the rounds in which the agent holds dice, the share that end with its bid challenged, with its own challenge, and
with it looking on, and the dice it loses per round in the first two; its bids per round.

    python benchmarks/round_roles.py --agents cfr,expected-count,lbr:quantal --opponent expected-count
                                     [--players 3] [--dice 5] [--games 300] [--seed 0] [--record --name NAME]
"""

from __future__ import annotations

import argparse
import math

from _record import record

from ldpomdp.registry import make_seat, split_specs
from ldpomdp.rules import Bid, GameConfig
from ldpomdp.sweeps import Cell
from ldpomdp.sweeps.games import play_one

COLUMNS = ["agent", "games", "win rate", "rounds with dice", "its bid challenged", "lost as the bidder",
           "its challenge", "lost as the challenger", "looking on", "bids a round"]


def roles(agent: str, opponent: str, config: GameConfig, games: int, seed: int) -> list:
    """One row of ``COLUMNS`` for ``agent`` against N - 1 copies of ``opponent``."""
    cell = Cell((agent, *[opponent] * (config.num_players - 1)), config, seating="permute")
    wins = rounds = bid_called = lost_bidding = calls = lost_calling = bids = 0
    for g in range(games):
        record_, line = play_one(cell, seed, g, [make_seat(spec) for spec in cell.players])
        me = line["seats"].index(0)  # the agent is the cell's player 0
        wins += record_.winner == me
        for r in record_.rounds:
            if not sum(r.hands[me]):
                continue
            rounds += 1
            bids += sum(1 for seat, action in r.actions if seat == me and isinstance(action, Bid))
            if r.challenger == me:
                calls, lost_calling = calls + 1, lost_calling + (r.loser == me)
            elif r.actions[-1][0] == me:  # the challenged bid is the round's last action
                bid_called, lost_bidding = bid_called + 1, lost_bidding + (r.loser == me)
    shares = [f"{k / rounds:.3f}" for k in (bid_called, lost_bidding, calls, lost_calling, rounds - bid_called - calls)]
    return [f"`{agent}`", games, f"{wins / games:.3f}", rounds, *shares, f"{bids / rounds:.2f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", required=True, help="comma-separated agent specs, each at its own table")
    parser.add_argument("--opponent", default="expected-count", help="the spec of the N - 1 others")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--dice", type=int, default=5)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true", help="write docs/data/NAME.json, stamped")
    parser.add_argument("--name", default="round_roles")
    args = parser.parse_args()
    try:
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, got {args.games}")
        config = GameConfig(num_players=args.players, dice=args.dice)
        agents = split_specs(args.agents)
        for spec in (*agents, args.opponent):
            make_seat(spec).reset(0, config)  # refuses a game it cannot play before any is played
    except ValueError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    if args.games % math.factorial(args.players):
        print(f"note: {args.games} games is not a multiple of {args.players}!: the seatings are not all equally often")
    rows = []
    for agent in agents:
        rows.append(roles(agent, args.opponent, config, args.games, args.seed))
        print(" | ".join(map(str, rows[-1])), flush=True)
    if args.record:
        record(args.name, f"How each agent's rounds end at a table with {args.players - 1} `{args.opponent}`, "
                          f"{args.players} players, {args.dice} dice each, today's rules",
               COLUMNS, rows,
               command=f"python benchmarks/round_roles.py --agents {','.join(agents)} --opponent {args.opponent} "
                       f"--players {args.players} --dice {args.dice} --games {args.games} --seed {args.seed} "
                       f"--record --name {args.name}",
               notes="Shares of the rounds in which the agent holds dice: the round ends with its bid challenged "
                     "(and it loses the die), with its own challenge (and it loses), or with it looking on; its "
                     "bids a round. Game g seats the table in permutation g mod N!.")


if __name__ == "__main__":
    main()
