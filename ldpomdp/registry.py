"""Player specs: the one place that turns spec strings into players, and the players' table of contents.

Strings like ``bluff:0.3``, ``expected-count:particles=1000`` or ``mypkg.mod:MyOpponent:level=2`` become players
here. The grammar (docs/players.md; its plain text pieces in ``ldpomdp.spec_grammar``) covers parsing, the canonical
text (which keys sweep cells, so seeds), the kinds of parameters (a file, a nested spec, a list of specs) and the
largest value of every numeric parameter of the registered players (``MAXIMA``). Planners and opponents register
here by name; targets are imported lazily, and parsing reads nothing and imports no user code (only, to route a
nested spec's keys, the registered players' own modules), so a spec can be checked before it is built.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UsageError, describe, echo
from .game import Player
from .spec_grammar import EXACT_INT, KEY, group_specs, inside_brackets, parse_value, split_pieces
from .validation import at_most

__all__ = ["PlayerSpec", "Parameter", "make_player", "make_seat", "parse_spec", "canonical_spec", "spec_text",
           "register", "registered_names", "import_target", "player_parameters", "spec_list", "split_specs", "FILE",
           "CODE", "SPEC", "SPECS", "RECOMMENDED", "MAXIMA"]

# the kinds of parameter the grammar treats apart (any other parameter takes a number, true/false or a word)
FILE = "file"  # a path the player reads (a web request may not name one without --allow-plugins)
CODE = "code"  # a "module:attribute" the player imports and calls (a web request may not name one either)
SPEC = "spec"  # another player spec (a model, a policy); ``none`` where the player allows it
SPECS = "specs"  # a list of player specs
# the agent the package recommends: it plays every table (2-6 players, any rules, any dice; docs/robustness.md)
RECOMMENDED = "robust"
_PLAIN_TYPES = {"str", "int", "float", "bool", "Sequence[str]", "object"}  # what a spec's text can give
# the largest value of every numeric parameter of the registered players, by constructor parameter (one table for
# all of them: a parameter's name means one thing throughout), checked when a spec is parsed, before any game; a
# value above it is refused in one line (docs/players.md, "Limits"). The lower bounds are the constructors' own.
MAXIMA: dict[str, int] = {
    # probabilities and shares
    "bluff": 1, "confidence": 1, "floor": 1, "tremble": 1, "injection": 1, "refresh": 1,
    # searches and beliefs: their size, in time and memory
    "n_particles": 1_000_000, "num_sims": 10_000_000, "sims": 10_000_000, "n_root": 1_000_000,
    "rollouts": 10_000, "max_depth": 1_000, "planning_time": 3_600, "lookahead": 2,
    "timeout": 3_600, "retries": 100, "history": 1_000,
    # weights, widths and temperatures
    "temperature": 1_000_000, "s": 1_000_000, "t": 1_000_000, "stop_loss": 1_000_000, "allowance": 1_000_000,
    "uct_c": 1_000_000,
    "exploration_const": 1_000_000, "settle": 1_000_000,
    # seeds: any unsigned 64-bit integer (numpy's generators take them all)
    "seed": 2**64 - 1,
}


@dataclass(frozen=True)
class _Entry:
    target: str  # "module:attribute"
    positional: str | None = None  # parameter that a bare value (``bluff:0.3``) sets
    aliases: dict[str, str] = field(default_factory=dict)  # short CLI names -> constructor names
    summary: str = ""
    kinds: dict[str, str] = field(default_factory=dict)  # constructor parameter -> FILE, CODE, SPEC or SPECS
    not_a_seat: str = ""  # why the spec models other seats only (empty: it takes a seat)

    def shown(self, parameter: str) -> str:
        """The name a parameter is written with in the canonical text: its alias if it has one."""
        return next((short for short, long in self.aliases.items() if long == parameter), parameter)


_REGISTRY: dict[str, _Entry] = {}


def register(
    name: str, target: str, positional: str | None = None, aliases: dict[str, str] | None = None, summary: str = "",
    kinds: dict[str, str] | None = None, not_a_seat: str = "",
) -> None:
    """Make ``name`` a player spec building ``target`` ("module:Class").

    Args:
        name: the spec's name.
        target: what the spec builds, as "module:Class" (imported only when a spec is built).
        positional: the constructor parameter that a bare value (``bluff:0.3``) sets.
        aliases: short spec names -> constructor parameter names.
        summary: the one-line summary that ``registered_names`` lists.
        kinds: the constructor parameters that take a file (``FILE``), user code to import (``CODE``), a spec
            (``SPEC``) or a list of specs (``SPECS``).
        not_a_seat: if given, why the spec only models other seats (``make_seat`` refuses it with that reason).

    Raises:
        UsageError: ``kinds`` names a kind other than ``FILE``, ``CODE``, ``SPEC`` and ``SPECS``.
    """
    unknown = set((kinds or {}).values()) - {FILE, CODE, SPEC, SPECS}
    if unknown:
        raise UsageError(f"register({name!r}): unknown parameter kind(s) {sorted(unknown)}")
    _REGISTRY[name] = _Entry(target, positional, dict(aliases or {}), summary, dict(kinds or {}), not_a_seat)


def registered_names(seats_only: bool = False) -> dict[str, str]:
    """Spec names with their one-line summaries (a model that takes no seat says so, or is left out with
    ``seats_only``)."""
    return {name: entry.summary + (" [a model for other specs, not a seat]" if entry.not_a_seat else "")
            for name, entry in sorted(_REGISTRY.items()) if not (seats_only and entry.not_a_seat)}


@dataclass(frozen=True)
class Parameter:
    """A parameter a spec can set: its spelling in a spec, its default, its kind and its constructor name.

    ``name`` as a spec writes it, ``default`` as spec text (None: no default written), ``kind`` (``FILE``,
    ``SPEC``, ``SPECS`` or None for a number or a word), ``key``, the constructor's name for it (a parsed spec's
    ``kwargs`` key), and ``maximum``, the largest value a spec may give it (``MAXIMA``; None: not a number).
    """

    name: str
    default: str | None
    kind: str | None
    key: str
    maximum: int | None = None


def player_parameters(name: str) -> list[Parameter]:
    """The parameters of the registered player ``name`` that a spec can set, in its constructor's order.

    Those taking only objects, and ``name``, are left out. Imports the player's module: a UsageError if that fails.
    """
    entry = _REGISTRY[name]
    try:
        factory = _factory(entry.target)
    except Exception as exc:
        raise UsageError(f"player {name!r}: cannot import {entry.target} ({_reason(exc)})") from None
    found = []
    for p in _settable(factory):
        kind = entry.kinds.get(p.name)
        default = None if p.default is p.empty or p.default is None else _written(kind, p.default)
        found.append(Parameter(entry.shown(p.name), default, kind, p.name, MAXIMA.get(p.name)))
    return found


def _factory(target: str) -> Any:
    """The class that a registered player's ``"module:attribute"`` names, imported (an import error propagates)."""
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def _settable(factory: Any) -> list[inspect.Parameter]:
    """The parameters of ``factory`` that a spec's text can set: not ``name``, ``*args`` or ``**kwargs``, nor those
    taking only objects."""
    found = []
    for p in inspect.signature(factory).parameters.values():
        written = {t.strip() for t in str(p.annotation).split("|")} if p.annotation is not p.empty else {"str"}
        if not (p.name == "name" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or not written & _PLAIN_TYPES):
            found.append(p)
    return found


# The summaries are the players' one description: `ldpomdp players` prints them, the web page shows them, and the
# spec table of docs/players.md is `ldpomdp players --markdown` (tests/project/test_players_docs.py checks it).
register("one-third", "ldpomdp.players.one_third:OneThirdRule",
         summary="report 002's \"MDP\" player: estimate = own matching dice + unseen dice x P(match); challenges iff "
                 "the estimate is below the bid, else makes the smallest raise on the face with the highest estimate")
register("bluff", "ldpomdp.players.one_third:OneThirdRule", positional="bluff",
         summary="the one-third rule that raises anyway with probability B when the rule says challenge (report "
                 "002's Alg. 6 as intended), e.g. bluff:0.3")
register("quantal", "ldpomdp.players.quantal:QuantalEstimate",
         summary="the one-third rule's estimates as a logit (quantal) response at a temperature of T dice (default "
                 "1): challenges with probability 1 / (1 + exp(-(bid - estimate) / T)), else raises to each legal bid "
                 "in proportion to exp((estimate - quantity) / T); never the exact call; with reads=true each other "
                 "seat counts at its expected matching dice given its bids this round (a seat that believes bids); "
                 "with fit=true T (0.1-4 dice) and reads are refitted after each round to the seat's raises and "
                 "challenges shown so far (maximum likelihood); a model of an honest, noisy player, e.g. "
                 "quantal:temperature=0.5")
register("random", "ldpomdp.players.random_player:RandomPlayer", summary="uniform over legal actions")
register("human", "ldpomdp.players.human:HumanPlayer",
         summary="you, in the terminal (ASCII dice; bad input is re-prompted with the reason): ldpomdp play only, "
                 "sweeps refuse it")
register("oehm", "ldpomdp.players.oehm:OehmPlayer", positional="bluff",
         summary="report 003: challenges with probability 1 - P(bid true given its own hand), a binomial over the "
                 "unseen dice; otherwise raises the quantity by one on the face it holds most of, or with probability "
                 "B on a random face, e.g. oehm:0.2")
register("burcsi-nagy", "ldpomdp.players.burcsi_nagy:BurcsiNagyPlayer",
         summary="report 001's mixed strategy: raises iff p2 - p1 + c_s - c_t > 0, with c_s ~ U[0,s] if its last "
                 "challenge of the previous player succeeded and c_t ~ U[0,t] if the next player's last challenge "
                 "failed, e.g. burcsi-nagy:s=0.5,t=0.1")
register("aggressive", "ldpomdp.players.dummies:AggressivePlayer",
         summary="report 004 dummy: challenges half the time, otherwise raises by one in quantity or in face (half "
                 "each); ignores its hand")
register("conservative", "ldpomdp.players.dummies:ConservativePlayer",
         summary="report 004 dummy: makes the smallest bid its own hand makes true, else challenges")
register("mixture", "ldpomdp.players.mixture:TypeMixture", kinds={"types": SPECS, "safe": SPEC},
         summary="Bayesian mixture over opponent types, learnt from the hands shown at each round's end, plus a safe "
                 "type (default cfr; safe=none drops it) that keeps the floor and allows a slip (tremble), so the "
                 "weight returns to it when no listed type fits; family=quantal adds a grid of noisy honest bidders "
                 "(temperature, calling shift, slip) fitted alike; a model for assume= and lbr:mixture, e.g. "
                 "pomcp:assume=[mixture:types=[random,conservative]] or lbr:mixture:family=quantal",
         not_a_seat="the type mixture models another seat's play (use it as assume=mixture, or lbr:mixture); "
                    "seated, it would model its own seat. Seat `robust`: it plays the best response to this model "
                    "of its opponent, within a stop-loss")
register("nash", "ldpomdp.players.nash:NashPlayer",
         summary="the exact equilibrium of each round, two players, small rounds: with 6 faces 1 die each in the full "
                 "game, up to 7 each in the sixes game (solved once, cached on disk)")
register("cfr", "ldpomdp.players.cfr:CFRPlayer", kinds={"table": FILE},
         summary="an approximate equilibrium of the whole two-player game (CFR+ on the last 2-3 bids, each round "
                 "valued by the game value of the dice it leads to): shipped tables up to 5 dice each for today's "
                 "rules, Perudo and Dudo, other rules solved once and cached; at 3-6 players a blueprint of the same "
                 "kind on the last bid: shipped for three players up to 5 dice each (today's rules), other rules at "
                 "three players solved on first use, four to six with `ldpomdp solve equilibrium --players N`, "
                 "e.g. cfr:table=PATH")
register("robust", "ldpomdp.players.robust:RobustPlayer", kinds={"types": SPECS, "safe": SPEC},
         summary="recommended at every table, 2-6 players, any rules and dice: at two players where an equilibrium "
                 "table is shipped or solves on first use within about two CPU minutes, the equilibrium (cfr) with "
                 "the local best response to the listed types once revealed hands have identified the opponent with "
                 "the given confidence, until those rounds have lost more than stop_loss of its game value; with "
                 "learn=true it also fits a family of noisy honest bidders, identifies the opponent once the family "
                 "and the listed types hold the given confidence, and exploits a round only if it risks at most "
                 "allowance plus what it has won (match=true: carried from game to game, not in sweeps); elsewhere "
                 "the bid-reading search (lbr:[quantal:fit=true,reads=true],ends=fair; match=true carries its fit of "
                 "each seat from game to game); machinery=equilibrium|search forces one, e.g. "
                 "robust:confidence=0.9,stop_loss=0.5 or robust:learn=true,match=true")
register("text", "ldpomdp.players.text:TextPlayer", kinds={"agent": CODE},
         summary="a text agent (a language model's client, a local model, a script): agent=module:callable takes "
                 "each move's prompt (rules, hand, bids, legal moves) and returns text, read leniently; an unreadable "
                 "or illegal answer, a timeout or an exception is asked again with the reason (retries=2), then the "
                 "default move; every call is recorded beside the game, e.g. text:agent=mypkg.llm:ask,timeout=30")
register("best-response", "ldpomdp.players.best_response:BestResponsePlayer", kinds={"assume": SPEC},
         summary="the exact game-level best response to a fixed model at every other seat, solved once per process "
                 "and table (sixes game: count-based models such as one-third and bluff:B; full game: "
                 "hand-independent ones), e.g. best-response:assume=bluff:0.3")
register("lbr", "ldpomdp.players.lbr:LocalBestResponse", positional="policy", kinds={"policy": SPEC, "table": FILE},
         summary="local best response to a policy at every other seat, over its exact ranges with a lookahead: at two "
                 "players its win rate is a lower bound on the policy's exploitability; at 3-6 players one informed "
                 "exploiter, round ends valued by the blueprint, or with ends=fair by fair rounds (no blueprint "
                 "needed), e.g. lbr:one-third, lbr:mixture,lookahead=1 or lbr:quantal:reads=true,ends=fair")
register("expected-count", "ldpomdp.planners.expected_count:ExpectedCountPlanner",
         aliases={"particles": "n_particles"}, kinds={"assume": SPEC},
         summary="report 002's \"POMDP\" player (Alg. 5): a particle or exact belief over the hidden dice and the "
                 "expected-count policy, e.g. expected-count:belief=exact,particles=1000")
register("dqn", "ldpomdp.planners.dqn:DQNPlayer", kinds={"weights": FILE, "assume": SPEC},
         summary="report 004's Deep Q-Network agent, played with numpy alone from the shipped weights or from your "
                 "own (dqn:weights=PATH, trained by `ldpomdp train dqn`, extra rl)")
register("pomcp", "ldpomdp.planners.pomcp:POMCPPlanner",
         aliases={"sims": "num_sims", "depth": "max_depth", "particles": "n_particles", "time": "planning_time"},
         kinds={"assume": SPEC},
         summary="POMCP on pomdp-py over the one-round POMDP from the belief, playing for the game, e.g. "
                 "pomcp:depth=12,sims=2000")
register("openspiel", "ldpomdp.planners.openspiel_player:OpenSpielPlayer", aliases={"particles": "n_particles"},
         kinds={"policy": FILE, "assume": SPEC},
         summary="an OpenSpiel bot (extra openspiel): openspiel:bot=ismcts,sims=500 (ISMCTS resampling the other "
                 "hands from the package's belief) or openspiel:policy=PATH (a tabular policy saved from OpenSpiel)")


def _written(kind: str | None, value: Any) -> str:
    """A parameter's value as the canonical text writes it: brackets around a value holding a comma (or a bracket)
    and around every list of specs."""
    if kind == SPECS:
        return "[" + ",".join(canonical_spec(s) for s in value) + "]"
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float) and not (value.is_integer() and abs(value) < EXACT_INT):
        text = repr(value)
    elif isinstance(value, (int, float)):
        text = str(int(value))
    else:
        text = str(value)
    return f"[{text}]" if any(c in text for c in ",[]") else text


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed spec: what to build with which arguments, its canonical text, the files, code and specs it names.

    ``text`` as given, its registered ``name`` (or ``package.module:Class``), what to build (``target``) with which
    keyword arguments (``kwargs``), its ``canonical`` text, the files its own parameters name (``files``:
    (parameter, path) pairs), the user code they name (``code``: (parameter, "module:attribute") pairs) and the specs
    nested in its parameters (``nested``).
    """

    text: str
    name: str
    target: str
    kwargs: dict[str, Any]
    canonical: str
    files: tuple[tuple[str, str], ...] = ()
    nested: tuple[PlayerSpec, ...] = ()
    code: tuple[tuple[str, str], ...] = ()

    def walk(self) -> Iterator[PlayerSpec]:
        """This spec and every spec nested in it, depth first."""
        yield self
        for spec in self.nested:
            yield from spec.walk()

    def external(self) -> list[str]:
        """What building this spec would import or read from outside the package, nested specs included: each
        user module and each file a file parameter names, as a phrase naming it (empty: nothing)."""
        found = []
        for spec in self.walk():
            if spec.name not in _REGISTRY:
                found.append(f"the module {spec.target.partition(':')[0]}")
            found += [f"the file {path!r} ({spec.name}'s {parameter})" for parameter, path in spec.files]
            found += [f"the module {target.partition(':')[0]} ({spec.name}'s {parameter})"
                      for parameter, target in spec.code]
        return found

    def build(self) -> Player:
        """The player, or a UsageError naming the spec and what went wrong.

        What can go wrong: a module that is missing or fails to import, a name that is not a class, parameters the
        class does not take, or its constructor raising. The first line of the message says what went wrong; user
        code's own traceback lines follow it.
        """
        factory = import_target(self.target, f"player spec {echo(self.text)}")
        attr = self.target.partition(":")[2]
        if not isinstance(factory, type):
            raise UsageError(f"player spec {echo(self.text)}: {self.target} is not a class (it is of type "
                             f"{type(factory).__name__})")
        try:
            signature = inspect.signature(factory)
        except (TypeError, ValueError):  # no signature to check against: the call below will tell
            signature = None
        if signature is not None:
            try:
                signature.bind(**self.kwargs)
            except TypeError as exc:
                named = [p.name for p in signature.parameters.values()
                         if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
                raise UsageError(f"player spec {echo(self.text)}: bad parameters {echo(self.kwargs, quote=False)}: "
                                 f"{attr} takes {', '.join(named) or 'no parameters'} ({exc})") from None
        try:
            player = factory(**self.kwargs)
        except UsageError as exc:
            raise UsageError(f"player spec {echo(self.text)}: {exc}") from exc
        except Exception as exc:
            if self.target.startswith("ldpomdp."):  # the package's own player: any other error is a bug
                raise
            if isinstance(exc, ValueError):  # a user's class refusing its parameters
                raise UsageError(f"player spec {echo(self.text)}: {exc}") from exc
            arguments = echo(", ".join(f"{k}={v!r}" for k, v in self.kwargs.items()), quote=False)
            raise UsageError(f"player spec {echo(self.text)}: {attr}({arguments}) raised {_reason(exc)}\n"
                             f"{describe(exc)}") from exc
        missing = [m for m in ("reset", "act", "observe") if not callable(getattr(player, m, None))]
        if missing:
            raise UsageError(f"player spec {echo(self.text)}: {self.target} lacks Player method(s) {missing}")
        if getattr(player, "name", None) in (None, ""):
            try:
                player.name = self.canonical
            except AttributeError:
                pass
        return player


def import_target(target: str, where: str, noun: str = "attribute") -> Any:
    """The attribute that ``target`` ("package.module:attribute") names, imported.

    A UsageError starting with ``where`` when ``target`` is not of that shape (``noun`` names what it should name),
    the module is missing or fails to import (its own traceback lines follow), or lacks the attribute."""
    module_name, _, attr = target.partition(":")
    if not _names_target(module_name, attr):
        raise UsageError(f"{where}: expected package.module:{noun}, got {echo(target)}")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        if isinstance(exc, ModuleNotFoundError) and f"{exc.name}.".startswith("ldpomdp.planners."):
            raise UsageError(f"{where}: the ldpomdp imported from {Path(__file__).parent} has no planners: a source "
                             f"checkout without its install (pip install -e . there, or run from another folder)"
                             ) from exc
        if isinstance(exc, ModuleNotFoundError) and (module_name + ".").startswith(f"{exc.name}."):
            raise UsageError(f"{where}: cannot import {echo(target)} (no module named {exc.name!r}: install it, or "
                             f"run from its folder with PYTHONPATH=.)") from exc
        # the module's own code raised (a missing import of its own included), or has a syntax error
        raise UsageError(f"{where}: importing {module_name} failed: {_reason(exc)}\n{describe(exc)}") from exc
    found = getattr(module, attr, None)
    if found is None:
        raise UsageError(f"{where}: cannot import {echo(target)} (module {module_name} has no {echo(attr)})")
    return found


def _names_target(module: str, attribute: str) -> bool:
    """Whether ``module`` and ``attribute`` can name an importable attribute (dotted identifiers, an identifier)."""
    return attribute.isidentifier() and all(part.isidentifier() for part in module.split("."))


def _reason(exc: BaseException) -> str:
    """``Type: message`` of an exception, on one line (a SyntaxError's names its file and line)."""
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines and lines[0] else type(exc).__name__


def parse_spec(text: str) -> PlayerSpec:
    """Parse ``name[:value][,k=v...]`` or ``package.module:Class[:k=v,...]`` (the grammar of docs/players.md).

    Nothing is read and no user code imported; a UsageError names the spec and what is wrong with it, a registered
    player's number above its ``MAXIMA`` among them. A key inside an unbracketed nested spec that its player does not
    take goes to the player around it where that one takes it (``lbr:quantal:ends=fair`` is
    ``lbr:quantal,ends=fair``): to learn which, the registered players' own modules are imported."""
    text = str(text).strip()
    head, sep, rest = text.partition(":")
    head = head.strip()
    registered = head in _REGISTRY
    if registered:
        name, entry, params = head, _REGISTRY[head], rest
    elif "." in head and sep:
        attr, _, params = rest.partition(":")
        attr = attr.strip()
        if not _names_target(head, attr):
            raise UsageError(f"player spec {echo(text)}: expected package.module:ClassName")
        name = f"{head}:{attr}"
        entry = _Entry(name)
    else:
        known = ", ".join(sorted(_REGISTRY))
        spec = "" if head == text else f" in spec {echo(text)}"
        raise UsageError(f"unknown player {echo(head)}{spec}; known: {known}, or package.module:ClassName")
    kwargs: dict[str, Any] = {}
    files: list[tuple[str, str]] = []
    code: list[tuple[str, str]] = []
    nested: list[PlayerSpec] = []
    pieces = split_pieces(params, f"player spec {echo(text)}")
    for piece in pieces:  # grows by the keys routed out of a nested spec
        match = KEY.fullmatch(piece)
        if match:
            key, value = entry.aliases.get(match[1], match[1]), match[2].strip()
        elif entry.positional is not None and not kwargs:
            key, value = entry.positional, piece
        else:
            raise UsageError(f"player spec {echo(text)}: expected key=value, got {echo(piece)}")
        if key in kwargs:
            raise UsageError(f"player spec {echo(text)}: gives {entry.shown(key)} twice")
        kind = entry.kinds.get(key)
        if kind == SPEC and registered:
            value, routed = _routed(text, name, key, value)
            pieces += routed
        if kind in (SPEC, SPECS):
            kwargs[key] = _nested_value(f"player spec {echo(text)}, parameter {entry.shown(key)}", kind, value, nested)
            continue
        inside = inside_brackets(value)
        if inside is None and ("[" in value or "]" in value):
            raise UsageError(f"player spec {echo(text)}: brackets must enclose a whole value, got {echo(value)}")
        value = value if inside is None else inside
        if kind in (FILE, CODE):
            kwargs[key] = value
            (files if kind == FILE else code).append((entry.shown(key), value))
        else:
            kwargs[key] = parse_value(value)
            if registered and key in MAXIMA:
                at_most(f"player spec {echo(text)}", entry.shown(key), kwargs[key], MAXIMA[key], value)
    if entry.positional and entry.positional not in kwargs:
        raise UsageError(f"player spec {echo(text)}: needs a value, e.g. {head}:0.3")
    parts = [_written(entry.kinds.get(entry.positional), kwargs[entry.positional])] if entry.positional else []
    parts += [f"{shown}={_written(entry.kinds.get(key), kwargs[key])}"
              for shown, key in sorted((entry.shown(k), k) for k in kwargs if k != entry.positional)]
    canonical = name + (":" + ",".join(parts) if parts else "")
    return PlayerSpec(text, name, entry.target, kwargs, canonical, tuple(files), tuple(nested), tuple(code))


@functools.cache
def _taken(target: str) -> frozenset[str] | None:
    """The constructor parameters that a spec can set of the registered player built by ``target`` (None: it takes
    any keyword, or its module does not import here, where its build will say why)."""
    try:
        factory = _factory(target)
        if any(p.kind == p.VAR_KEYWORD for p in inspect.signature(factory).parameters.values()):
            return None
        return frozenset(p.name for p in _settable(factory))
    except Exception:
        return None


def _routed(text: str, outer: str, key: str, value: str) -> tuple[str, list[str]]:
    """An unbracketed nested spec's keys routed: the spec less those its player does not take, and those for ``outer``.

    ``value`` is the registered player ``outer``'s parameter ``key``; the pieces moved are the ``key=value`` ones
    that its own player does not take but ``outer`` does. Keys that both take stay in the nested spec, so a spec
    that builds keeps its meaning. A key that neither takes is a UsageError (``text`` names the spec) showing the
    bracketed form, which says which player a key is for.
    """
    head, sep, rest = value.partition(":")
    head = head.strip()
    if inside_brackets(value) is not None or not sep or head not in _REGISTRY:
        return value, []
    inner_entry, outer_entry = _REGISTRY[head], _REGISTRY[outer]
    try:
        pieces = [(piece, KEY.fullmatch(piece)) for piece in split_pieces(rest, "")]
    except UsageError:  # brackets that do not pair up: the nested spec's own parse says so
        return value, []
    if not any(match for _, match in pieces):
        return value, []
    inner, around = _taken(inner_entry.target), _taken(outer_entry.target)
    if inner is None or around is None:
        return value, []
    kept, moved, neither, unknown = [], [], [], []
    for piece, match in pieces:
        if match is None or inner_entry.aliases.get(match[1], match[1]) in inner:
            kept.append(piece)
        elif outer_entry.aliases.get(match[1], match[1]) in around:
            moved.append(piece)
        else:
            neither.append(piece)
            unknown.append(match[1])
    nested = head + (":" + ",".join(kept) if kept else "")
    if neither:
        where = "" if key == outer_entry.positional else f"{outer_entry.shown(key)}="
        bracketed = f"{outer}:{where}[{nested}]," + ",".join(moved + neither)
        takes = {name: ", ".join(sorted(entry.shown(p) for p in taken))
                 for name, entry, taken in ((head, inner_entry, inner), (outer, outer_entry, around))}
        raise UsageError(f"player spec {echo(text)}: neither {head} nor {outer} takes "
                         f"{unknown[0]} ({head} takes {takes[head] or 'no parameters'}; {outer} "
                         f"takes {takes[outer]}); a nested spec in brackets ends before the keys of the player around "
                         f"it: {echo(bracketed)}")
    return (nested, moved) if moved else (value, [])


def _nested_value(where: str, kind: str, value: str, nested: list[PlayerSpec]) -> str | list[str]:
    """The value of a parameter of kind SPEC or SPECS; the specs parsed are added to ``nested``.

    For SPEC: a canonical spec, or ``none``. For SPECS: a list of them (in brackets, or, as written before brackets,
    joined by "+"). Errors start with ``where``.
    """
    inside = inside_brackets(value)
    if kind == SPEC:
        items = [value if inside is None else inside]
    else:
        items = (group_specs(split_pieces(inside, where)) if inside is not None
                 else [v.strip() for v in value.split("+")])
    if not items or not all(items):
        raise UsageError(f"{where}: needs {'a player spec' if kind == SPEC else 'player specs'}, got {echo(value)}")
    if kind == SPEC and items[0].lower() == "none":
        return "none"
    specs = []
    for item in items:
        try:
            specs.append(parse_spec(item))
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
    nested += specs
    return specs[0].canonical if kind == SPEC else [s.canonical for s in specs]


def spec_list(text: str) -> list[str]:
    """The canonical specs of a list as a parameter of kind SPECS takes it: in brackets (``[one-third,oehm:0.2]``),
    one spec, or specs joined by "+" (the spelling from before brackets)."""
    return list(_nested_value(f"list of player specs {echo(text)}", SPECS, text.strip(), []))


def canonical_spec(text: str) -> str:
    """The canonical text of a spec: the same player always has the same text (it keys sweep cells and their
    seeds). A UsageError names a spec that does not parse."""
    return parse_spec(text).canonical


def spec_text(name: str, kwargs: Mapping[str, Any]) -> str:
    """The canonical spec of the registered player ``name`` built with constructor arguments ``kwargs``.

    The arguments that are None are left out: ``spec_text("lbr", {"policy": "oehm:0.2"})`` is ``"lbr:oehm:0.2"``.
    """
    entry = _REGISTRY[name]
    parts = [f"{key}={_written(entry.kinds.get(key), value)}" for key, value in kwargs.items() if value is not None]
    return canonical_spec(name + (":" + ",".join(parts) if parts else ""))


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of specs (commas inside brackets stay in their spec).

    A ``k=v`` piece belongs to the spec before it, also when a value is itself a spec with ":"
    (``pomcp:sims=200,assume=oehm:0.2``), since a spec's name never contains "=". No specs at all is a UsageError.
    """
    specs = group_specs(split_pieces(text, f"player specs {echo(text)}"))
    if not specs:
        raise UsageError("no players given")
    return specs


def make_player(spec: str) -> Player:
    """Build one player (or a model of another seat) from its spec string."""
    return parse_spec(spec).build()


def make_seat(spec: str) -> Player:
    """Build a player to seat at a table: ``make_player``, refusing a spec that only models other seats."""
    parsed = parse_spec(spec)
    entry = _REGISTRY.get(parsed.name)
    if entry is not None and entry.not_a_seat:
        raise UsageError(f"player spec {echo(spec.strip())} cannot take a seat: {entry.not_a_seat}")
    return parsed.build()
