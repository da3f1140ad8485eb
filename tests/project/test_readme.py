"""The documentation's code runs: every fenced ```python block of README.md and of every docs/**/*.md page runs as
a script, in a fresh folder with the repository on PYTHONPATH, as a reader would run it from a checkout.

A block that is not meant to run carries ``<!-- not run: why -->`` on the line right above its fence, and every
``bash`` block must carry it (they install packages, start long sweeps or interactive games), so that each code
block is either run here or marked with its reason.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
NOT_RUN = re.compile(r"<!-- not run: \S.* -->")
FENCE = re.compile(r"^```(\w*)")


def code_blocks(path: Path) -> list[tuple[int, str, str, bool]]:
    """``(line, language, code, marked not to run)`` of each fenced block in ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, number = [], 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if not opening:
            number += 1
            continue
        end = next(i for i in range(number + 1, len(lines)) if lines[i].startswith("```"))
        marked = number > 0 and bool(NOT_RUN.fullmatch(lines[number - 1].strip()))
        blocks.append((number + 1, opening.group(1), "\n".join(lines[number + 1:end]) + "\n", marked))
        number = end + 1
    return blocks


BLOCKS = [(path, *block) for path in DOCUMENTS for block in code_blocks(path)]
SCRIPTS = [pytest.param(code, id=f"{path.name}:{line}")
           for path, line, language, code, marked in BLOCKS if language == "python" and not marked]


def test_the_readme_has_blocks_to_run():
    assert len(SCRIPTS) >= 5


def test_the_docs_pages_are_read_and_have_blocks_to_run():
    pages = {path.name for path in DOCUMENTS if path.parent.name == "docs"}
    assert {"index.md", "players.md", "beliefs.md", "sweeps.md", "exact.md"} <= pages
    assert any(path.parent.name == "docs" and language == "python" and not marked
               for path, _, language, _, marked in BLOCKS)


def test_every_shell_block_is_marked_with_why_it_is_not_run():
    unmarked = [f"{path.name}:{line}" for path, line, language, _, marked in BLOCKS
                if language in ("bash", "sh", "shell", "console") and not marked]
    assert unmarked == []


@pytest.mark.slow
@pytest.mark.parametrize("code", SCRIPTS)
def test_block_runs_as_a_script(code, tmp_path):
    if "ldpomdp.openspiel" in code and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("the block needs the openspiel extra (pip install -e '.[openspiel]')")
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr


@pytest.mark.slow
def test_a_script_that_forgets_the_main_guard_is_told_about_it(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text('from ldpomdp.sweeps import Cell, run_sweep\n\n'
                      'run_sweep([Cell.of(("one-third", "random"), 2)], games=4, out="out", workers=1,\n'
                      '          progress=False)\n')
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "BrokenProcessPool" in run.stderr and 'must do so under `if __name__ == "__main__":`' in run.stderr


def test_ci_runs_the_quick_starts_test_command_as_written_with_nothing_installed_before_it():
    script = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    command = next(line for line in script if line.startswith("TESTS=")).removeprefix("TESTS='").removesuffix("'")
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        assert command in page.read_text(encoding="utf-8").splitlines(), page.name
    before = script[:script.index('eval "$TESTS"')]
    installs = [line for line in before if "pip install" in line and not line.startswith(("#", "TESTS="))]
    assert installs == ["python -m pip install --quiet --upgrade pip"]
