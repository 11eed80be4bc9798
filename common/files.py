"""Reading and writing the project's files: one way to read JSON (missing and
corrupt told apart by error type), one atomic JSON write, one file hash."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from .settings import ROOT


class Missing(Exception):
    """Mixin marking the "file does not exist" variant of an error type.

    ``read_json(path, CheckpointError)`` raises ``missing(CheckpointError)``
    for an absent file (a subclass of both CheckpointError and Missing) and
    CheckpointError itself for a corrupt one, so callers tell the two apart
    with ``isinstance(exc, Missing)``, never by reading the message."""


@functools.cache
def missing(error: type[Exception]) -> type[Exception]:
    """The subclass of ``error`` raised when a file does not exist."""
    return type(f"{error.__name__}Missing", (error, Missing), {"__module__": error.__module__})


def shown(path: Path) -> str:
    """``path`` relative to the repo root when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def read_json(path: Path, error: type[Exception] = ValueError, what: str = "file"):
    """Parsed JSON of ``path``. Raises ``missing(error)`` when the file does
    not exist and ``error`` when it cannot be read or parsed; both messages
    name the file."""
    path = Path(path)
    if not path.is_file():
        raise missing(error)(f"{what} missing: {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{what} is corrupt: {path} ({exc})") from exc


def write_json(path: Path, data) -> None:
    """Write JSON atomically (temp file + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
