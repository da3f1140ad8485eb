"""``ldpomdp serve``: the browser app (extra ``web``)."""

from __future__ import annotations

import argparse

from .options import option_int

__all__ = ["add_serve_parser", "cmd_serve"]


def cmd_serve(args: argparse.Namespace) -> int:
    from ..web import serve

    serve(args.host, args.port, args.results, args.allow_plugins)
    return 0


def add_serve_parser(sub) -> None:
    serve = sub.add_parser("serve", help="play the agents in a browser; see their beliefs; replay a sweep (extra: web)")
    serve.add_argument("--port", type=option_int(1), default=8000, help="port (default 8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--results", default=None, help="a sweep's folder to show and replay (summary.csv, games.jsonl)")
    serve.add_argument("--allow-plugins", action="store_true",
                       help="let the page name package.module:Class specs (imports that code) and files")
    serve.set_defaults(func=cmd_serve)
