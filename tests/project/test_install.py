"""Installing: the package is not on PyPI, so every install command that the README and the docs name installs from
the checkout, from the wheel that a release builds (docs/release.md), or completes the installed package with an
extra, always with extras that pyproject.toml defines; a missing extra's message names the command for the copy
that runs (the checkout, editable, or the installed package by name); the extras take version ranges, exact pins
only where the exact version matters."""

from __future__ import annotations

import re
import sys
import tomllib

import pytest
from conftest import ROOT
from packaging.requirements import Requirement

from ldpomdp import __version__, errors
from ldpomdp.cli import main

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS = set(PROJECT["optional-dependencies"])
# `pip install [-e] TARGET[EXTRAS]`, quoted or not
INSTALL = re.compile(r"""pip install (?:-e )?["']?(?P<target>[^\s"'\[]*)\[(?P<extras>[^\]]*)\]""")
# the checkout; the wheel that `python -m build` writes for this version; the installed package, by name
TARGETS = {".", f"dist/ldpomdp-{__version__}-py3-none-any.whl", "ldpomdp"}
# errors.py builds the command (tested below); every other file names it as written
TEXTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md")), *sorted((ROOT / "ldpomdp").glob("**/*.py")),
         *sorted((ROOT / "planners").glob("**/*.py"))]


def test_every_install_command_installs_from_the_checkout_or_the_release_with_extras_that_exist():
    commands = [(path.relative_to(ROOT).as_posix(), match["target"], match["extras"])
                for path in TEXTS if path.name != "errors.py"
                for match in INSTALL.finditer(path.read_text(encoding="utf-8"))]
    assert len(commands) >= 10
    assert [c for c in commands if c[1] not in TARGETS or not set(c[2].split(",")) <= EXTRAS] == []


def test_install_hint_names_this_checkout_when_it_runs_from_one_else_the_installed_package(monkeypatch, tmp_path):
    monkeypatch.setattr(errors, "_HERE", ROOT / "ldpomdp")  # an editable install, or the checkout on PYTHONPATH
    assert errors.install_hint("web") == f'pip install -e "{ROOT}[web]"'
    monkeypatch.setattr(errors, "_HERE", tmp_path / "site-packages" / "ldpomdp")  # the wheel (or sdist), installed
    assert errors.install_hint("web") == 'pip install "ldpomdp[web]"'
    assert INSTALL.match(errors.install_hint("web"))["target"] in TARGETS


def _without(monkeypatch, *modules: str) -> None:
    """Make importing each of ``modules`` fail as if it were not installed."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize("extra, missing, argv", [
    ("web", "uvicorn", ["serve"]),
    ("dask", "dask.distributed", ["sweep", "--players", "one-third,random", "--dice", "1", "--scheduler", "x:1"]),
    ("rl", "jax", ["train", "dqn", "--games", "1,0,0", "--no-progress"]),
])
def test_a_command_missing_its_extra_names_the_install(extra, missing, argv, monkeypatch, tmp_path, capsys):
    _without(monkeypatch, missing)
    monkeypatch.chdir(tmp_path)  # the default output folders
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert errors.install_hint(extra) in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # issue 55: no results/ with a .lock and an empty games.jsonl, no dqn/


def test_a_sweep_without_matplotlib_names_the_plot_install(monkeypatch, tmp_path):
    from ldpomdp.sweeps import report

    _without(monkeypatch, "matplotlib")
    logged: list[str] = []
    assert report([], [], tmp_path, log=logged.append) == []
    assert f"plots need matplotlib: {errors.install_hint('plot')}" in logged


def test_the_environments_and_the_openspiel_bridge_missing_their_extra_name_the_install(monkeypatch):
    import importlib

    _without(monkeypatch, "gymnasium", "pyspiel")
    for name in [m for m in sys.modules if m.startswith(("ldpomdp.openspiel", "ldpomdp.envs"))]:  # imported earlier
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ModuleNotFoundError, match=re.escape(errors.install_hint("rl"))):
        from ldpomdp.envs import LiarsDiceGymEnv  # noqa: F401
    with pytest.raises(ImportError, match=re.escape(errors.install_hint("openspiel"))):
        importlib.import_module("ldpomdp.openspiel")


# where the exact version matters, and why
EXACT = {"pomdp-py": "ldpomdp.pomdp.search uses its private methods", "ruff": "a new release finds new things",
         "mypy": "a new release finds new things"}


def test_requirements_take_ranges_except_where_the_exact_version_matters():
    requirements = [Requirement(text) for text in
                    [*PROJECT["dependencies"], *(r for rs in PROJECT["optional-dependencies"].values() for r in rs)]]
    pinned = {r.name for r in requirements if any(s.operator in ("==", "===") for s in r.specifier)}
    assert pinned == set(EXACT)
