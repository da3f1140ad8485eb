"""The package's data files: reading ``.npz`` files with one error, writing any whole file atomically.

Reading an ``.npz`` file (equilibrium tables, network weights, checkpoints, cached rounds) that cannot be read raises
one ``TableError`` naming the file and its fault; writing any whole file (an ``.npz``, a result folder's CSV, JSON or
plot) goes through ``write_atomic``, which leaves no temporary file behind.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .errors import TableError
from .interrupts import signals_deferred

__all__ = ["read_npz", "load_npz", "write_npz", "write_atomic"]

T = TypeVar("T")

_ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a zip archive's first bytes (a local file header, an empty archive)


def read_npz(path: str | Path, what: str, hint: str = "", names: tuple[str, ...] | None = None
             ) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file at ``path`` (or only ``names``), read now (no pickled objects).

    A file that cannot be read (missing, a folder, empty, not an ``.npz``, truncated or corrupted, or holding pickled
    objects, which are never loaded) raises TableError
    "cannot read the ``what`` ``path``: its fault", then ``; hint`` (what to do about it) if given.
    """
    try:
        with open(path, "rb") as file:
            start = file.read(4)
    except OSError as exc:
        fault = exc.strerror or str(exc)  # no such file, is a directory, permission denied
    else:
        if not start:
            fault = "the file is empty"
        elif start not in _ZIP_STARTS:
            fault = "not an .npz file"
        else:
            try:
                with np.load(path, allow_pickle=False) as data:
                    return {name: data[name] for name in (data.files if names is None else names)}
            # a damaged archive fails in zipfile, zlib or numpy's header parser with many exception types, and this
            # block runs nothing else: whatever it raises says the file is damaged
            except Exception as exc:
                _raise_interrupt_behind(exc)
                if isinstance(exc, ValueError) and "allow_pickle" in str(exc):  # an object array: numpy pickles it
                    fault = (f"the file holds pickled Python objects, which {__package__} never loads (unpickling "
                             f"can run any code): it is not a file that {__package__} wrote")
                else:
                    fault = f"the file is damaged (truncated or corrupted: {' '.join(str(exc).split())})"
    raise _unreadable(path, what, fault, hint)


def load_npz(path: str | Path, what: str, parse: Callable[[dict[str, np.ndarray]], T], hint: str = "") -> T:
    """``parse`` of the arrays of ``read_npz``; a KeyError, ValueError or TypeError of ``parse`` (an array
    missing, or not what it should be) raises TableError as ``read_npz`` does."""
    data = read_npz(path, what, hint)
    try:
        return parse(data)
    except (KeyError, ValueError, TypeError) as exc:
        fault = f"no array {exc} in it" if isinstance(exc, KeyError) else str(exc)
        raise _unreadable(path, what, fault, hint) from exc


def _raise_interrupt_behind(exc: Exception) -> None:
    """Raise the KeyboardInterrupt, if any, that ``exc`` was raised while handling.

    The interrupt is Ctrl-C, or SIGTERM as Ctrl-C. An interrupt inside zipfile surfaces as its own error on
    closing ("Can't close the ZIP file while there is an open writing handle"), which is the interrupt, not a fault
    of the file.
    """
    cause: BaseException | None = exc.__context__
    while cause is not None and not isinstance(cause, KeyboardInterrupt):
        cause = cause.__context__
    if cause is not None:
        raise cause from None


def _unreadable(path: str | Path, what: str, fault: str, hint: str) -> TableError:
    return TableError(f"cannot read the {what} {path}: {fault}" + (f"; {hint}" if hint else ""))


def write_atomic(path: str | Path, content: bytes | Callable[[Path], object], suffix: str | None = None) -> Path:
    """Write a whole file atomically: a reader, a kill or an error never leaves half a file at ``path``.

    ``content`` (bytes, or a function that writes the file at the path it is given) goes into a temporary file
    beside ``path`` (its name ending in ``suffix``, by default ``path``'s: a writer that goes by the suffix, numpy's
    or matplotlib's, then writes the same bytes and no other file), is flushed to disk (fsync) and moved onto ``path``
    (os.replace): the old file stays whole until the new one replaces it. The temporary file is removed on every
    exit; Ctrl-C and SIGTERM wait for the write. Returns ``path`` as a Path.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ending = path.suffix if suffix is None else suffix  # what the writer appends when a name lacks it (numpy: .npz)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp{ending}")
    try:
        with signals_deferred():  # a kill waits for the file to be whole
            if isinstance(content, bytes):
                tmp.write_bytes(content)
            else:
                content(tmp)
            with open(tmp, "rb+") as file:
                os.fsync(file.fileno())
            os.replace(tmp, path)
    except Exception as exc:
        _raise_interrupt_behind(exc)
        raise
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_npz(path: str | Path, arrays: Mapping[str, Any], compress: bool = True) -> Path:
    """Write ``arrays`` to the ``.npz`` file ``path`` atomically (``write_atomic``)."""
    return write_atomic(path, lambda tmp: (np.savez_compressed if compress else np.savez)(tmp, **arrays), ".npz")
