"""The house rules hold (docs/design.md, "House rules"): ruff finds nothing in the repository, mypy nothing in the
package ldpomdp (planners included). Each check is skipped, saying why, only where its tool is not installed."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python *args`` in the repository root, or a skip when ``tool`` is not installed."""
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (the test extra brings it: pip install -e \".[test]\")")
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing_in_the_repository():
    result = _run("ruff", "-m", "ruff", "check", ".")
    assert result.returncode == 0, f"ruff check . reports:\n{result.stdout}{result.stderr}"


@pytest.mark.slow  # about 17 CPU s with a cold cache
def test_mypy_finds_nothing_in_the_package():
    result = _run("mypy", str(ROOT / ".ci" / "typecheck.py"))
    assert result.returncode == 0, f"python .ci/typecheck.py (mypy -p ldpomdp) reports:\n{result.stdout}{result.stderr}"
