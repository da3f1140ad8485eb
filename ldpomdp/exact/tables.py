"""The solved tables the ``cfr`` player plays: the shipped ones, and the others solved on first use.

Two-player tables ship for today's rules and the Perudo and Dudo presets, a three-player blueprint for today's rules;
the others are solved on first use and cached on disk (``cache_dir()/cfr``), like the ``nash`` player's rounds."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass, replace
from math import comb
from pathlib import Path

from ..caches import BoundedCache, bounded_cache, cache_dir
from ..errors import TableError, UsageError
from ..progress import preparing
from ..rules import GameConfig, dice_text
from .many_players.blueprint import (
    BLUEPRINT_RECALL,
    blueprint_continuation,
    blueprint_iterations,
    check_blueprint_rules,
    solve_blueprint,
)
from .many_players.table import BlueprintTable
from .two_player.abstraction import recall_for
from .two_player.equilibrium import game_iterations, solve_game, sweep_targets
from .two_player.round_cfr import MAX_FULL_WIDTH_CELLS
from .two_player.states import game_config
from .two_player.table import GameTable, rules_key

__all__ = ["SHIPPED_TABLE", "SHIPPED_BLUEPRINT", "SolveSettings", "SHIPPED", "ON_DEMAND", "PRESET_TABLES",
           "shipped_path", "cached_table_path", "table_for", "blueprint_for", "BLUEPRINT_ON_DEMAND",
           "SIXES_ON_DEMAND_DICE", "SIXES_TWO_PLAYER_DICE", "on_demand", "on_demand_seconds", "solve_seconds",
           "cost_text", "SHIPPED_SECONDS"]

SHIPPED_TABLE = Path(__file__).parent / "data" / "cfr_default.npz"
SHIPPED_BLUEPRINT = SHIPPED_TABLE.with_name("cfr_default_3players.npz")  # `solve equilibrium --players 3 --dice 5`


@dataclass(frozen=True)
class SolveSettings:
    """How a table is solved (``solve_game``): every round up to ``dice`` each, the ``recall`` (k, or a schedule like
    ``"3@4,2"``), CFR+ ``iterations`` per round."""

    dice: int
    recall: str
    iterations: int


SHIPPED = SolveSettings(dice=5, recall="3@4,2", iterations=150)  # the shipped table's (`ldpomdp solve equilibrium`)
ON_DEMAND = SolveSettings(dice=3, recall="3@4,2", iterations=150)  # the tables solved on demand for other rules
BLUEPRINT_ON_DEMAND = SolveSettings(dice=3, recall=str(BLUEPRINT_RECALL), iterations=150)  # 3 players, on use
SIXES_ON_DEMAND_DICE = 10  # the sixes game's blueprints solved on demand (a hand is its matching count: small rounds)
SIXES_TWO_PLAYER_DICE = 35  # and its two-player tables (report 002's sizes; 336 CPU s up to 35 dice each)
SHIPPED_SECONDS = 1566  # CPU s of the shipped table's solve (docs/exact.md), ``solve_seconds``'s scale
PRESET_TABLES = {name: GameConfig.preset(name) for name in ("perudo", "dudo")}  # the shipped preset tables' rules
# (and dice); the other presets' tables are solved on first use
CACHED_TABLES = 8  # tables kept in memory (the shipped one is 10 MB)
_MEMORY: BoundedCache[str, GameTable] = bounded_cache(f"{__name__}._MEMORY", CACHED_TABLES)
_BLUEPRINTS: BoundedCache[str, BlueprintTable] = bounded_cache(f"{__name__}._BLUEPRINTS", CACHED_TABLES)
_LOCKS: dict[str, threading.Lock] = {}  # a lock per table key: one thread loads or solves a table at a time
_LOCKS_LOCK = threading.Lock()


def on_demand(config: GameConfig, settings: SolveSettings) -> SolveSettings:
    """The settings a table for ``config`` is solved with on demand: ``settings``, the sixes game's dice aside.

    In the sixes game the dice are the game's starting dice, up to ``SIXES_TWO_PLAYER_DICE`` each at two players and
    ``SIXES_ON_DEMAND_DICE`` at three or more (a table covers the games starting with fewer)."""
    if config.bids != "sixes":
        return settings
    cap = SIXES_TWO_PLAYER_DICE if config.num_players == 2 else SIXES_ON_DEMAND_DICE
    return replace(settings, dice=min(max(config.starting_dice), cap))


def _solved_dice(config: GameConfig, settings: SolveSettings) -> int:
    """The most dice each seat holds in the rounds of a table solved on demand: under the exact call the game's
    starting dice, else ``settings.dice``."""
    return config.starting_dice[0] if config.exact_call else settings.dice


def on_demand_seconds(config: GameConfig) -> float:
    """The estimated CPU s of solving the two-player table for ``config`` on first use (``ON_DEMAND`` settings)."""
    settings = on_demand(config, ON_DEMAND)
    return solve_seconds(config, _solved_dice(config, settings), settings.recall, settings.iterations)


def solve_seconds(config: GameConfig, dice: int, recall: str, iterations: int, sweeps: int = 1) -> float:
    """The CPU seconds a two-player solve (``solve_game``) of ``config``'s rules up to ``dice`` each takes, estimated.

    A CFR+ iteration of a round costs its abstract states (about 2 C(bids, k) for the round's recall k) times the
    hand pairs it sweeps (above ``MAX_FULL_WIDTH_CELLS``, each hand against 16 sampled ones), summed over the rounds
    of every dice pair; the sum is scaled to the shipped table's measured solve (``SHIPPED_SECONDS``), so the
    estimate is that solve's pace on that machine (docs/exact.md).

    Args:
        config: the game's rules (two players).
        dice: the most dice each seat holds in the rounds solved.
        recall: the recall schedule (``recall_for``).
        iterations: CFR+ iterations a round.
        sweeps: full sweeps under the exact call.

    Returns:
        The estimated CPU seconds.
    """
    def work(rules: GameConfig, top: int, schedule: str, rounds_iterations: int) -> float:
        total = 0.0
        for a in range(1, top + 1):
            for b in range(1, top + 1):
                table = a + b
                bids = table * len(rules.bid_faces) if rules.bids == "full" else table
                states = 2.0 * comb(bids, min(recall_for(schedule, (a, b)), bids))
                hands = [d + 1 if rules.bids == "sixes" else comb(d + rules.faces - 1, rules.faces - 1)
                         for d in (a, b)]
                pairs = hands[0] * hands[1]
                total += states * (pairs if states * pairs <= MAX_FULL_WIDTH_CELLS else 16 * sum(hands))
        return total * rounds_iterations

    scale = SHIPPED_SECONDS / work(GameConfig(), SHIPPED.dice, SHIPPED.recall, SHIPPED.iterations)
    return scale * work(config, dice, recall, sweep_targets(config, iterations, sweeps)[-1])


def cost_text(seconds: float) -> str:
    """An estimated solve's CPU time in words."""
    if seconds >= 3600:
        return f"about {seconds / 3600:,.{0 if seconds >= 100 * 3600 else 1}f} CPU hours"
    if seconds >= 90:
        return f"about {max(1, round(seconds / 60)):,} CPU minutes"
    return f"about {max(1, round(seconds))} CPU s"


def _demand_key(config: GameConfig, settings: SolveSettings) -> str:
    """What tells apart in memory the tables solved on demand for ``config``'s rules: the sixes game's, their dice."""
    return f"|up to {settings.dice}" if config.bids == "sixes" else ""


def shipped_path(config: GameConfig) -> Path | None:
    """The shipped table for ``config``'s rules (today's or a preset's; under the exact call, for its starting dice),
    or None; a UsageError when the rules have shipped tables but not for this many dice."""
    if rules_key(config) == rules_key(GameConfig()):
        return SHIPPED_TABLE
    for name, preset in PRESET_TABLES.items():
        if rules_key(replace(config, dice=preset.starting_dice)) == rules_key(preset):
            if not config.exact_call:
                return SHIPPED_TABLE.with_name(f"cfr_{name}.npz")
            if config.starting_dice[0] > SHIPPED.dice:
                raise UsageError(f"cfr: the table covers up to {SHIPPED.dice} dice each; the game starts with "
                                 f"{config.starting_dice}")
            return SHIPPED_TABLE.with_name(f"cfr_{name}_{config.starting_dice[0]}.npz")
    return None


def cached_table_path(config: GameConfig) -> Path:
    """Where the two-player table solved on demand for ``config``'s rules is cached on disk (``cache_dir()/cfr``).

    Its name is a digest of the rules and the ``on_demand`` settings (under the exact call, the starting dice)."""
    settings = on_demand(config, ON_DEMAND)
    dice = _solved_dice(config, settings)
    key = rules_key(config) + _demand_key(config, settings)
    # the settings as the tuple they were: the digests of tables already cached on disk stay the same (but under the
    # exact call, whose sweeps continue each round's CFR+ since 2026-11-27; a table cached before 5be0463 may differ
    # from a fresh one in the float32 sums' last bits)
    solver = "|continued sweeps" if config.exact_call else ""
    digest = hashlib.sha256(f"v{GameTable.FORMAT}|{key}|{astuple(replace(settings, dice=dice))}{solver}"
                            .encode()).hexdigest()[:20]
    return cache_dir() / "cfr" / f"table-{digest}.npz"


def table_for(config: GameConfig, path: str | Path | None = None) -> GameTable:
    """The two-player table for ``config``'s rules: loaded from ``path``, shipped, or solved now and cached.

    ``path`` if given, else the shipped one (today's rules and the presets), else one solved now with ``on_demand``
    settings (under the exact call: from the game's starting dice) and cached on disk. A UsageError when ``config`` is
    not a two-player game, has unequal starting dice under the exact call or more dice than the tables cover, or when
    the table is for other rules."""
    if config.num_players != 2:
        raise UsageError(f"cfr plays two-player games only (no equilibrium table for {config.num_players} players)")
    if config.exact_call and len(set(config.starting_dice)) != 1:
        raise UsageError(f"cfr: under the exact call the tables are for equal starting dice; the game starts with "
                         f"{config.starting_dice}")
    settings = on_demand(config, ON_DEMAND)
    if path is not None:
        key = f"path={Path(path).resolve()}"
    else:
        path = shipped_path(config)
        key = "shipped:" + rules_key(config) if path is not None else rules_key(config) + _demand_key(config, settings)
    if path is None and max(config.starting_dice) > settings.dice:  # refuse before solving, whatever is in memory
        raise UsageError(f"cfr: tables solved on demand cover up to {settings.dice} dice each; the game starts "
                         f"with {config.starting_dice} (solve a larger one with `ldpomdp solve equilibrium`)")
    with _one_at_a_time(key):  # a table another thread is loading or solving is waited for, not solved again
        table = _MEMORY.lookup(key)
        if table is None:
            table = _MEMORY[key] = _load_or_solve(config, settings, path)
    if rules_key(table.config) != rules_key(config):
        raise UsageError(f"cfr table {path} is for {_rules_text(table.config)}; the game is {_rules_text(config)}")
    return table


def _load_or_solve(config: GameConfig, settings: SolveSettings, path: str | Path | None) -> GameTable:
    """The two-player table ``table_for`` gives: from ``path``, else from the cache, else solved now and cached."""
    if path is not None:
        return GameTable.load(path)
    dice = _solved_dice(config, settings)
    cached = cached_table_path(config)
    try:
        return GameTable.load(cached)
    except TableError:  # none cached yet, or a damaged file: solve (again)
        with preparing(f"solving the two-player cfr table for {_rules_text(config)}, up to {dice_text(dice)} each, "
                       f"on first use ({cost_text(on_demand_seconds(config))}; cached in {cached})",
                       game_iterations(game_config(config, dice), settings.iterations)) as advance:
            table = solve_game(config, dice, settings.recall, settings.iterations, progress=advance)
        table.save(cached)
        return table


@contextmanager
def _one_at_a_time(key: str) -> Iterator[None]:
    """Hold the lock of the table ``key``: one thread loads or solves it, the others wait for it."""
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        yield


def _rules_text(config: GameConfig) -> str:
    """The rules in words, with the starting dice where the table depends on them (the exact call)."""
    return config.describe() + (f", starting with {dice_text(config.starting_dice[0])} each" if config.exact_call
                                else "")


def blueprint_for(config: GameConfig, path: str | Path | None = None) -> BlueprintTable:
    """The blueprint for ``config`` (3-6 players): loaded from ``path``, shipped, or solved now and cached.

    ``path`` if given, else at three players the shipped one (today's rules, up to 5 dice each) or one solved now with
    ``on_demand`` settings (under the exact call: from the game's starting dice) and cached on disk (other rules); its
    two-player rounds from ``table_for``."""
    try:
        check_blueprint_rules(config)
    except ValueError as exc:
        raise UsageError(f"cfr: {exc}") from None
    if path is None and config.num_players == 3 and rules_key(config) == rules_key(GameConfig()):
        path = SHIPPED_BLUEPRINT
    settings = on_demand(config, BLUEPRINT_ON_DEMAND)
    key = f"blueprint|players={config.num_players}|{rules_key(config)}"
    key += f"|path={Path(path).resolve()}" if path is not None else _demand_key(config, settings)
    if path is None and (max(config.starting_dice) > settings.dice or config.num_players > 3):  # before solving
        raise UsageError(f"cfr: blueprints are solved on demand for 3 players up to {settings.dice} "
                         f"dice each; the game has {config.num_players} players, {config.starting_dice} dice "
                         f"(solve one with `ldpomdp solve equilibrium --players {config.num_players} --dice D "
                         f"--workers W --out FILE`, play cfr:table=FILE; its cost: the Exact solvers page)")
    with _one_at_a_time(key):  # as table_for's
        blueprint = _BLUEPRINTS.lookup(key)
        if blueprint is None:
            blueprint = _BLUEPRINTS[key] = _load_or_solve_blueprint(config, settings, path, key)
    solved = blueprint.config
    if (solved.num_players, rules_key(solved)) != (config.num_players, rules_key(config)):
        raise UsageError(f"cfr table {path} is for {solved.num_players} players, {_rules_text(solved)}; the game has "
                         f"{config.num_players} players, {_rules_text(config)}")
    return blueprint


def _load_or_solve_blueprint(config: GameConfig, settings: SolveSettings, path: str | Path | None, key: str
                             ) -> BlueprintTable:
    """The blueprint ``blueprint_for`` gives: from ``path``, else from the cache, else solved now and cached."""
    two = table_for(game_config(config, config.starting_dice[0]))  # the rounds once two seats are left
    if path is not None:
        return BlueprintTable.load(path, two)
    fair = "|fair" if blueprint_continuation(config) == "fair" else ""  # chained: the digests as before
    digest = hashlib.sha256(f"v{BlueprintTable.FORMAT}|{key}{fair}|{astuple(settings)}".encode()).hexdigest()[:20]
    cached = cache_dir() / "cfr" / f"blueprint-{digest}.npz"
    dice = _solved_dice(config, settings)
    try:
        return BlueprintTable.load(cached, two)
    except TableError:  # none cached yet, or a damaged file: solve (again)
        solved = replace(config, dice=(dice,) * config.num_players)
        with preparing(f"solving the cfr blueprint for {config.num_players} players, {_rules_text(config)}, up to "
                       f"{dice_text(dice)} each, on first use (CPU minutes to hours: the bar gives the time left; "
                       f"cached in {cached})",
                       blueprint_iterations(solved, settings.iterations)) as advance:
            table = solve_blueprint(solved, two, settings.iterations, progress=advance)
        table.save(cached)
        return table
