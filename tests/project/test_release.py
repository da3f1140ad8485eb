"""The release (docs/release.md): the version is the CHANGELOG's newest, old paths warn until the next minor version,
and `python -m build` gives an sdist that holds what rebuilding needs (the tables, the tests, the docs) and, built
from that sdist, a wheel that holds the shipped tables and the web app's files."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, package_modules

from ldpomdp import __version__, moved

VERSION = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$", re.MULTILINE)
# shipped data: the folder in the repository -> the folder in the wheel
DATA = {"ldpomdp/exact/data": "ldpomdp/exact/data", "planners/data": "ldpomdp/planners/data",
        "ldpomdp/web/static": "ldpomdp/web/static"}


def test_the_version_is_the_changelogs_newest_release_under_an_unreleased_heading():
    headings = VERSION.findall((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert headings[0] == ("Unreleased", "")
    assert headings[1][0] == __version__ and headings[1][1]  # dated
    assert headings[-1][0] == "0.1.0"


def test_moved_names_warn_for_one_minor_version():
    major, minor, _ = (int(part) for part in __version__.split("."))
    assert moved.REMOVED_IN == f"{major}.{minor + 1}"


def _files(folder: str) -> dict[str, int]:
    """The shipped files of ``folder`` (relative to the checkout) -> their sizes."""
    return {path.name: path.stat().st_size for path in sorted((ROOT / folder).iterdir()) if path.is_file()}


@pytest.mark.slow
def test_the_release_build_holds_the_tables_tests_and_docs(tmp_path):
    if importlib.util.find_spec("build") is None:
        pytest.skip("needs the build package (the test extra installs it): pip install build")
    # a copy of the sources, so that the build's egg-info stays out of the checkout (and out of the tests beside it);
    # without the files that tests/project/test_docs_tables.py puts into the checkout for a moment
    source = tmp_path / "source"
    skipped = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "site", "*.egg-info", "__pycache__",
                                     ".*_cache", ".hypothesis", "_probe*")
    shutil.copytree(ROOT, source, ignore=lambda folder, names: skipped(folder, names) | (
        {"results"} & set(names) if Path(folder) == ROOT else set()))  # sweeps' output, not docs/results/
    out = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheel, sdist = out / f"ldpomdp-{__version__}-py3-none-any.whl", out / f"ldpomdp-{__version__}.tar.gz"
    assert sorted(p.name for p in out.iterdir()) == sorted([wheel.name, sdist.name])
    assert "WARNING" not in built.stderr  # e.g. a data folder that setuptools would take for a package

    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {info.filename: info.file_size for info in archive.infolist()}
    for folder, installed in DATA.items():
        assert {name.rsplit("/", 1)[1]: size for name, size in in_wheel.items()
                if name.rsplit("/", 1)[0] == installed} == _files(folder), installed
    modules = {str(path.relative_to(ROOT)).replace("planners/", "ldpomdp/planners/", 1)
               for path in package_modules().values()}
    assert modules <= set(in_wheel)
    assert not any(name.startswith(("tests/", "docs/", "planners/")) for name in in_wheel)
    assert f"ldpomdp-{__version__}.dist-info/entry_points.txt" in in_wheel

    with tarfile.open(sdist) as archive:
        in_sdist = {name.removeprefix(f"ldpomdp-{__version__}/") for name in archive.getnames()}
    for folder in DATA:
        assert {f"{folder}/{name}" for name in _files(folder)} <= in_sdist, folder
    needed = [*ROOT.glob("tests/**/*.py"), *ROOT.glob("docs/**/*.md"), *ROOT.glob("docs/data/*.json"),
              *ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("examples/*.py"), ROOT / ".ci" / "run",
              ROOT / "mkdocs.yml", ROOT / "CHANGELOG.md", ROOT / "README.md", ROOT / "pyproject.toml"]
    missing = {str(path.relative_to(ROOT)) for path in needed
               if "__pycache__" not in path.parts and not path.name.startswith("_probe")} - in_sdist
    assert missing == set()
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in in_sdist)

    if importlib.util.find_spec("twine") is not None:
        checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                                 capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
