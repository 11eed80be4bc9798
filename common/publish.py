"""Publishing a build output folder: one build at a time (a file lock in
build/), and the atomic swap of a finished staging folder for the output.

On Linux the swap is one atomic exchange of the two folders (renameat2 with
RENAME_EXCHANGE): ``out`` always exists and holds a complete output, even for
a reader in the middle of it. Elsewhere (or on a file system without it) the
swap is two renames: ``out`` -> ``.out.old``, then ``.out.staging`` -> ``out``.
A crash between them leaves no ``out`` but a complete ``.out.old``;
``recover(out)``, which every build runs first, renames it back, so the
previous output is restored before anything else happens.

One rule for every output folder (site, export, experiments, tables,
notebooks): a command writes only into a new or empty folder or one it wrote
before (its MARKER file names the command and the files it wrote), never
removes a file it did not write, and refuses, before anything is written, a
folder that is, holds or lies inside the project's sources (build/ excepted),
the build/ folder itself, an input of the stage or another command's output
(``check_out``; ``claim`` for the commands that write files into a folder).
A linked output is resolved: the build writes into the folder the link names.
The lock is build/.build.lock, never a file beside the output.
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

LOCK = ".build.lock"  # the lock file in the project's build/ folder
EXCHANGE = sys.platform.startswith("linux")  # use renameat2(RENAME_EXCHANGE) when the system has it
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


MARKER = ".attention-course-output"  # written first into every output folder, so every output holds it
MARKER_TEXT = "This folder is an output of the attention course build; each build replaces it whole.\n"
OWNER, WROTE = "owner: ", "file: "  # the marker's lines after its text: which command owns it, what it wrote


class BuildBusy(RuntimeError):
    """Another build holds the lock and we were asked not to wait."""


class OutputRefused(ValueError):
    """The output folder may not be written (it is not the command's own, or it holds sources)."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def read_marker(folder: Path) -> dict | None:
    """{"owner": command or None (a marker of older builds), "files": names it wrote};
    None when ``folder`` has no marker."""
    path = Path(folder) / MARKER
    if path.is_symlink() or not path.is_file():
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {"owner": None, "files": []}
    owners = [line[len(OWNER) :] for line in lines if line.startswith(OWNER)]
    return {
        "owner": owners[0] if owners else None,
        "files": [line[len(WROTE) :] for line in lines if line.startswith(WROTE)],
    }


def write_marker(folder: Path, owner: str | None, files=()) -> None:
    """Mark ``folder`` as the output of ``owner`` that holds ``files`` (atomic)."""
    text = MARKER_TEXT + (f"{OWNER}{owner}\n" if owner else "") + "".join(f"{WROTE}{n}\n" for n in sorted(set(files)))
    tmp = Path(folder) / f"{MARKER}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, Path(folder) / MARKER)


def is_ours(folder: Path, owner: str | None = None, ownerless: bool = True) -> bool:
    """May a build of ``owner`` write into (or replace) ``folder``? An empty
    folder, or an output of this project (the marker) that is ``owner``'s or,
    with ``ownerless``, says nobody's (written before markers named their command)."""
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return False
    marker = read_marker(folder)
    if marker is None:
        return not any(folder.iterdir())
    return owner is None or marker["owner"] == owner or (ownerless and marker["owner"] is None)


def _refusal(folder: Path, owner: str | None) -> str:
    if folder.is_symlink() or not folder.is_dir():
        return "not a folder"
    marker = read_marker(folder)
    if marker is not None:
        return f"the output of `{marker['owner']}`, not of `{owner}`; give each command a folder of its own"
    return f"not empty and not a previous output of `{owner or 'the build'}` (no {MARKER} in it)"


def resolve_out(out: Path) -> Path:
    """``out`` with every link resolved: a build writes into (and swaps) the
    folder a link names, never replaces the link itself."""
    return Path(os.path.realpath(Path(out).expanduser()))


def check_out(
    out: Path,
    root: Path = ROOT,
    inputs=(),
    option: str = "--out",
    owner: str | None = None,
    adopt: Path | None = None,
    whole: bool = True,
) -> Path:
    """Raise OutputRefused unless a build of ``owner`` may write ``out``; returns
    it with its links resolved. It must not be, contain or lie inside the
    project folder (its build/ folder excepted), the build/ folder itself, any
    of ``inputs`` or another output (a marker above it); it must be absent,
    empty or a previous output of ``owner``. ``adopt``: the command's default
    folder, accepted as older builds left it (without a marker, for a command
    that writes files into it; with a marker naming no command, for one that
    replaces it whole). Its staging
    and old siblings likewise. ``whole``: the command replaces the folder
    whole, so a file in it that its build did not write is refused too."""
    given, out, root = Path(out), resolve_out(out), Path(root).resolve()
    named = f"{option} {given}" + (f" (a link to {out})" if os.path.abspath(given) != str(out) else "")
    if _inside(root, out):
        raise OutputRefused(f"{named}: holds the project's sources ({root}); choose an empty or new folder")
    if _inside(out, root) and not _inside(out, root / "build"):
        raise OutputRefused(f"{named}: inside the project's sources; outputs go under {root / 'build'}")
    if out == root / "build" or out == BUILD_DIR.resolve():
        raise OutputRefused(
            f"{named}: the project's build folder, which holds every stage's output; name a folder in it"
        )
    for source in inputs:
        if source is None:
            continue
        source = resolve_out(source)
        if _inside(out, source) or _inside(source, out):
            raise OutputRefused(f"{named}: contains or lies inside the build's input {source}")
    for parent in out.parents:
        if read_marker(parent) is not None:
            raise OutputRefused(f"{named}: lies inside {parent}, the output of `{read_marker(parent)['owner']}`")
    default = adopt is not None and out == resolve_out(adopt)
    adopted = default and not whole and out.is_dir() and read_marker(out) is None
    # a marker naming no command was left by a site or export build of before: taken where such a build wrote
    ownerless = whole and (default or not _inside(out, root / "build"))
    for folder in (out, staging_dir(out), old_dir(out)):
        if folder.is_symlink() or (
            folder.exists() and not (adopted and folder == out) and not is_ours(folder, owner, ownerless)
        ):
            raise OutputRefused(
                f"{option} {folder}: {_refusal(folder, owner)}; the build writes only into a new or empty folder "
                "or one it wrote before"
            )
    if whole:
        _refuse_foreign(out, option)
    return out


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def foreign_files(out: Path) -> list[str]:
    """Files in a previous output that its build did not write (its marker
    lists what it wrote; an output of older builds, whose marker lists
    nothing, is taken as written whole)."""
    marker = read_marker(out) if Path(out).is_dir() else None
    if marker is None or not marker["files"]:
        return []
    listed = set(marker["files"]) | {MARKER}
    return [name for name in _files(Path(out)) if name not in listed]


def _refuse_foreign(out: Path, option: str = "--out") -> None:
    foreign = foreign_files(out)
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise OutputRefused(
            f"{option} {out}: holds files no build wrote ({shown}); the build replaces the folder whole "
            "and deletes nothing it did not write: move them elsewhere"
        )


def claim(out: Path, owner: str, **rules) -> Path:
    """For a command that writes files into ``out`` (not a whole-folder swap):
    check it (check_out's rules), create it and mark it as ``owner``'s.
    Returns the folder, its links resolved."""
    out = check_out(out, owner=owner, whole=False, **rules)
    out.mkdir(parents=True, exist_ok=True)
    marker = read_marker(out)
    if marker is None or marker["owner"] != owner:
        write_marker(out, owner, marker["files"] if marker else ())
    return out


def written(out: Path) -> set[str]:
    """The files the marker of ``out`` says its command wrote."""
    marker = read_marker(out)
    return set(marker["files"]) if marker else set()


def record_written(out: Path, owner: str, names, remove_others: bool = False) -> list[str]:
    """Add ``names`` to the files ``out``'s marker lists; with ``remove_others``,
    delete the files it listed before that are not among them (only files the
    command wrote: a file it never wrote is never removed). Returns the removed."""
    names, before = set(names), written(out)
    removed = sorted(before - names) if remove_others else []
    for name in removed:
        path = Path(out) / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
    write_marker(out, owner, names if remove_others else before | names)
    return removed


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


def fresh_staging(out: Path, owner: str | None = None) -> Path:
    """Recover, then return an empty staging folder beside ``out``, marked as ``owner``'s."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    recover(out)
    staging = staging_dir(out)
    staging.mkdir()
    write_marker(staging, owner)
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
    """Replace ``out`` by the complete folder ``staging`` (callers check ``out``
    first: check_out). The staging folder's marker lists every file in it
    first, and ``out`` is checked again for files its build did not write."""
    marker = read_marker(staging) or {"owner": None}
    write_marker(staging, marker["owner"], [name for name in _files(staging) if name != MARKER])
    _refuse_foreign(out)
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
    """Hold the build lock (an exclusive flock on build_dir/LOCK, by default
    the project's build/ folder, which only the build writes, whatever the
    output folder) for the duration of the block. A second build waits for
    the first (saying so), or raises BuildBusy with ``wait=False``. A link in
    place of the lock file is refused, never followed."""
    build_dir = Path(build_dir)
    if not build_dir.is_dir():
        build_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(build_dir / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(exc.errno, "a link, not the build's lock file", str(build_dir / LOCK)) from exc
        raise
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
