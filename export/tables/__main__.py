"""python -m export.tables: compute every table of every deck once and write
build/tables/NAME.json. Nothing is written unless every table succeeded;
each file is replaced atomically, and files no table produces are removed."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from common.publish import build_lock
from common.settings import TABLES_DIR

from . import DECKS, TablesError, compute_all


def write_tables(tables: dict[str, str], out: Path, remove_stale: bool = True) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in sorted(tables):
        target = out / f"{name}.json"
        tmp = out / f".{name}.json.tmp"
        tmp.write_text(tables[name], encoding="utf-8")
        os.replace(tmp, target)
    for stale in sorted(out.glob("*.json")) if remove_stale else []:
        if stale.stem not in tables:
            stale.unlink()


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
        tables = compute_all(args.only)
    except TablesError as exc:
        print(f"tables failed: {exc}", file=sys.stderr)
        print(f"nothing written; {args.out} is unchanged", file=sys.stderr)
        return 1
    try:
        with build_lock(args.out.parent):
            write_tables(tables, args.out, remove_stale=args.only is None)
    except OSError as exc:  # a read-only or full disk: name the path, no traceback
        print(f"tables failed: cannot write {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{len(tables)} tables written to {args.out}: {', '.join(sorted(tables))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
