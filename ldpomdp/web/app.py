"""The web app (Starlette): the page, its JSON API, and the answer to every refusal as one line of JSON.

The routes are listed in ``Handlers.routes`` (one short handler each) and on the In the browser page ("The
API"); the game of a request is the one of the session named by the ``ldpomdp_game`` cookie. Agents' moves and
replays run in the thread pool; a seat's reset or the hint's agent that solves a table prepares in a thread of its
own while the page polls (``preparation``). A ``UsageError`` is a 400 with its message; anything else
that is not a refusal is a 500, its traceback in the server's log.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import UsageError
from ..rules import GameConfig
from .choices import LEVELS, LIMITS, recommendation, rule_controls, rule_fields, rule_sets, spec_choices
from .results import Results, ResultsFolder
from .session import Sessions, WebError, WebGame, new_game, recommend

__all__ = ["create_app", "Handlers", "COOKIE"]

COOKIE = "ldpomdp_game"
STATIC = Path(__file__).parent / "static"


def create_app(results: str | Path | None = None, allow_plugins: bool = False, max_games: int = 200) -> Starlette:
    """The app: games kept per browser session (at most ``max_games``), the sweep folder ``results`` if given, user
    classes importable from specs only with ``allow_plugins``."""
    handlers = Handlers(Sessions(max_games), Results(results, allow_plugins) if results is not None else None,
                        allow_plugins)
    errors: dict[Any, Callable] = {WebError: _refused, UsageError: _unusable, HTTPException: _http_error,
                                   Exception: _crashed}
    app = Starlette(routes=handlers.routes(), exception_handlers=errors)
    app.state.sessions = handlers.sessions
    return app


class Handlers:
    """The app's state (the ``sessions``' games, the ``folder`` of results if any, whether plugins are allowed) and
    one route handler per endpoint; ``routes`` lists them."""

    def __init__(self, sessions: Sessions, folder: Results | None, allow_plugins: bool):
        self.sessions, self.folder, self.allow_plugins = sessions, folder, allow_plugins

    def routes(self) -> list[BaseRoute]:
        """Every route: path, handler and methods."""
        return [
            Route("/", self.index),
            Route("/api/options", self.options),
            Route("/api/players", self.players),
            Route("/api/recommended", self.recommended, methods=["POST"]),
            Route("/api/status", self.status),
            Route("/api/game", self.create, methods=["POST"]),
            Route("/api/game", self.show, methods=["GET"]),
            Route("/api/game", self.end, methods=["DELETE"]),
            Route("/api/game/act", self.act, methods=["POST"]),
            Route("/api/game/step", self.step, methods=["POST"]),
            Route("/api/game/next-round", self.next_round, methods=["POST"]),
            Route("/api/game/hint", self.hint),
            Route("/api/game/record", self.record),
            Route("/api/results", self.listing),
            Route("/api/results/summary", self.summary),
            Route("/api/results/compare", self.compare),
            Route("/api/results/plot/{name}", self.plot),
            Route("/api/results/games", self.games),
            Route("/api/results/replay", self.replay),
            Mount("/static", StaticFiles(directory=STATIC)),
        ]

    # -- the page and its choices --------------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        """The page."""
        return FileResponse(STATIC / "index.html")

    async def options(self, request: Request) -> Response:
        """What the new-game form offers: limits, rules and their controls, rule sets, the opponent ladder, the
        recommended agent and what it plays under today's rules."""
        return JSONResponse({"limits": LIMITS, "allow_plugins": self.allow_plugins, "results": self.folder is not None,
                             "rules": rule_fields(), "controls": rule_controls(), "rule_sets": rule_sets(),
                             "ladder": list(LEVELS),
                             "recommended": await run_in_threadpool(recommendation, GameConfig())})

    async def players(self, request: Request) -> Response:
        """The agents the page offers."""
        return JSONResponse({"players": await run_in_threadpool(spec_choices)})

    async def recommended(self, request: Request) -> Response:
        """The recommended agent and what it plays under the rules of the form in the body (nothing is built)."""
        return JSONResponse(await run_in_threadpool(recommend, await _body(request)))

    async def status(self, request: Request) -> Response:
        """How many games the server keeps."""
        return JSONResponse({"games": len(self.sessions)})

    # -- the session's game --------------------------------------------------------------------------------------
    async def create(self, request: Request) -> Response:
        """A new game from the form in the body, replacing the session's (whose score it carries on).

        Answered once its seats are reset or say they are preparing (then its phase is ``preparing`` until done)."""
        body, token = await _body(request), request.cookies.get(COOKIE)
        game = await run_in_threadpool(new_game, body, self.allow_plugins, self.sessions.find(token))
        response = JSONResponse(await run_in_threadpool(game.view))
        response.set_cookie(COOKIE, self.sessions.add(game, replacing=token), httponly=True, samesite="strict")
        return response

    async def show(self, request: Request) -> Response:
        """The session's game as the person sees it."""
        return JSONResponse(await run_in_threadpool(self._game(request).view))

    async def act(self, request: Request) -> Response:
        """The person's ``move`` at ``version``."""
        return await self._change(request, "act", "move", "version")

    async def step(self, request: Request) -> Response:
        """The move of the agent whose turn it is, at ``version``."""
        return await self._change(request, "step", "version")

    async def next_round(self, request: Request) -> Response:
        """The next round, at ``version``."""
        return await self._change(request, "next_round", "version")

    async def hint(self, request: Request) -> Response:
        """What the recommended agent would do in the person's place (or that it is being prepared)."""
        return JSONResponse(await run_in_threadpool(self._game(request).hint))

    async def record(self, request: Request) -> Response:
        """The finished game's ``games.jsonl`` line, as a download."""
        line = await run_in_threadpool(self._game(request).record)
        return Response(json.dumps(line) + "\n", media_type="application/json",
                        headers={"Content-Disposition": 'attachment; filename="ldpomdp-game.json"'})

    async def end(self, request: Request) -> Response:
        """Drop the session's game."""
        self.sessions.drop(request.cookies.get(COOKIE))
        response = JSONResponse({"ended": True})
        response.delete_cookie(COOKIE)
        return response

    def _game(self, request: Request) -> WebGame:
        return self.sessions.get(request.cookies.get(COOKIE))

    async def _change(self, request: Request, method: str, *fields: str) -> Response:
        """Apply the game's change ``method`` with the body's ``fields``; the game as it is then."""
        game, body = self._game(request), await _body(request)
        if not isinstance(body, dict):
            raise WebError(400, "the request body must be a JSON object")
        await run_in_threadpool(getattr(game, method), *(body.get(f) for f in fields))
        return JSONResponse(await run_in_threadpool(game.view))

    # -- the results folder --------------------------------------------------------------------------------------
    async def listing(self, request: Request) -> Response:
        """The result folders."""
        return JSONResponse(await run_in_threadpool(self._results().listing))

    async def summary(self, request: Request) -> Response:
        """The chosen folder's summary (a tournament's files too)."""
        return JSONResponse(await run_in_threadpool(lambda: self._chosen(request).summary()))

    async def compare(self, request: Request) -> Response:
        """Folders ``a`` and ``b``'s common cells side by side."""
        a, b = request.query_params.get("a"), request.query_params.get("b")
        return JSONResponse(await run_in_threadpool(self._results().compare, a, b))

    async def plot(self, request: Request) -> Response:
        """A plot of the chosen folder."""
        return FileResponse(self._chosen(request).plot(request.path_params["name"]))

    async def games(self, request: Request) -> Response:
        """The chosen folder's game records."""
        return JSONResponse({"games": await run_in_threadpool(lambda: self._chosen(request).games())})

    async def replay(self, request: Request) -> Response:
        """Game ``game`` of cell ``cell`` of the chosen folder, played again."""
        cell, game = request.query_params.get("cell"), request.query_params.get("game", "")
        if not cell or not game.isdigit():
            raise WebError(400, "replay needs ?cell=CELL_ID&game=N")
        return JSONResponse(await run_in_threadpool(lambda: self._chosen(request).replay(cell, int(game))))

    def _results(self) -> Results:
        if self.folder is None:
            raise WebError(404, "no results folder: start the server with --results DIR")
        return self.folder

    def _chosen(self, request: Request) -> ResultsFolder:
        return self._results().folder(request.query_params.get("folder"))


async def _body(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw or b"{}")
    except ValueError as exc:
        raise WebError(400, f"malformed JSON in the request body: {exc}") from None


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, WebError)
    return JSONResponse({"error": exc.message}, status_code=exc.status)


async def _unusable(request: Request, exc: Exception) -> Response:
    """A UsageError (a request, a results folder or a file the user can fix): 400 with its first line."""
    lines = str(exc).splitlines()
    return JSONResponse({"error": " ".join(lines[0].split()) if lines else type(exc).__name__}, status_code=400)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)


async def _crashed(request: Request, exc: Exception) -> Response:
    """Anything else is a bug: 500 naming its type; Starlette raises it on, so the server logs its traceback."""
    return JSONResponse({"error": f"internal error ({type(exc).__name__}): the server log has the details"},
                        status_code=500)
