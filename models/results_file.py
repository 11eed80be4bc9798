"""models/results.json, checked where it is read: the training protocol's
record of every run (nine for the course profile: three kinds x three seeds).

``load_results(path, error)`` reads and validates it; every problem names the
file and the field. ``missing_runs(results)`` lists the (kind, seed) pairs of
the profile that are not recorded yet.
"""

from __future__ import annotations

import math
from pathlib import Path

from common.files import read_json

from .corpus import PROFILES
from .nets import KINDS

NUMBER = (int, float)
RUN_FIELDS = {
    "kind": str,
    "label": str,
    "seed": int,
    "parameters": int,
    "lr": NUMBER,
    "weight_decay": NUMBER,
    "steps": int,
    "batch_size": int,
    "val_trace": list,
    "selected_step": int,
    "val_loss": NUMBER,
    "test_loss": NUMBER,
    "test_perplexity": NUMBER,
    "train_seconds": NUMBER,
    "device": str,
    "torch_version": str,
}
TRACE_FIELDS = {"step": int, "val_loss": NUMBER, "train_loss": NUMBER}
TOP_FIELDS = {"profile": str, "runs": list, "aggregate": dict, "validation_windows": int, "test_windows": int}
AGGREGATE_STATS = ("test_loss", "test_perplexity", "train_seconds")


def _check_fields(obj, fields: dict, where: str, fail) -> None:
    if not isinstance(obj, dict):
        fail(f"{where} is not an object")
    for key, kind in fields.items():
        if key not in obj:
            fail(f"{where} has no field {key!r}")
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            fail(f"{where}.{key} has the wrong type ({type(value).__name__})")
        if isinstance(value, float) and not math.isfinite(value):
            fail(f"{where}.{key} is not finite")


def validate_results(results, path: Path, error: type[Exception] = ValueError) -> dict:
    """Raise ``error`` naming ``path`` and the field unless ``results`` has the
    shape train.run_protocol writes. Returns ``results``."""

    def fail(problem: str):
        raise error(f"{path}: {problem}")

    _check_fields(results, TOP_FIELDS, "results", fail)
    if results["profile"] not in PROFILES:
        fail(f"unknown profile {results['profile']!r} (expected one of {sorted(PROFILES)})")
    seen = set()
    for i, run in enumerate(results["runs"]):
        where = f"runs[{i}]"
        _check_fields(run, RUN_FIELDS, where, fail)
        if run["kind"] not in KINDS:
            fail(f"{where}.kind {run['kind']!r} is not one of {KINDS}")
        if (run["kind"], run["seed"]) in seen:
            fail(f"{where}: {run['kind']} seed {run['seed']} is recorded twice")
        seen.add((run["kind"], run["seed"]))
        if not run["val_trace"]:
            fail(f"{where}.val_trace is empty")
        for j, point in enumerate(run["val_trace"]):
            _check_fields(point, TRACE_FIELDS, f"{where}.val_trace[{j}]", fail)
    for kind in sorted({kind for kind, _ in seen}):
        agg = results["aggregate"].get(kind)
        if not isinstance(agg, dict):
            fail(f"aggregate has no entry for {kind}")
        for stat in AGGREGATE_STATS:
            if not isinstance(agg.get(stat), dict) or not isinstance(agg[stat].get("mean"), NUMBER):
                fail(f"aggregate.{kind}.{stat}.mean is missing")
    return results


def missing_runs(results: dict) -> list[tuple[str, int]]:
    """The (kind, seed) runs of the results' profile that are not recorded."""
    recorded = {(r["kind"], r["seed"]) for r in results["runs"]}
    return [
        (kind, seed) for seed in PROFILES[results["profile"]].seeds for kind in KINDS if (kind, seed) not in recorded
    ]


def load_results(path: Path, error: type[Exception] = ValueError, complete: bool = True) -> dict:
    """Read and validate results.json; with ``complete``, every run of its
    profile must be recorded (nine for the course)."""
    results = validate_results(read_json(path, error, "training results"), path, error)
    if complete and (absent := missing_runs(results)):
        raise error(
            f"{path}: {len(results['runs'])} runs recorded, "
            f"{len(absent) + len(results['runs'])} expected for the {results['profile']} profile; "
            f"missing: {', '.join(f'{k} seed {s}' for k, s in absent)}"
        )
    return results
