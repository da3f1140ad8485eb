"""``ldpomdp serve``: play the agents in a browser, see what they believed, replay a sweep's games (extra ``web``).

The server keeps one game per browser session (:mod:`.session`), explains each agent's move (:mod:`.explain`),
reads a sweep's folder (:mod:`.results`), and serves the page (plain HTML, CSS and JavaScript in ``static/``).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import install_hint

__all__ = ["serve"]


def serve(host: str = "127.0.0.1", port: int = 8000, results: str | Path | None = None,
          allow_plugins: bool = False) -> None:
    """Run the app with uvicorn until interrupted; print the address first."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as exc:
        raise ValueError(f"ldpomdp serve needs the web extra: {install_hint('web')} ({exc})") from None
    app = create_app(results, allow_plugins)
    print(f"ldpomdp: serving on http://{host}:{port}/ (Ctrl+C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
