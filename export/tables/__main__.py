"""python -m export.tables: compute every table of every deck once and write
build/tables/NAME.json. Nothing is written unless every table succeeded;
each file is replaced atomically. The output folder follows
common.publish's rule for every output: a new or empty folder or one this
command wrote before (its marker lists the tables it wrote), checked before
anything is computed; a table it wrote before and no table produces now is
removed, any other file is left alone."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from common.layout import MODELS
from common.publish import OutputRefused, build_lock, check_out, claim, record_written
from common.settings import BENCH_FILE, EXPORT_DIR, ROOT, TABLES_DIR

from . import DECKS, TablesError, compute_all

OWNER = "python -m export.tables"  # the command named in the output's marker
INPUTS = (MODELS.root, EXPORT_DIR, ROOT / "build" / "experiments", BENCH_FILE, ROOT / "data")


def write_tables(tables: dict[str, str], out: Path, remove_stale: bool = True) -> Path:
    """Write ``tables`` into ``out`` (claimed for this command); with
    ``remove_stale``, remove the tables this command wrote before that no
    table produces now (never a file it did not write). Returns the folder."""
    out = claim(out, OWNER, inputs=INPUTS, adopt=TABLES_DIR)
    for name in sorted(tables):
        target = out / f"{name}.json"
        tmp = out / f".{name}.json.tmp"
        tmp.write_text(tables[name], encoding="utf-8")
        os.replace(tmp, target)
    record_written(out, OWNER, [f"{name}.json" for name in tables], remove_others=remove_stale)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m export.tables", description=__doc__)
    p.add_argument("--out", type=Path, default=TABLES_DIR)
    p.add_argument(
        "--only",
        nargs="+",
        metavar="DECK_OR_TABLE",
        help=f"development: compute only these decks ({', '.join(DECKS)}) or tables, with what they need; "
        "other tables are left as they are",
    )
    args = p.parse_args(argv)
    try:
        check_out(
            args.out, inputs=INPUTS, owner=OWNER, adopt=TABLES_DIR, whole=False
        )  # before the minutes of computing
    except OutputRefused as exc:
        print(f"tables failed: {exc}", file=sys.stderr)
        return 2
    try:
        tables = compute_all(args.only)
    except TablesError as exc:
        print(f"tables failed: {exc}", file=sys.stderr)
        print(f"nothing written; {args.out} is unchanged", file=sys.stderr)
        return 1
    try:
        with build_lock():
            out = write_tables(tables, args.out, remove_stale=args.only is None)
    except OutputRefused as exc:
        print(f"tables failed: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a read-only or full disk: name the path, no traceback
        print(f"tables failed: cannot write {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{len(tables)} tables written to {out}: {', '.join(sorted(tables))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
