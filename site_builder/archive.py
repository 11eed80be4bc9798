"""The code download: a zip of the project's git-tracked files, made at build
time, byte-identical for identical files (sorted entries, fixed timestamps and
permissions). Trained weights and ONNX files are left out to keep it small."""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

ZIP_NAME = "attention-course-src.zip"
PREFIX = "attention-course/"
EXCLUDE_SUFFIXES = (".safetensors", ".onnx", ".pyc")
EXCLUDE_DIRS = {"build", "node_modules", ".venv", ".git", "__pycache__", ".pytest_cache"}
FIXED_TIME = (2024, 1, 1, 0, 0, 0)


def tracked_files(root: Path) -> list[str]:
    """Files git tracks (read-only `git ls-files`); without git, a walk of the
    tree minus build outputs and environments."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        names = [n for n in out.decode("utf-8").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in EXCLUDE_DIRS and not d.endswith(".egg-info")]
            names += [str(Path(dirpath, f).relative_to(root)) for f in filenames]
    keep = []
    for name in names:
        parts = Path(name).parts
        if any(p in EXCLUDE_DIRS for p in parts) or name.endswith(EXCLUDE_SUFFIXES):
            continue
        if (root / name).is_file():  # tracked but deleted in the working tree: skip
            keep.append(Path(name).as_posix())
    return sorted(keep)


def write_source_zip(root: Path, dest: Path, extra: dict[str, bytes] | None = None) -> int:
    """Write the zip to ``dest``; returns its size in bytes. ``extra`` adds
    built files (name inside the project -> bytes), e.g. the executed notebooks."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name in tracked_files(root):
            path = root / name
            info = zipfile.ZipInfo(PREFIX + name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            mode = 0o755 if os.access(path, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            zf.writestr(info, path.read_bytes(), compresslevel=9)
        for name in sorted(extra or {}):
            info = zipfile.ZipInfo(PREFIX + name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (0o100000 | 0o644) << 16
            zf.writestr(info, extra[name], compresslevel=9)
    return dest.stat().st_size
