"""The export step of the build: checkpoints -> build/export/.

Writes into a temporary folder beside the output and swaps it in only when
everything succeeded, so a failed export leaves the previous output intact.
Whether it needs to run at all is the build runner's question
(common/runner.py: the export stage's fingerprint of checkpoints, vocabulary,
results, trace, data and exporter code); run by hand, it always exports.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import torch

from common.export_check import ExportMismatch, check_export
from common.files import missing, sha256_file, write_json
from common.layout import MODELS, ModelsFolder
from common.publish import OutputRefused, build_lock, check_out, fresh_staging, swap_in
from common.settings import EXPORT_DIR
from models.checkpoints import CheckpointError, load_checkpoint, load_vocab, read_info, weights_file
from models.corpus import PROFILES, prepare
from models.nets import KINDS
from models.records import load_results, load_trace

from .ablation import ablated_attend, head_mask
from .lab_trace import lab_trace
from .metadata import build_metadata, model_entry
from .onnx_export import export_onnx, heads_file, ort_run, ort_session
from .parity import attention_matrices, build_parity, parity_contexts
from .presets import build_presets

OUTPUTS = ("metadata.json", "parity.json", "vocab.json", "presets.json", "training_trace.json") + tuple(
    f"{k}.onnx" for k in KINDS
)
OUTPUTS += tuple(heads_file(k) for k in KINDS if k != "mlp")
PARITY_TOLERANCE = 1e-4
OWNER = "python -m export"  # the command named in the output's marker


class ExportError(RuntimeError):
    """An export input is missing or broken, or the exported graph disagrees with PyTorch."""


def require_inputs(models: ModelsFolder) -> None:
    """Stop naming the first missing (or corrupt) file the export reads."""
    for kind in KINDS:
        weights_file(kind, read_info(kind, models), models)  # CheckpointError names a missing/corrupt file
    if not models.vocab.exists():
        raise missing(CheckpointError)(f"vocabulary file missing: {models.vocab}")
    if not models.results.exists():
        raise missing(ExportError)(f"training results missing: {models.results} (run `make train`)")
    if not models.trace.exists():
        raise missing(ExportError)(f"training trace missing: {models.trace} (restore it with `git checkout models/`)")


def _max_abs(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def _heads_graph(model, kind: str, staging: Path, batch: np.ndarray, main: dict) -> dict:
    """Export the head-switch graph and check it: every head on gives the first
    graph's outputs bit for bit; each head off (and all off) agrees with PyTorch."""
    path = staging / heads_file(kind)
    export_onnx(model, kind, path, heads=True)
    session = ort_session(path)
    on = ort_run(session, batch, mask=np.ones((len(batch), model.n_heads)))
    if not all(np.array_equal(on[name], main[name]) for name in main):
        raise ExportError(f"{path.name}: with every head on, its outputs differ from {kind}.onnx's")
    worst = 0.0
    for off in [[h] for h in range(model.n_heads)] + [list(range(model.n_heads))]:
        got = ort_run(session, batch, ["logits"], np.array([head_mask(model.n_heads, off)] * len(batch)))
        worst = max(worst, _max_abs(got["logits"], ablated_attend(model, torch.from_numpy(batch), off)[0].numpy()))
    if worst > PARITY_TOLERANCE:
        raise ExportError(f"{path.name}: onnxruntime disagrees with PyTorch with heads off: {worst:.2e}")
    return {
        "file": path.name,
        "bytes": path.stat().st_size,
        "sha256": sha256_file(path),
        "inputs": [o.name for o in session.get_inputs()],
        "bit_identical_with_every_head_on": True,
        "max_abs_logits_heads_off": worst,
    }


def build(folder: ModelsFolder, staging: Path, log=print) -> None:
    """Do the whole export into ``staging`` (an empty folder)."""
    vocab = load_vocab(folder)
    results = load_results(folder.results, ExportError)  # every run, every field
    models, infos = {}, {}
    for kind in KINDS:
        models[kind], infos[kind] = load_checkpoint(kind, folder)
        if models[kind].config.C != len(vocab):
            raise ExportError(
                f"{folder.info(kind)}: vocabulary size {models[kind].config.C} "
                f"does not match {folder.vocab} ({len(vocab)} tokens)"
            )
    profile = infos["mlp"].get("profile", "course")
    if profile not in PROFILES:
        raise ExportError(f"{folder.info('mlp')}: unknown profile {profile!r}")
    log(f"export: preparing the {profile} corpus for presets and parity contexts")
    corpus = prepare(profile)
    presets = build_presets(corpus, vocab)
    contexts = parity_contexts(corpus, vocab)
    parity, reference = build_parity(models, contexts, presets)
    for kind, runs in parity["continuations"].items():
        greedy = min(r["greedy"]["min_margin"] for r in runs.values())
        sampled = min(r["sampled"]["min_margin"] for r in runs.values())
        log(
            f"export: {kind} closest reference decisions: greedy logit gap {greedy:.2e}, "
            f"sampled probability distance {sampled:.2e}"
        )
    batch = np.array([c["ids"] for c in contexts], dtype=np.int64)

    entries = {}
    for kind, model in models.items():
        path = staging / f"{kind}.onnx"
        log(f"export: {kind} -> {path.name}")
        export_onnx(model, kind, path)
        got = ort_run(ort_session(path), batch)
        diff = {"max_abs_logits": _max_abs(got["logits"], reference[kind]["logits"])}
        if "attention" in got:
            diff["max_abs_attention"] = _max_abs(got["attention"], reference[kind]["attention"])
            diff["max_abs_attention_matrix"] = _max_abs(
                got["attention_matrix"], attention_matrices(model, batch.tolist())
            )
        diff["contexts"] = len(contexts)
        if max(v for k, v in diff.items() if k.startswith("max_abs")) > PARITY_TOLERANCE:
            raise ExportError(f"{path.name}: onnxruntime disagrees with PyTorch on the parity contexts: {diff}")
        onnx_file = {"file": path.name, "bytes": path.stat().st_size, "sha256": sha256_file(path)}
        if kind != "mlp":
            onnx_file["heads_graph"] = _heads_graph(model, kind, staging, batch, got)
        entries[kind] = model_entry(kind, model, infos[kind], onnx_file, results, diff)
        log(f"export: {kind} onnxruntime vs PyTorch max |dlogit| {diff['max_abs_logits']:.2e}")

    metadata = build_metadata(entries, vocab, infos["mlp"], results)
    metadata["vocab_sha256"] = infos["mlp"]["vocab_sha256"]  # the site refuses a vocab.json that is not this one
    write_json(staging / "metadata.json", metadata)
    (staging / "parity.json").write_text(json.dumps(parity, separators=(",", ":")) + "\n", encoding="utf-8")
    write_json(staging / "presets.json", presets)
    shutil.copyfile(folder.vocab, staging / "vocab.json")
    trace = load_trace(folder, ExportError, infos, vocab)  # the lab's Training replay reads a trimmed copy
    text = json.dumps(lab_trace(trace, vocab.itos), separators=(",", ":"), ensure_ascii=False)
    (staging / "training_trace.json").write_text(text + "\n", encoding="utf-8")


def run(models: ModelsFolder = MODELS, out: Path = EXPORT_DIR, log=print) -> str:
    """Export into ``out`` (replaced whole, only on success; a link: the folder
    it names). Returns 'exported'."""
    try:
        out = check_out(out, inputs=(models.root,), owner=OWNER, adopt=EXPORT_DIR)
    except OutputRefused as exc:
        raise ExportError(str(exc)) from exc
    with build_lock():
        staging = fresh_staging(out, OWNER)  # also restores an output left half-swapped by a crash
        try:
            require_inputs(models)
            build(models, staging, log)
            try:
                check_export(staging)  # the files agree with each other before they are published
            except ExportMismatch as exc:
                raise ExportError(f"the export failed its cross-check: {exc}") from exc
            try:
                swap_in(staging, out)
            except OutputRefused as exc:  # a file put into the previous export meanwhile
                raise ExportError(str(exc)) from exc
        finally:
            if staging.exists():
                shutil.rmtree(staging)
    log(f"export: wrote {out}")
    return "exported"
