"""The house rules hold (docs/design.md, "House rules"): ruff finds nothing in the repository, mypy nothing in the
package ldpomdp (planners included), with the rl extra (JAX) installed or not; the package's docstrings open with a
summary and are short, list the parameters of long signatures, and hold no Sphinx role; no module is over 600 lines.
Each tool's check is skipped, saying why, only where its tool is not installed."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT


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


MAX_DOCSTRING_LINES = 10  # a one-line summary, a blank line and a short paragraph, the quotes included
SECTION = re.compile(r"^\s*(Args|Returns|Raises|Yields):\s*$", re.MULTILINE)  # Google-style lists, not counted


def _docstrings() -> list[tuple[str, ast.AST, ast.Expr, str]]:
    """(where, node, its docstring's expression, the docstring as written) of every module, class and function of
    the package and planners/."""
    found = []
    for path in sorted([*(ROOT / "ldpomdp").rglob("*.py"), *(ROOT / "planners").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
                first, raw = node.body[0], ast.get_docstring(node, clean=False)
                if isinstance(first, ast.Expr) and raw is not None:
                    where = f"{path.relative_to(ROOT)}:{first.lineno} {getattr(node, 'name', '<module>')}"
                    found.append((where, node, first, raw))
    return found


def test_docstrings_are_a_summary_and_at_most_a_short_paragraph():
    """Beside the Args/Returns/Raises lists, a docstring is a summary and at most a short paragraph."""
    too_long = []
    for where, _, first, raw in _docstrings():
        section = SECTION.search(raw)
        lines = first.end_lineno - first.lineno + 1 - (raw[section.start():].count("\n") if section else 0)
        if lines > MAX_DOCSTRING_LINES:
            too_long.append(f"{where} ({lines} lines)")
    assert not too_long, (f"docstrings longer than {MAX_DOCSTRING_LINES} lines (reasoning goes to docs/design.md, "
                          "parameter lists to the user docs):\n" + "\n".join(too_long))


def test_every_docstring_opens_with_a_summary_of_at_most_200_characters_and_every_module_has_one():
    """The first paragraph is the summary (details follow a blank line); every module says its one job."""
    long = [where for where, _, _, raw in _docstrings() if len(ast.get_docstring(ast.parse(f'"""{raw}"""')
                                                                               ).split("\n\n")[0]) > 200]
    assert long == []
    documented = {where.split(":")[0] for where, node, _, _ in _docstrings() if isinstance(node, ast.Module)}
    modules = {str(p.relative_to(ROOT)) for folder in ("ldpomdp", "planners") for p in (ROOT / folder).rglob("*.py")}
    assert sorted(modules - documented) == []


def test_public_functions_with_more_than_four_parameters_document_them():
    missing = [where for where, node, _, raw in _docstrings()
               if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_")
               and len([a for a in node.args.args + node.args.kwonlyargs if a.arg not in ("self", "cls")]) > 4
               and not SECTION.search(raw)]
    assert missing == []


def test_every_module_of_the_package_has_at_most_600_lines():
    long = {str(p.relative_to(ROOT)): n for folder in ("ldpomdp", "planners") for p in (ROOT / folder).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}


def test_no_sphinx_roles_in_the_code_they_render_nowhere():
    role = re.compile(r":(?:py:)?(?:attr|class|data|func|meth|mod|exc|obj):`")
    found = [str(p.relative_to(ROOT)) for folder in ("ldpomdp", "planners", "benchmarks", "examples", "tests")
             for p in (ROOT / folder).rglob("*.py") if role.search(p.read_text(encoding="utf-8"))]
    assert found == []
