"""One game of a sweep's cell: played whole (``play_one``), or move by move by its caller
(``SteppedGame``); either way seeded as the sweep seeds it, with its ``games.jsonl`` record."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game import GameRecord, Player, permute, play_game, rotate, seeded_rng
from ..players.text import TextPlayer
from ..rules import GameConfig
from .cell import Cell, game_seed
from .store import TRANSCRIPTS, game_line

__all__ = ["play_one", "SteppedGame"]


def play_one(cell: Cell, seed: int, game: int, players: Sequence[Player]) -> tuple[GameRecord, dict]:
    """Play game ``game`` of ``cell`` in the sweep of ``seed``; return the whole game and its ``games.jsonl`` line.

    ``players`` are built from the cell's specs in its order, and seated by the cell's ``seating``. The same arguments
    always play the same game (given players that play the same moves). A text agent's transcript (its calls:
    ``ldpomdp.players.text.TextPlayer``) is stored in the line's ``TRANSCRIPTS`` list, by player."""
    seated, seat_of = (permute if cell.seating == "permute" else rotate)(players, game)
    played = play_game(cell.config, seated, seeded_rng(game_seed(seed, cell, game), players), first_opener=0)
    line = game_line(cell.id, game, seed, [seat_of.index(s) for s in range(len(players))], played)
    transcripts = [player.transcript if isinstance(player, TextPlayer) else None for player in players]
    if any(transcript is not None for transcript in transcripts):  # text agents' calls, by player (None: no text)
        line[TRANSCRIPTS] = transcripts
    return played, line


class SteppedGame:
    """Game 0 of a sweep's cell, for a caller that plays it move by move: its generator and its record.

    Game 0 of the sweep of ``seed`` in the cell of ``specs`` under ``config``, for a caller that plays it move by move
    itself (the web app, one move a request), ``players`` seated in the specs' order (as game 0 seats them):
    ``rng``, the game's generator (the players reseeded from it, as ``play_one`` does), and ``record``, its
    ``games.jsonl`` line once it is over."""

    def __init__(self, specs: Sequence[str], config: GameConfig, seed: int, players: Sequence[object]):
        self.cell, self.seed = Cell(tuple(specs), config), seed
        self.rng: np.random.Generator = seeded_rng(game_seed(seed, self.cell, 0), players)

    def record(self, played: GameRecord) -> dict:
        """The ``games.jsonl`` line of the finished game ``played``."""
        return game_line(self.cell.id, 0, self.seed, range(len(self.cell.players)), played)
