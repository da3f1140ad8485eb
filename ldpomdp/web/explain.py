"""Why an agent moved, in numbers the page can chart, and how the page spells moves and matching dice.

An agent's belief about one player's hand and the reason of each kind of agent (the estimate against the bid,
POMCP's searched actions, DQN's Q-values, or the probability of each action for any player with
``action_probabilities``, and for ``robust`` and ``lbr``), and how the page spells a move and a round's matching
dice. Read only: nothing here changes what a player does next."""

from __future__ import annotations

import numpy as np

from ..belief import TableBelief
from ..estimate import rule_faces
from ..game import PlayerView
from ..planners.dqn import DQNPlayer
from ..planners.expected_count import ExpectedCountPlanner
from ..planners.pomcp import POMCPPlanner
from ..players.lbr import LocalBestResponse
from ..players.robust import RobustPlayer
from ..rules import EXACT, Action, Bid, GameConfig, match_matrix, matching_count

__all__ = ["explain", "action_text", "action_distribution", "matching_dice"]


def action_text(action: Action) -> str:
    """``"3x5"`` for a bid, ``"challenge"`` for a challenge, ``"exact"`` for an exact call (the page's and the API's
    spelling)."""
    if isinstance(action, Bid):
        return str(action)
    return "exact" if action is EXACT else "challenge"


def matching_dice(config: GameConfig, hands: tuple[tuple[int, ...], ...], face: int) -> dict:
    """What a round's end shows for a bid on ``face``: the faces that count, and each hand's count.

    ``config`` is the round's own rules (a palifico round has no wild face). Returns ``matching_faces``, the faces
    whose dice count, and ``matching_by_seat``, each hand's count."""
    return {"matching_faces": [int(g) + 1 for g in np.flatnonzero(match_matrix(config)[:, face - 1])],
            "matching_by_seat": [int(matching_count(h, face, config)) for h in hands]}


def explain(player: object, view: PlayerView, action: Action, about: int) -> dict:
    """What ``player`` believed and why it chose ``action`` on ``view``: ``face``, ``belief`` and ``reason``.

    Call it right after ``act``, before the next event. ``face``: the standing bid's (or, opening, the bid made's);
    ``belief``: P(seat ``about`` holds k dice matching it), k = 0..its dice, for a player keeping a ``TableBelief``;
    ``reason``: one of the kinds of the module's docstring, or None."""
    face = view.bid.face if view.bid is not None else action.face if isinstance(action, Bid) else None
    out: dict = {"face": face, "belief": None, "reason": None}
    belief = getattr(player, "belief", None)
    if face is not None and isinstance(belief, TableBelief) and about in belief.beliefs:
        out["belief"] = _floats(belief.beliefs[about].count_distribution(face, view.config.wild))
    out["reason"] = _reason(player, view, action, face)
    return out


def _reason(player: object, view: PlayerView, action: Action, face: int | None) -> dict | None:
    if isinstance(player, ExpectedCountPlanner):
        estimates = player.estimate(view)
        return {"kind": "estimate", "bid": None if view.bid is None else view.bid.quantity,
                "estimate": None if face is None else float(estimates[face - 1]),
                "chosen": action.face if isinstance(action, Bid) else face,  # the face it bid, or of the bid it called
                "by_face": {str(f): float(estimates[f - 1]) for f in rule_faces(view)}}
    if isinstance(player, POMCPPlanner):
        search = player.last_search
        if search is None:
            return {"kind": "search", "searched": False, "actions": []}
        return {"kind": "search", "searched": True,
                "actions": [{"action": action_text(a), "visits": n, "value": v} for a, (n, v) in search.items()]}
    if isinstance(player, DQNPlayer):
        mask = player.legal_mask(view)
        q = np.asarray(player.network(player.features(view)), dtype=float)
        return {"kind": "q-values",
                "actions": [{"action": action_text(player.coding.action(int(i))), "value": float(q[i])}
                            for i in np.flatnonzero(mask)]}
    shown = action_distribution(player, view, action)
    return None if shown is None else {"kind": "probabilities", "actions": shown}


def action_distribution(player: object, view: PlayerView, chosen: Action | None = None) -> list[dict] | None:
    """The probability of each legal action of ``player`` on ``view`` for its hand, or None if it cannot say.

    A list of ``action`` and ``probability`` (zero ones left out): its ``action_probabilities``; for ``robust``,
    those of the part that plays this round (the equilibrium, the local best response or the search); an ``lbr``
    player's one move (it never draws: ``chosen``, the move it just made, if given). None for any other player."""
    if isinstance(player, RobustPlayer):
        player = player.playing
    if isinstance(player, LocalBestResponse):
        move = chosen if chosen is not None else player.act(view, np.random.default_rng(0))
        return [{"action": action_text(move), "probability": 1.0}]
    probabilities = getattr(player, "action_probabilities", None)
    if not callable(probabilities):
        return None
    hands, public, shown = np.asarray(view.hand)[None, :], view.public(), []
    for legal in view.legal_actions():
        p = float(np.asarray(probabilities(hands, public, legal))[0])
        if p > 0:
            shown.append({"action": action_text(legal), "probability": p})
    return shown


def _floats(values: np.ndarray) -> list[float]:
    return [round(float(v), 6) for v in values]
