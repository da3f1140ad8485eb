"""Does the DQN's training objective itself cost games? Heads-up against report 004's Aggressive dummy alone (5 dice
each, ones wild, full bids), the policy that maximises the learner's objective exactly (the round rewards of
``REPORT_SHAPING``, +-1 at the game's end, discount ``TrainSettings.gamma`` per decision of the learner) and its
exact P(win), beside the best response's (which maximises P(win)).

Aggressive ignores its hand, so for each hand of the learner a round is a Markov decision process over the standing
bid, as in ``ldpomdp.exact.against_models.solver``; the objective adds one count to the state, the learner's bids
held so far in the round (each is rewarded when the round ends). Rounds are solved fewest dice first, with the values of
the learner's next decision (discounted) and P(win) carried across rounds. With no shaping and no discount the
induction is the best response: the script checks that it reproduces ``solve_fixed_opponents``.

    python benchmarks/dqn_objective.py [--dice 5] [--record]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np
from _record import record
from ldpomdp.planners.dqn_train import TrainSettings

from ldpomdp.bid_probability import raise_true_probabilities
from ldpomdp.envs.coding import NO_SHAPING, REPORT_SHAPING, Shaping
from ldpomdp.exact import solve_fixed_opponents
from ldpomdp.exact.against_models.solver import (
    all_bids,
    challenge_value,
    opponent_distribution,
    raise_rows,
    round_outcomes,
)
from ldpomdp.game import PublicView
from ldpomdp.hands import hand_support
from ldpomdp.players.dummies import AggressivePlayer
from ldpomdp.rules import GameConfig


def objective_policy_win(dice: int, shaping: Shaping, gamma: float) -> dict[int, float]:
    """Opener (0: the learner, 1: Aggressive) -> the exact P(win) from the start of the policy that maximises
    the shaped, discounted objective against Aggressive alone (ties: challenge, then the lower bid). The shapings of
    the heads-up stages only: ``risk`` and ``small_raise`` (stage agent2's, 3-player games) raise a ValueError."""
    if shaping.risk or shaping.small_raise:
        raise ValueError(f"objective_policy_win models the heads-up shaping (risk 0, small_raise 0), got {shaping}")
    config = GameConfig(num_players=2, dice=dice, bids="full", wild=1)
    model = AggressivePlayer()
    model.reset(1, config)
    value, win = {}, {}  # (dice, opener) -> expected objective at the learner's next decision, P(win)
    for state in sorted(((d, a) for d in range(1, dice + 1) for a in range(1, dice + 1)), key=sum):
        table, bids = sum(state), all_bids(config, sum(state))
        n, rows = len(bids), {b: i for i, b in enumerate(bids)}
        hands, weights = hand_support(state[0], config.faces)
        truth = raise_true_probabilities(hands.astype(np.int64), PublicView(config, 0, state), bids).T  # (n, H)
        ends = round_outcomes(config, 0, state, lambda after, opener: win[(after, opener)])  # P(win) after the round
        later = round_outcomes(config, 0, state, lambda after, opener: gamma * value[(after, opener)])
        later = {k: -1.0 if k[0] == 0 and state[0] == 1 else v for k, v in later.items()}  # our last die: -1, not 0
        called = {k: v + (shaping.wrong_call if k[0] == 0 else shaping.right_call) for k, v in later.items()}
        ours = {k: v + (shaping.bluff_called if k[0] == 0 else shaping.bid_held) for k, v in later.items()}
        held = shaping.bid_held * np.arange(n + 2)[:, None]  # (k, 1): reward for k bids held this round
        after_bid = np.zeros((2, n, n + 2, len(weights)))  # [objective, P(win)] after we bid i with k held before
        to_act = np.zeros((2, n, n + 2, len(weights)))  # ... when we act over Aggressive's bid i with k held
        moves = np.array([opponent_distribution(model, PublicView(config, 1, state, ((0, b),)), rows, n)
                          for b in bids])
        for i in range(n - 1, -1, -1):
            t, p = truth[i], moves[i]
            after_bid[0, i] = p[n] * (held + challenge_value(t, ours, 1, 0))  # Aggressive challenges our bid
            after_bid[1, i] = p[n] * challenge_value(t, ends, 1, 0)
            for j in np.flatnonzero(p[:n]):
                after_bid[0, i, :-1] += p[j] * gamma * to_act[0, j, 1:]
                after_bid[1, i, :-1] += p[j] * to_act[1, j, 1:]
            challenge = np.stack([held + challenge_value(t, called, 0, 1),  # we challenge Aggressive's bid
                                  np.broadcast_to(challenge_value(t, ends, 0, 1), held.shape[:1] + t.shape)])
            raises = raise_rows(config, table, bids[i])
            if len(raises):
                best = np.argmax(after_bid[0, raises], axis=0)[None, None]
                chosen = np.take_along_axis(after_bid[:, raises], best, axis=1)[:, 0]
                to_act[:, i] = np.where(challenge[0] >= chosen[0], challenge, chosen)
            else:
                to_act[:, i] = challenge
        openings = after_bid[:, raise_rows(config, table, None), 0]  # (2, bids, H)
        best = np.argmax(openings[0], axis=0)[None, None]
        opened = np.take_along_axis(openings, best, axis=1)[:, 0] @ weights
        theirs = opponent_distribution(model, PublicView(config, 1, state), rows, n)[:n] @ to_act[:, :, 0] @ weights
        value[(state, 0)], win[(state, 0)] = opened
        value[(state, 1)], win[(state, 1)] = theirs
    return {o: win[((dice, dice), o)] for o in (0, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, default=5)
    parser.add_argument("--record", action="store_true", help="write docs/data/dqn_objective.json (stamped)")
    args = parser.parse_args()
    gamma = TrainSettings().gamma
    start = time.process_time()
    config = GameConfig(num_players=2, dice=args.dice, bids="full", wild=1)
    best = solve_fixed_opponents(config, {1: AggressivePlayer()})
    exact = {o: best.win_probability(opener=o) for o in (0, 1)}
    check = objective_policy_win(args.dice, NO_SHAPING, 1.0)
    if any(abs(check[o] - exact[o]) > 1e-12 for o in (0, 1)):
        raise SystemExit(f"the induction without shaping or discount gives {check}, the best response {exact}")
    cases = [("maximum P(win) (the best response)", exact),
             (f"report shaping, discount {gamma} (the DQN's objective)", objective_policy_win(args.dice,
                                                                                              REPORT_SHAPING, gamma)),
             (f"no shaping, discount {gamma}", objective_policy_win(args.dice, NO_SHAPING, gamma)),
             ("report shaping, discount 0.99", objective_policy_win(args.dice, REPORT_SHAPING, 0.99)),
             ("report shaping but no reward for bids held", objective_policy_win(
                 args.dice, replace(REPORT_SHAPING, bid_held=0.0), gamma))]
    rows = []
    for name, p in cases:
        lost = 100 * (1 - (p[0] + p[1]) / 2)
        rows.append([name, f"{100 * p[0]:.3f}", f"{100 * p[1]:.3f}", f"{lost:.3f}"])
        print(f"{name:55} P(win) we open {100 * p[0]:.3f}%, Aggressive opens {100 * p[1]:.3f}%, lost {lost:.3f}%")
    print(f"({time.process_time() - start:.1f} CPU s)")
    if args.record:
        record("dqn_objective", f"Heads-up against Aggressive ({args.dice} dice): the exact P(win) of the policy that "
                                f"maximises each objective",
               ["objective", "P(win) %, we open", "P(win) %, Aggressive opens", "games lost % (openers alike)"],
               rows, command=f"python benchmarks/dqn_objective.py --dice {args.dice} --record",
               notes=f"Exact (backward induction, no sampling), against Aggressive alone (the training also meets "
                     f"other opponents, which the network cannot tell apart from it). Maximised exactly, the DQN's "
                     f"objective loses {rows[1][3]}% of these games, the best response {rows[0][3]}%.")


if __name__ == "__main__":
    main()
