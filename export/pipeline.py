"""The export step of the build: checkpoints -> build/export/.

Writes into a temporary folder beside the output and swaps it in only when
everything succeeded, so a failed export leaves the previous output intact.
Skips the work when the inputs (checkpoints, vocabulary, results, exporter
source) have the same content hashes as last time (cache.json).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import torch

from common.export_check import ExportMismatch, check_export
from common.files import missing, read_json, sha256_file, write_json
from common.layout import MODELS, ModelsFolder
from common.publish import OutputRefused, build_lock, check_out, fresh_staging, swap_in
from common.settings import EXPORT_DIR, ROOT
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

CACHE = "cache.json"
OUTPUTS = ("metadata.json", "parity.json", "vocab.json", "presets.json", "training_trace.json") + tuple(
    f"{k}.onnx" for k in KINDS
)
OUTPUTS += tuple(heads_file(k) for k in KINDS if k != "mlp")
# Sources whose change changes the output.
SOURCES = [
    ROOT / "export" / name
    for name in (
        "__init__.py",
        "__main__.py",
        "pipeline.py",
        "onnx_export.py",
        "decoding.py",
        "parity.py",
        "presets.py",
        "lab_trace.py",
        "metadata.py",
        "ablation.py",
    )
]
SOURCES += [
    ROOT / "models" / name
    for name in (
        "nets.py",
        "tokenizer.py",
        "corpus.py",
        "checkpoints.py",
        "trace.py",
        "records.py",
    )
]
SOURCES += [ROOT / "common" / name for name in ("settings.py", "config.py", "files.py", "layout.py")]
PARITY_TOLERANCE = 1e-4


class ExportError(RuntimeError):
    """An export input is missing or broken, or the exported graph disagrees with PyTorch."""


def input_key(models: ModelsFolder) -> dict:
    """Content hashes of everything the export reads."""
    files = {}
    for kind in KINDS:
        info = read_info(kind, models)  # CheckpointError names a missing/corrupt file
        weights = weights_file(kind, info, models)
        files[models.info(kind).name] = sha256_file(models.info(kind))
        files[weights.name] = sha256_file(weights)
    if not models.vocab.exists():
        raise missing(CheckpointError)(f"vocabulary file missing: {models.vocab}")
    files["vocab.json"] = sha256_file(models.vocab)
    if not models.results.exists():
        raise missing(ExportError)(f"training results missing: {models.results} (run `make train`)")
    files["results.json"] = sha256_file(models.results)
    if not models.trace.exists():
        raise missing(ExportError)(f"training trace missing: {models.trace} (restore it with `git checkout models/`)")
    files["training_trace.json"] = sha256_file(models.trace)
    source = hashlib.sha256()
    for path in SOURCES:
        source.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return {
        "inputs": files,
        "exporter_source": source.hexdigest(),
        "versions": {"torch": torch.__version__, "onnx": onnx.__version__},
    }


def up_to_date(out: Path, key: dict) -> bool:
    """True when out/ holds a complete export made from the same inputs."""
    try:
        cached = read_json(out / CACHE)
        meta = read_json(out / "metadata.json")
    except ValueError:
        return False
    if cached.get("key") != key or not all((out / name).is_file() for name in OUTPUTS):
        return False
    models = list(meta["models"].values())
    files = models + [m["heads_graph"] for m in models if "heads_graph" in m]
    return all(sha256_file(out / m["file"]) == m["sha256"] for m in files)


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
    write_json(staging / "metadata.json", metadata)
    (staging / "parity.json").write_text(json.dumps(parity, separators=(",", ":")) + "\n", encoding="utf-8")
    write_json(staging / "presets.json", presets)
    shutil.copyfile(folder.vocab, staging / "vocab.json")
    trace = load_trace(folder, ExportError, infos, vocab)  # the lab's Training replay reads a trimmed copy
    text = json.dumps(lab_trace(trace, vocab.itos), separators=(",", ":"), ensure_ascii=False)
    (staging / "training_trace.json").write_text(text + "\n", encoding="utf-8")


def run(models: ModelsFolder = MODELS, out: Path = EXPORT_DIR, force: bool = False, log=print) -> str:
    """Export unless up to date. Returns 'skipped' or 'exported'."""
    out = Path(out)
    try:
        check_out(out, inputs=(models.root,))
    except OutputRefused as exc:
        raise ExportError(str(exc)) from exc
    with build_lock(out.parent):
        staging = fresh_staging(out)  # also restores an output left half-swapped by a crash
        try:
            key = input_key(models)
            if not force and up_to_date(out, key):
                log(f"export: {out} is up to date (same checkpoints, results and exporter); skipped")
                return "skipped"
            build(models, staging, log)
            try:
                check_export(staging)  # the files agree with each other before they are published
            except ExportMismatch as exc:
                raise ExportError(f"the export failed its cross-check: {exc}") from exc
            write_json(staging / CACHE, {"key": key})
            swap_in(staging, out)
        finally:
            if staging.exists():
                shutil.rmtree(staging)
    log(f"export: wrote {out}")
    return "exported"
