"""A real browser (Playwright driving the system's headless Chromium) plays a whole game on ``ldpomdp serve`` by
clicking, reads the revealed hands from the page and saves a screenshot. Skipped only when Playwright or Chromium
is absent (CI installs both: see .ci/run). ``LDPOMDP_WEB_SCREENSHOT=PATH`` saves the screenshot there (the docs'
image is made so: ``LDPOMDP_WEB_SCREENSHOT=docs/img/web_play.png python -m pytest tests/test_web_browser.py``)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ldpomdp.rules import GameConfig, matching_count

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium)")


def _face_counts(dice: str) -> tuple[int, ...]:
    faces = [int(f) for f in dice.split(",") if f]
    return tuple(faces.count(f) for f in range(1, 7))


@contextmanager
def _browser(*options: str) -> Iterator:
    """A page of the headless Chromium, opened on a running ``ldpomdp serve`` with ``options``."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    from ldpomdp.web.load import running_server

    with running_server(*options) as (url, _), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(url)
            yield page
        finally:
            browser.close()


def test_a_browser_plays_a_whole_game_by_clicking_and_sees_every_hand(tmp_path):
    screenshot = Path(os.environ.get("LDPOMDP_WEB_SCREENSHOT") or tmp_path / "web_play.png")
    config = GameConfig(dice=2)
    with _browser() as page:
        page.fill("#dice", "2")
        page.fill("#seed", "11")
        page.fill("#opponents .spec", "no-such-player")
        page.click("#start")  # refused: the page says why
        page.wait_for_selector("#error:not([hidden])")
        assert "unknown player 'no-such-player'" in page.inner_text("#error")
        page.fill("#opponents .spec", "expected-count")
        page.click("#start")
        reveals, shot = 0, False
        for _ in range(200):  # clicks; a 2-dice game ends within a few rounds
            page.wait_for_selector("#moves button[data-move]:not([disabled]), #next-round, #winner", timeout=30_000)
            if page.locator("#winner").count():
                break
            if page.locator("#next-round").count():
                hands = page.locator("#reveal .reveal-seat")
                verdict = page.locator("#reveal .verdict")
                face = int(verdict.inner_text().split("×")[1].split(":")[0])
                counts = [int(hands.nth(i).locator(".count").get_attribute("data-count"))
                          for i in range(hands.count())]
                shown = [_face_counts(hands.nth(i).get_attribute("data-dice")) for i in range(hands.count())]
                assert counts == [matching_count(h, face, config) for h in shown]  # the page counts right
                assert sum(counts) == int(verdict.get_attribute("data-matching"))
                assert all(sum(h) >= 1 for h in shown)
                reveals += 1
                if not shot:  # the first reveal, with the agent's belief: the docs' picture
                    page.screenshot(path=str(screenshot), full_page=True)
                    shot = True
                page.click("#next-round")
                page.wait_for_selector("#next-round", state="detached")  # the next round is drawn
                continue
            challenge = page.locator("#challenge:not([disabled])")
            raises = page.locator("#moves button[data-move]:not([disabled])")
            target = challenge if challenge.count() else raises.first
            target.click()  # the page disables its moves until the server answers
        winner = page.locator("#winner")
        assert winner.count() and winner.get_attribute("data-winner") in ("0", "1")
        assert page.locator("#over a[download]").count() == 1
        assert reveals >= 1 or page.locator("#reveal .reveal-seat").count() >= 2  # the last round is shown too
        assert page.locator("#reveal .reveal-seat").count() == 2
        page.click("button[data-tab=beliefs]")
        assert page.locator("#belief-list .decision svg.chart").count() >= 1
    assert screenshot.stat().st_size > 10_000


def _play_perudo_game(page, seed: int, dice: int, rules: dict, on_stop) -> None:
    """Start a game against expected-count under ``rules`` and click through it: open with the lowest bid, raise by
    the lowest once a round, then challenge (test_web's ``_raise_once``); ``on_stop(state)`` at each stop, with
    the game as the API sends it."""
    page.fill("#dice", str(dice))
    page.fill("#seed", str(seed))
    page.fill("#opponents .spec", "expected-count")
    for name, value in rules.items():
        page.fill(f"#more-rules input[data-rule={name}]", json.dumps(value))
    page.click("#start")
    for _ in range(100):
        page.wait_for_selector("#moves button[data-move]:not([disabled]), #next-round, #winner", timeout=30_000)
        on_stop(page.evaluate("fetch('/api/game').then((r) => r.json())"))
        if page.locator("#winner").count():
            return
        if page.locator("#next-round").count():
            page.click("#next-round")
            page.wait_for_selector("#next-round", state="detached")  # the next round is drawn
            continue
        bids, mine = page.locator("#moves table button:not([disabled])"), page.locator('#history li[data-seat="0"]')
        (bids.first if bids.count() and (mine.count() < 1 or not page.locator("#challenge").count())
         else page.locator("#challenge")).click()
    raise AssertionError("the game did not end within 100 clicks")


def test_a_browser_shows_perudo_palifico_and_exact_call_rounds_by_their_own_rules():
    seen: dict[str, int] = {"exact offered": 0, "palifico": 0, "exact decision": 0}
    with _browser() as page:
        def check(state: dict) -> None:
            palifico, wild = state["palifico"], state["round_wild"]
            if state["phase"] != "game-over":  # the status names a palifico round; your hand: the round's wild
                # dice outlined, the note says which
                assert ("Palifico round" in page.inner_text("#status")) == palifico
                note = page.inner_text("#hand")
                assert ("palifico round: no die is wild" in note) == palifico and ("1s are wild" in note) != palifico
                outlined = page.locator('#hand svg.die rect[stroke="#b07"]').count()
                assert outlined == sum(f == wild for f in state["hand"])
            seen["palifico"] += palifico
            if state["phase"] == "your-turn" and "exact" in state["legal"]:  # one grid row per quantity, no other
                seen["exact offered"] += 1
                quantities = sorted({int(a.split("x")[0]) for a in state["legal"] if a[0].isdigit()})[:10]
                rows = page.locator("#moves table tr:not(:first-child) > th").all_inner_texts()
                assert rows == [f"{q} ×" for q in quantities]
            for seat in page.locator("#reveal .reveal-seat").all():  # the dice outlined are the dice counted
                marked = seat.locator('svg.die rect[fill="#ffe08a"]').count()
                assert marked == int(seat.locator(".count").get_attribute("data-count"))
            for decision in page.locator("#reveal .decision").all():  # the estimate outlines the face of the move
                chart = decision.locator("svg.chart", has_text="expected matching dice per face")
                assert chart.locator('rect[stroke="#000"]').count() == 1
                seen["exact decision"] += "Exact!" in decision.locator("h4").inner_text()

        # seed 7: seat 1 drops to one die, plays its palifico round (you hold two ones) and ends the game by a wrong
        # exact call
        _play_perudo_game(page, 7, 2, GameConfig.preset("perudo").variants, check)
        assert all(seen.values()), seen
        loser = page.locator('#table .seat[data-seat="1"]')
        assert "0 dice" in loser.inner_text() and "out" in (loser.get_attribute("class") or "").split()
        assert "undefined" not in page.inner_text("body") and "NaN" not in page.inner_text("body")

        # seed 3 under Dudo's loss by the difference and the exact call: you lose two dice in round 1, and seat 1
        # calls round 4 exactly and gets its die back
        verdicts: dict[int, str] = {}

        def verdict(state: dict) -> None:
            if page.locator("#reveal .verdict").count():
                verdicts[state["round"]] = page.inner_text("#reveal .verdict")

        page.reload()
        _play_perudo_game(page, 3, 3, GameConfig.preset("dudo", exact_call=True).variants, verdict)
        assert verdicts[0].endswith(": You lose 2 dice.")
        assert verdicts[3].endswith(": Seat 1 (expected-count) calls it exactly, nobody loses a die; the caller gets a "
                                    "die back.")
        assert "undefined" not in page.inner_text("body")


def test_a_browser_replays_a_perudo_game_round_by_round_by_each_rounds_rules(tmp_path):
    from ldpomdp.sweeps import Cell, run_sweep

    cell = Cell.of(["one-third", "expected-count"], 2, **GameConfig.preset("perudo").variants)
    run_sweep([cell], 1, tmp_path, seed=2, workers=1, progress=False, log=None, exact=False)
    with _browser("--results", str(tmp_path)) as page:
        replay = page.evaluate(f"fetch('/api/results/replay?cell={cell.id}&game=0').then((r) => r.json())")
        page.click("#results-tab")
        page.wait_for_selector("#replay-game option", state="attached")
        page.click("#replay-load")
        headers = []
        for _ in range(sum(len(r["actions"]) for r in replay["rounds"])):
            page.wait_for_selector("#replay-next")
            if page.locator("#replay .verdict").count():  # a round's end: the dice outlined are the dice counted
                headers.append(page.inner_text("#replay h4"))
                for seat in page.locator("#replay .reveal-seat").all():
                    marked = seat.locator('svg.die rect[fill="#ffe08a"]').count()
                    assert marked == int(seat.locator(".count").get_attribute("data-count"))
            page.click("#replay-next")
    palifico = [r["palifico"] for r in replay["rounds"]]
    assert any(palifico) and [h.endswith("a palifico round: no die is wild") for h in headers] == palifico
