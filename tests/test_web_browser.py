"""A real browser (Playwright driving the system's headless Chromium) plays a whole game on ``ldpomdp serve`` by
clicking, reads the revealed hands from the page and saves a screenshot. Skipped only when Playwright or Chromium
is absent (CI installs both: see .ci/run). ``LDPOMDP_WEB_SCREENSHOT=PATH`` saves the screenshot there (the docs'
image is made so: ``LDPOMDP_WEB_SCREENSHOT=docs/img/web_play.png python -m pytest tests/test_web_browser.py``)."""

from __future__ import annotations

import os
import shutil
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


def test_a_browser_plays_a_whole_game_by_clicking_and_sees_every_hand(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    from ldpomdp.web.load import running_server

    screenshot = Path(os.environ.get("LDPOMDP_WEB_SCREENSHOT") or tmp_path / "web_play.png")
    config = GameConfig(dice=2)
    with running_server() as (url, _), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(url)
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
        finally:
            browser.close()
    assert screenshot.stat().st_size > 10_000
