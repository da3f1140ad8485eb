"""One game of a sweep's cell, and its ``games.jsonl`` record."""

from __future__ import annotations

from collections.abc import Sequence

from ..game import GameRecord, Player, permute, play_game, rotate, seeded_rng
from .cell import Cell, game_seed

__all__ = ["play_one", "game_line"]


def play_one(cell: Cell, seed: int, game: int, players: Sequence[Player]) -> tuple[GameRecord, dict]:
    """Game ``game`` of ``cell`` in the sweep of ``seed``, ``players`` built from the cell's specs in its order:
    the whole game and its ``games.jsonl`` line, the players seated by the cell's ``seating``. The same arguments
    always play the same game."""
    seated, seat_of = (permute if cell.seating == "permute" else rotate)(players, game)
    played = play_game(cell.config, seated, seeded_rng(game_seed(seed, cell, game), players), first_opener=0)
    return played, game_line(cell.id, game, seed, [seat_of.index(s) for s in range(len(players))], played)


def game_line(cell_id: str, game: int, seed: int, seats: Sequence[int], played: GameRecord) -> dict:
    """The ``games.jsonl`` record of a finished game; ``seats`` is the player index (in the cell's order) in each
    seat."""
    return {
        "cell": cell_id,
        "game": int(game),
        "seed": int(seed),
        "seats": [int(s) for s in seats],  # player index in each seat
        "winner": played.winner,  # seat
        "rounds": len(played.rounds),
        "challenges": played.challenges,  # per seat
        "successful_challenges": played.successful_challenges,  # per seat
        "finish": played.finishing_order,  # seats from first place to last (the winner first)
    }
