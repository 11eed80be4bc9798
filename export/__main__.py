"""python -m export [--checkpoints DIR] [--results FILE] [--out DIR] [--force]

Exports the three seed-11 checkpoints to ONNX and writes metadata.json,
parity.json, vocab.json and presets.json (default: models/checkpoints ->
build/export). Skipped when inputs and exporter are unchanged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from models.checkpoints import CheckpointError
from models.corpus import DataError

from .pipeline import CHECKPOINTS, OUT, ExportError, run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m export", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoints", type=Path, default=CHECKPOINTS, help="checkpoint folder (default %(default)s)")
    ap.add_argument("--results", type=Path, default=None,
                    help="training results JSON (default: results.json beside the checkpoint folder)")
    ap.add_argument("--out", type=Path, default=OUT, help="output folder (default %(default)s)")
    ap.add_argument("--force", action="store_true", help="export even when nothing changed")
    args = ap.parse_args(argv)
    try:
        run(args.checkpoints, args.out, args.results, args.force)
    except (CheckpointError, ExportError, DataError) as exc:
        print(f"export: error: {exc}", file=sys.stderr)
        print(f"export: {args.out} was left as it was", file=sys.stderr)
        return 2
    except OSError as exc:   # a read-only or full disk: name the path, no traceback
        print(f"export: error: cannot write {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        print(f"export: {args.out} was left as it was", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
