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

from ldpomdp.rules import PRESETS, GameConfig, matching_count

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORTS = {"desktop": {"width": 1200, "height": 900}, "phone": {"width": 375, "height": 740}}

# a game started from the page's script and played to its end through the API (you call, or make the first legal move)
FINISH_GAME = """async (form) => {
  const post = (path, body) => fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                           body: JSON.stringify(body)}).then((r) => r.json());
  let s = await post("/api/game", form);
  for (let i = 0; i < 50 && s.phase !== "game-over"; i++) {
    if (s.phase === "your-turn") s = await post("/api/game/act", {move: s.legal.includes("challenge") ?
                                                "challenge" : s.legal[0], version: s.version});
    else s = await post(s.phase === "agent-turn" ? "/api/game/step" : "/api/game/next-round", {version: s.version});
  }
  return s.phase;
}"""

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
        page.wait_for_selector("#opponents .agent", state="attached")
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
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")  # the reveal's flip, done
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
    palifico round, and the status says so), each seat card's dice; at a round's end every hand on its seat card, its
    dice that count for the bid marked, their count the rules' count, and your hand box hidden (its old hand never
    beside the new dice count); in the next round until you move, the last round's hands below, headed so."""
    ended = state["phase"] in ("round-over", "game-over")
    if not ended:
        palifico, wild = state["palifico"], state["round_wild"]
        assert ("Palifico round" in page.inner_text("#status")) == palifico
        assert ("palifico round: no die is wild" in page.inner_text("#hand")) == palifico
        assert page.locator('#hand svg.die rect[stroke="#b07"]').count() == sum(f == wild for f in state["hand"])
        assert page.locator("#hand svg.die").count() == state["players"][0]["dice"]
        assert page.locator("#table .seat.revealed").count() == 0
        for p in state["players"][1:]:  # the others' dice hidden, as many as they hold
            assert page.locator(f"#table .seat[data-seat='{p['seat']}'] svg.die[data-face='']").count() == p["dice"]
    else:
        assert page.locator("#hand-box").is_hidden()
        r = state["rounds"][-1]
        rules = config.round_rules(r["palifico"])
        seats = page.locator("#table .seat.revealed").all()
        assert len(seats) == sum(d > 0 for d in r["dice"])
        for seat in seats:
            index = int(seat.get_attribute("data-seat"))
            row = seat.locator(".dice-row")
            assert [int(f) for f in row.get_attribute("data-dice").split(",")] == r["hands"][index]
            count = int(seat.locator(".count").get_attribute("data-count"))
            assert seat.locator('svg.die rect[fill="#ffe08a"]').count() == count
            assert count == matching_count(_face_counts(row.get_attribute("data-dice")), int(r["bid"].split("x")[1]),
                                           rules)
            assert ("loser" in seat.get_attribute("class")) == (index == r["loser"])
        assert int(page.locator("#reveal .verdict").get_attribute("data-matching")) == r["matching"]
        assert page.inner_text("#reveal h2") == f"Round {r['round'] + 1}: the reveal"
    if not ended and page.locator("#reveal .verdict").count():  # the last round, below, until you move
        r = state["rounds"][-1]
        assert page.inner_text("#reveal h2") == f"Last round (round {r['round'] + 1})"
        rows = page.locator("#reveal .reveal-seat")
        assert rows.count() == sum(d > 0 for d in r["dice"])
        for seat in rows.all():
            assert int(seat.locator(".count").get_attribute("data-count")) == seat.locator(
                'svg.die rect[fill="#ffe08a"]').count()


def _choose(page, rule_set: str | None = None, dice: int | None = None, level: str | None = None,
            opponents: int | None = None, seed: int | None = None) -> None:
    """Set up a game on the form: a rule set's card, a level of the ladder, how many opponents; the dice each and
    the seed under Custom rules (opened for them)."""
    if rule_set is not None:
        page.check(f"#rule-set-{rule_set}")
    if level is not None:
        page.check(f"#level-{level}")
    if opponents is not None:
        page.select_option("#opponent-count", str(opponents))
    if dice is not None or seed is not None:
        if not page.eval_on_selector("#custom", "box => box.open"):
            page.click("#custom > summary")
        if dice is not None:
            page.fill("#rule-dice", str(dice))
            page.dispatch_event("#rule-dice", "change")
        if seed is not None:
            page.fill("#seed", str(seed))


def _check_game_over(page, state: dict, viewport: str) -> None:
    """The game's end: the result, the rounds and the places; what each agent believed about your hand (its mean
    chance on your real count, or that it keeps no belief); a replay of the game to its last move; the seed and the
    agents' thinking times under the details toggle."""
    rounds, winner = state["rounds"], state["winner"]
    assert page.inner_text("#over-facts").startswith(f"{len(rounds)} {'round' if len(rounds) == 1 else 'rounds'}; ")
    assert page.locator("#over .places li").first.get_attribute("data-seat") == str(winner)
    for p in state["players"][1:]:
        read = [d for r in rounds for d in r["decisions"] if d["seat"] == p["seat"] and d["belief"]]
        shown = page.locator(f"#believed .believed[data-seat='{p['seat']}']")
        if read:  # expected-count: its belief, averaged on your real count, and its last one charted
            mean = sum(d["belief"][d["your_count"]] for d in read) / len(read)
            assert float(shown.get_attribute("data-belief")) == pytest.approx(mean, abs=1e-3)
            assert shown.locator("svg.chart").count() == 1
        else:  # robust keeps no belief about your hand: said
            assert shown.get_attribute("data-belief") == "none"
            assert "keeps no belief about your hand" in shown.inner_text()
    page.click("#replay-open")
    steps = sum(len(r["actions"]) for r in rounds)
    for _ in range(steps - 1):
        page.click("#game-replay-next")
    assert f"step {steps} of {steps}" in page.inner_text("#game-replay")
    assert page.inner_text("#game-replay p.status").startswith(f"Seat {winner} ")
    assert page.locator("#game-replay .reveal-seat").count() == sum(d > 0 for d in rounds[-1]["dice"])
    page.click("#game-details > summary")
    assert page.inner_text("#seed-shown") == str(state["seed"])
    timed = [h for h in state["history"] if h["seconds"] is not None]
    assert page.locator("#details .thought").count() == len(timed) > 0


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
    _choose(page, rule_set, dice=2)
    config = GameConfig(dice=2) if rule_set == "today" else GameConfig.preset(rule_set, dice=2)
    words = f"These rules: {config.describe()}."
    page.wait_for_function(f"document.querySelector('#rule-words').textContent.startsWith({words!r})")
    # the recommended agent for these rules (robust, two players up to 5 dice each) is the default opponent: the
    # ladder's expert
    assert page.is_checked("#level-expert")
    assert page.input_value("#opponents .agent") == "robust"
    assert page.locator("#opponents .agent option:checked").inner_text() == "robust (recommended)"
    if opponent != "robust":  # the club player
        page.check("#level-club")
        assert page.input_value("#opponents .agent") == opponent
    _choose(page, seed=seed)
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    assert not page.eval_on_selector("#setup-box", "box => box.open")  # the setup folds away during the game
    assert config.describe() in page.inner_text("#rules-line")
    # the seed and the agents' thinking times are folded under the details toggle
    assert "Seed" not in page.inner_text("#rules-line") and page.locator("#details").is_hidden()

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
            # the bids of the round sit above the move grid, under your hand
            hand, bids, moves = (page.locator(f"#{box}").bounding_box() for box in ("hand-box", "history-box", "moves"))
            assert hand["y"] < bids["y"] < moves["y"]
        assert "thought" not in page.inner_text("#history")
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
    assert page.locator("#table .seat.revealed").count() == 2  # the last round's hands shown on the seats
    _check_game_over(page, state, viewport)
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
        page.click("#tab-play")
    page.click("#again")  # the same settings, a fresh seed; the session's score kept
    page.wait_for_function("fetch('/api/game').then((r) => r.json()).then((s) => s.version === 0 && "
                           f"s.seed !== {state['seed']})")
    page.wait_for_selector("#over .over-card", state="detached")
    assert page.inner_text("#score") == f"This session: you won {won} of 1 game."


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_setup_opens_with_the_rule_sets_and_a_ladder_and_folds_the_custom_rules(open_page, shots, viewport):
    page = open_page(viewport)
    labels = {"today": "Today's rules", "perudo": "Perudo", "dudo": "Dudo", "textarena": "TextArena"}
    assert [" ".join(t.split()) for t in page.locator("#rule-sets label.choice:visible").all_inner_texts()] == [
        f"{labels[name]} {GameConfig.preset(name).describe() if name != 'today' else GameConfig().describe()}"
        for name in ("today", *PRESETS)]
    levels = [" ".join(t.split()) for t in page.locator("#levels label.choice:visible").all_inner_texts()]
    assert [t.split(" ")[0] for t in levels] == ["Beginner", "Club", "Expert"]
    assert [t.rsplit("(plays ", 1)[1] for t in levels] == ["one-third)", "expected-count)", "robust)"]
    # the eleven rule controls, the agents' names and the seed: folded under Custom rules
    assert not page.eval_on_selector("#custom", "box => box.open")
    assert page.locator("#rule-controls").is_hidden() and page.locator("#opponents").is_hidden()
    _checked(page, shots, "setup", viewport)
    page.check("#level-beginner")
    page.select_option("#opponent-count", "3")
    page.check("#rule-set-dudo")
    page.click("#custom > summary")
    agents = page.locator("#opponents .agent")
    assert agents.count() == 3 and {a.input_value() for a in agents.all()} == {"one-third"}
    assert page.input_value("#rule-loss") == '"difference"'  # Dudo's rule, set on its control
    page.fill("#rule-dice", "3")  # a custom rule: the rule set says so; still Dudo's rules otherwise
    page.dispatch_event("#rule-dice", "change")
    assert page.is_checked("#rule-set-dudo")  # the dice are not part of a rule set
    page.check("#rule-exact_call")
    assert page.is_checked("#rule-set-custom") and page.locator("label[for=rule-set-custom]").is_visible()
    agents.nth(1).select_option("expected-count")  # seat by seat: the level is now the custom one
    assert page.is_checked("#level-custom")
    page.check("#level-club")
    assert {a.input_value() for a in agents.all()} == {"expected-count"}
    page.click("#add-opponent")
    assert page.input_value("#opponent-count") == "4"
    _checked(page, shots, "setup-custom", viewport)
    page.fill("#seed", "5")
    page.click("#start")
    page.wait_for_function("document.querySelectorAll('#table .seat').length === 5")
    state = _state(page)
    assert [p["spec"] for p in state["players"]] == ["human"] + ["expected-count"] * 4
    assert state["config"]["dice"] == 3 and state["config"]["exact_call"] and state["config"]["loss"] == "difference"


# the places around the table by seat, from yours at the bottom (app.js's PLACES)
PLACES = {3: ["b", "tl", "tr"], 4: ["b", "l", "t", "r"], 5: ["b", "l", "tl", "tr", "r"],
          6: ["b", "l", "tl", "t", "tr", "r"]}


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_three_to_six_seats_sit_around_the_table_whose_turn_is_marked_and_the_reveal_flips(
        browser, server, open_page, shots, viewport):
    page = open_page(viewport)
    for seats in (3, 4, 5, 6):
        if page.locator("#setup-box[open]").count() == 0:
            page.click("#setup-box > summary")
        _choose(page, "today", dice=2, level="beginner", opponents=seats - 1, seed=seats)
        page.click("#start")
        page.wait_for_function(f"document.querySelectorAll('#table .seat').length === {seats}")
        page.wait_for_selector("#moves button[data-move]")
        boxes = [page.locator(f"#table .seat[data-seat='{s}']").bounding_box() for s in range(seats)]
        felt = page.locator("#table .felt").bounding_box()
        middle = (felt["x"] + felt["width"] / 2, felt["y"] + felt["height"] / 2)
        places = PLACES[seats]
        for s, (box, place) in enumerate(zip(boxes, places, strict=True)):  # around the middle, each at its place
            assert page.locator(f"#table .seat[data-seat='{s}']").get_attribute("class").split()[1] == f"at-{place}"
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            assert (y > middle[1] + 5) == (place[0] == "b") and (y < middle[1] - 5) == (place[0] == "t")
            assert (x < middle[0] - 5) == place.endswith("l") and (x > middle[0] + 5) == place.endswith("r")
        overlaps = [(a, b) for a in range(seats) for b in range(a) if _overlap(boxes[a], boxes[b])]
        assert not overlaps, f"{seats} seats at {viewport}: cards overlap {overlaps}"
        # your turn (you open): your seat is marked, the others not
        assert page.locator("#table .seat.turn").count() == 1
        assert page.inner_text("#table .seat.turn .badge") == "your turn"
        assert page.locator("#table .seat.turn").get_attribute("data-seat") == "0"
        _checked(page, shots, f"table-{seats}", viewport)
    page.locator("#moves table button").first.click()  # an agent to play: its seat marked
    page.wait_for_selector("#table .seat.turn:not([data-seat='0']), #moves button[data-move]:not([disabled])")
    state = _state(page)
    if state["phase"] == "agent-turn":
        turn = page.locator("#table .seat.turn")
        assert turn.get_attribute("data-seat") == str(state["turn"])
        assert turn.locator(".badge").inner_text() == "to play"
    # the reveal: each die flips (the animation on), once; off by the toggle; off under reduced motion
    _call_until_the_reveal(page)
    flips = page.locator("#table .seat.revealed svg.die.flip")
    assert flips.count() == page.locator("#table .seat.revealed svg.die").count() > 0
    assert flips.first.evaluate("d => getComputedStyle(d).animationName") == "flip"
    _checked(page, shots, "table-6-reveal", viewport)
    page.click("#next-round")
    page.uncheck("#animate")
    _call_until_the_reveal(page)
    assert page.locator("#table .seat.revealed svg.die").count() > 0
    assert page.locator("#table .seat.revealed svg.die.flip").count() == 0
    context = browser.new_context(viewport=VIEWPORTS[viewport], reduced_motion="reduce")
    calm = context.new_page()
    calm.goto(server)
    calm.wait_for_selector("#opponents .agent", state="attached")
    assert calm.is_checked("#animate")  # a new browser: the toggle on, the system's reduced motion respected
    _choose(calm, "today", dice=1, level="beginner", seed=2)
    calm.click("#start")
    calm.wait_for_selector("#moves button[data-move]")
    _call_until_the_reveal(calm)
    dice = calm.locator("#table .seat.revealed svg.die")
    assert dice.count() == 2 and dice.first.evaluate("d => getComputedStyle(d).animationName") == "none"
    context.close()


def _overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and a["y"] < b["y"] + b["height"] and \
        b["y"] < a["y"] + a["height"]


def _call_until_the_reveal(page) -> None:
    """Play until a round ends: bid the lowest when opening, else call liar; the seat cards show the hands."""
    for _ in range(20):
        page.wait_for_selector("#moves button[data-move]:not([disabled]), #next-round, #winner", timeout=30_000)
        if page.locator("#next-round, #winner").count():
            page.wait_for_selector("#table .seat.revealed")
            return
        move = "#moves button[data-move='challenge']"
        page.click(move if page.locator(move).count() else "#moves table button >> nth=0")
        page.wait_for_selector("#moves button[data-move]:not([disabled]), #next-round, #winner", timeout=30_000)
    raise AssertionError("no round ended")


def _focus_ring(page) -> tuple[str, float]:
    """The outline style and width (px) of the focused element."""
    return tuple(page.evaluate("(() => { const s = getComputedStyle(document.activeElement); "
                               "return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()"))


def test_the_hint_shows_the_recommended_agents_move_probabilities_only_when_asked(open_page, shots):
    page = open_page("desktop")
    page.click("#custom > summary")  # the custom rules open: their controls in the walk too
    page.focus("#rule-set-today")
    for _ in range(8):  # every control reached by the keyboard shows where the focus is
        page.keyboard.press("Tab")
        style, width = _focus_ring(page)
        assert style == "solid" and width >= 2, page.evaluate("document.activeElement.outerHTML")
    assert "What would the recommended agent do?" in page.inner_text("#setup")  # the page says the hint exists
    _choose(page, level="beginner", seed=2)
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
    page.select_option("#opponent-count", "3")
    page.wait_for_function("document.querySelector('#spec-note').textContent === 'The recommended agent is robust: "
                           "under these rules it plays the bid-reading search (no table needed).'")
    assert {a.input_value() for a in page.locator("#opponents .agent").all()} == {"one-third"}  # the level's
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
        # every cell of the cross table in sight without scrolling (on a phone each row agent is a block, a line per
        # opponent), and the ratings drawn as a chart whose labels are readable at this width
        right = page.evaluate("document.querySelector('#tournament .table-box').getBoundingClientRect().right")
        for cell in grid.locator("td:not(.none)").all():
            box = cell.bounding_box()
            assert box["width"] > 0 and box["x"] + box["width"] <= right + 0.5, cell.inner_text()
        if viewport == "phone":
            assert first.evaluate("td => getComputedStyle(td, '::before').content") == '"vs one-third"'
        chart = page.locator("#ratings-chart svg.chart")
        assert chart.locator("circle").count() == 3
        assert min(t.bounding_box()["height"] for t in chart.locator("text").all()) >= 10  # px on the screen
        assert page.locator("#ratings-chart a[href^='/api/results/plot/ratings.png']").count() == 1
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
    page.wait_for_selector("#opponents .agent", state="attached")
    _choose(page, dice=2)
    page.check("#rule-palifico")
    page.wait_for_function("document.querySelector('#spec-note').textContent.includes('solved on first use, about')")
    if what == "hint":
        page.check("#level-beginner")
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


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_seat_learning_over_a_match_says_so_on_its_card(open_page, shots, viewport):
    """The session's second game against ``robust:learn=true,match=true`` (same rules): its seat card says it learns
    from your last game; the first game's card says nothing of a match."""
    page = open_page(viewport)
    form = {"opponents": ["robust:learn=true,match=true"], "dice": 1}
    assert page.evaluate(FINISH_GAME, {**form, "seed": 1}) == "game-over"
    page.reload()
    page.wait_for_selector("#table .seat[data-seat='1']")
    assert page.locator("#table .seat .match").count() == 0
    page.evaluate("(form) => fetch('/api/game', {method: 'POST', headers: {'Content-Type': 'application/json'}, "
                  "body: JSON.stringify(form)})", {**form, "seed": 2})
    page.reload()
    page.wait_for_selector("#table .seat[data-seat='1'] .match")
    assert page.inner_text("#table .seat[data-seat='1'] .match") == "learning from your last game"
    assert page.get_attribute("#table .seat[data-seat='1'] .match", "data-match") == "1"
    _checked(page, shots, "match", viewport)


def test_play_again_is_disabled_while_its_request_is_out(open_page):
    """One click of "Play again" asks for one next game: the button is disabled until the answer comes."""
    page = open_page("desktop")
    assert page.evaluate(FINISH_GAME, {"opponents": ["one-third"], "dice": 1, "seed": 1}) == "game-over"
    page.reload()
    page.wait_for_selector("#again")
    held = []
    page.route("**/api/game", lambda route: held.append(route) if route.request.method == "POST"
               else route.continue_())
    page.click("#again")
    page.wait_for_function("document.getElementById('again').disabled")
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/api/game")
    page.wait_for_selector("#over .over-card", state="detached")
