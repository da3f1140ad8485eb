"""The ``ldpomdp`` command line: builds the parser of every command group and runs one command.

The commands: ``play`` (you against agents), ``players`` (list player specs), ``sweep`` (benchmark sweeps, see
``ldpomdp.sweeps``), ``tournament`` (agents against each other), ``evaluate`` (one agent against a ladder of the
package's), ``train dqn`` (report 004's learning agent, extra ``rl``), ``solve equilibrium`` (the ``cfr`` player's
table), ``serve`` (the browser app, extra ``web``). One module per command group; ``ldpomdp.cli.options`` holds the
shared options.

A mistake the user can fix (``UsageError``) is one line and exit status 2; any other exception is a bug in ldpomdp: its
traceback, a line asking to report it, and exit status 70."""

from __future__ import annotations

import argparse
import sys
import traceback

try:
    from .. import __version__
except ImportError:
    _found = sys.modules.get(__name__.partition(".")[0])
    if _found is None or _found.__file__ is not None:  # the package itself failed to import: its own error
        raise
    # an editable install's package shadowed by a folder of the same name (a checkout) on the import path
    raise SystemExit(f"ldpomdp: error: the folder {', '.join(dict.fromkeys(_found.__path__))} is imported in place of "
                     f"the package ldpomdp, since its parent is on the import path (PYTHONPATH, or the current "
                     f"folder under python -m): take it off PYTHONPATH, or run from another folder") from None
from ..errors import UsageError
from .play import add_play_parser, add_players_parser
from .serve import add_serve_parser
from .solve import add_solve_parser
from .sweep import add_evaluate_parser, add_sweep_parser, add_tournament_parser
from .train import add_train_parser

__all__ = ["main", "build_parser", "EXIT_USAGE", "EXIT_BUG"]

EXIT_USAGE = 2  # a mistake the user can fix (argparse's own status for a bad option)
EXIT_BUG = 70  # a bug in ldpomdp (EX_SOFTWARE of sysexits.h)

EXIT_STATUSES = (f"exit status: 0 done; 1 the system refused (a full disk, a file that vanished); {EXIT_USAGE} a "
                 f"mistake in the command or its input (one line saying what); {EXIT_BUG} a bug in ldpomdp (its "
                 f"traceback and a line asking to report it); 130 interrupted")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ldpomdp", description="Liar's Dice as a POMDP", epilog=EXIT_STATUSES)
    parser.add_argument("--version", action="version", version=f"ldpomdp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_play_parser(sub)
    add_players_parser(sub)
    add_sweep_parser(sub)
    add_tournament_parser(sub)
    add_evaluate_parser(sub)
    add_train_parser(sub)
    add_serve_parser(sub)
    add_solve_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, EOFError) as exc:
        print(f"ldpomdp: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # the machine's fault, not the user's input: a full disk, a file that vanished
        print(f"ldpomdp: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception:  # anything else is a bug: the whole traceback, to be reported
        traceback.print_exc()
        print(f"ldpomdp: this is a bug in ldpomdp {__version__}; please report it with the traceback above",
              file=sys.stderr)
        return EXIT_BUG
