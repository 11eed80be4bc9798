"""The models folder's three record files, checked where they are read:

- models/results.json: every training run (models/train.py run_protocol
  writes it; nine for the course profile: three kinds x three seeds);
- models/training_trace.json: what the seed-11 runs predicted on the probes,
  step by step (models/trace.py writes it; its layout is described there);
- models/reproduction.json: independent reruns of seed-11 runs
  (models/reproduce.py writes it).

One field checker (``check_fields``), each file's schema as data (the
``*_FIELDS`` tables below: field -> type, where NUMBER means a finite int or
float), and one loader each: ``load_results``, ``load_trace``,
``load_reproduction``. A loader reads the file (``read_json`` raises
``missing(error)`` when it does not exist) and validates it; every problem
raises ``error`` with a message naming the file and the field.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from common.config import CONFIG
from common.files import read_json, sha256_file
from common.layout import ModelsFolder

from .nets import COURSE, KINDS
from .probes import probe_ids
from .tokenizer import Vocab

NUMBER = "number"  # a field type: a finite int or float (never a bool)
Fail = Callable[[str], None]

# ---------------------------------------------------------------- schemas
RESULTS_FIELDS = {"profile": str, "runs": list, "aggregate": dict, "validation_windows": int, "test_windows": int}
RESULTS_RUN_FIELDS = {
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
RESULTS_POINT_FIELDS = {"step": int, "val_loss": NUMBER, "train_loss": NUMBER}
AGGREGATE_STATS = ("test_loss", "test_perplexity", "train_seconds")

TRACE_FORMAT = 1
TRACE_FIELDS = {"format": int, "profile": str, "vocab_sha256": str, "probes": list, "runs": dict}
TRACE_RUN_FIELDS = {"seed": int, "selected_step": int, "checkpoint_sha256": str, "points": list}
TRACE_POINT_FIELDS = {"step": int, "validation_loss": NUMBER, "top10": list}

REPRODUCTION_FORMAT = 1
REPRODUCTION_FIELDS = {"format": int, "reruns": list}
RERUN_FIELDS = {
    "kind": str,
    "seed": int,
    "numerics": str,
    "torch_version": str,
    "weights_sha256": str,
    "selected_step": int,
    "test_loss": NUMBER,
    "train_seconds": NUMBER,
    "cpu": str,
}


# ---------------------------------------------------------------- the field checker
def is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def check_fields(obj, fields: dict, where: str, fail: Fail) -> None:
    """``fail`` unless ``obj`` is an object holding every field of ``fields``
    with its type (bools never count as numbers; floats must be finite)."""
    if not isinstance(obj, dict):
        fail(f"{where} is not an object")
    for key, kind in fields.items():
        if key not in obj:
            fail(f"{where}.{key} is missing (no field {key!r})")
        value = obj[key]
        if kind is NUMBER:
            if isinstance(value, int | float) and not isinstance(value, bool) and not math.isfinite(value):
                fail(f"{where}.{key} is not finite")
            if not is_number(value):
                fail(f"{where}.{key} has the wrong type ({type(value).__name__}, expected a number)")
            continue
        if isinstance(value, bool) or not isinstance(value, kind):
            fail(f"{where}.{key} has the wrong type ({type(value).__name__}, expected {kind.__name__})")
        if isinstance(value, float) and not math.isfinite(value):
            fail(f"{where}.{key} is not finite")


def _failer(path: Path, error: type[Exception]) -> Fail:
    def fail(problem: str):
        raise error(f"{path}: {problem}")

    return fail


# ---------------------------------------------------------------- results.json
def validate_results(results, path: Path, error: type[Exception] = ValueError) -> dict:
    """Raise ``error`` naming ``path`` and the field unless ``results`` has the
    shape train.run_protocol writes. Returns ``results``."""
    fail = _failer(path, error)
    check_fields(results, RESULTS_FIELDS, "results", fail)
    profiles = CONFIG.training.profiles
    if results["profile"] not in profiles:
        fail(f"unknown profile {results['profile']!r} (expected one of {sorted(profiles)})")
    seen = set()
    for i, run in enumerate(results["runs"]):
        where = f"runs[{i}]"
        check_fields(run, RESULTS_RUN_FIELDS, where, fail)
        if run["kind"] not in KINDS:
            fail(f"{where}.kind {run['kind']!r} is not one of {KINDS}")
        if (run["kind"], run["seed"]) in seen:
            fail(f"{where}: {run['kind']} seed {run['seed']} is recorded twice")
        seen.add((run["kind"], run["seed"]))
        if not run["val_trace"]:
            fail(f"{where}.val_trace is empty")
        for j, point in enumerate(run["val_trace"]):
            check_fields(point, RESULTS_POINT_FIELDS, f"{where}.val_trace[{j}]", fail)
    for kind in sorted({kind for kind, _ in seen}):
        agg = results["aggregate"].get(kind)
        if not isinstance(agg, dict):
            fail(f"aggregate has no entry for {kind}")
        for stat in AGGREGATE_STATS:
            if not isinstance(agg.get(stat), dict) or not is_number(agg[stat].get("mean")):
                fail(f"aggregate.{kind}.{stat}.mean is missing")
    return results


def missing_runs(results: dict) -> list[tuple[str, int]]:
    """The (kind, seed) runs of the results' profile that are not recorded."""
    recorded = {(r["kind"], r["seed"]) for r in results["runs"]}
    seeds = CONFIG.training.profiles[results["profile"]].seeds
    return [(kind, seed) for seed in seeds for kind in KINDS if (kind, seed) not in recorded]


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


# ---------------------------------------------------------------- training_trace.json
def _check_point(point, where: str, n_probes: int, heads: int | None, vocab_size: int, fail: Fail) -> None:
    top_k, context = CONFIG.trace.top_k, CONFIG.data.context
    check_fields(point, TRACE_POINT_FIELDS, where, fail)
    top = point["top10"]
    if len(top) != n_probes:
        fail(f"{where}.top10 must hold one list per probe ({n_probes})")
    for i, row in enumerate(top):
        ok = isinstance(row, list) and len(row) == top_k
        ok = ok and all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and 0 <= e[0] < vocab_size and is_number(e[1])
            for e in row
        )
        if not ok or not all(0 <= row[k][1] <= 1 and row[k][1] >= row[k + 1][1] for k in range(top_k - 1)):
            fail(f"{where}.top10[{i}] is not {top_k} [id, p] pairs in falling order of p")
    if heads is None:
        if "attention" in point:
            fail(f"{where} has attention weights, but this model has no attention")
        return
    att = point.get("attention")
    if not isinstance(att, list) or len(att) != n_probes:
        fail(f"{where}.attention must hold one entry per probe ({n_probes})")
    for i, probe in enumerate(att):
        if not isinstance(probe, list) or len(probe) != heads:
            fail(f"{where}.attention[{i}] must hold {heads} heads")
        for h, row in enumerate(probe):
            if not (isinstance(row, list) and len(row) == context and all(is_number(a) and a >= 0 for a in row)):
                fail(f"{where}.attention[{i}][{h}] is not {context} weights")
            if abs(sum(row) - 1) > 1e-5:
                fail(f"{where}.attention[{i}][{h}] does not sum to 1")


def validate_trace(trace, path: Path, vocab: Vocab | None, vocab_sha256: str | None, checkpoints: dict, error):
    """Raise ``error`` naming ``path`` unless ``trace`` has the layout
    models/trace.py describes and matches the vocabulary (its SHA-256
    ``vocab_sha256`` and, when given, the probes' ids) and ``checkpoints``
    ({kind: checkpoint info} of the checkpoints present). Returns ``trace``."""
    fail = _failer(path, error)
    seed = CONFIG.training.checkpoint_seed
    if not isinstance(trace, dict) or trace.get("format") != TRACE_FORMAT:
        fail(f"not a training trace of format {TRACE_FORMAT}")
    if vocab_sha256 is not None and trace.get("vocab_sha256") != vocab_sha256:
        fail(
            f"recorded with another vocabulary (vocab_sha256 {trace.get('vocab_sha256')}, "
            f"the vocab.json beside it has {vocab_sha256})"
        )
    probes = trace.get("probes")
    if not isinstance(probes, list) or not probes:
        fail("has no probes")
    for i, p in enumerate(probes):
        if not (isinstance(p, dict) and isinstance(p.get("text"), str) and isinstance(p.get("ids"), list)):
            fail(f"probes[{i}] needs a text and ids")
        if vocab is not None and p["ids"] != probe_ids(p["text"], vocab):
            fail(f"probes[{i}].ids are not BOS + the tokens of its text in this vocabulary")
    runs = trace.get("runs")
    if not isinstance(runs, dict) or sorted(runs) != sorted(KINDS):
        fail(f"runs must hold exactly {', '.join(KINDS)}")
    check_fields(trace, TRACE_FIELDS, "trace", fail)
    vocab_size = len(vocab) if vocab is not None else COURSE["mlp"].C
    for kind in KINDS:
        run, where = runs[kind], f"runs.{kind}"
        check_fields(run, TRACE_RUN_FIELDS, where, fail)
        if run["seed"] != seed:
            fail(f"{where}.seed is not {seed}")
        points = run["points"]
        if not points:
            fail(f"{where}.points is empty")
        heads = getattr(COURSE[kind], "n_heads", None)
        for j, point in enumerate(points):
            _check_point(point, f"{where}.points[{j}]", len(probes), heads, vocab_size, fail)
        steps = [p["step"] for p in points]
        if steps[0] != 0 or steps != sorted(set(steps)):
            fail(f"{where}.points must start at step 0 and rise step by step")
        if run["selected_step"] not in steps:
            fail(f"{where}.selected_step {run['selected_step']} has no point")
        info = checkpoints.get(kind)
        if info is not None and run["checkpoint_sha256"] != info.get("sha256"):
            fail(
                f"{where} was recorded for another {kind} checkpoint (checkpoint_sha256 "
                f"{run['checkpoint_sha256']}, the committed weights have {info.get('sha256')})"
            )
        if info is not None and run["selected_step"] != info.get("selected_step"):
            fail(f"{where}.selected_step {run['selected_step']} is not the checkpoint's {info.get('selected_step')}")
    return trace


def load_trace(folder: ModelsFolder, error: type[Exception], checkpoints: dict, vocab: Vocab | None = None) -> dict:
    """Read and validate the folder's trace against the checkpoints present
    (``checkpoints``: {kind: checkpoint info}) and, when given, ``vocab``."""
    trace = read_json(folder.trace, error, "training trace")
    vocab_sha = sha256_file(folder.vocab) if folder.vocab.exists() else None
    return validate_trace(trace, folder.trace, vocab, vocab_sha, checkpoints, error)


# ---------------------------------------------------------------- reproduction.json
def same_run(a: dict, b: dict) -> bool:
    """Whether two records describe one training process, not two: the same
    kind and seed and the same measured training time (a wall-clock time that
    two independent processes do not repeat to the last digit)."""
    return (a["kind"], a["seed"], a["train_seconds"]) == (b.get("kind"), b.get("seed"), b.get("train_seconds"))


def validate_reproduction(data, path: Path, error: type[Exception], committed_runs: list[dict] | None = None) -> dict:
    """Raise ``error`` naming ``path`` unless ``data`` has the shape
    models/reproduce.py describes and holds only independent reruns: no
    record twice, and (given ``committed_runs``, results.json's runs) none
    that is a committed run's own record. Returns ``data``."""
    fail = _failer(path, error)
    if not isinstance(data, dict) or data.get("format") != REPRODUCTION_FORMAT:
        fail(f"not a reproduction record of format {REPRODUCTION_FORMAT}")
    if not isinstance(data.get("reruns"), list) or not data["reruns"]:
        fail("has no reruns")
    check_fields(data, REPRODUCTION_FIELDS, "record", fail)
    for i, r in enumerate(data["reruns"]):
        check_fields(r, RERUN_FIELDS, f"reruns[{i}]", fail)
        if r["kind"] not in KINDS:
            fail(f"reruns[{i}].kind {r['kind']!r} is not one of {', '.join(KINDS)}")
        if len(r["weights_sha256"]) != 64:
            fail(f"reruns[{i}].weights_sha256 is not a SHA-256")
        for j, other in enumerate(data["reruns"][:i]):
            if same_run(r, other):
                fail(f"reruns[{i}] repeats reruns[{j}] (same kind, seed and train_seconds): one run recorded twice")
        for run in committed_runs or []:
            if same_run(r, run):
                fail(
                    f"reruns[{i}] is the committed {r['kind']} seed {r['seed']} run's own record "
                    f"(train_seconds {r['train_seconds']}), not an independent rerun"
                )
    return data


def load_reproduction(folder: ModelsFolder, error: type[Exception]) -> dict:
    """Read and validate the folder's reproduction record, against the
    folder's results.json when there is one."""
    committed = read_json(folder.results, error, "training results")["runs"] if folder.results.exists() else None
    return validate_reproduction(
        read_json(folder.reproduction, error, "reproduction record"), folder.reproduction, error, committed
    )
