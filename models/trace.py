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

``models.records.load_trace`` validates the file (schema, vocabulary
SHA-256, the checkpoints' SHA-256 and selected steps); every problem names the
file. The recorded steps, ``TOP_K`` and ``DIGITS`` are the course
configuration's (common/config.py CONFIG.trace).
"""

from __future__ import annotations

import torch

from common.config import CONFIG
from common.files import read_json, sha256_file, write_json
from common.layout import ModelsFolder

from .nets import KINDS
from .probes import probe_set, probe_windows
from .records import TRACE_FORMAT as FORMAT
from .tokenizer import Vocab

TOP_K = CONFIG.trace.top_k
DIGITS = CONFIG.trace.digits  # decimals kept for probabilities and attention weights
# Trace-only points before the first validation point: attention forms early.
EARLY_STEPS = CONFIG.trace.early_steps


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
        "context": CONFIG.data.context,
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
