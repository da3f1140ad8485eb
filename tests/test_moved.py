"""Old import paths keep working for one minor version, warn with the new home, and know only their own names."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from ldpomdp.moved import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_imports_with_a_warning_naming_the_new_home_and_gives_the_same_objects(old):
    code = (f"import warnings, importlib\nwith warnings.catch_warnings(record=True) as seen:\n"
            f"    warnings.simplefilter('always')\n    importlib.import_module({old!r})\n"
            f"print(*[w.message for w in seen if w.category is DeprecationWarning], sep='\\n')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    target = MOVED[old]
    homes = {target} if isinstance(target, str) else {home.partition(":")[0] for home in target.values()}
    line = next(line for line in out.splitlines() if line.startswith(f"{old} has moved to"))
    assert all(home in line for home in homes)
    with pytest.warns(DeprecationWarning):
        sys.modules.pop(old, None)
        module = importlib.import_module(old)
    names = dir(module) if isinstance(target, str) else list(target)
    for name in [n for n in names if not n.startswith("_")][:50]:
        home, _, new_name = (target if isinstance(target, str) else target[name]).partition(":")
        assert getattr(module, name) is getattr(importlib.import_module(home), new_name or name)


def test_an_old_path_has_no_names_its_module_never_had():
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("ldpomdp.opponents", None)
        module = importlib.import_module("ldpomdp.opponents")
    with pytest.raises(AttributeError, match="no attribute 'solve_game'"):
        module.solve_game  # noqa: B018
