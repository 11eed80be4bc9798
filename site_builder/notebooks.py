"""python -m site_builder.notebooks: execute the companion notebooks.

Each ``notebooks/<deck>.py`` (jupytext percent format) is converted to a
notebook and executed top to bottom in a fresh Python kernel (nbclient +
ipykernel); the executed copy, outputs included, is written to
``build/notebooks/<deck>.ipynb``, which the site build copies to
``build/site/notebooks/``. Every notebook ends with a cell that compares its
values with ``build/tables/*.json`` and raises on a mismatch, so a wrong number
stops this step (and ``make site``) with the notebook and cell named.

Runs after ``python -m export.tables`` (the build runner's notebooks stage).
A notebook is executed again only when its fingerprint changed, by the
runner's one rule (common/runner.py ``fingerprint``): the content hashes of
its source and the project code it imports or reads (``CODE``), the checkpoint
records, results, corpus audit and export JSON, the tool versions, and the
tables it reads: those its final check compared the last time it ran (every
table when it has no check, or has not run yet). ``--force`` runs all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

from common import runner
from common.layout import ModelsFolder
from common.publish import OutputRefused, build_lock, check_out, claim, record_written
from common.settings import BUILD_DIR, EXPORT_DIR, MODELS_DIR, ROOT, TABLES_DIR

from .notebook_check import TABLES_ENV

SOURCES = ROOT / "notebooks"
TABLES = TABLES_DIR
OUT = BUILD_DIR / "notebooks"
CELL_TIMEOUT_S = 600
KERNEL = "python3"
OWNER = "python -m site_builder.notebooks"  # the command named in the output's marker
# what the notebooks import or read besides their own source and the tables
CODE = (
    "site_builder/notebooks.py",
    "site_builder/notebook_check.py",
    "models/*.py",
    "common/*.py",
    "export/decoding.py",
    "data/tinystories/*.gz",
)
TOOLS = ("nbclient", "nbformat", "ipykernel", "jupytext", "torch", "numpy")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
CHECKED = re.compile(r"^(?:ok  |DIFF) ([A-Za-z0-9_]+)[.\s]", re.M)  # the final check's lines (notebook_check.check)


class NotebookError(RuntimeError):
    """A notebook failed to convert or run; the message names it."""


class NotebooksStopped(NotebookError):
    """Ctrl-C or SIGTERM while a notebook ran: nbclient shut its kernel down;
    the notebooks executed before it are kept, this one is not written."""


def sources(folder: Path = SOURCES) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


def fingerprint(source: Path, tables: Path = TABLES, root: Path = ROOT, read: list[str] | None = None) -> str:
    """SHA-256 over everything an executed notebook depends on (common.runner's
    rule); ``read``: the tables it reads (None: every table of ``tables``)."""
    models = ModelsFolder(root / MODELS_DIR.relative_to(ROOT))
    export = root / EXPORT_DIR.relative_to(ROOT)
    chosen = [str(tables / "*.json")] if read is None else [str(tables / f"{name}.json") for name in read]
    inputs = [*chosen, str(models.checkpoints / "*.json"), str(models.results), str(models.audit)]
    inputs.append(str(export / "*.json"))  # the results notebook reads the presets
    return runner.fingerprint(inputs, [str(source), *CODE], tools=TOOLS, root=root).digest


def stamp_path(out: Path, name: str) -> Path:
    return out / f"{name}.stamp.json"


def read_stamp(out: Path, name: str) -> dict:
    try:
        stamp = json.loads(stamp_path(out, name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def is_fresh(source: Path, out: Path = OUT, tables: Path = TABLES, root: Path = ROOT) -> bool:
    """Was out/<name>.ipynb executed from exactly the current inputs?"""
    stamp = read_stamp(out, source.stem)
    if not stamp or not (out / f"{source.stem}.ipynb").is_file():
        return False
    read = stamp.get("tables")
    return stamp.get("fingerprint") == fingerprint(source, tables, root, read if isinstance(read, list) else None)


def checked_tables(nb) -> list[str] | None:
    """The tables the final check of an executed notebook compared (None when it has no check)."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    text = "".join(o.get("text", "") for o in (code[-1].outputs if code else []) if o.get("output_type") == "stream")
    return sorted(set(CHECKED.findall(text))) or None


def execute(source: Path, tables: Path = TABLES, cwd: Path | None = None, timeout: int = CELL_TIMEOUT_S):
    """Convert ``source`` and run it in a fresh kernel; returns the executed
    notebook. Raises NotebookError naming the notebook and the failing cell."""
    import jupytext
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    try:
        nb = jupytext.read(source, fmt="py:percent")
    except Exception as exc:  # jupytext raises several kinds
        raise NotebookError(f"{source}: not a jupytext percent notebook ({exc})") from exc
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    nb.metadata.pop("jupytext", None)
    env = dict(os.environ, **{TABLES_ENV: str(Path(tables).resolve())})
    env.pop("JUPYTER_PLATFORM_DIRS", None)
    with tempfile.TemporaryDirectory(prefix="nb-") as scratch:
        run_dir = Path(cwd) if cwd is not None else Path(scratch)  # never the project folder by default
        # The kernel is this interpreter's ipykernel (no kernelspec installed elsewhere can
        # replace it), and it talks to this process over Unix sockets in the scratch
        # folder: no TCP port at all.
        km = KernelManager(
            kernel_name=KERNEL,
            kernel_spec_manager=KernelSpecManager(kernel_dirs=[]),
            transport="ipc",
            ip=str(Path(scratch) / "kernel"),
        )
        client = NotebookClient(
            nb,
            km=km,
            timeout=timeout,
            kernel_name=KERNEL,
            record_timing=False,
            resources={"metadata": {"path": str(run_dir)}},
        )
        try:
            client.execute(env=env, cwd=str(run_dir))
        except Exception as exc:
            # nbclient answers SIGINT and SIGTERM by shutting the kernel down (its on_signal
            # sets this future); the cell in flight then fails in one way or another
            if getattr(client, "_async_cleanup_kernel_future", None) is not None:
                raise NotebooksStopped(
                    f"stopped (Ctrl-C or SIGTERM) while {source.name} ran: its kernel is shut down and "
                    "it is not written; the notebooks executed before it are kept"
                ) from None
            if isinstance(exc, (CellExecutionError, CellTimeoutError, DeadKernelError)):
                raise NotebookError(f"{source.name}: {type(exc).__name__}: {ANSI.sub('', str(exc))}") from exc
            raise
        finally:
            if km.has_kernel:  # nbclient leaves a kernel manager it did not create running
                km.shutdown_kernel(now=False)
    return settle(nb, source.stem)


def settle(nb, name: str):
    """Make an executed notebook's bytes a function of its inputs alone, so two
    clones of one commit build the same site (and the same build id): cell ids
    ``<name>-<n>`` instead of nbformat's random ones, and each cell's consecutive
    stream outputs of one stream joined (the kernel splits them by timing)."""
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{name}-{i}"[-64:]
        outputs = []
        for out in cell.get("outputs", []):
            prev = outputs[-1] if outputs else None
            if (
                prev is not None
                and out.get("output_type") == "stream"
                and prev.get("output_type") == "stream"
                and prev.get("name") == out.get("name")
            ):
                prev["text"] = prev["text"] + out["text"]
            else:
                outputs.append(out)
        if "outputs" in cell:
            cell["outputs"] = outputs
    return nb


def errors(nb) -> list[str]:
    """Error outputs left in an executed notebook (empty when it ran clean)."""
    found = []
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append(f"cell {i}: {output.get('ename')}: {output.get('evalue')}")
    return found


def write(nb, target: Path) -> None:
    import nbformat

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    nbformat.write(nb, str(tmp))
    os.replace(tmp, target)


def _child_cpu() -> float:
    """CPU seconds used by finished child processes (the kernels): unlike wall
    time, it does not grow when other programs load the machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_all(
    folder: Path = SOURCES,
    tables: Path = TABLES,
    out: Path = OUT,
    force: bool = False,
    only: list[str] | None = None,
    log=print,
) -> dict[str, float | None]:
    """Execute every stale notebook; returns name -> seconds (None when cached).
    ``out`` follows common.publish's rule for every output folder (refused,
    with NotebookError naming it, before anything runs)."""
    rules = dict(inputs=(folder, tables, EXPORT_DIR, MODELS_DIR), option="--out", adopt=OUT)
    try:
        out = check_out(out, owner=OWNER, whole=False, **rules)
    except OutputRefused as exc:
        raise NotebookError(str(exc)) from exc
    if not tables.is_dir() or not any(tables.glob("*.json")):
        raise NotebookError(f"{tables}: no tables (run `python -m export.tables` first)")
    chosen = sources(folder)
    if not chosen:
        raise NotebookError(f"{folder}: no notebooks (*.py) found")
    if only:
        unknown = sorted(set(only) - {p.stem for p in chosen})
        if unknown:
            raise NotebookError(f"no such notebook: {', '.join(unknown)} (have {', '.join(p.stem for p in chosen)})")
        chosen = [p for p in chosen if p.stem in only]
    times: dict[str, float | None] = {}
    for source in chosen:
        if not force and is_fresh(source, out, tables):
            log(f"notebooks: {source.stem} unchanged, kept {out / (source.stem + '.ipynb')}")
            times[source.stem] = None
            continue
        start, cpu0 = time.perf_counter(), _child_cpu()
        nb = execute(source, tables)
        seconds, cpu = time.perf_counter() - start, _child_cpu() - cpu0
        left = errors(nb)
        if left:
            raise NotebookError(f"{source.name}: error outputs: {'; '.join(left)}")
        with build_lock():
            out = claim(out, OWNER, **rules)
            write(nb, out / f"{source.stem}.ipynb")
            record_written(out, OWNER, [f"{source.stem}.ipynb", stamp_path(out, source.stem).name])
        read = checked_tables(nb)
        stamp = {
            "fingerprint": fingerprint(source, tables, read=read),
            "tables": read,
            "seconds": round(seconds, 2),
            "kernel_cpu_seconds": round(cpu, 2),
        }
        tmp = out / f".{source.stem}.stamp.json.tmp"
        tmp.write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, stamp_path(out, source.stem))
        log(
            f"notebooks: {source.stem} ran clean in {seconds:.1f} s ({cpu:.1f} s kernel CPU) "
            f"-> {out / (source.stem + '.ipynb')}"
        )
        times[source.stem] = seconds
    return times


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m site_builder.notebooks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--force", action="store_true", help="execute every notebook, even unchanged ones")
    p.add_argument("--only", nargs="+", metavar="NAME", help="execute only these notebooks (e.g. maps)")
    p.add_argument("--tables", type=Path, default=TABLES, help="folder of table JSON the notebooks check against")
    p.add_argument("--out", type=Path, default=OUT, help="folder for the executed .ipynb files")
    a = p.parse_args(argv)
    try:
        run_all(tables=a.tables, out=a.out, force=a.force, only=a.only)
    except NotebooksStopped as exc:
        print(f"notebooks: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # between notebooks, where nbclient's handler is not installed
        print("notebooks: stopped (Ctrl-C); the notebooks executed so far are kept", file=sys.stderr)
        return 130
    except NotebookError as exc:
        print(f"notebooks failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
