"""Publishing a build output folder: one build at a time (a file lock on
build/), and the atomic swap of a finished staging folder for the output.

On Linux the swap is one atomic exchange of the two folders (renameat2 with
RENAME_EXCHANGE): ``out`` always exists and holds a complete output, even for
a reader in the middle of it. Elsewhere (or on a file system without it) the
swap is two renames: ``out`` -> ``.out.old``, then ``.out.staging`` -> ``out``.
A crash between them leaves no ``out`` but a complete ``.out.old``;
``recover(out)``, which every build runs first, renames it back, so the
previous output is restored before anything else happens.

An output folder is only ever replaced when it is a previous output of this
project (it holds the MARKER file every staging folder gets first), is empty,
or lies inside the project's build/ folder; ``check_out`` also refuses an
output that contains or lies inside the project or an input of the stage, so
that `--out content` or `--out .` deletes nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import sys
from pathlib import Path

from .settings import BUILD_DIR, ROOT

EXCHANGE = sys.platform.startswith("linux")  # use renameat2(RENAME_EXCHANGE) when the system has it
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


MARKER = ".attention-course-output"  # written first into every staging folder, so every output holds it
MARKER_TEXT = "This folder is an output of the attention course build; each build replaces it whole.\n"


class BuildBusy(RuntimeError):
    """Another build holds the lock and we were asked not to wait."""


class OutputRefused(ValueError):
    """The output folder may not be replaced (it is not a previous output, or it holds sources)."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def is_ours(folder: Path) -> bool:
    """May the build delete ``folder``? A previous output (the marker), an
    empty folder, or one inside the project's build/ folder."""
    folder = Path(folder).resolve()
    if not folder.is_dir() or (folder / MARKER).is_file() or not any(folder.iterdir()):
        return folder.is_dir()
    return folder != BUILD_DIR.resolve() and _inside(folder, BUILD_DIR.resolve())


def check_out(out: Path, root: Path = ROOT, inputs=(), option: str = "--out") -> None:
    """Raise OutputRefused unless ``out`` may be replaced by a build: it must
    not be, contain or lie inside the project folder (its build/ folder
    excepted) or any of ``inputs``, and must be absent, empty, a previous
    output or inside build/. Its staging and old siblings likewise."""
    out, root = Path(out).resolve(), Path(root).resolve()
    if _inside(root, out):
        raise OutputRefused(f"{option} {out}: holds the project's sources ({root}); choose an empty or new folder")
    if _inside(out, root) and not _inside(out, root / "build"):
        raise OutputRefused(f"{option} {out}: inside the project's sources; outputs go under {root / 'build'}")
    for source in inputs:
        if source is None:
            continue
        source = Path(source).resolve()
        if _inside(out, source) or _inside(source, out):
            raise OutputRefused(f"{option} {out}: contains or lies inside the build's input {source}")
    for folder in (out, staging_dir(out), old_dir(out)):
        if folder.exists() and not is_ours(folder):
            raise OutputRefused(
                f"{option} {folder}: "
                + ("not a folder" if not folder.is_dir() else f"not empty and not a previous build (no {MARKER} in it)")
                + "; the build replaces its output whole, so choose an empty or new folder"
            )


def staging_dir(out: Path) -> Path:
    return out.parent / f".{out.name}.staging"


def old_dir(out: Path) -> Path:
    return out.parent / f".{out.name}.old"


def recover(out: Path) -> None:
    """Undo an interrupted swap (restore ``out`` from ``.out.old``) and remove
    leftovers of an interrupted build."""
    out = Path(out)
    old, staging = old_dir(out), staging_dir(out)
    for folder in (old, staging):
        if folder.exists() and not is_ours(folder):
            raise OutputRefused(f"{folder}: not left by a build (no {MARKER} in it); remove it yourself")
    if old.exists():
        if out.exists():
            shutil.rmtree(old)
        else:
            old.rename(out)
    if staging.exists():
        shutil.rmtree(staging)


def fresh_staging(out: Path) -> Path:
    """Recover, then return an empty staging folder beside ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    recover(out)
    staging = staging_dir(out)
    staging.mkdir()
    (staging / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    return staging


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange the folders ``a`` and ``b``; False when the system
    or the file system cannot."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None) if EXCHANGE else None
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` by the complete folder ``staging`` (callers check ``out`` first: check_out)."""
    if out.exists() and _exchange(staging, out):
        shutil.rmtree(staging)  # it now holds the previous output
        return
    old = old_dir(out)
    if out.exists():
        out.rename(old)
    try:
        staging.rename(out)
    except BaseException:
        if old.exists() and not out.exists():
            old.rename(out)  # put the previous output back before reporting the failure
        raise
    if old.exists():
        shutil.rmtree(old)


@contextlib.contextmanager
def build_lock(build_dir: Path = BUILD_DIR, wait: bool = True):
    """Hold the build lock (an exclusive flock on build_dir/.lock) for the
    duration of the block. A second build waits for the first (saying so),
    or raises BuildBusy with ``wait=False``."""
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(build_dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip()
            who = f"another build is running (pid {holder})" if holder else "another build is running"
            if not wait:
                raise BuildBusy(f"{build_dir}: {who}") from exc
            print(f"{build_dir}: {who}; waiting for it to finish", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock
