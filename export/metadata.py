"""metadata.json: what the lab and the results slides need to know about each
exported model, and about the vocabulary and decoding settings. Its "config"
is the resolved course configuration (common/config.py ``CONFIG.as_dict()``),
which the slides' settings table reads (export/tables/part3/settings.py), so
that slides and lab read one file."""

from __future__ import annotations

import platform

import onnx
import onnxruntime
import torch

from common.config import CONFIG
from models.nets import LABELS, count_parameters
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIALS, UNK_ID

from .decoding import BANNED, CONTEXT
from .onnx_export import INPUT, OPSET, output_names
from .parity import LIMIT
from .presets import ATTRIBUTION, LICENSE_URL


def _seed_run(results: dict, kind: str, seed: int) -> dict | None:
    return next((r for r in results.get("runs", []) if r["kind"] == kind and r["seed"] == seed), None)


def model_entry(kind: str, model, info: dict, onnx_file: dict, results: dict, ort_diff: dict) -> dict:
    run = _seed_run(results, kind, info.get("seed", 11)) or {}
    agg = results.get("aggregate", {}).get(kind)
    aggregate = None
    if agg:
        aggregate = {
            "seeds": agg["seeds"],
            "test_loss": agg["test_loss"],
            "test_perplexity": agg["test_perplexity"],
            "train_seconds": agg["train_seconds"],
        }
    return {
        "kind": kind,
        "label": LABELS[kind],
        "file": onnx_file["file"],
        "bytes": onnx_file["bytes"],
        "sha256": onnx_file["sha256"],
        "parameters": count_parameters(model),
        "heads": getattr(model.config, "n_heads", 0),
        "config": model.config.as_dict(),
        "outputs": output_names(kind),
        "seed": info.get("seed"),
        "selected_step": info.get("selected_step"),
        "checkpoint_sha256": info.get("sha256"),
        "seed_run": {
            key: run.get(key) for key in ("test_loss", "test_perplexity", "val_loss", "train_seconds", "device")
        }
        if run
        else None,
        "aggregate": aggregate,
        "ort_cpu_vs_pytorch": ort_diff,
        **({"heads_graph": onnx_file["heads_graph"]} if "heads_graph" in onnx_file else {}),
    }


def build_metadata(entries: dict, vocab, info_any: dict, results: dict) -> dict:
    return {
        "format": 1,
        "order": list(entries),
        "models": entries,
        "input": {"name": INPUT, "dtype": "int64", "shape": ["batch", CONTEXT]},
        "opset": OPSET,
        "context": CONTEXT,
        "vocab_size": len(vocab),
        "vocab_file": "vocab.json",
        "special_ids": {"PAD": PAD_ID, "BOS": BOS_ID, "EOS": EOS_ID, "UNK": UNK_ID},
        "special_tokens": list(SPECIALS),
        "banned_ids": sorted(BANNED),
        "decoding": {
            "default_limit": LIMIT,
            "prng": "mulberry32",
            "rule": (
                f"history = [BOS] + prompt IDs; context = last {CONTEXT} IDs left-padded with PAD; "
                "PAD, BOS and UNK never chosen; EOS stops; greedy = highest logit, lowest ID on ties; "
                "sampled = softmax(logits / temperature) over allowed IDs, one mulberry32 draw per step"
            ),
        },
        "profile": info_any.get("profile"),
        "training": {key: results.get(key) for key in ("profile", "validation_windows", "test_windows")},
        "dataset": {
            "name": "TinyStories",
            "attribution": ATTRIBUTION,
            "license": "CDLA-Sharing-1.0",
            "license_url": LICENSE_URL,
        },
        "config": CONFIG.as_dict(),
        "exporter": {
            "torch": torch.__version__,
            "onnx": onnx.__version__,
            "onnxruntime": onnxruntime.__version__,
            "python": platform.python_version(),
        },
    }
