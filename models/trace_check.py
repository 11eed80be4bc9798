"""The fast reproducibility check: retrain the first steps of one seed-11 run
and compare every trace point on the way with models/training_trace.json.

Training is deterministic on the pinned code paths (models/numerics.py) on one
kind of CPU, so there the points must be identical: validation loss, top-10
predictions and attention weights, to the last digit kept. A difference names
the first step and field that differ. Another kind of CPU may round its last
bits differently (measured: an Intel Xeon against the committed attn1 run, which
a rerun on an AMD EPYC gave back bit for bit, differ by up to 1.2e-7 in ten
updates). So on a CPU where no
bit-identical rerun of the run is recorded (models/reproduction.json), the
points of the first CLOSE_STEPS updates pass when they agree within CLOSE,
and the output says they are not bit for bit and which steps it compared.
`make test` runs it with every kind (tests/test_trace_replay.py).

    python -m models.trace_check [--kind attn1 [mlp attn4]] [--steps 100 [10 10]]

One --steps value is every kind's; several give each kind its own, in order.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
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
CLOSE = 1e-5  # the largest difference of a probability or loss accepted on another CPU
# On another CPU the rounding differences grow with every update (measured on an Intel
# Xeon against the committed attn1 trace: 1.2e-7 after 10 updates, 6e-6 after 50,
# 4.5e-4 in validation loss and other top-10 tokens after 100), so there only the first
# CLOSE_STEPS updates are compared.
CLOSE_STEPS = 10


def first_difference(mine: list[dict], committed: list[dict]) -> str | None:
    """Where two lists of trace points first differ, in words (None when equal)."""
    for a, b in zip(mine, committed):
        for key in ("step", "validation_loss", "top10", "attention"):
            if a.get(key) != b.get(key):
                return f"step {b['step']}: {key} differs ({str(a.get(key))[:80]} vs committed {str(b.get(key))[:80]})"
    if len(mine) != len(committed):
        return f"{len(mine)} points recorded, {len(committed)} committed"
    return None


def _leaves(value) -> list[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float, list)):
        raise TypeError(value)
    return [float(value)] if not isinstance(value, list) else [x for v in value for x in _leaves(v)]


def largest_difference(mine: list[dict], committed: list[dict]) -> float | None:
    """The largest absolute difference between two traces' numbers: validation
    loss, every attention weight, and each top-10 token's probability (a token in
    one top-10 only counts against the other's smallest probability, so two
    near-tied tokens may trade places). None when the traces differ in shape
    (steps, fields, lengths), which no rounding explains."""
    if len(mine) != len(committed):
        return None
    largest = 0.0
    for a, b in zip(mine, committed):
        if a.keys() != b.keys() or a["step"] != b["step"]:
            return None
        for key in a.keys() - {"step", "top10"}:
            x, y = _leaves(a[key]), _leaves(b[key])
            if len(x) != len(y):
                return None
            largest = max([largest, *(abs(p - q) for p, q in zip(x, y))])
        if len(a["top10"]) != len(b["top10"]):
            return None
        for ours, theirs in zip(a["top10"], b["top10"]):
            p, q = dict(map(tuple, ours)), dict(map(tuple, theirs))
            if len(p) != len(q):
                return None
            for token in p.keys() | q.keys():
                largest = max(largest, abs(p.get(token, min(p.values())) - q.get(token, min(q.values()))))
    return largest


def identical_cpus(folder: ModelsFolder, kind: str) -> set[str]:
    """The CPUs on which a rerun of ``kind`` seed 11 gave the committed weights bit
    for bit (models/reproduction.json): there the trace must replay exactly."""
    from .checkpoints import read_info
    from .records import load_reproduction

    if not folder.reproduction.exists():
        return set()
    sha = read_info(kind, folder).get("sha256")
    reruns = load_reproduction(folder, CheckpointError)["reruns"]
    return {
        r["cpu"] for r in reruns if r["kind"] == kind and r["seed"] == CHECKPOINT_SEED and r["weights_sha256"] == sha
    }


@functools.cache
def prepared(profile):
    """The corpus of ``profile``, prepared once for all the kinds one process checks."""
    return prepare(profile)


def check(folder: ModelsFolder, kind: str, steps: int) -> tuple[int, str]:
    """Retrain ``kind`` seed 11 for ``steps`` updates; (number of points compared, difference or "")."""
    from .train import train_run, validation_slice

    vocab = load_vocab(folder)
    trace = load_trace(folder, CheckpointError, {}, vocab)
    profile = PROFILES[trace["profile"]]
    corpus = prepared(profile)
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
    difference = first_difference(recorder.points, committed) or ""
    if difference:
        from .reproduce import cpu_model

        here = cpu_model()
        if here in identical_cpus(folder, kind):
            return len(committed), f"{difference}; a bit-identical rerun is recorded on this CPU ({here})"
        early = [p for p in committed if p["step"] <= CLOSE_STEPS]
        largest = largest_difference(recorder.points[: len(early)], early)
        if largest is not None and largest <= CLOSE:
            later = f"; steps after {CLOSE_STEPS} not compared" if len(early) < len(committed) else ""
            return len(early), f"close: {largest:.1e} at most{later}; no bit-identical rerun is recorded on {here}"
    return len(committed), difference


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.trace_check", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default %(default)s)")
    ap.add_argument(
        "--kind", nargs="+", default=[DEFAULT_KIND], choices=KINDS, help="one or more kinds, checked in turn"
    )
    ap.add_argument(
        "--steps",
        type=int,
        nargs="+",
        default=[DEFAULT_STEPS],
        help="updates to retrain: one for every kind, or one per kind (default %(default)s)",
    )
    args = ap.parse_args(argv)
    if len(args.steps) not in (1, len(args.kind)):
        ap.error(f"--steps gives {len(args.steps)} values for {len(args.kind)} kinds: give one, or one per kind")
    steps = args.steps * len(args.kind) if len(args.steps) == 1 else args.steps
    numerics.pin()  # before torch runs anything
    if not numerics.is_pinned():
        print(f"warning: this machine cannot run the pinned code paths ({numerics.describe()})", file=sys.stderr)
    failed = 0
    for kind, n in zip(args.kind, steps):
        failed |= check_kind(ModelsFolder(args.models), kind, n)
    return failed


def check_kind(folder: ModelsFolder, kind: str, steps: int) -> int:
    """Check one kind and print what was found; 0 when it agrees, 1 when not."""
    start = time.perf_counter()
    try:
        n, difference = check(folder, kind, steps)
    except CheckpointError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    where = f"{kind} seed {CHECKPOINT_SEED}, steps 0-{steps}"
    if difference.startswith("close: "):
        print(
            f"trace check: {where}: {n} points agree with the committed trace within {CLOSE:.0e}, not bit for bit "
            f"({difference.removeprefix('close: ')}; another CPU rounds differently) ({seconds:.0f} s)"
        )
        return 0
    if difference:
        print(f"trace check FAILED: {where}: {difference} ({numerics.describe()})", file=sys.stderr)
        return 1
    print(f"trace check: {where}: {n} points identical to the committed trace ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
