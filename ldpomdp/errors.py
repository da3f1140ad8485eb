"""The package's error kinds: what the user can fix (`UsageError`) apart from bugs.

A `UsageError` is reported as one line (no traceback); errors raised inside code that a user wrote (a player class,
a module named in a spec) keep the user's own traceback lines and drop the package's; anything else is a bug and
keeps its whole traceback. Also the install command that a missing extra's message names, and ``echo``, the one
way a message quotes what the user gave (cut when it is long)."""

from __future__ import annotations

import importlib
import os
import traceback
from pathlib import Path

__all__ = ["UsageError", "PlayerError", "TableError", "describe", "install_hint", "echo", "ECHO_LIMIT"]

_HERE = Path(__file__).resolve().parent
_PACKAGE = tuple(os.path.join(p, "") for p in (_HERE, _HERE.parent / "planners"))  # ldpomdp; planners/ of a checkout
_IMPORTER = os.path.join(Path(importlib.__file__).resolve().parent, "")
ECHO_LIMIT = 120  # characters of the user's input that a message quotes at most (a long file path fits)


class UsageError(ValueError):
    """A mistake the user can fix (a bad spec, rule, option or file): reported as one line, without a traceback."""


class PlayerError(UsageError):
    """A player's own code raised during a game; the message names the player, its seat and what it was doing."""


class TableError(UsageError):
    """A data file (a solved table, network weights, a checkpoint) that cannot be read.

    The file is missing, damaged, or of another format. This is not a refusal to play a game, so nothing that sits
    out games it cannot play may swallow it.
    """


def describe(exc: BaseException) -> str:
    """``exc`` as Python prints it, but with only the traceback frames of the user's code.

    None of the importer's frames are kept, and none of the package's (unless the error was raised in the package:
    then the frame that raised it).
    """
    frames = traceback.extract_tb(exc.__traceback__)
    paths = [os.path.realpath(f.filename) for f in frames]
    user = [f for f, path in zip(frames, paths, strict=True)
            if not (f.filename.startswith("<frozen ") or path.startswith(_PACKAGE + (_IMPORTER,)))]
    shown = user or [f for f, path in zip(frames[-1:], paths[-1:], strict=True) if path.startswith(_PACKAGE)]
    return "".join(traceback.format_list(shown) + traceback.format_exception_only(type(exc), exc)).rstrip()


def install_hint(extra: str) -> str:
    """The command that installs the extra ``extra`` beside this copy of the package.

    From a checkout (an editable install, or the checkout on ``PYTHONPATH``) it is that checkout, editable, so that
    the install stays editable; from an installed wheel or sdist it is the package by name, which pip completes with
    the extra's requirements (the installed version stays).
    """
    checkout = _HERE.parent
    if (checkout / "pyproject.toml").is_file():
        return f'pip install -e "{checkout}[{extra}]"'
    return f'pip install "ldpomdp[{extra}]"'


def echo(text: object, limit: int = ECHO_LIMIT, quote: bool = True) -> str:
    """``text`` as a message shows the user's input: quoted, and cut past ``limit`` characters.

    Quoted is its repr (with ``quote=False``, as it is); past ``limit`` characters it is cut to them and followed by
    an ellipsis and its length, so that a long spec or option does not flood the line."""
    text = str(text)
    shown = text if len(text) <= limit else text[:limit]
    if quote:
        shown = repr(shown)
    return shown if len(text) <= limit else f"{shown}... ({len(text):,} characters)"
