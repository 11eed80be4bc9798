"""The training trace: what the seed-11 runs predicted on fixed probe texts,
step by step, so that a learner can watch attention form.

During every run, at step 0, at a few early steps and at every validation
point, ``TraceRecorder`` stores for each probe (models/probes.py) the model's
top-10 next-token predictions (softmax over the whole vocabulary) and, for the
attention models, the final query's weights per head. The seed-11 runs are
written to models/training_trace.json:

    {"format": 1, "profile": "course", "vocab_sha256": <SHA-256 of vocab.json>,
     "context": 64, "top_k": 10,
     "probes": [{"name", "text", "ids"}],             # ids: BOS + the text's tokens
     "runs": {kind: {"seed": 11, "selected_step", "checkpoint_sha256",
                     "numerics", "train_seconds", "recording_seconds",
                     "points": [{"step", "validation_loss",
                                 "top10": [[[id, p], ...] per probe],
                                 "attention": [[[64 weights] per head] per probe]}]}}}

"attention" is present for attn1 and attn4 only; a probe's window is the last
64 of its ids, left-padded with PAD, as in the lab, so weight j belongs to
window slot j. Probabilities and weights keep ``DIGITS`` decimals. The point
at ``selected_step`` is what the committed checkpoint computes
(tests/test_trace.py); ``checkpoint_sha256`` ties each run to its weights.

``load_trace`` validates the file (schema, vocabulary SHA-256, the
checkpoints' SHA-256 and selected steps); every problem names the file.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch

from common.files import read_json, sha256_file, write_json
from common.layout import ModelsFolder
from common.settings import CHECKPOINT_SEED, CONTEXT

from .nets import COURSE, KINDS
from .probes import probe_ids, probe_set, probe_windows
from .tokenizer import Vocab

FORMAT = 1
TOP_K = 10
DIGITS = 8  # decimals kept for probabilities and attention weights
# Trace-only points before the first validation point: attention forms early.
EARLY_STEPS = (10, 50, 100, 200, 400)


@torch.no_grad()
def snapshot(model: torch.nn.Module, windows: torch.Tensor) -> dict:
    """Top-10 (id, p) per probe, and the final query's weights per head for an attention model."""
    was_training = model.training
    model.eval()
    if hasattr(model, "attend"):
        logits, weights = model.attend(windows)
    else:
        logits, weights = model(windows), None
    model.train(was_training)
    p, ids = logits.softmax(-1).topk(TOP_K, dim=-1)
    out = {
        "top10": [
            [[i, round(q, DIGITS)] for i, q in zip(row_i, row_p)] for row_i, row_p in zip(ids.tolist(), p.tolist())
        ]
    }
    if weights is not None:
        out["attention"] = [[[round(a, DIGITS) for a in head] for head in probe] for probe in weights.tolist()]
    return out


class TraceRecorder:
    """Collects the trace points of one run at ``steps``."""

    def __init__(self, probes: list[dict], steps: set[int]):
        self.probes, self.steps = probes, set(steps)
        self.windows = probe_windows(probes)
        self.points: list[dict] = []
        self.seconds = 0.0  # time spent recording (snapshots and the extra validation passes)

    def record(self, step: int, model: torch.nn.Module, validation_loss: float) -> None:
        self.points.append({"step": step, "validation_loss": validation_loss, **snapshot(model, self.windows)})


def new_trace(profile: str, folder: ModelsFolder, vocab: Vocab) -> dict:
    return {
        "format": FORMAT,
        "profile": profile,
        "vocab_sha256": sha256_file(folder.vocab),
        "context": CONTEXT,
        "top_k": TOP_K,
        "probes": probe_set(vocab),
        "runs": {},
    }


def save_run(folder: ModelsFolder, profile: str, vocab: Vocab, kind: str, run: dict) -> None:
    """Put one seed-11 run into the folder's trace file, keeping the other
    kinds' runs when they were recorded with the same vocabulary and probes."""
    trace = new_trace(profile, folder, vocab)
    if folder.trace.exists():
        try:
            old = read_json(folder.trace, ValueError, "training trace")
        except ValueError:
            old = {}
        if all(old.get(key) == trace[key] for key in ("format", "profile", "vocab_sha256", "probes", "top_k")):
            trace["runs"] = {k: v for k, v in old.get("runs", {}).items() if k in KINDS}
    trace["runs"][kind] = run
    trace["runs"] = {k: trace["runs"][k] for k in KINDS if k in trace["runs"]}
    write_json(folder.trace, trace)


# ---------------------------------------------------------------- validation
def _number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _check_point(point, where: str, n_probes: int, heads: int | None, vocab_size: int, fail) -> None:
    if not isinstance(point, dict) or not isinstance(point.get("step"), int) or isinstance(point["step"], bool):
        fail(f"{where}.step is missing or not an integer")
    if not _number(point.get("validation_loss")):
        fail(f"{where}.validation_loss is missing or not a finite number")
    top = point.get("top10")
    if not isinstance(top, list) or len(top) != n_probes:
        fail(f"{where}.top10 must hold one list per probe ({n_probes})")
    for i, row in enumerate(top):
        ok = isinstance(row, list) and len(row) == TOP_K
        ok = ok and all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and 0 <= e[0] < vocab_size and _number(e[1])
            for e in row
        )
        if not ok or not all(0 <= row[k][1] <= 1 and row[k][1] >= row[k + 1][1] for k in range(TOP_K - 1)):
            fail(f"{where}.top10[{i}] is not {TOP_K} [id, p] pairs in falling order of p")
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
            if not (isinstance(row, list) and len(row) == CONTEXT and all(_number(a) and a >= 0 for a in row)):
                fail(f"{where}.attention[{i}][{h}] is not {CONTEXT} weights")
            if abs(sum(row) - 1) > 1e-5:
                fail(f"{where}.attention[{i}][{h}] does not sum to 1")


def validate_trace(trace, path: Path, vocab: Vocab | None, vocab_sha256: str | None, checkpoints: dict, error):
    """Raise ``error`` naming ``path`` unless ``trace`` has the shape above and
    matches the vocabulary (its SHA-256 ``vocab_sha256`` and, when given, the
    probes' ids) and ``checkpoints`` ({kind: checkpoint info} of the
    checkpoints present). Returns ``trace``."""

    def fail(problem: str):
        raise error(f"{path}: {problem}")

    if not isinstance(trace, dict) or trace.get("format") != FORMAT:
        fail(f"not a training trace of format {FORMAT}")
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
    vocab_size = len(vocab) if vocab is not None else COURSE["mlp"].C
    for kind in KINDS:
        run, where = runs[kind], f"runs.{kind}"
        if not isinstance(run, dict) or run.get("seed") != CHECKPOINT_SEED:
            fail(f"{where}.seed is not {CHECKPOINT_SEED}")
        points = run.get("points")
        if not isinstance(points, list) or not points:
            fail(f"{where}.points is empty")
        heads = getattr(COURSE[kind], "n_heads", None)
        for j, point in enumerate(points):
            _check_point(point, f"{where}.points[{j}]", len(probes), heads, vocab_size, fail)
        steps = [p["step"] for p in points]
        if steps[0] != 0 or steps != sorted(set(steps)):
            fail(f"{where}.points must start at step 0 and rise step by step")
        if run.get("selected_step") not in steps:
            fail(f"{where}.selected_step {run.get('selected_step')} has no point")
        info = checkpoints.get(kind)
        if info is not None and run.get("checkpoint_sha256") != info.get("sha256"):
            fail(
                f"{where} was recorded for another {kind} checkpoint (checkpoint_sha256 "
                f"{run.get('checkpoint_sha256')}, the committed weights have {info.get('sha256')})"
            )
        if info is not None and run["selected_step"] != info.get("selected_step"):
            fail(f"{where}.selected_step {run['selected_step']} is not the checkpoint's {info.get('selected_step')}")
    return trace


def load_trace(folder: ModelsFolder, error: type[Exception], checkpoints: dict, vocab: Vocab | None = None) -> dict:
    """Read and validate the folder's trace (``read_json`` raises
    ``missing(error)`` when there is none)."""
    trace = read_json(folder.trace, error, "training trace")
    vocab_sha = sha256_file(folder.vocab) if folder.vocab.exists() else None
    return validate_trace(trace, folder.trace, vocab, vocab_sha, checkpoints, error)
