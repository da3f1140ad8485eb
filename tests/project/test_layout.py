"""The layout: pyproject installs every package folder; no import cycle among the package's modules (function-level
imports included); the hand space, hooks and estimate rule reached without going through the belief module; nothing
outside ``ldpomdp.variants`` importing it; and docs/design.md's layout block matching the modules."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib

from conftest import PACKAGES, ROOT, package_modules


def test_pyproject_installs_every_package_folder_and_planners_as_ldpomdp_planners():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"ldpomdp.planners": "planners"}
    folders = {name for name, path in package_modules().items() if path.name == "__init__.py"}
    assert sorted(setuptools["packages"]) == sorted(folders)


def test_planners_import_as_ldpomdp_planners_even_beside_a_users_planners_module(tmp_path):
    """A user's own ``planners.py`` on the path must not hide the built-in planner specs."""
    (tmp_path / "planners.py").write_text("raise RuntimeError('the user module was imported')\n")
    code = ("from ldpomdp.registry import make_player; "
            "print(type(make_player('expected-count')).__module__, type(make_player('dqn')).__module__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ldpomdp.planners.expected_count", "ldpomdp.planners.dqn"]


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (and the packages whose ``__init__`` those imports run)."""
    modules, graph = package_modules(), {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else [])
                                ) if node.level else node.module
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    dep = ".".join(parts[:i])
                    if dep in modules and dep != name and not name.startswith(dep + "."):
                        deps.add(dep)
        graph[name] = deps
    return graph


def test_no_import_cycle():
    graph = _graph()
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            raise AssertionError(f"import cycle: {' -> '.join(path[path.index(name):] + [name])}")
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, path + [name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_opponents_and_solvers_do_not_import_the_beliefs():
    graph = _graph()
    users = [m for m in graph if m.startswith(("ldpomdp.players", "ldpomdp.exact", "ldpomdp.pomdp",
                                                "ldpomdp.estimate", "ldpomdp.hands", "ldpomdp.hooks"))]
    assert [m for m in users if "ldpomdp.belief" in graph[m]] == []


def test_every_module_cache_is_one_mechanism_and_clear_caches_empties_them():
    import ldpomdp.exact  # every module with a cache
    import ldpomdp.exact.against_models.game_values  # noqa: F401
    from ldpomdp import GameConfig, OneThirdRule, RejectionParticleBelief
    from ldpomdp.caches import cache_sizes, clear_caches
    from ldpomdp.game import PublicView
    from ldpomdp.rules import Bid

    for path in [p for folder in PACKAGES.values() for p in folder.rglob("*.py")]:
        if path.name != "caches.py":
            assert "lru_cache" not in path.read_text(), f"{path}: make caches with ldpomdp.caches.memo"
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    RejectionParticleBelief(3, n_particles=50, rng=0).update_from(
        OneThirdRule(), Bid(3, 6), PublicView(config, 1, (3, 3), ((0, Bid(2, 6)),)))
    sizes = cache_sizes()
    assert sum(sizes.values()) > 0 and "ldpomdp.hands.hand_support" in sizes
    assert "ldpomdp.players.one_third._count_policies" in sizes
    clear_caches()
    assert set(cache_sizes().values()) == {0}


def test_the_solvers_memories_are_registered_bounded_caches():
    """nash's solved rounds and cfr's tables in memory are registered (clear_caches reaches them) and bounded,
    dropping the least recently used entry."""
    from ldpomdp.caches import BoundedCache, cache_sizes
    from ldpomdp.exact import tables
    from ldpomdp.exact.two_player import solved_rounds as nash

    sizes = cache_sizes()
    assert "ldpomdp.exact.two_player.solved_rounds._MEMORY" in sizes and "ldpomdp.exact.tables._MEMORY" in sizes
    assert nash._MEMORY.maxsize == nash.CACHED_SOLUTIONS and tables._MEMORY.maxsize == tables.CACHED_TABLES
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache["a"], cache["b"] = 1, 2
    assert cache.lookup("a") == 1 and cache.lookup("z") is None  # "a" is now the most recently used
    cache["c"] = 3
    assert dict(cache) == {"a": 1, "c": 3}


def test_nothing_outside_the_variants_imports_them():
    graph = _graph()
    users = {m: sorted(d for d in deps if d.startswith("ldpomdp.variants")) for m, deps in graph.items()
             if not m.startswith("ldpomdp.variants")}
    assert {m: deps for m, deps in users.items() if deps} == {}


def _design_layout() -> dict[str, str]:
    """The layout block of docs/design.md: entry (``rules.py``, ``exact/``, ``planners/``; the package's own entries
    prefixed ``ldpomdp/``) -> its description, continuation lines included."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    block = text[text.index("```text\nldpomdp/\n") + 8:]
    entries: dict[str, str] = {}
    entry = ""
    for line in block[: block.index("```")].splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if indent > 2:
            entries[entry] += " " + line.strip()
            continue
        name, _, description = line.strip().partition(" ")
        entry = ("ldpomdp/" if indent == 2 else "") + name
        entries[entry] = description.strip()
    return entries


def test_the_design_pages_layout_lists_every_module_and_subpackage_and_nothing_else():
    """Top-level modules and subpackages have an entry each; a subpackage's description names each of its modules
    (``name.py``) and subpackages (``name/``), at any depth; every entry and name exists."""
    import re

    entries = _design_layout()
    folders = {"ldpomdp/": ROOT / "ldpomdp", "planners/": ROOT / "planners"}
    top = {f"ldpomdp/{p.name}" for p in folders["ldpomdp/"].glob("*.py") if p.name != "__init__.py"}
    top |= {f"ldpomdp/{p.name}/" for p in folders["ldpomdp/"].iterdir() if (p / "__init__.py").exists()}
    listed = {e for e in entries if e.startswith("ldpomdp/") and e != "ldpomdp/"}
    assert sorted(listed ^ top) == [], "entries of the layout block that are not modules, or modules not listed"
    for entry in sorted(e for e in listed | {"planners/"} if e.endswith("/")):
        folder = folders.get(entry, ROOT / entry)
        modules = {p.name for p in folder.rglob("*.py") if p.name != "__init__.py"}
        packages = {f"{p.parent.name}/" for p in folder.rglob("*/__init__.py")}
        named = set(re.findall(r"\b\w+\.py\b", entries[entry]))
        named_folders = set(re.findall(r"\b(\w+/)", entries[entry]))
        assert named == modules, f"{entry}: modules named in docs/design.md {sorted(named)}, present {sorted(modules)}"
        assert packages <= named_folders, f"{entry}: subpackages {sorted(packages - named_folders)} not named"
        assert all((folder / f).is_dir() for f in named_folders), f"{entry}: {sorted(named_folders)} not all folders"
