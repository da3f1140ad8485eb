"""The options that several commands share, and the GameConfig the rule options ask for.

Integer options with a lower bound, and the one builder of the rule options (``--dice --faces --wild --bids --opener
--seed`` and the rule variants' group)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from ..rules import BID_MODES, LOSS_RULES, OPENER_RULES, PRESETS, RAISE_ORDERS, WILD_BID_RULES, GameConfig

__all__ = ["option_int", "add_rule_options", "deprecated_alias", "config_from_args", "variant_fields",
           "variant_flags", "wild_face", "RULE_OPTIONS", "VARIANT_OPTIONS"]


def option_int(minimum: int) -> Callable[[str], int]:
    """An argparse type for integer options: a value below ``minimum`` is refused with an error naming the option."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {text!r}")
        return value

    return parse


# the rule options and their flags; not given, they stay None and GameConfig's defaults apply
RULE_OPTIONS = {"dice": "--dice", "faces": "--faces", "wild": "--wild", "bids": "--bids", "opener": "--opener"}
VARIANT_OPTIONS = {"rules": "--rules", "wild_bids": "--wild-bids", "exact_call": "--exact-call",
                   "palifico": "--palifico", "loss": "--loss", "raise_order": "--raise-order"}

# each rule option's add_argument keywords where a command does not say otherwise
_RULE_FLAGS: dict[str, dict[str, Any]] = {
    "dice": dict(type=int, help="starting dice per player (default 5)"),
    "faces": dict(type=int, help="faces per die (default 6)"),
    "wild": dict(help="wild face: 1, high (the highest face) or none (default 1)"),
    "bids": dict(choices=BID_MODES, help="bid mode (default full)"),
    "opener": dict(choices=OPENER_RULES, help="who opens the next round (default after_challenger)"),
    "seed": dict(type=option_int(0), default=None, help="random seed (default: fresh)"),
}


def add_rule_options(parser: argparse.ArgumentParser, variants: str = "default: none, today's rules",
                     **overrides: dict[str, Any]) -> None:
    """Add the rule options and the rule variants' group to ``parser``.

    The options: ``--dice --faces --wild --bids --opener --seed`` and the rule variants' group (docs/rules.md: a preset
    and single rules, which override the preset's), whose title ``variants`` follows in ``--help``. ``overrides``
    (keyed ``dice``, ``faces``, ``wild``, ``bids``, ``opener``, ``seed``) replace add_argument keywords of one option:
    a command's own default, type, choices or help; any other key raises TypeError."""
    unknown = set(overrides) - set(_RULE_FLAGS)
    if unknown:
        raise TypeError(f"add_rule_options: no rule option(s) {sorted(unknown)}")
    for name, keywords in _RULE_FLAGS.items():
        parser.add_argument(f"--{name}", **{**keywords, **overrides.get(name, {})})
    rules = parser.add_argument_group(f"rule variants ({variants})")
    rules.add_argument("--rules", choices=tuple(PRESETS), default=None,
                       help="a named rule set: perudo (Perudo bids, exact call, palifico), dudo (Perudo bids, loss "
                            "by the difference), textarena (TextArena's LiarsDice-v0: no wild dice, raises lower "
                            "neither quantity nor face)")
    rules.add_argument("--wild-bids", choices=WILD_BID_RULES, default=None, help="perudo: bids on the wild ones "
                                                                                 "count double (needs --wild 1)")
    rules.add_argument("--exact-call", action="store_const", const=True, default=None,
                       help="the exact call (e at the terminal): right, the caller gets a die back; wrong, it loses "
                            "one")
    rules.add_argument("--palifico", action="store_const", const=True, default=None,
                       help="a palifico round after a player first drops to one die")
    rules.add_argument("--loss", choices=LOSS_RULES, default=None, help="difference: the loser loses what the bid "
                                                                       "missed by")
    rules.add_argument("--raise-order", choices=RAISE_ORDERS, default=None,
                       help="no_lower: a raise lowers neither quantity nor face (TextArena's)")


class _DeprecatedAlias(argparse.Action):
    """A renamed option's old spelling: stores into the new option's place, saying in one line to use the new one."""

    def __init__(self, option_strings: list[str], dest: str, new: str = "", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"ldpomdp: warning: {option_string} is deprecated and will be removed: use {self.new}",
              file=sys.stderr)
        setattr(namespace, self.dest, values)


def deprecated_alias(parser: argparse.ArgumentParser, old: str, new: argparse.Action) -> None:
    """Keep ``old`` working as a hidden alias of the option ``new`` (its type and place), with a deprecation note."""
    keywords: dict[str, Any] = dict(dest=new.dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS,
                                    action=_DeprecatedAlias, new=new.option_strings[0])
    if new.type is not None:
        keywords["type"] = new.type
    parser.add_argument(old, **keywords)


def variant_fields(args: argparse.Namespace) -> dict[str, object]:
    """The GameConfig fields the rule-variant options ask for: the preset's, then the single rules given."""
    fields = dict(PRESETS[args.rules]) if getattr(args, "rules", None) else {}
    fields.update({name: getattr(args, name) for name in VARIANT_OPTIONS
                   if name != "rules" and getattr(args, name, None) is not None})
    return fields


def variant_flags(args: argparse.Namespace) -> list[str]:
    """The rule-variant options given, as their flags (e.g. ``["--rules", "--loss"]``)."""
    return [flag for name, flag in VARIANT_OPTIONS.items() if getattr(args, name, None) is not None]


def wild_face(text: str, faces: int) -> int | None:
    """The wild face that ``--wild`` names: a number, "high" (``faces``) or "none" (None)."""
    named = str(text).lower()
    if named in ("none", "high"):
        return None if named == "none" else faces
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"--wild must be 1, high or none, got {text!r}") from None


def config_from_args(args: argparse.Namespace, num_players: int, dice: int | None = None) -> GameConfig:
    """A GameConfig from the rule options given (``dice``, when given, in place of ``--dice``) and the rule variants'
    options, GameConfig's defaults for the others."""
    rules = {**variant_fields(args), **{name: getattr(args, name) for name in RULE_OPTIONS
                                         if getattr(args, name) is not None}}
    if dice is not None:
        rules["dice"] = dice
    if "wild" in rules:
        rules["wild"] = wild_face(rules["wild"], rules.get("faces", GameConfig.faces))
    return GameConfig(num_players=num_players, **rules)
