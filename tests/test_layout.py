"""The layout's import rules: no import cycle among the package's modules (function-level imports included),
and the hand space, hooks and estimate rule reached without going through the belief module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ldpomdp", "planners")


def _modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (and the packages whose ``__init__`` those imports run)."""
    modules, graph = _modules(), {}
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
    users = [m for m in graph if m.startswith(("ldpomdp.opponents", "ldpomdp.exact", "ldpomdp.pomdp",
                                                "ldpomdp.estimate", "ldpomdp.hands", "ldpomdp.hooks"))]
    assert [m for m in users if "ldpomdp.belief" in graph[m]] == []


def test_every_module_cache_is_one_mechanism_and_clear_caches_empties_them():
    import ldpomdp.exact  # noqa: F401  (every module with a cache)
    import ldpomdp.game_values  # noqa: F401
    from ldpomdp import GameConfig, OneThirdRule, RejectionParticleBelief
    from ldpomdp.caches import cache_sizes, clear_caches
    from ldpomdp.game import PublicView
    from ldpomdp.rules import Bid

    for path in (ROOT / "ldpomdp").rglob("*.py"):
        if path.name != "caches.py":
            assert "lru_cache" not in path.read_text(), f"{path}: make caches with ldpomdp.caches.memo"
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    RejectionParticleBelief(3, n_particles=50, rng=0).update_from(
        OneThirdRule(), Bid(3, 6), PublicView(config, 1, (3, 3), ((0, Bid(2, 6)),)))
    sizes = cache_sizes()
    assert sum(sizes.values()) > 0 and "ldpomdp.hands.hand_support" in sizes
    assert "ldpomdp.opponents.one_third._count_policies" in sizes
    clear_caches()
    assert set(cache_sizes().values()) == {0}
