"""A real browser (Playwright driving the system's headless Chromium) on ``ldpomdp serve``: whole games under each
rule set by mouse and by keyboard at a desktop and a phone's width, the hint, the results of a sweep, two sweeps
compared and a tournament, each page checked with axe-core (no serious or critical violation) and for sideways
scrolling, and screenshotted. Skipped only when Playwright or Chromium is absent (CI installs both: see .ci/run).

``LDPOMDP_WEB_SCREENSHOTS=DIR`` keeps the screenshots there (CI's artefacts; otherwise pytest's temporary folder)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import TOURNAMENT_AGENTS, SlowSolve, fresh_tables, write_tournament_folder

from ldpomdp.rules import GameConfig, matching_count

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORTS = {"desktop": {"width": 1200, "height": 900}, "phone": {"width": 375, "height": 740}}

# one test process (pytest-xdist) runs them all: one results folder, server and browser for the module, not one each
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium)"),
              pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def results_root(tmp_path_factory) -> Path:
    """A folder of results: two sweeps of the same cells (a Perudo cell in the first only) and a tournament."""
    from ldpomdp.sweeps import Cell, run_sweep

    root = tmp_path_factory.mktemp("results")
    cells = [Cell.of(["one-third", "expected-count"], 2, **GameConfig.preset("perudo").variants),
             Cell.of(["one-third", "random"], 2)]
    run_sweep(cells, 4, root / "sweep-a", seed=2, workers=1, progress=False, log=None, exact=False)
    run_sweep(cells[1:], 6, root / "sweep-b", seed=3, workers=1, progress=False, log=None, exact=False)
    write_tournament_folder(root / "tournament")
    return root


@pytest.fixture(scope="module")
def server(results_root) -> Iterator[str]:
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    from ldpomdp.web.load_driver import running_server

    with running_server("--results", str(results_root)) as (url, _):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    pytest.importorskip("axe_playwright_python", reason="axe-playwright-python is not installed (the test extra)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("LDPOMDP_WEB_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def open_page(browser, server) -> Iterator[Callable]:
    """``open_page(viewport)``: a fresh browser session (no cookie) on the server's page at that viewport."""
    contexts = []

    def open_(viewport: str):
        context = browser.new_context(viewport=VIEWPORTS[viewport])
        contexts.append(context)
        page = context.new_page()
        page.goto(server)
        page.wait_for_selector("#opponents .agent")
        page.wait_for_function("document.querySelector('#rule-words').textContent !== ''")  # the advice is in
        return page

    yield open_
    for context in contexts:
        context.close()


def _checked(page, shots: Path, name: str, viewport: str) -> None:
    """No sideways scrolling of the page, no serious or critical axe-core violation; a screenshot kept."""
    from axe_playwright_python.sync_playwright import Axe

    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{name} at {viewport}: the page scrolls sideways ({width[0]} > {width[1]} px)"
    violations = [v for v in Axe().run(page).response["violations"] if v["impact"] in ("serious", "critical")]
    assert not violations, f"{name} at {viewport}: " + "; ".join(
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}" for v in violations)
    page.screenshot(path=str(shots / f"{name}-{viewport}.png"), full_page=True)


def _state(page) -> dict:
    return page.evaluate("fetch('/api/game').then((r) => r.json())")


def _person(state: dict, exacted: bool) -> str:
    """The person's move: the exact call the first time it is offered, else open with the lowest bid, raise by the
    lowest once a round, then challenge (the seeds below are chosen with this player)."""
    bids = [a for a in state["legal"] if a not in ("challenge", "exact")]
    if "exact" in state["legal"] and not exacted:
        return "exact"
    mine = sum(h["seat"] == 0 for h in state["history"])
    return bids[0] if bids and (state["bid"] is None or mine < 1) else "challenge"


def _face_counts(dice: str) -> tuple[int, ...]:
    faces = [int(f) for f in dice.split(",") if f]
    return tuple(faces.count(f) for f in range(1, 7))


def _check_stop(page, state: dict, config: GameConfig) -> None:
    """What the page shows at a stop agrees with the game: the round's wild dice outlined in your hand (none in a
    palifico round, and the status says so), and at a round's end every hand's dice that count for the bid marked,
    their count the rules' count."""
    if state["phase"] != "game-over":
        palifico, wild = state["palifico"], state["round_wild"]
        assert ("Palifico round" in page.inner_text("#status")) == palifico
        assert ("palifico round: no die is wild" in page.inner_text("#hand")) == palifico
        assert page.locator('#hand svg.die rect[stroke="#b07"]').count() == sum(f == wild for f in state["hand"])
    if page.locator("#reveal .verdict").count():
        verdict = page.locator("#reveal .verdict")
        r = state["rounds"][-1]
        rules = config.round_rules(r["palifico"])
        for seat in page.locator("#reveal .reveal-seat").all():
            count = int(seat.locator(".count").get_attribute("data-count"))
            assert seat.locator('svg.die rect[fill="#ffe08a"]').count() == count
            assert count == matching_count(_face_counts(seat.get_attribute("data-dice")), int(r["bid"].split("x")[1]),
                                           rules)
        assert int(verdict.get_attribute("data-matching")) == r["matching"]


# (rule set, dice, seed, opponent the page recommends, input, viewport): each rule set by mouse and by keyboard, at
# both widths. Seeds: Perudo 1 has a right exact call and two palifico rounds, Perudo 4 a wrong exact call and two
# palifico rounds, Dudo 6 a loss of two dice by the difference, today's 3 and Dudo 7 a win for you.
# (rules, seed, the opponent played: the recommended robust is the default, the presets' games play expected-count)
GAMES = [("today", 5, "robust", "mouse", "desktop"), ("today", 3, "robust", "keyboard", "phone"),
         ("perudo", 1, "expected-count", "mouse", "phone"), ("perudo", 4, "expected-count", "keyboard", "desktop"),
         ("dudo", 6, "expected-count", "mouse", "desktop"), ("dudo", 7, "expected-count", "keyboard", "phone")]


@pytest.mark.parametrize("rule_set, seed, opponent, way, viewport", GAMES,
                         ids=[f"{g[0]}-{g[3]}-{g[4]}" for g in GAMES])
def test_a_whole_game_through_the_page(open_page, shots, rule_set, seed, opponent, way, viewport):
    page = open_page(viewport)
    name = f"{rule_set}-{way}"
    if rule_set == "today":
        _checked(page, shots, "setup", viewport)
    page.select_option("#rule-set", rule_set)
    page.fill("#rule-dice", "2")
    page.dispatch_event("#rule-dice", "change")
    config = GameConfig(dice=2) if rule_set == "today" else GameConfig.preset(rule_set, dice=2)
    words = f"These rules: {config.describe()}."
    page.wait_for_function(f"document.querySelector('#rule-words').textContent.startsWith({words!r})")
    # the recommended agent for these rules (robust, two players up to 5 dice each) is the default opponent
    assert page.input_value("#opponents .agent") == "robust"
    assert page.locator("#opponents .agent option:checked").inner_text() == "robust (recommended)"
    if opponent != "robust":
        page.select_option("#opponents .agent", opponent)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    assert not page.eval_on_selector("#setup-box", "box => box.open")  # the setup folds away during the game
    assert config.describe() in page.inner_text("#rules-line")

    exacted, seen_last_round, checked, sent, verdicts = False, 0, False, [], {}
    if rule_set == "today":  # your first decision, and (by its key, on the phone) the hint
        page.wait_for_selector("#moves button[data-move]")
        if way == "keyboard":
            page.keyboard.press("h")
            page.wait_for_selector("#hint svg.chart")
            assert page.inner_text("#hint .hint-answer").startswith("robust would play ")
            page.keyboard.type("9x9")  # not a legal bid: said under the box, nothing played
            page.keyboard.press("Enter")
            assert page.inner_text("#move-message") == "9 × 9 is not a legal move here: the lowest bid is 1 × 1."
            assert _state(page)["version"] == 0
            page.fill("#move-input", "")
            page.focus("#status")
        _checked(page, shots, "play", viewport)
    for _ in range(60):
        page.wait_for_selector("#moves button[data-move]:not([disabled]), #next-round, #winner", timeout=30_000)
        state = _state(page)
        _check_stop(page, state, config)
        if page.locator("#reveal .verdict").count() and state["phase"] in ("round-over", "game-over"):
            verdicts[state["round"]] = page.inner_text("#reveal .verdict")
        if state["phase"] == "game-over":
            break
        if state["phase"] == "round-over":
            if not checked:  # the first round's end, its hands shown: the page as it looks then
                _checked(page, shots, f"{name}-reveal", viewport)
                checked = True
            page.click("#next-round") if way == "mouse" else page.keyboard.press("n")
            page.wait_for_selector("#next-round", state="detached")
            continue
        if state["round"] > 0 and not any(h["seat"] == 0 for h in state["history"]):  # the last round stays
            # readable until you move
            assert page.inner_text("#reveal h2") == f"Last round (round {state['round']})"
            seen_last_round += 1
        if viewport == "phone":  # the move grid and the hand fit the width: no sideways scrolling inside them either
            assert page.evaluate("[...document.querySelectorAll('#moves .grid-box, #hand, #table')]"
                                 ".every((e) => e.scrollWidth <= e.clientWidth)")
        move = _person(state, exacted)
        exacted |= move == "exact"
        sent.append(move)
        if way == "mouse":
            page.click(f"#moves button[data-move='{move}']")
        elif move in ("challenge", "exact"):
            page.keyboard.press(move[0])
        else:
            page.keyboard.type(move)
            page.keyboard.press("Enter")
        page.wait_for_function(f"fetch('/api/game').then((r) => r.json()).then((s) => s.version > {state['version']})")
    else:
        raise AssertionError("the game did not end within 60 stops")
    rounds = state["rounds"]
    assert page.locator("#winner").get_attribute("data-winner") == str(state["winner"])
    won = int(state["winner"] == 0)
    assert page.inner_text("#score") == f"This session: you won {won} of 1 game."
    assert page.locator("#reveal .reveal-seat").count() == 2  # the last round shown too
    assert [a["action"] for r in rounds for a in r["actions"] if a["seat"] == 0] == sent  # each move as made
    if len(rounds) > 1:
        assert seen_last_round >= 1
    if rule_set == "perudo":  # your exact call, right (seed 1: at your starting dice, no die back) or wrong
        exact = next(r for r in rounds if r["exact"] and r["challenger"] == 0)
        assert exacted and any(r["palifico"] for r in rounds)
        assert verdicts[exact["round"]].endswith(": You call it exactly, nobody loses a die." if exact["loser"] < 0 else
                                                 ": You call it exactly and lose a die.")
    if (rule_set, seed) == ("dudo", 6):
        assert page.inner_text("#reveal .verdict").endswith(": You lose 2 dice.")
    _checked(page, shots, f"{name}-over", viewport)
    if rule_set == "today":
        page.click("#tab-beliefs")
        assert page.locator("#belief-list .decision svg.chart").count() >= 1
        _checked(page, shots, "beliefs", viewport)


def _focus_ring(page) -> tuple[str, float]:
    """The outline style and width (px) of the focused element."""
    return tuple(page.evaluate("(() => { const s = getComputedStyle(document.activeElement); "
                               "return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()"))


def test_the_hint_shows_the_recommended_agents_move_probabilities_only_when_asked(open_page, shots):
    page = open_page("desktop")
    page.focus("#rule-set")
    for _ in range(8):  # every control reached by the keyboard shows where the focus is
        page.keyboard.press("Tab")
        style, width = _focus_ring(page)
        assert style == "solid" and width >= 2, page.evaluate("document.activeElement.outerHTML")
    assert "What would the recommended agent do?" in page.inner_text("#setup")  # the page says the hint exists
    page.select_option("#agent-1", "one-third")
    page.fill("#seed", "2")
    page.click("#start")
    page.wait_for_selector("#moves button[data-move]")
    assert page.locator("#hint svg").count() == 0  # off until asked
    page.click("#hint-button")
    page.wait_for_selector("#hint svg.chart")
    hint = page.evaluate("fetch('/api/game/hint').then((r) => r.json())")
    best = max(hint["actions"], key=lambda a: a["probability"])
    text = page.inner_text("#hint .hint-answer")
    assert text.startswith(f"robust would play {best['action'].replace('x', ' × ')} with probability "
                           f"{best['probability']:.2f}")
    assert page.locator("#hint svg.chart > rect").count() == min(8, len(hint["actions"]))
    _checked(page, shots, "hint", "desktop")
    page.locator("#moves table button").first.click()  # the next decision: the hint is gone until asked again
    page.wait_for_selector("#moves button[data-move]:not([disabled]), #next-round", timeout=30_000)
    if page.locator("#moves button[data-move]").count():
        assert page.locator("#hint svg").count() == 0
        page.keyboard.press("h")
        page.wait_for_selector("#hint svg.chart")
    # at a table of four the recommended agent plays the bid-reading search: the form says so, and the hint is its
    page.click("#setup-box > summary")
    page.click("#add-opponent")
    page.click("#add-opponent")
    page.wait_for_function("document.querySelector('#spec-note').textContent === 'The recommended agent is robust: "
                           "under these rules it plays the bid-reading search (no table needed).'")
    for agent in page.locator("#opponents .agent").all():
        agent.select_option("one-third")
    page.click("#start")
    page.wait_for_function("document.querySelectorAll('#table .seat').length === 4")
    page.wait_for_selector("#moves button[data-move]")
    page.click("#hint-button")
    page.wait_for_selector("#hint svg.chart")
    assert page.inner_text("#hint .hint-answer").startswith("robust would play ")


def test_the_results_of_sweeps_compared_and_of_a_tournament(open_page, shots):
    for viewport in VIEWPORTS:
        page = open_page(viewport)
        page.click("#tab-results")
        page.wait_for_selector("#summary table")
        assert page.locator("#folder option").all_inner_texts() == ["sweep-a (sweep)", "sweep-b (sweep)",
                                                                    "tournament (tournament)"]
        heads = page.locator("#summary thead th").all_inner_texts()
        assert heads == ["Player", "Games", "Win rate", "Challenges a game", "Challenges won"]
        cells = page.locator("#summary tr.cell-row").all_inner_texts()
        perudo = GameConfig.preset("perudo").describe()
        assert [" ".join(c.split()) for c in cells] == [f"one-third vs expected-count 2 dice each · {perudo}",
                                                        "one-third vs random 2 dice each · full game, 6 faces, "
                                                        "ones wild"]
        rate = page.locator("#summary td.col-win_rate").first.inner_text()
        assert "%" in rate and "[" in rate  # a rounded rate with its interval
        _checked(page, shots, "results", viewport)
        page.select_option("#compare", "sweep-b")
        page.wait_for_selector("#comparison table")
        rows = page.locator("#comparison tbody tr:not(.cell-row)")
        assert rows.count() == 2  # the one cell both played, its two players
        assert page.locator("#comparison td.difference").count() == 2
        assert "Rows of one folder only: 2 in sweep-a, 0 in sweep-b." in page.inner_text("#comparison")
        _checked(page, shots, "results-compared", viewport)
        page.select_option("#compare", "")
        page.select_option("#folder", "tournament")
        page.wait_for_selector("#tournament table.cross")
        grid = page.locator("#tournament table.cross")
        assert grid.locator("thead th").all_inner_texts()[1:] == TOURNAMENT_AGENTS
        assert grid.locator("tbody td:not(.none)").count() == len(TOURNAMENT_AGENTS) * (len(TOURNAMENT_AGENTS) - 1)
        first = grid.locator("td[data-row=robust][data-column=one-third]")
        assert first.inner_text().split() == ["77.5%", "[62.5,", "87.7]", "40", "games"]
        assert "above" in (first.get_attribute("class") or "")  # its interval lies above one half
        assert page.locator("#tournament table.ratings tbody tr").count() == 3
        assert page.locator("#tournament img[alt^='The ratings']").count() == 1
        _checked(page, shots, "tournament", viewport)


def test_a_browser_replays_a_perudo_game_round_by_round_by_each_rounds_rules(open_page):
    page = open_page("desktop")
    page.click("#tab-results")
    page.wait_for_selector("#replay-game option", state="attached")
    games = page.evaluate("JSON.parse(document.querySelector('#replay-game').dataset.games)")
    index = next(i for i, (cell, _) in enumerate(games) if "perudo" in cell)
    cell, number = games[index]
    replay = page.evaluate(f"fetch('/api/results/replay?folder=sweep-a&cell=' + encodeURIComponent({cell!r}) + "
                           f"'&game={number}').then((r) => r.json())")
    page.select_option("#replay-game", str(index))
    page.click("#replay-load")
    headers = []
    for _ in range(sum(len(r["actions"]) for r in replay["rounds"])):
        page.wait_for_selector("#replay-next")
        if page.locator("#replay .verdict").count():  # a round's end: the dice outlined are the dice counted
            headers.append(page.inner_text("#replay h3"))
            for seat in page.locator("#replay .reveal-seat").all():
                marked = seat.locator('svg.die rect[fill="#ffe08a"]').count()
                assert marked == int(seat.locator(".count").get_attribute("data-count"))
        page.click("#replay-next")
    palifico = [r["palifico"] for r in replay["rounds"]]
    assert any(palifico) and [h.endswith("a palifico round: no die is wild") for h in headers] == palifico


@pytest.fixture
def preparing_server(tmp_path, monkeypatch) -> Iterator[tuple[str, SlowSolve]]:
    """A server in this process (uvicorn in a thread) whose table solves wait for the test: its URL and the solve."""
    uvicorn = pytest.importorskip("uvicorn")
    from ldpomdp.web.app import create_app

    solve = SlowSolve()
    fresh_tables(monkeypatch, tmp_path, solve)
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", solve
    solve.go.set()
    server.should_exit = True
    thread.join(10)
    listener.close()


PREPARING = [("game", "desktop"), ("game", "phone"), ("hint", "phone")]


@pytest.mark.parametrize("what, viewport", PREPARING, ids=[f"{w}-{v}" for w, v in PREPARING])
def test_a_table_solved_on_first_use_shows_its_progress_then_the_game(browser, preparing_server, shots, what,
                                                                       viewport):
    # issue 52: robust at two players under palifico rules, 2 dice each, solves its table on first use
    url, solve = preparing_server
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#opponents .agent")
    page.fill("#rule-dice", "2")
    page.check("#rule-palifico")
    page.dispatch_event("#rule-dice", "change")
    page.wait_for_function("document.querySelector('#spec-note').textContent.includes('solved on first use, about')")
    if what == "hint":
        page.select_option("#agent-1", "one-third")
    page.fill("#seed", "1")
    page.click("#start")
    if what == "hint":
        page.wait_for_selector("#moves button[data-move]")
        page.click("#hint-button")
    box = "#preparing" if what == "game" else "#hint"
    bar = page.locator(f"{box} progress")
    bar.wait_for()
    assert bar.get_attribute("value") == "3" and int(bar.get_attribute("max")) > 3
    assert page.inner_text(f"{box} .preparing-line").startswith("solving the two-player cfr table for ")
    assert page.locator("#game-body").is_hidden() == (what == "game")
    _checked(page, shots, f"preparing-{what}", viewport)
    solve.go.set()
    if what == "game":
        page.wait_for_selector("#moves button[data-move]", timeout=60_000)
        assert page.locator("#preparing").is_hidden() and page.locator("#table .seat").count() == 2
    else:
        page.wait_for_selector("#hint svg.chart", timeout=60_000)
    _checked(page, shots, f"prepared-{what}", viewport)
    context.close()
