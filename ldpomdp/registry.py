"""Player specs: the one place that turns strings like ``bluff:0.3``, ``expected-count:particles=1000``
or ``mypkg.mod:MyOpponent:level=2`` into players. Planners and opponents register here by name; targets
are imported lazily so this module imports nothing heavy."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import describe
from .game import Player

__all__ = ["PlayerSpec", "make_player", "make_seat", "parse_spec", "register", "registered_names", "split_specs"]


@dataclass(frozen=True)
class _Entry:
    target: str  # "module:attribute"
    positional: str | None = None  # parameter that a bare value (``bluff:0.3``) sets
    aliases: dict[str, str] = field(default_factory=dict)  # short CLI names -> constructor names
    summary: str = ""
    not_a_seat: str = ""  # why the spec models other seats only (empty: it takes a seat)


_REGISTRY: dict[str, _Entry] = {}


def register(
    name: str, target: str, positional: str | None = None, aliases: dict[str, str] | None = None, summary: str = "",
    not_a_seat: str = "",
) -> None:
    """Make ``name`` a player spec building ``target`` ("module:Class"); ``not_a_seat``, if given, says why it only
    models other seats (``make_seat`` refuses it with that reason)."""
    _REGISTRY[name] = _Entry(target, positional, dict(aliases or {}), summary, not_a_seat)


def registered_names(seats_only: bool = False) -> dict[str, str]:
    """Spec names with their one-line summaries (a model that takes no seat says so, or is left out with
    ``seats_only``)."""
    return {name: entry.summary + (" [a model for other specs, not a seat]" if entry.not_a_seat else "")
            for name, entry in sorted(_REGISTRY.items()) if not (seats_only and entry.not_a_seat)}


register("one-third", "ldpomdp.players.one_third:OneThirdRule", summary="report 002's one-third rule (MDP player)")
register("bluff", "ldpomdp.players.one_third:OneThirdRule", positional="bluff",
         summary="one-third rule that bluffs with the given probability, e.g. bluff:0.3")
register("random", "ldpomdp.players.random_player:RandomPlayer", summary="uniform over legal actions")
register("human", "ldpomdp.players.human:HumanPlayer", summary="you, in the terminal (ldpomdp play; sweeps refuse it)")
register("oehm", "ldpomdp.players.oehm:OehmPlayer", positional="bluff",
         summary="report 003: calls with P(bid false), raises by one; bluffs on a random face, e.g. oehm:0.2")
register("burcsi-nagy", "ldpomdp.players.burcsi_nagy:BurcsiNagyPlayer",
         summary="report 001's (s, t) mixed strategy, e.g. burcsi-nagy:s=0.5,t=0.1")
register("aggressive", "ldpomdp.players.wildcard:AggressivePlayer",
         summary="report 004 dummy: challenges half the time, else raises by one")
register("conservative", "ldpomdp.players.wildcard:ConservativePlayer",
         summary="report 004 dummy: bids only what its own hand makes true")
register("mixture", "ldpomdp.players.mixture:TypeMixture",
         summary="Bayesian mixture over opponent types, learnt from revealed hands, for assume=, e.g. "
                 "pomcp:assume=mixture",
         not_a_seat="the type mixture models another seat's play (use it as assume=mixture, or lbr:policy=mixture); "
                    "seated, it would model its own seat. Seat `robust`: it plays the best response to this model "
                    "of its opponent, within a stop-loss")
register("nash", "ldpomdp.players.nash:NashPlayer",
         summary="exact per-round equilibrium, two players, small rounds: with 6 faces 1 die each in the full game, "
                 "up to 7 each in the sixes game (solved once, cached on disk)")
register("cfr", "ldpomdp.players.cfr:CFRPlayer",
         summary="approximate equilibrium of the whole two-player game (CFR+ on the last bids; shipped table for "
                 "the default rules up to its dice, other rules solved once and cached), e.g. cfr:table=PATH")
register("robust", "ldpomdp.players.robust:RobustPlayer",
         summary="recommended against unknown opponents (two players): the equilibrium (cfr), and the local best "
                 "response to a listed type once revealed hands identify it, within a stop-loss, e.g. "
                 "robust:confidence=0.9,stop_loss=0.5")
register("best-response", "ldpomdp.players.best_response:BestResponsePlayer",
         summary="exact game-level best response to a fixed model at every other seat (sixes game: count-based "
                 "models such as one-third and bluff:B; full game: hand-independent ones), e.g. "
                 "best-response:assume=bluff:0.3")
register("lbr", "ldpomdp.players.lbr:LocalBestResponse", positional="policy",
         summary="local best response to a two-player policy (a lower bound on its exploitability), e.g. lbr:one-third "
                 "or lbr:policy=mixture,lookahead=1")
register("expected-count", "ldpomdp.planners.expected_count:ExpectedCountPlanner",
         aliases={"particles": "n_particles"},
         summary="report 002's POMDP player: belief + expected count, e.g. expected-count:particles=1000,belief=exact")
register("dqn", "ldpomdp.planners.dqn:DQNPlayer",
         summary="report 004's Deep Q-Network (numpy; shipped weights, or dqn:weights=PATH from `ldpomdp train dqn`)")
register("pomcp", "ldpomdp.planners.pomcp:POMCPPlanner",
         aliases={"sims": "num_sims", "depth": "max_depth", "particles": "n_particles", "time": "planning_time"},
         summary="POMCP (pomdp-py) over the belief, e.g. pomcp:sims=2000,depth=12")
register("openspiel", "ldpomdp.players.openspiel:OpenSpielPlayer", aliases={"particles": "n_particles"},
         summary="an OpenSpiel bot (extra openspiel): openspiel:bot=ismcts,sims=500 (ISMCTS over the belief) or "
                 "openspiel:policy=PATH (a saved tabular policy)")


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed spec: what to build and with which keyword arguments."""

    text: str
    target: str
    kwargs: dict[str, Any]

    def build(self) -> Player:
        """The player, or a ValueError naming the spec and what went wrong: a module that is missing or fails to
        import, a name that is not a class, parameters the class does not take, or its constructor raising."""
        module_name, _, attr = self.target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            if isinstance(exc, ModuleNotFoundError) and f"{exc.name}.".startswith("ldpomdp.planners."):
                raise ValueError(f"player spec {self.text!r}: the ldpomdp imported from {Path(__file__).parent} has "
                                 f"no planners: a source checkout without its install (pip install -e . there, or "
                                 f"run from another folder)") from exc
            if isinstance(exc, ModuleNotFoundError) and (module_name + ".").startswith(f"{exc.name}."):
                raise ValueError(f"player spec {self.text!r}: cannot import {self.target!r} (no module named "
                                 f"{exc.name!r}: install it, or run from its folder with PYTHONPATH=.)") from exc
            # the module's own code raised (a missing import of its own included), or has a syntax error
            raise ValueError(f"player spec {self.text!r}: importing {module_name} failed:\n{describe(exc)}") from exc
        factory = getattr(module, attr, None)
        if factory is None:
            raise ValueError(f"player spec {self.text!r}: cannot import {self.target!r} (module {module_name} has no "
                             f"{attr!r})")
        if not isinstance(factory, type):
            raise ValueError(f"player spec {self.text!r}: {self.target} is not a class (it is of type "
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
                raise ValueError(f"player spec {self.text!r}: bad parameters {self.kwargs}: {attr} takes "
                                 f"{', '.join(named) or 'no parameters'} ({exc})") from None
        try:
            player = factory(**self.kwargs)
        except ValueError as exc:
            raise ValueError(f"player spec {self.text!r}: {exc}") from exc
        except Exception as exc:
            arguments = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
            raise ValueError(f"player spec {self.text!r}: {attr}({arguments}) raised {type(exc).__name__}:\n"
                             f"{describe(exc)}") from exc
        missing = [m for m in ("reset", "act", "observe") if not callable(getattr(player, m, None))]
        if missing:
            raise ValueError(f"player spec {self.text!r}: {self.target} lacks Player method(s) {missing}")
        if getattr(player, "name", None) in (None, ""):
            try:
                player.name = self.text
            except AttributeError:
                pass
        return player


def parse_spec(text: str) -> PlayerSpec:
    """Parse ``name[:value|:k=v,k=v]`` or ``package.module:Class[:k=v,...]``."""
    text = text.strip()
    head, sep, rest = text.partition(":")
    if head in _REGISTRY:
        entry = _REGISTRY[head]
        target, params = entry.target, rest
    elif "." in head and sep:
        attr, _, params = rest.partition(":")
        if not attr.isidentifier():
            raise ValueError(f"player spec {text!r}: expected package.module:ClassName")
        entry, target = _Entry(f"{head}:{attr}"), f"{head}:{attr}"
    else:
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(f"unknown player {head!r} in spec {text!r}; known: {known}, or package.module:ClassName")
    kwargs: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            if entry.positional is None or kwargs:
                raise ValueError(f"player spec {text!r}: expected key=value, got {item!r}")
            key, value = entry.positional, item
        kwargs[entry.aliases.get(key.strip(), key.strip())] = _value(value.strip())
    if entry.positional and entry.positional not in kwargs:
        raise ValueError(f"player spec {text!r}: needs a value, e.g. {head}:0.3")
    return PlayerSpec(text, target, kwargs)


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of specs; ``k=v`` pieces belong to the spec before them, also when the
    value is itself a spec with ":" (``pomcp:sims=200,assume=oehm:0.2``): a piece with "=" before its first
    ":" is a parameter, since a spec's name never contains "="."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if specs and "=" in piece.partition(":")[0]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    if not specs:
        raise ValueError("no players given")
    return specs


def make_player(spec: str) -> Player:
    """Build one player (or a model of another seat) from its spec string."""
    return parse_spec(spec).build()


def make_seat(spec: str) -> Player:
    """Build a player to seat at a table: :func:`make_player`, refusing a spec that only models other seats."""
    name = spec.strip().partition(":")[0]
    entry = _REGISTRY.get(name)
    if entry is not None and entry.not_a_seat:
        raise ValueError(f"player spec {spec.strip()!r} cannot take a seat: {entry.not_a_seat}")
    return make_player(spec)
