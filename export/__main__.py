"""python -m export [--models DIR] [--out DIR] [--force]

Exports the three seed-11 checkpoints of a models folder (its checkpoints/
and results.json) to ONNX and writes metadata.json, parity.json, vocab.json
and presets.json (default: models/ -> build/export). Skipped when inputs and
exporter are unchanged. Then measures every head's worth and where attention
wins over the test split (export/experiments.py -> build/experiments/), also
skipped when the checkpoints, data and its code are unchanged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common.layout import ModelsFolder
from common.settings import EXPORT_DIR, MODELS_DIR
from models.checkpoints import CheckpointError
from models.corpus import DataError

from . import experiments
from .pipeline import ExportError, run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m export", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--models",
        type=Path,
        default=MODELS_DIR,
        help="models folder: checkpoints/ and results.json (default %(default)s)",
    )
    ap.add_argument("--out", type=Path, default=EXPORT_DIR, help="output folder (default %(default)s)")
    ap.add_argument("--force", action="store_true", help="export even when nothing changed")
    ap.add_argument(
        "--experiments",
        type=Path,
        default=None,
        help=f"output folder of the head and attention experiments (default: beside --out, "
        f"{experiments.EXPERIMENTS_DIR.name}/; {experiments.EXPERIMENTS_DIR} by default)",
    )
    args = ap.parse_args(argv)
    try:
        run(ModelsFolder(args.models), args.out, args.force)
        experiments.run(ModelsFolder(args.models), args.experiments or args.out.parent / "experiments", args.force)
    except (CheckpointError, ExportError, DataError) as exc:
        print(f"export: error: {exc}", file=sys.stderr)
        print(f"export: {args.out} was left as it was", file=sys.stderr)
        return 2
    except OSError as exc:  # a read-only or full disk: name the path, no traceback
        print(f"export: error: cannot write {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        print(f"export: {args.out} was left as it was", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
