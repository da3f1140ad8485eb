"""The house rules hold (docs/design.md, "House rules"): ruff finds nothing in the repository, mypy nothing in the
package ldpomdp (planners included), with the rl extra (JAX) installed or not. Each check is skipped, saying why, only
where its tool is not installed."""

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


@pytest.mark.slow  # about 20 CPU s with a cold cache
@pytest.mark.rl  # CI runs it again with JAX installed: planners/dqn_train.py is then checked against JAX's types
def test_mypy_finds_nothing_in_the_package():
    result = _run("mypy", str(ROOT / ".ci" / "typecheck.py"))
    assert result.returncode == 0, f"python .ci/typecheck.py (mypy -p ldpomdp) reports:\n{result.stdout}{result.stderr}"


# what planners/dqn_train.py imports from the rl extra, which the test extra leaves out
RL_IMPORTS = "import jax\nimport jax.numpy as jnp\nimport optax\n"


def _mypy_on(code: str, folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """mypy with the project's settings (pyproject.toml) on ``code`` as a module of its own in ``folder``."""
    (folder / "snippet.py").write_text(code)
    return _run("mypy", "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
                str(folder / "cache"), *options, str(folder / "snippet.py"))


@pytest.mark.slow
def test_mypy_passes_where_the_rl_extra_is_not_installed(tmp_path):
    result = _mypy_on(RL_IMPORTS, tmp_path, "--no-site-packages")  # as if no third-party package were installed
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.rl
def test_mypy_checks_jax_against_its_own_types_where_it_is_installed(tmp_path):
    pytest.importorskip("jax", reason="the rl extra is not installed (pip install -e \".[test,rl]\")")
    result = _mypy_on(RL_IMPORTS + "\nnot_an_array: str = jnp.zeros(3)\n", tmp_path)
    assert result.returncode == 1 and "snippet.py:5: error: Incompatible types in assignment" in result.stdout, \
        result.stdout + result.stderr
