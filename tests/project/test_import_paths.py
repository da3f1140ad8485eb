"""One import path per name (docs/design.md, "Where names live"): a module's ``__all__`` lists only names it
defines; a package's ``__init__`` is its API and re-exports only names of its own modules; every import in the
package, the tests, benchmarks, examples and the docs' code takes a name from its home module or from a package API
listing it; and README, docs and examples take each name from the outermost package API that lists it."""

from __future__ import annotations

import ast
import importlib
import re

from conftest import ROOT, package_modules

from ldpomdp.moved import MOVED

FENCE = re.compile(r"^```python\s*$(.*?)^```", re.MULTILINE | re.DOTALL)


MODULES = package_modules()
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run at import, into ``if`` and ``try`` blocks."""
    out = []
    for node in body:
        out.append(node)
        if isinstance(node, (ast.If, ast.Try)):
            out += _top_level(node.body + node.orelse + getattr(node, "finalbody", []) +
                              [s for h in getattr(node, "handlers", []) for s in h.body])
    return out


def _defined(name: str) -> set[str]:
    """Names that module ``name`` binds itself (def, class, assignment), not by importing them."""
    out = set()
    for node in _top_level(TREES[name].body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return out


def _all(name: str) -> list[str]:
    """``__all__`` of module ``name`` (empty for a name outside the package)."""
    for node in TREES[name].body if name in TREES else []:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            return list(ast.literal_eval(node.value))
    return []


def _source(module: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module an import in ``module`` reads from."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if module in MODULES and _is_package(module) else module.split(".")[:-1]
    return ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))


def _imports(module: str) -> dict[str, str]:
    """Name bound by a top-level ``from ... import`` in ``module`` -> the module it comes from."""
    return {alias.asname or alias.name: _source(module, node) for node in _top_level(TREES[module].body)
            if isinstance(node, ast.ImportFrom) for alias in node.names}


def test_a_module_lists_in_all_only_names_it_defines():
    wrong = {m: sorted(set(_all(m)) - _defined(m)) for m in MODULES if not _is_package(m)}
    assert {m: names for m, names in wrong.items() if names} == {}


def _lazy(package: str, name: str) -> str:
    """The module of ``package``'s attribute ``name`` (a lazy export through the package's ``__getattr__``)."""
    value = getattr(importlib.import_module(package), name)
    return getattr(value, "__module__", "")


def test_a_package_api_re_exports_only_names_of_its_ownpackage_modules():
    wrong = {}
    for package in [m for m in MODULES if _is_package(m)]:
        imported, defined = _imports(package), _defined(package)
        for name in _all(package):
            home = imported.get(name) if name not in defined else package
            if home is None and "__getattr__" in defined:
                home = _lazy(package, name)
            if home is None or not (home == package or home.startswith(package + ".")):
                wrong[f"{package}.{name}"] = home
    assert wrong == {}


def _documents() -> dict[str, ast.Module]:
    """README, docs pages (their Python blocks) and examples: what a reader copies."""
    out = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]:
        for i, block in enumerate(FENCE.findall(page.read_text(encoding="utf-8"))):
            out[f"{page.relative_to(ROOT)}#{i}"] = ast.parse(block)
    for path in sorted((ROOT / "examples").glob("*.py")):
        out[str(path.relative_to(ROOT))] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def _code() -> dict[str, tuple[str, ast.Module]]:
    """Every file that imports from the package: (module name for relative imports, syntax tree)."""
    out = {str(MODULES[m].relative_to(ROOT)): (m, tree) for m, tree in TREES.items()}
    for folder in ("tests", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).glob("*.py")):
            out[str(path.relative_to(ROOT))] = ("", ast.parse(path.read_text(encoding="utf-8")))
    out.update({where: ("", tree) for where, tree in _documents().items()})
    return out


def _names_from(module: str) -> set[str]:
    """What may be imported from ``module``: the names it defines; for a package also its API and submodules."""
    names = _defined(module)
    if _is_package(module):
        names |= set(_all(module)) | {m[len(module) + 1:].split(".")[0] for m in MODULES if m.startswith(module + ".")}
    return names


def test_every_import_takes_a_name_from_its_home_or_a_package_api_listing_it():
    wrong = []
    for where, (module, tree) in _code().items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _source(module, node)
            if source not in MODULES and source.startswith("ldpomdp"):
                wrong.append(f"{where}:{node.lineno}: no module {source}")
            elif source in MODULES:
                wrong += [f"{where}:{node.lineno}: {alias.name} from {source}" for alias in node.names
                          if alias.name not in _names_from(source)]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                wrong += [f"{where}:{node.lineno}: no module {a.name}" for a in node.names
                          if a.name.startswith("ldpomdp") and a.name not in MODULES]
    assert wrong == []


def _same_object(outer: str, module: str, name: str) -> bool:
    """Whether ``outer`` lists the very object ``module`` has under ``name`` (two homes may reuse a name, e.g. the
    registry's and the OpenSpiel bridge's ``register``); True when a module needs an extra that is not installed."""
    try:
        return getattr(importlib.import_module(outer), name) is getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return True


def test_the_docs_take_each_name_from_the_outermost_package_api_listing_it():
    wrong = []
    for where, tree in _documents().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ldpomdp."):
                parts = node.module.split(".")
                for alias in node.names:
                    outer = next((".".join(parts[:i]) for i in range(1, len(parts))
                                  if alias.name in _all(".".join(parts[:i]))
                                  and _same_object(".".join(parts[:i]), node.module, alias.name)), None)
                    if outer:
                        wrong.append(f"{where}: from {node.module} import {alias.name} (use {outer})")
    assert wrong == []


def _resolves(reference: str) -> bool:
    """Whether a dotted name under the package names one of its modules or an attribute of one that the module
    defines or, for a package, lists (a module needing an extra that is not installed counts as resolved); an old
    path that only ``ldpomdp.moved`` still serves does not."""
    parts = reference.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        moved = MOVED.get(module)  # an old module, or one still in place that gave names away
        if isinstance(moved, str) or (moved is not None and (module not in MODULES
                                                             or (i < len(parts) and parts[i] in moved))):
            return False
        try:
            value = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name and not exc.name.startswith("ldpomdp"):
                return True
            continue
        if i < len(parts) and not parts[i].startswith("__") and parts[i] not in _names_from(module):
            return False
        for part in parts[i:]:
            if not hasattr(value, part):
                return False
            value = getattr(value, part)
        return True
    return False


def test_every_dotted_name_in_the_docs_and_docstrings_exists():
    reference = re.compile(r"\bldpomdp(?:\.[A-Za-z_]\w*)+")
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md")), *MODULES.values(),
             *[p for folder in ("tests", "benchmarks", "examples") for p in sorted((ROOT / folder).rglob("*.py"))]]
    history = {ROOT / "ldpomdp" / "moved.py", ROOT / "tests" / "test_moved.py"}  # where old paths are the subject
    found = {(ref, str(path.relative_to(ROOT))) for path in files if path not in history
             for ref in reference.findall(path.read_text(encoding="utf-8"))}
    assert sorted(f"{where}: {ref}" for ref, where in found if not _resolves(ref)) == []
