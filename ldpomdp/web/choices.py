"""What the new-game form offers and how its rules are read into a ``GameConfig``.

One control per rule (with its words), the named rule sets, the opponent ladder, the agents of the registry with
their parameters, the recommended agent and what it plays under a game's rules, and the form's rules turned into a
``GameConfig``. Nothing here imports or reads what a request names."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import UsageError
from ..exact.tables import cost_text, on_demand_seconds
from ..players.robust import table_source
from ..registry import CODE, RECOMMENDED, parse_spec, player_parameters, registered_names
from ..rules import BID_MODES, LOSS_RULES, OPENER_RULES, PRESETS, RAISE_ORDERS, WILD_BID_RULES, GameConfig

__all__ = ["LIMITS", "EXAMPLE_SPECS", "LEVELS", "rule_fields", "rule_controls", "rule_sets", "spec_choices",
           "rules_from_form", "recommendation"]

# what the server plays at most: the page lists every bid up to the dice on the table
LIMITS = {"players": 6, "faces": 12, "table_dice": 60}
# a spec for each registered name that needs a value (the others play by their bare name)
EXAMPLE_SPECS = {"bluff": "bluff:0.3", "oehm": "oehm:0.2", "burcsi-nagy": "burcsi-nagy:s=0.5,t=0.1",
                 "best-response": "best-response:assume=random", "pomcp": "pomcp:sims=300",
                 "lbr": "lbr:one-third"}
# the opponents the form opens with, weakest first: each plays every table the page offers (2-6 players, each rule
# set), and each beats the one before it in the measured results (why: In the browser, "The opponent ladder")
LEVELS = (
    {"name": "beginner", "label": "Beginner", "spec": "one-third",
     "words": "counts its own dice and a third of the others', and bids or calls on that count: honest and "
              "predictable"},
    {"name": "club", "label": "Club player", "spec": "expected-count",
     "words": "keeps a belief about the hidden dice, read from everyone's bids, and plays the expected count"},
    {"name": "expert", "label": "Expert", "spec": RECOMMENDED,
     "words": "the recommended agent: the equilibrium at two players, exploiting a type it recognises; the "
              "bid-reading search at more"},
)
HIGHEST = "highest"  # the wild control's value for the highest face (the page puts the number of faces)
# each rule's label and the words for its values (a rule added to GameConfig later gets its name and its values)
_WORDS: dict[str, tuple[str, dict[Any, str]]] = {
    "dice": ("Dice each", {}),
    "faces": ("Faces", {}),
    "wild": ("Wild dice", {1: "ones", HIGHEST: "the highest face", None: "none"}),
    "bids": ("A bid names", {"full": "any face (full game)", "sixes": "the highest face, raised by one (sixes game)"}),
    "opener": ("Next round opens", {"after_challenger": "the player after the challenger", "loser": "the loser"}),
    "wild_bids": ("Bids on ones", {"plain": "like any face",
                                   "perudo": "Perudo's: half the quantity to ones, double + 1 back"}),
    "exact_call": ("Exact call (a right one wins a die back)", {}),
    "palifico": ("Palifico rounds (down to one die: no wild dice, the face fixed)", {}),
    "loss": ("A lost challenge costs", {"one": "one die", "difference": "the difference from the bid"}),
    "raise_order": ("A raise", {"plain": "a higher quantity, or the same on a higher face",
                                "no_lower": "lowers neither quantity nor face (TextArena's)"}),
}
_CHOICES: dict[str, tuple[Any, ...]] = {"wild": (1, HIGHEST, None), "bids": BID_MODES, "opener": OPENER_RULES,
                                        "wild_bids": WILD_BID_RULES, "loss": LOSS_RULES, "raise_order": RAISE_ORDERS}
_RULE_SET_NAMES = {"today": "Today's rules", "perudo": "Perudo", "dudo": "Dudo", "textarena": "TextArena"}


def rule_fields() -> dict[str, Any]:
    """The rules a game can set, each with its default: field name -> default value.

    Every ``GameConfig`` field but ``num_players`` (the seats decide it), with its default (``dice``: one number for
    every player). A field added to GameConfig (a variant) shows up here."""
    defaults = GameConfig()
    return {f.name: defaults.starting_dice[0] if f.name == "dice" else getattr(defaults, f.name)
            for f in dataclasses.fields(GameConfig) if f.init and f.name not in ("num_players", "palifico_round")}


def rule_controls() -> list[dict]:
    """One form control per rule of ``rule_fields``, as a dict the page renders.

    Each has ``name``, ``label``, ``kind`` (number, checkbox, select or text), ``default`` and, for a select, its
    ``choices`` (value and words; ``wild``'s ``"highest"`` stands for the number of faces)."""
    controls = []
    for name, default in rule_fields().items():
        label, words = _WORDS.get(name, (name.replace("_", " ").capitalize(), {}))
        control: dict[str, Any] = {"name": name, "label": label, "default": default}
        if name in _CHOICES:
            control.update(kind="select", choices=[{"value": v, "label": words.get(v, str(v))} for v in _CHOICES[name]])
        elif isinstance(default, bool):
            control["kind"] = "checkbox"
        elif isinstance(default, int):
            low, high = {"faces": (2, LIMITS["faces"])}.get(name, (1, None))
            control.update(kind="number", min=low, max=high)
        else:
            control["kind"] = "text"
        controls.append(control)
    return controls


def rule_sets() -> list[dict]:
    """The named rule sets: today's rules and ``PRESETS`` (``name``, ``label``, every rule but
    the dice as the set has it, and ``words``: the set in a few words)."""
    defaults = {name: value for name, value in rule_fields().items() if name != "dice"}
    sets = {"today": {}, **PRESETS}
    return [{"name": name, "label": _RULE_SET_NAMES.get(name, name.capitalize()), "rules": {**defaults, **fields},
             "words": GameConfig(**fields).describe()} for name, fields in sets.items()]  # type: ignore[arg-type]


def spec_choices() -> list[dict]:
    """The built-in agents the page offers, each with a spec that plays and its parameters.

    ``human``, the models that take no seat and the seats of user code (``text``) are left out. Each entry has
    ``name``, ``summary``, a ``spec`` that plays, and its ``parameters`` (name, default as spec text, kind, and
    ``value``: what that spec sets); ``parameters`` is None for an agent whose module cannot be imported here."""
    choices = []
    for name, summary in registered_names(seats_only=True).items():
        if name == "human":
            continue
        spec = EXAMPLE_SPECS.get(name, name)
        given = parse_spec(spec).kwargs
        try:
            parameters: list[dict] | None = [{**dataclasses.asdict(p), "value": _text(given.get(p.key))}
                                             for p in player_parameters(name)]
        except UsageError:
            parameters = None
        if parameters is not None and any(p["kind"] == CODE for p in parameters):
            continue
        choices.append({"name": name, "summary": summary, "spec": spec, "parameters": parameters})
    return choices


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _integer(body: dict, key: str, default: int, low: int, high: int | None = None) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise UsageError(f"{key} must be an integer {bound}, got {value!r}")
    return value


def rules_from_form(body: dict, num_players: int) -> GameConfig:
    """The ``GameConfig`` for ``num_players`` of the form ``body``; a UsageError names a bad field.

    ``body`` holds the fields of ``rule_fields``, their defaults where absent (``dice``: a number for every player).
    A bad field raises a UsageError naming it (GameConfig's ValueError a bad rule)."""
    rules = rule_fields()
    dice = _integer(body, "dice", rules["dice"], 1)
    faces = _integer(body, "faces", rules["faces"], 2, LIMITS["faces"])
    if dice * num_players > LIMITS["table_dice"]:
        raise UsageError(f"{dice} dice for {num_players} players is over the {LIMITS['table_dice']} dice this server "
                         f"puts on a table")
    chosen = {name: body.get(name, default) for name, default in rules.items()}
    try:
        return GameConfig(num_players=num_players, **{**chosen, "dice": dice, "faces": faces})
    except TypeError as exc:  # a field of the wrong type
        raise UsageError(str(exc)) from None


def recommendation(config: GameConfig) -> dict:
    """The recommended agent (``spec``: ``RECOMMENDED``) and what it plays under ``config``, without building it.

    ``plays``: robust's ``machinery_for`` (no table from ``table_source``: the search); ``note``: that in one line,
    with the cost of a table solved on first use. No player is built or reset (that could solve a table)."""
    source = table_source(config)
    if source is None:
        note = "plays the bid-reading search (no table needed)"
    elif source == "shipped":
        note = "plays the two-player equilibrium (shipped table)"
    elif source == "cached":
        note = "plays the two-player equilibrium (its table solved before, cached on the server)"
    else:
        note = (f"plays the two-player equilibrium; its table is solved on first use, "
                f"{cost_text(on_demand_seconds(config))} (then cached)")
    return {"spec": RECOMMENDED, "plays": "search" if source is None else "equilibrium", "note": note}
