"""Old import paths keep working for one minor version, warn with the new home, and know only their own names."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from ldpomdp.moved import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_imports_with_a_warning_naming_the_new_home_and_gives_the_same_objects(old):
    """A module gone from its old path warns when imported; a module still in place (it gave names away or renamed
    them) warns when one of those names is read."""
    target = MOVED[old]
    homes = {} if isinstance(target, str) else dict(target)
    code = (f"import warnings, importlib\nwith warnings.catch_warnings(record=True) as seen:\n"
            f"    warnings.simplefilter('always')\n    module = importlib.import_module({old!r})\n"
            f"    kept = getattr(module, '__file__', None) is not None\n"
            f"    for name in {sorted(homes)!r} if kept else []:\n        getattr(module, name)\n"
            f"print(kept)\nprint(*[w.message for w in seen if w.category is DeprecationWarning], sep='\\n')\n")
    kept, *lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True).stdout.splitlines()
    if kept == "True":
        assert homes, f"{old} is still a module: list its moved names one by one"
        for name, home in homes.items():
            assert any(line.startswith(f"{old}.{name} has moved to {home};") for line in lines), name
        module = importlib.import_module(old)
    else:
        line = next(line for line in lines if line.startswith(f"{old} has moved to"))
        assert all(home.partition(":")[0] in line for home in homes.values() or [target])
        with pytest.warns(DeprecationWarning):
            sys.modules.pop(old, None)
            module = importlib.import_module(old)
    names = dir(module) if isinstance(target, str) else list(target)
    for name in [n for n in names if not n.startswith("_")][:50]:
        home, _, new_name = homes.get(name, target).partition(":")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            found = getattr(module, name)
        assert found is getattr(importlib.import_module(home), new_name or name)


def test_an_old_path_has_no_names_its_module_never_had():
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("ldpomdp.opponents", None)
        module = importlib.import_module("ldpomdp.opponents")
    with pytest.raises(AttributeError, match="no attribute 'solve_game'"):
        module.solve_game  # noqa: B018
