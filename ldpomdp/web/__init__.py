"""``ldpomdp serve``: play the agents in a browser, see what they believed, replay a sweep's games (extra ``web``).

The server keeps one game per browser session (``.session``), explains each agent's move (``.explain``),
reads a sweep's folder (``.results``), and serves the page (plain HTML, CSS and JavaScript in ``static/``).
"""

from __future__ import annotations

import errno
import socket
from pathlib import Path

from ..errors import UsageError, install_hint

__all__ = ["serve"]

# why a listening socket could not be had, by errno
_BIND_HINTS = {errno.EADDRINUSE: "another program listens there: give another --port",
               errno.EACCES: "ports below 1024 need root: give another --port",
               errno.EADDRNOTAVAIL: "--host is not an address of this machine"}


def serve(host: str = "127.0.0.1", port: int = 8000, results: str | Path | None = None,
          allow_plugins: bool = False) -> None:
    """Run the app with uvicorn until interrupted; print the address once it listens."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as exc:
        raise UsageError(f"ldpomdp serve needs the web extra: {install_hint('web')} ({exc})") from None
    app = create_app(results, allow_plugins)
    listener = _listen(host, port)
    print(f"ldpomdp: serving on http://{f'[{host}]' if ':' in host else host}:{port}/ (Ctrl+C stops)", flush=True)
    try:
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run(sockets=[listener])
    except KeyboardInterrupt:  # Ctrl+C: uvicorn has shut down gracefully and re-raised the signal
        pass


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (uvicorn listens on it), or a UsageError naming the problem."""
    if not 1 <= port <= 65535:
        raise UsageError(f"--port must be between 1 and 65535, got {port}")
    if not host.strip():
        raise UsageError("--host is empty: give an address, e.g. 127.0.0.1 (this machine only)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise UsageError(f"--host {host!r} is no address this machine can listen on: {exc.strerror}") from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a restart need not wait
        listener.bind(address)
    except OSError as exc:
        listener.close()
        hint = _BIND_HINTS.get(exc.errno or 0, "")
        raise UsageError(f"cannot listen on {host} port {port}: {exc.strerror}{f' ({hint})' if hint else ''}") from None
    return listener
