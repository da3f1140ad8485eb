"""The tables solved on first use: one solve per table, however many threads ask for it at once."""

from __future__ import annotations

import threading
import time

from conftest import SlowSolve, fresh_tables

from ldpomdp.exact import tables
from ldpomdp.rules import GameConfig


def test_threads_asking_for_the_same_unsolved_table_wait_for_one_solve(tmp_path, monkeypatch):
    slow = SlowSolve()
    fresh_tables(monkeypatch, tmp_path, slow)
    config = GameConfig(dice=2, palifico=True)
    got: list[object] = []
    askers = [threading.Thread(target=lambda: got.append(tables.table_for(config))) for _ in range(3)]
    try:
        for asker in askers:
            asker.start()
        deadline = time.monotonic() + 30
        while slow.calls == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # the other two have asked meanwhile
    finally:
        slow.go.set()
    for asker in askers:
        asker.join(60)
    assert slow.calls == 1 and len(got) == 3 and got[0] is got[1] is got[2]
