"""Type-check the package ldpomdp, its planners included, with mypy and the settings in pyproject.toml.

The repository folder planners/ installs as ldpomdp.planners (setuptools package-dir), a mapping mypy follows neither
from the source tree nor through the editable install's import hook. So this script lays the installed package out
as symbolic links to the checkout in .mypy_cache/tree/ldpomdp (planners/ linked in as ldpomdp/planners), runs
`mypy -p ldpomdp` there, and reports every file by its path in the repository.

Usage, from anywhere: python .ci/typecheck.py [more mypy options]; the exit status is mypy's.
"""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".mypy_cache"


def build_tree() -> Path:
    """Lay out ldpomdp as it installs, out of links to the checkout; returns the folder that holds it."""
    tree = CACHE / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    package = tree / "ldpomdp"
    package.mkdir(parents=True)
    for entry in (ROOT / "ldpomdp").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "planners").symlink_to(ROOT / "planners")
    return tree


def main(argv: list[str]) -> int:
    tree = build_tree()
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(CACHE), *argv, "-p", "ldpomdp"]
    result = subprocess.run(command, cwd=tree, capture_output=True, text=True)
    # mypy names files relative to the tree; the planners' files live in planners/ in the repository
    for stream, text in ((sys.stdout, result.stdout), (sys.stderr, result.stderr)):
        for line in text.splitlines(keepends=True):
            stream.write("planners/" + line.removeprefix("ldpomdp/planners/") if line.startswith("ldpomdp/planners/")
                         else line)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
