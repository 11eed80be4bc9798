"""python -m common.runner: the build, stage by stage (`make site`).

    python -m common.runner [--force STAGE ...] [--from STAGE] [--only STAGE ...] [--status] [--list]

Runs the stages of common/stages.py in order (models, export, experiments,
tables, notebooks, site), each as ``python -m MODULE`` in a subprocess. One
rule decides whether a stage runs: its fingerprint, a SHA-256 over the
content hashes of its inputs and of the code it runs (the files it names and
every project module they import), its arguments, the versions of its tools
and of Python. A stage is skipped when its fingerprint equals the one
recorded after its last success (build/.stages/NAME.json) and its outputs are
still the files it left; otherwise it runs, and every later stage whose
inputs it changed runs after it. A file whose modification time changed but
whose bytes did not changes nothing.

A failed stage stops the runner with the stage's exit status and leaves no
record, so the next run tries it again; its outputs are as the stage left
them (every stage publishes atomically). One runner runs at a time
(build/.stages/.lock); the stages also take build/.lock themselves.

One line per stage: ``runner: NAME skipped: unchanged``, or the reason it
runs, its own output, then ``runner: NAME ran in N s``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import fcntl
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from . import children
from .settings import BUILD_DIR, ROOT
from .stages import NAMES, STAGES, TRACKED, Stage

RECORDS = BUILD_DIR / ".stages"
# folders never read as inputs when a folder is walked (caches, environments, outputs of the tools)
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".git", ".venv", "node_modules", "mutants"}
SKIP_SUFFIXES = (".pyc", ".tmp")
UNTRACKED_ROOT_DIRS = {"build"}  # without git, what TRACKED leaves out at the top level
RACY_NS = 2_000_000_000  # a file changed this recently is hashed again next time, whatever its stat says


# ------------------------------------------------------------------ content hashes


_HASHES: dict[str, tuple[tuple, str]] = {}  # path -> (stat signature, SHA-256): a cache, checked by stat


def file_digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes (None when it does not exist). Cached by its
    stat (mtime, size, inode, ctime) in this process, except while the file is
    younger than RACY_NS, so that two writes within one clock tick are seen."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    sig = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
    hit = _HASHES.get(str(path))
    if hit is not None and hit[0] == sig:
        return hit[1]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    digest = h.hexdigest()
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_NS:
        _HASHES[str(path)] = (sig, digest)
    return digest


def _key(path: Path, root: Path) -> str:
    """How a file is named in a fingerprint: relative to the root, so that a copy of the project gives the same one."""
    text, prefix = str(path), str(root).rstrip(os.sep) + os.sep
    return text[len(prefix) :].replace(os.sep, "/") if text.startswith(prefix) else text


def _walk(folder: Path) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        found += [Path(dirpath, f) for f in sorted(filenames) if not f.endswith(SKIP_SUFFIXES)]
    return found


def tracked(root: Path) -> list[Path]:
    """Every file git tracks under ``root``; without git, the tree minus build
    outputs, environments and caches (the files the site's code download takes)."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        names = [n for n in out.decode("utf-8").split("\0") if n]
        return [root / n for n in names if not set(Path(n).parts) & SKIP_DIRS]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for child in sorted(root.iterdir()):
            if child.name in SKIP_DIRS | UNTRACKED_ROOT_DIRS or child.name.endswith(".egg-info"):
                continue
            files += _walk(child) if child.is_dir() else [child]
        return files


def expand(patterns: Iterable[str], root: Path) -> dict[str, Path]:
    """key -> path for every file the patterns name: a file, a folder (every
    file under it), a glob (``**`` for any depth) or TRACKED. A named file or
    folder that does not exist is kept, so that its appearance is a change."""
    found: dict[str, Path] = {}
    for pattern in patterns:
        if pattern == TRACKED:
            paths = tracked(root)
        elif any(c in pattern for c in "*?["):
            base = Path(pattern)
            paths = sorted(base.parent.glob(base.name)) if base.is_absolute() else sorted(root.glob(pattern))
            paths = [p for p in paths if p.is_file() and not p.name.endswith(SKIP_SUFFIXES)]
            paths = [p for p in paths if not set(Path(_key(p, root)).parts) & SKIP_DIRS]
        else:
            path = root / pattern
            paths = _walk(path) if path.is_dir() else [path]
        for path in paths:
            found[_key(path, root)] = path
    return dict(sorted(found.items()))


# ------------------------------------------------------------------ the code a stage runs


_IMPORTS: dict[str, tuple[str, ...]] = {}  # SHA-256 of a source -> the modules it imports, with their packages


def _module_file(dotted: str, root: Path) -> Path | None:
    path = root.joinpath(*dotted.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


def _imports(path: Path, root: Path, digest: str) -> tuple[str, ...]:
    """The absolute names of every module ``path`` imports (any scope, relative
    ones resolved) and of the packages above them, which importing runs too."""
    if digest in _IMPORTS:
        return _IMPORTS[digest]
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        tree = ast.Module(body=[], type_ignores=[])  # the stage itself will report it
    package = list(path.relative_to(root).parent.parts) if path.is_relative_to(root) else []  # of a module or __init__
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base:
                names.add(base)
            names.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
    prefixes = {".".join(parts[:i]) for parts in (n.split(".") for n in names) for i in range(1, len(parts) + 1)}
    _IMPORTS[digest] = tuple(sorted(prefixes))
    return _IMPORTS[digest]


def code_files(patterns: Iterable[str], root: Path, modules: dict | None = None) -> dict[str, Path]:
    """The files the patterns name and every project module they import, transitively
    (a package's ``__init__.py`` with each of its modules). ``modules``: a cache of
    module name -> file to share between calls that look at the same tree at once."""
    modules = {} if modules is None else modules
    todo = list(expand(patterns, root).values())
    found: dict[str, Path] = {}
    while todo:
        path = todo.pop()
        key = _key(path, root)
        if key in found:
            continue
        found[key] = path
        digest = file_digest(path) if key.endswith(".py") else None
        if digest is None:
            continue
        for name in _imports(path, root, digest):
            if name not in modules:
                modules[name] = _module_file(name, root)
            if modules[name] is not None:
                todo.append(modules[name])
    return dict(sorted(found.items()))


# ------------------------------------------------------------------ the fingerprint


def tool_versions(tools: Iterable[str]) -> dict[str, str]:
    versions = {}
    for tool in tools:
        try:
            versions[tool] = metadata.version(tool)
        except metadata.PackageNotFoundError:
            versions[tool] = "absent"
    return versions


@dataclass(frozen=True)
class Fingerprint:
    """A stage's fingerprint (``digest``) and what it was made of."""

    inputs: dict[str, str | None]
    code: dict[str, str | None]
    args: list[str]
    tools: dict[str, str]
    python: str = field(default_factory=platform.python_version)

    @property
    def digest(self) -> str:
        parts = dict(inputs=self.inputs, code=self.code, args=self.args, tools=self.tools, python=self.python)
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()

    def changes(self, record: dict) -> str:
        """What differs from a recorded fingerprint, in words."""
        for part in ("code", "inputs"):
            old, new = record.get(part, {}), getattr(self, part)
            changed = sorted(k for k in old.keys() | new.keys() if old.get(k, "") != new.get(k, ""))
            if changed:
                more = f" (+{len(changed) - 1})" if len(changed) > 1 else ""
                return f"{'code' if part == 'code' else 'input'} changed: {changed[0]}{more}"
        for part in ("args", "tools", "python"):
            if record.get(part) != getattr(self, part):
                return f"{part} changed"
        return "changed"


def fingerprint(
    inputs: Iterable[str], code: Iterable[str] = (), args: Sequence[str] = (), tools: Iterable[str] = (), root=ROOT
) -> Fingerprint:
    """The one fingerprint rule: content hashes of the inputs and of the code
    (with every project module it imports), the arguments, the tool versions."""
    root = Path(root)
    return Fingerprint(
        inputs={k: file_digest(p) for k, p in expand(inputs, root).items()},
        code={k: file_digest(p) for k, p in code_files(code, root).items()},
        args=list(args),
        tools=tool_versions(tools),
    )


# ------------------------------------------------------------------ the runner


@dataclass
class Runner:
    stages: Sequence[Stage] = STAGES
    root: Path = ROOT
    records: Path | None = None  # default: ROOT/build/.stages
    log: object = print
    python: str = sys.executable

    def __post_init__(self):
        self.root = Path(self.root)
        self.records = Path(self.records) if self.records is not None else self.root / RECORDS.relative_to(ROOT)

    def _say(self, text: str) -> None:
        self.log(f"runner: {text}")
        sys.stdout.flush()

    def record_path(self, stage: Stage) -> Path:
        return self.records / f"{stage.name}.json"

    def fingerprint(self, stage: Stage) -> Fingerprint:
        return fingerprint(stage.inputs, stage.code, stage.args, stage.tools, self.root)

    def outputs(self, stage: Stage) -> dict[str, str | None]:
        return {k: file_digest(p) for k, p in expand(stage.outputs, self.root).items()}

    def read_record(self, stage: Stage) -> dict | None:
        try:
            record = json.loads(self.record_path(stage).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def check(self, stage: Stage) -> tuple[Fingerprint, str | None]:
        """(fingerprint, why the stage must run); the reason is None when it is up to date."""
        fp = self.fingerprint(stage)
        record = self.read_record(stage)
        if record is None:
            return fp, "no record of a successful run"
        if record.get("fingerprint") != fp.digest:
            return fp, fp.changes(record)
        now, then = self.outputs(stage), record.get("outputs", {})
        absent = sorted(k for k, v in now.items() if v is None)
        if absent or not now:
            return fp, f"output missing: {absent[0] if absent else ', '.join(stage.outputs)}"
        changed = sorted(k for k in now.keys() | then.keys() if now.get(k) != then.get(k))
        if changed:
            return fp, f"output changed since its run: {changed[0]}" + (
                f" (+{len(changed) - 1})" if len(changed) > 1 else ""
            )
        return fp, None

    def stale(self) -> list[str]:
        """The stages that would run now (ignoring that a rerun may make later ones stale too)."""
        return [s.name for s in self.stages if self.check(s)[1] is not None]

    def watched(self) -> dict[str, tuple[int, int]]:
        """key -> (mtime, size) of every input and code file of every stage: what `make serve` polls."""
        stamps, modules = {}, {}
        for stage in self.stages:
            code = code_files(stage.code, self.root, modules)
            for key, path in [*expand(stage.inputs, self.root).items(), *code.items()]:
                try:
                    st = os.stat(path)
                    stamps[key] = (st.st_mtime_ns, st.st_size)
                except OSError:
                    stamps[key] = (-1, -1)
        return stamps

    @contextlib.contextmanager
    def lock(self):
        self.records.mkdir(parents=True, exist_ok=True)
        with open(self.records / ".lock", "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._say(f"waiting for another build runner ({self.records / '.lock'})")
                fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(self.root), *filter(None, [env.get("PYTHONPATH")])])
        return env

    def select(self, only: Sequence[str] | None = None, start: str | None = None) -> list[Stage]:
        names = [s.name for s in self.stages]
        for name in [*(only or []), *([start] if start else [])]:
            if name not in names:
                raise KeyError(f"no stage named {name!r} (stages: {', '.join(names)})")
        return [s for s in self.stages if not only or s.name in only]

    def run(
        self, only: Sequence[str] | None = None, force: Sequence[str] = (), start: str | None = None, dry_run=False
    ) -> int:
        """Run every stale stage in order (``only``: just these; ``force``: these
        even when unchanged; ``start``: that stage and every later one, forced).
        Returns 0, or the exit status of the stage that failed."""
        chosen = self.select(only, start)
        for name in force:
            self.select([name])
        forced = set(force)
        if start:
            forced |= {s.name for s in self.stages[[s.name for s in self.stages].index(start) :]}
        with self.lock():
            for stage in chosen:
                fp, reason = self.check(stage)
                if stage.name in forced:
                    reason = "forced" + (f"; {reason}" if reason else "")
                if reason is None:
                    self._say(f"{stage.name} skipped: unchanged")
                    continue
                if dry_run:
                    self._say(f"{stage.name} would run ({reason})")
                    continue
                self._say(f"{stage.name} runs `{stage.command}` ({reason})")
                self.record_path(stage).unlink(missing_ok=True)  # a failure leaves no record
                args = [*stage.args, *(stage.force_args if stage.name in forced else ())]
                started = time.monotonic()
                command = [self.python, "-m", stage.module, *args]
                code = children.run(command, cwd=self.root, env=self._env()).returncode
                seconds = time.monotonic() - started
                if code != 0:
                    later = chosen[chosen.index(stage) + 1 :]
                    self._say(
                        f"{stage.name} failed (exit status {code}) after {seconds:.1f} s; nothing recorded"
                        + (f", not run: {', '.join(s.name for s in later)}" if later else "")
                    )
                    return code if code > 0 else 128 - code
                record = {
                    "stage": stage.name,
                    "command": stage.command,
                    "fingerprint": fp.digest,
                    "seconds": round(seconds, 1),
                    "outputs": self.outputs(stage),
                    "inputs": fp.inputs,
                    "code": fp.code,
                    "args": fp.args,
                    "tools": fp.tools,
                    "python": fp.python,
                }
                tmp = self.records / f".{stage.name}.json.tmp"
                tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
                os.replace(tmp, self.record_path(stage))
                self._say(f"{stage.name} ran in {seconds:.1f} s")
        return 0


def describe(stages: Sequence[Stage] = STAGES, root: Path = ROOT) -> str:
    """The stage table: command, inputs, code (with what it imports) and outputs of each stage."""
    lines = []
    for s in stages:
        code = code_files(s.code, Path(root))
        lines += [
            f"{s.name}: {s.command}   ({s.about})" if s.about else f"{s.name}: {s.command}",
            f"  inputs:  {', '.join(s.inputs)}",
            f"  code:    {', '.join(s.code)} -> {len(code)} files: {', '.join(code)}",
            f"  tools:   {', '.join(s.tools)}",
            f"  outputs: {', '.join(s.outputs)}",
        ]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m common.runner", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--force", nargs="+", default=[], metavar="STAGE", choices=NAMES, help="run these even when unchanged"
    )
    p.add_argument("--from", dest="start", metavar="STAGE", choices=NAMES, help="run this stage and every later one")
    p.add_argument("--only", nargs="+", metavar="STAGE", choices=NAMES, help="check and run only these stages")
    p.add_argument("--status", action="store_true", help="say which stages would run and why; run nothing")
    p.add_argument("--list", action="store_true", help="print every stage's command, inputs, code and outputs")
    a = p.parse_args(argv)
    if a.list:
        print(describe())
        return 0
    try:
        return Runner().run(only=a.only, force=a.force, start=a.start, dry_run=a.status)
    except KeyboardInterrupt:
        print("runner: interrupted; the stage that was running recorded nothing", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
