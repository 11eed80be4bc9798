"""The fast reproducibility check: retrain the first steps of one seed-11 run
and compare every trace point on the way with models/training_trace.json.

Training is deterministic on the pinned code paths (models/numerics.py), so
the points must be identical: validation loss, top-10 predictions and
attention weights, to the last digit kept. A difference names the first step
and field that differ. `make test` runs it (tests/test_trace.py).

    python -m models.trace_check [--kind attn1] [--steps 100]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from common.config import CONFIG
from common.layout import ModelsFolder
from common.settings import MODELS_DIR

from . import numerics
from .checkpoints import CheckpointError, load_vocab
from .corpus import PROFILES, prepare
from .nets import KINDS
from .records import load_trace
from .trace import TraceRecorder

CHECKPOINT_SEED = CONFIG.training.checkpoint_seed

DEFAULT_KIND, DEFAULT_STEPS = "attn1", 100


def first_difference(mine: list[dict], committed: list[dict]) -> str | None:
    """Where two lists of trace points first differ, in words (None when equal)."""
    for a, b in zip(mine, committed):
        for key in ("step", "validation_loss", "top10", "attention"):
            if a.get(key) != b.get(key):
                return f"step {b['step']}: {key} differs ({str(a.get(key))[:80]} vs committed {str(b.get(key))[:80]})"
    if len(mine) != len(committed):
        return f"{len(mine)} points recorded, {len(committed)} committed"
    return None


def check(folder: ModelsFolder, kind: str, steps: int) -> tuple[int, str]:
    """Retrain ``kind`` seed 11 for ``steps`` updates; (number of points compared, difference or "")."""
    from .train import train_run, validation_slice

    vocab = load_vocab(folder)
    trace = load_trace(folder, CheckpointError, {}, vocab)
    profile = PROFILES[trace["profile"]]
    corpus = prepare(profile)
    if corpus.vocab.itos != vocab.itos:
        raise CheckpointError(f"{folder.vocab} is not the vocabulary the data gives; retrain with `make train`")
    committed = [p for p in trace["runs"][kind]["points"] if p["step"] <= steps]
    recorder = TraceRecorder(trace["probes"], {p["step"] for p in committed})
    X_test, y_test = corpus.windows("test")
    data = {
        "train": corpus.windows("train"),
        "val": validation_slice(*corpus.windows("validation"), profile.val_windows),
        "test": (X_test[:1], y_test[:1]),  # the short run's test loss is not compared
    }
    short = dataclasses.replace(profile, steps=steps)
    train_run(kind, CHECKPOINT_SEED, short, data, len(vocab), progress=False, recorder=recorder)
    return len(committed), first_difference(recorder.points, committed) or ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.trace_check", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default %(default)s)")
    ap.add_argument("--kind", default=DEFAULT_KIND, choices=KINDS)
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="updates to retrain (default %(default)s)")
    args = ap.parse_args(argv)
    numerics.pin()  # before torch runs anything
    if not numerics.is_pinned():
        print(f"warning: this machine cannot run the pinned code paths ({numerics.describe()})", file=sys.stderr)
    start = time.perf_counter()
    try:
        n, difference = check(ModelsFolder(args.models), args.kind, args.steps)
    except CheckpointError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    where = f"{args.kind} seed {CHECKPOINT_SEED}, steps 0-{args.steps}"
    if difference:
        print(f"trace check FAILED: {where}: {difference} ({numerics.describe()})", file=sys.stderr)
        return 1
    print(f"trace check: {where}: {n} points identical to the committed trace ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
