"""The house rules hold (docs/design.md, "House rules"): ruff finds nothing in the repository, mypy nothing in the
package ldpomdp (planners included), with the rl extra (JAX) installed or not, and the package's docstrings are
short. Each check is skipped, saying why, only where its tool is not installed."""

from __future__ import annotations

import ast
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


MAX_DOCSTRING_LINES = 8  # a one-line summary and at most a short paragraph, the quotes included


def test_docstrings_are_a_summary_and_at_most_a_short_paragraph():
    too_long = []
    for path in sorted([*(ROOT / "ldpomdp").rglob("*.py"), *(ROOT / "planners").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and ast.get_docstring(node, clean=False) is not None:
                    lines = first.end_lineno - first.lineno + 1
                    if lines > MAX_DOCSTRING_LINES:
                        where = f"{path.relative_to(ROOT)}:{first.lineno} {getattr(node, 'name', '<module>')}"
                        too_long.append(f"{where} ({lines} lines)")
    assert not too_long, (f"docstrings longer than {MAX_DOCSTRING_LINES} lines (reasoning goes to docs/design.md, "
                          "parameter lists to the user docs):\n" + "\n".join(too_long))
