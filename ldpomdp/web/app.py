"""The web app (Starlette): the page, its JSON API, and the answer to every refusal as one line of JSON.

The routes are listed in :func:`create_app` and on the In the browser page ("The API"); the game of a request is
the one of the session named by the ``ldpomdp_game`` cookie. Agents' moves and replays run in the thread pool.
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
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..rules import GameConfig
from .choices import LIMITS, recommendation, rule_controls, rule_fields, rule_sets, spec_choices
from .results import Results
from .session import Sessions, WebError, new_game, recommend

__all__ = ["create_app", "COOKIE"]

COOKIE = "ldpomdp_game"
STATIC = Path(__file__).parent / "static"


def create_app(results: str | Path | None = None, allow_plugins: bool = False, max_games: int = 200) -> Starlette:
    """The app: games kept per browser session (at most ``max_games``), the sweep folder ``results`` if given, user
    classes importable from specs only with ``allow_plugins``."""
    sessions = Sessions(max_games)
    folder = Results(results, allow_plugins) if results is not None else None

    def game_of(request: Request):
        return sessions.get(request.cookies.get(COOKIE))

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def options(request: Request) -> Response:
        return JSONResponse({"limits": LIMITS, "allow_plugins": allow_plugins, "results": folder is not None,
                             "rules": rule_fields(), "controls": rule_controls(), "rule_sets": rule_sets(),
                             "recommended": await run_in_threadpool(recommendation, GameConfig())})

    async def players(request: Request) -> Response:
        return JSONResponse({"players": await run_in_threadpool(spec_choices)})

    async def recommended(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(recommend, await _body(request)))

    async def status(request: Request) -> Response:
        return JSONResponse({"games": len(sessions)})

    async def create(request: Request) -> Response:
        body = await _body(request)
        game = await run_in_threadpool(new_game, body, allow_plugins, sessions.find(request.cookies.get(COOKIE)))
        token = sessions.add(game, replacing=request.cookies.get(COOKIE))
        response = JSONResponse(await run_in_threadpool(game.view))
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    async def show(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(game_of(request).view))

    def change(method: str, *fields: str) -> Callable:
        async def endpoint(request: Request) -> Response:
            game = game_of(request)
            body = await _body(request)
            if not isinstance(body, dict):
                raise WebError(400, "the request body must be a JSON object")
            await run_in_threadpool(getattr(game, method), *(body.get(f) for f in fields))
            return JSONResponse(await run_in_threadpool(game.view))
        return endpoint

    async def hint(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(game_of(request).hint))

    async def record(request: Request) -> Response:
        line = await run_in_threadpool(game_of(request).record)
        return Response(json.dumps(line) + "\n", media_type="application/json",
                        headers={"Content-Disposition": 'attachment; filename="ldpomdp-game.json"'})

    async def end(request: Request) -> Response:
        sessions.drop(request.cookies.get(COOKIE))
        response = JSONResponse({"ended": True})
        response.delete_cookie(COOKIE)
        return response

    def results_root() -> Results:
        if folder is None:
            raise WebError(404, "no results folder: start the server with --results DIR")
        return folder

    def chosen(request: Request):
        return results_root().folder(request.query_params.get("folder"))

    async def listing(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(results_root().listing))

    async def summary(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(lambda: chosen(request).summary()))

    async def compare(request: Request) -> Response:
        a, b = request.query_params.get("a"), request.query_params.get("b")
        return JSONResponse(await run_in_threadpool(results_root().compare, a, b))

    async def plot(request: Request) -> Response:
        return FileResponse(chosen(request).plot(request.path_params["name"]))

    async def games(request: Request) -> Response:
        return JSONResponse({"games": await run_in_threadpool(lambda: chosen(request).games())})

    async def replay(request: Request) -> Response:
        cell, game = request.query_params.get("cell"), request.query_params.get("game", "")
        if not cell or not game.isdigit():
            raise WebError(400, "replay needs ?cell=CELL_ID&game=N")
        return JSONResponse(await run_in_threadpool(lambda: chosen(request).replay(cell, int(game))))

    routes = [
        Route("/", index),
        Route("/api/options", options),
        Route("/api/players", players),
        Route("/api/recommended", recommended, methods=["POST"]),
        Route("/api/status", status),
        Route("/api/game", create, methods=["POST"]),
        Route("/api/game", show, methods=["GET"]),
        Route("/api/game", end, methods=["DELETE"]),
        Route("/api/game/act", change("act", "move", "version"), methods=["POST"]),
        Route("/api/game/step", change("step", "version"), methods=["POST"]),
        Route("/api/game/next-round", change("next_round", "version"), methods=["POST"]),
        Route("/api/game/hint", hint),
        Route("/api/game/record", record),
        Route("/api/results", listing),
        Route("/api/results/summary", summary),
        Route("/api/results/compare", compare),
        Route("/api/results/plot/{name}", plot),
        Route("/api/results/games", games),
        Route("/api/results/replay", replay),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    handlers: dict[Any, Callable] = {WebError: _refused, HTTPException: _http_error, Exception: _crashed}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.sessions = sessions
    return app


async def _body(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw or b"{}")
    except ValueError as exc:
        raise WebError(400, f"malformed JSON in the request body: {exc}") from None


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, WebError)
    return JSONResponse({"error": exc.message}, status_code=exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)


async def _crashed(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": f"internal error ({type(exc).__name__}): the server log has the details"},
                        status_code=500)
