"""python -m export [--models DIR] [--out DIR]

Exports the three seed-11 checkpoints of a models folder (its checkpoints/
and results.json) to ONNX and writes metadata.json, parity.json, vocab.json
and presets.json (default: models/ -> build/export). Run by hand it always
exports; the build runner (python -m common.runner, `make site`) runs it only
when its inputs or code changed. The experiments over the test split are a
stage of their own: python -m export.experiments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common.layout import ModelsFolder
from common.settings import EXPORT_DIR, MODELS_DIR
from models.checkpoints import CheckpointError
from models.corpus import DataError

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
    args = ap.parse_args(argv)
    try:
        run(ModelsFolder(args.models), args.out)
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
