"""python -m site_builder: build/tables + content/ (+ build/export) -> build/site."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import notebooks
from .assemble import BuildError
from .build import Inputs, build


def parse_args(argv=None) -> Inputs:
    d = Inputs()
    p = argparse.ArgumentParser(prog="python -m site_builder", description=__doc__)
    p.add_argument("--content", type=Path, default=d.content, help="content folder (decks/, maps/, index.md)")
    p.add_argument("--tables", type=Path, default=d.tables, help="folder of table JSON (python -m export.tables)")
    p.add_argument("--export", type=Path, default=d.export, help="export folder copied to site/onnx/")
    p.add_argument(
        "--no-export", action="store_true", help="development only: do not copy the export (site/onnx/ will be absent)"
    )
    p.add_argument(
        "--notebooks",
        type=Path,
        default=notebooks.OUT,
        help="folder of executed notebooks copied to site/notebooks/ (python -m site_builder.notebooks)",
    )
    p.add_argument(
        "--no-notebooks",
        action="store_true",
        help="development only: leave the notebooks out (site/notebooks/ will be absent)",
    )
    p.add_argument("--out", type=Path, default=d.out, help="output folder, replaced only on success")
    a = p.parse_args(argv)
    return Inputs(
        content=a.content,
        tables=a.tables,
        export=None if a.no_export else a.export,
        out=a.out,
        notebooks=None if a.no_notebooks else a.notebooks,
    )


def main(argv=None) -> int:
    inp = parse_args(argv)
    try:
        out = build(inp)
    except BuildError as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        print(f"the previous {inp.out} is unchanged", file=sys.stderr)
        return 1
    print(f"site written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
