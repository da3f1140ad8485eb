"""Old import paths of moved modules and names, kept working for one minor version with a DeprecationWarning.

`MOVED` maps an old module path to where its names went: one new module for all of them (a module moved whole),
or name by name (a module split up), where ``"module:new_name"`` is a name that was renamed too. Importing an old
path warns once, naming the new home; CHANGELOG.md lists every move and the version that drops it. A module that
stays where it is but gave names away (or renamed them) lists them name by name too, and passes its module
``__getattr__`` to ``moved_attribute``: reading such a name warns, naming its new home.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import FrameType, ModuleType
from typing import Any

__all__ = ["MOVED", "REMOVED_IN", "install", "moved_attribute"]

REMOVED_IN = "0.3"

#: old module -> the new module of all its names, or {name: new module, or "new module:new name"}
MOVED: dict[str, str | Mapping[str, str]] = {
    # 0.1.0's ldpomdp.opponents package (e02b58e): the protocol in ldpomdp.opponent, the families in ldpomdp.players
    "ldpomdp.opponents": {
        **dict.fromkeys(["OpponentModel", "BaseOpponent", "HandIndependentOpponent", "checked_probabilities",
                         "sample_action"], "ldpomdp.opponent"),
        "OneThirdRule": "ldpomdp.players.one_third", "RandomPlayer": "ldpomdp.players.random_player",
        "OehmPlayer": "ldpomdp.players.oehm", "BurcsiNagyPlayer": "ldpomdp.players.burcsi_nagy",
        "AggressivePlayer": "ldpomdp.players.dummies", "ConservativePlayer": "ldpomdp.players.dummies",
        "TypeMixture": "ldpomdp.players.mixture", "check_opponent": "ldpomdp.players.check",
    },
    "ldpomdp.opponents.base": "ldpomdp.opponent",
    **{f"ldpomdp.opponents.{name}": f"ldpomdp.players.{name}"
       for name in ["burcsi_nagy", "check", "mixture", "oehm", "one_third", "random_player"]},
    # the solve's cost model, beside the tables that announce a solve on first use with it (issue 52)
    "ldpomdp.cli.solve": dict.fromkeys(["solve_seconds", "SHIPPED_SECONDS"], "ldpomdp.exact.tables"),
    "ldpomdp.web.load": "ldpomdp.web.load_driver",  # the web app's load driver, named for what it is
    "ldpomdp.sweeps.exploitability": "ldpomdp.sweeps.lbr_bound",  # LBR's bound, apart from the exact exploitability
    # 0.2's ldpomdp.exact wing, by table size: two_player/, many_players/, against_models/ (issue 54)
    "ldpomdp.exact.equilibrium": {
        **dict.fromkeys(["AbstractRound", "abstract_round", "recall_for"], "ldpomdp.exact.two_player.abstraction"),
        **dict.fromkeys(["RoundCFR", "one_round_outcome", "MAX_FULL_WIDTH_CELLS", "VALUE_DTYPE"],
                        "ldpomdp.exact.two_player.round_cfr"),
        **dict.fromkeys(["GameTable", "quantize", "QUANTUM", "rules_key", "file_bids"],
                        "ldpomdp.exact.two_player.table"),
        **dict.fromkeys(["solve_game", "game_iterations", "game_rounds", "sweep_targets", "discard_checkpoint",
                         "rounds_folder", "SWEEP_TOLERANCE", "COARSE_SWEEPS"], "ldpomdp.exact.two_player.equilibrium"),
        "game_config": "ldpomdp.exact.two_player.states",
    },
    "ldpomdp.exact.multiplayer": {
        **dict.fromkeys(["RoundPayoff", "loser_values", "NRound", "n_round", "PublicTree", "count_distribution",
                         "convolve", "call_values", "public_tree_size", "draw_hands", "MAX_PUBLIC_NODES"],
                        "ldpomdp.exact.many_players.round"),
        **dict.fromkeys(["PublicTreeCFR", "NRoundCFR", "LineRoundCFR"], "ldpomdp.exact.many_players.round_cfr"),
    },
    "ldpomdp.exact.blueprint": {
        "BlueprintTable": "ldpomdp.exact.many_players.table",
        **dict.fromkeys(["blueprint_rounds", "blueprint_sweeps", "blueprint_continuation", "solve_blueprint",
                         "end_values", "end_probabilities", "check_blueprint_rules", "BLUEPRINT_RECALL",
                         "VALUE_SAMPLES"], "ldpomdp.exact.many_players.blueprint"),
    },
    "ldpomdp.exact.table_states": {
        **dict.fromkeys(["RoundKey", "usual_state", "round_rules", "follow", "chain_win_probabilities"],
                        "ldpomdp.exact.many_players.states"),
        "TableState": "ldpomdp.exact.many_players.states:SeatsState",
        "table_slots": "ldpomdp.exact.many_players.states:seat_slots",
        "table_states": "ldpomdp.exact.many_players.states:seat_states",
    },
    "ldpomdp.exact.nash": {"cached_solution": "ldpomdp.exact.two_player.solved_rounds", "cache_dir": "ldpomdp.caches"},
    "ldpomdp.exact.chain": "ldpomdp.exact.two_player.states",
    "ldpomdp.exact.best_response": "ldpomdp.exact.two_player.exploitability",
    "ldpomdp.exact.tree": "ldpomdp.exact.two_player.tree",
    "ldpomdp.exact.sequence_form": "ldpomdp.exact.two_player.sequence_form",
    "ldpomdp.exact.fixed_opponents": "ldpomdp.exact.against_models.solver",
    "ldpomdp.exact.count_rounds": "ldpomdp.exact.against_models.count_rounds",
    "ldpomdp.exact.game_values": "ldpomdp.exact.against_models.game_values",
    "ldpomdp.opponents.wildcard": "ldpomdp.players.dummies",
    # the OpenSpiel planner named after what it holds, apart from the bridge package ldpomdp.openspiel
    "ldpomdp.planners.openspiel": "ldpomdp.planners.openspiel_player",
    # report 004's dummy agents in a module named for what it holds
    "ldpomdp.players.wildcard": "ldpomdp.players.dummies",
    # LBR's algorithm apart from the seated player (ldpomdp.players.lbr keeps LocalBestResponse and ENDS)
    "ldpomdp.players.lbr": dict.fromkeys(["local_best_response", "lbr_behaviour", "lookahead_values",
                                          "table_lookahead_values", "candidate_raises", "round_payoff", "best_actions",
                                          "HandRange", "RAISES", "TIE", "REPLY_MASS"], "ldpomdp.players.lbr_search"),
    # a round's end in a module of its own, apart from the rules (rules.py had grown over 600 lines)
    "ldpomdp.rules": dict.fromkeys(["resolve_challenge", "settle_round", "settle_count", "round_loser",
                                    "settled_by_count", "round_ends", "next_opener", "seats_in_turn",
                                    "next_active_seat", "palifico_follows", "NextRound", "next_round"],
                                   "ldpomdp.round_end"),
    # "table" means a solved strategy: a tournament's groups of seats, the hand space's alias arrays renamed
    "ldpomdp.sweeps.tournament": {"TABLES": "ldpomdp.sweeps.tournament:GROUPS"},
    "ldpomdp.hands": {"prior_table": "ldpomdp.hands:prior_alias", "alias_table": "ldpomdp.hands:alias_arrays",
                      "PRIOR_TABLE_MAX": "ldpomdp.hands:PRIOR_ALIAS_MAX"},
}


def _home(old: str, name: str) -> str:
    """Where ``name`` of the old module ``old`` now lives (``"module"`` or ``"module:new_name"``); AttributeError
    when the old module never had it."""
    target = MOVED.get(old)
    home = target if isinstance(target, str) else None if target is None else target.get(name)
    if home is None or name.startswith("__"):
        raise AttributeError(f"module {old!r} has no attribute {name!r}")
    return home


def _object(home: str, name: str) -> Any:
    """The object that ``name`` now is at ``home`` (``"module"`` or ``"module:new_name"``)."""
    module, _, new_name = home.partition(":")
    return getattr(importlib.import_module(module), new_name or name)


def moved_attribute(module: str, name: str) -> Any:
    """Name ``name`` that module ``module`` (still in place) gave away or renamed, read from its new home.

    Reading it warns with a DeprecationWarning; a name the module never had raises AttributeError. The module's own
    ``__getattr__`` calls this.
    """
    home = _home(module, name)
    warnings.warn(f"{module}.{name} has moved to {home}; the old name goes in ldpomdp {REMOVED_IN} (CHANGELOG.md)",
                  DeprecationWarning, stacklevel=3)
    return _object(home, name)


class _OldModule(ModuleType):
    """An old module path: each attribute is looked up in its new home."""

    def __getattr__(self, name: str) -> Any:
        return _object(_home(self.__name__, name), name)

    def __dir__(self) -> list[str]:
        target = MOVED[self.__name__]
        return sorted(dir(importlib.import_module(target)) if isinstance(target, str) else target)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths in `MOVED` (only after the regular finders found no module there)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(fullname, self) if fullname in MOVED else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = _OldModule(spec.name)
        if any(old.startswith(spec.name + ".") for old in MOVED):  # old submodules import through it
            module.__path__ = []
        return module

    def exec_module(self, module: ModuleType) -> None:
        target = MOVED[module.__name__]
        where = target if isinstance(target, str) else ", ".join(sorted({t.partition(":")[0] for t in target.values()}))
        warnings.warn(f"{module.__name__} has moved to {where}; the old path goes in ldpomdp {REMOVED_IN} "
                      "(CHANGELOG.md)", DeprecationWarning, stacklevel=_importer_level())


def _importer_level() -> int:
    """The ``stacklevel`` that points a warning raised in `exec_module` at the code that imported the old path."""
    frame: FrameType | None = sys._getframe(2)  # exec_module's caller
    level = 2
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen importlib")
                                 or frame.f_code.co_filename == __file__):
        frame, level = frame.f_back, level + 1
    return level


def install() -> None:
    """Let the old paths import (once per process; `ldpomdp/__init__.py` calls it)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
