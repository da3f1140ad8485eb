"""A sweep's folder as the page shows it: the summary table, the plots, the games of ``games.jsonl`` and a replay of
any of them (played again from its seed: a sweep stores each game's seed, not its moves). Read only."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from ..registry import make_player
from ..rules import CHALLENGE, EXACT, settle_round
from ..sweeps.cell import Cell
from ..sweeps.games import play_one
from ..sweeps.statistics import SUMMARY_FILE
from ..sweeps.store import GAMES_FILE, RECORD_FIELDS
from .explain import action_text, matching_dice
from .session import WebError, check_spec

__all__ = ["ResultsFolder"]


class ResultsFolder:
    """The sweep folder ``path`` (``summary.csv``, ``games.jsonl``, the PNG plots), checked to exist."""

    def __init__(self, path: str | Path, allow_plugins: bool = False):
        self.path, self.allow_plugins = Path(path), allow_plugins
        if not self.path.is_dir():
            raise ValueError(f"--results {path}: no such folder")
        if not (self.path / SUMMARY_FILE).exists() and not (self.path / GAMES_FILE).exists():
            raise ValueError(f"--results {path}: no {SUMMARY_FILE} or {GAMES_FILE} there (not a sweep's folder)")

    def summary(self) -> dict:
        """The summary's rows (column name to text) and the plots' file names."""
        rows = []
        if (self.path / SUMMARY_FILE).exists():
            with open(self.path / SUMMARY_FILE, newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
        return {"folder": str(self.path), "rows": rows, "plots": sorted(p.name for p in self.path.glob("*.png"))}

    def plot(self, name: str) -> Path:
        """The plot file ``name`` of the folder (a bare ``*.png`` name listed by :meth:`summary`)."""
        if name not in self.summary()["plots"]:
            raise WebError(404, f"no plot {name!r} in the results folder")
        return self.path / name

    def games(self) -> list[dict]:
        """Every game record of ``games.jsonl``, in file order (lines that are not records are left out)."""
        path, records = self.path / GAMES_FILE, []
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and all(key in record for key in RECORD_FIELDS):
                    records.append(record)
        return records

    def replay(self, cell_id: str, game: int) -> dict:
        """Game ``game`` of cell ``cell_id`` played again: every round's hands and actions, and whether the replay
        ends as the stored record says (it does unless a player is timed or its code changed)."""
        stored = next((r for r in self.games() if r["cell"] == cell_id and r["game"] == game), None)
        if stored is None:
            raise WebError(404, f"no game {game} of cell {cell_id!r} in {GAMES_FILE}")
        try:
            cell = Cell.from_id(cell_id)
        except ValueError as exc:
            raise WebError(400, str(exc)) from None
        specs = [check_spec(spec, self.allow_plugins) for spec in cell.players]
        try:
            players = [make_player(spec) for spec in specs]
            played, line = play_one(cell, stored["seed"], game, players)
        except ValueError as exc:
            raise WebError(400, str(exc).splitlines()[0]) from None
        dice, rounds = cell.config.starting_dice, []
        for r in played.rounds:
            config, call = cell.config.round_rules(r.palifico), EXACT if r.exact else CHALLENGE  # the round's rules
            actions = [{"seat": seat, "action": action_text(a)} for seat, a in r.actions]
            actions.append({"seat": r.challenger, "action": action_text(call)})
            after = settle_round(config, np.array(r.hands), dice, r.final_bid, r.actions[-1][0], r.challenger, call)[2]
            rounds.append({"dice": list(dice), "opener": r.opener, "actions": actions, "bid": str(r.final_bid),
                           "hands": [[f for f, n in enumerate(h, start=1) for _ in range(n)] for h in r.hands],
                           "challenger": r.challenger, "loser": r.loser, "matching": r.matching, "exact": r.exact,
                           "palifico": r.palifico, "dice_after": list(after),
                           **matching_dice(config, r.hands, r.final_bid.face)})
            dice = after
        return {"cell": cell_id, "game": game, "rules": cell.config.describe(),
                "seats": [specs[i] for i in line["seats"]], "rounds": rounds, "winner": played.winner,
                "matches_record": all(line[k] == stored[k] for k in RECORD_FIELDS)}
