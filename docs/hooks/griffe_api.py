"""griffe extensions for the API reference (docs/api/, mkdocs.yml's mkdocstrings handler): two, each on its own.

``PackageDir``: setuptools installs the repository folder ``planners/`` as ``ldpomdp.planners`` (pyproject.toml's
``[tool.setuptools] package-dir``); mkdocstrings reads the package from the checkout (``paths: [.]``), where
``ldpomdp/`` has no ``planners/``, so each mapped folder's modules are visited as the subpackage they install as:
``::: ldpomdp.planners`` resolves with an editable install, a regular one or none. Nothing is imported.

``QuietUndocumented``: a special method (``__repr__``, ``__post_init__``, ...) or an attribute set in a method
(``self.x = ...``: its value would show the code) without a docstring is left out, as private names are; the pages
show every other public name, documented or not (an override without one, a dataclass field, a module constant).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parents[2]


def _mapping() -> dict[str, str]:
    """``package-dir`` of pyproject.toml: dotted package name -> folder relative to the repository."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return project.get("tool", {}).get("setuptools", {}).get("package-dir", {})


def _visit(name: str, folder: Path, parent: griffe.Module, loader: griffe.GriffeLoader) -> None:
    """Visit ``folder`` (a package) as ``parent``'s member ``name``, with its modules and subpackages."""

    def module(stem: str, path: Path, owner: griffe.Module) -> griffe.Module:
        code = path.read_text(encoding="utf-8")
        loader.lines_collection[path] = code.splitlines()
        return griffe.visit(stem, path, code, extensions=loader.extensions, parent=owner,
                            docstring_parser=loader.docstring_parser, docstring_options=loader.docstring_options,
                            lines_collection=loader.lines_collection, modules_collection=loader.modules_collection)

    package = module(name, folder / "__init__.py", parent)
    parent.set_member(name, package)
    for path in sorted(folder.iterdir()):
        if path.suffix == ".py" and path.stem != "__init__":
            package.set_member(path.stem, module(path.stem, path, package))
        elif (path / "__init__.py").is_file():
            _visit(path.name, path, package, loader)


class PackageDir(griffe.Extension):
    """Attach each folder that pyproject.toml's package-dir maps into a package loaded from the checkout."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """After ``pkg`` is loaded: add the mapped subpackages that it lacks (``ldpomdp.planners``)."""
        for dotted, folder in _mapping().items():
            parent_path, _, name = dotted.rpartition(".")
            if parent_path != pkg.path and not parent_path.startswith(pkg.path + "."):
                continue
            parent = loader.modules_collection.get_member(parent_path)
            if name not in parent.members:
                _visit(name, ROOT / folder, parent, loader)


class QuietUndocumented(griffe.Extension):
    """Leave a class's undocumented special methods and instance attributes out of the pages."""

    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        """Mark each undocumented ``__name__`` method and instance attribute of ``cls`` not public."""
        for name, member in cls.members.items():
            if member.is_alias or member.docstring is not None:
                continue
            if (name.startswith("__") and name.endswith("__")) or _set_in_a_method(cls, member):
                member.public = False


def _set_in_a_method(cls: griffe.Class, member: griffe.Object | griffe.Alias) -> bool:
    """Whether ``member`` is an attribute assigned in one of ``cls``'s methods (``self.x = ...``)."""
    line = member.lineno
    return member.is_attribute and line is not None and any(
        method.lineno is not None and method.endlineno is not None and method.lineno <= line <= method.endlineno
        for method in cls.functions.values() if not method.is_alias)
