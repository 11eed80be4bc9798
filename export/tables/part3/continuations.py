"""Seed-11 greedy continuations (24-token limit) of the lab's held-out preset,
one per model. The prompt comes from build/export/presets.json (written by
the exporter). The continuations are decoded here from the checkpoints with
the project's shared decoding rule (export/decoding.py); when the exporter
recorded its own reference continuations, both must agree."""

from __future__ import annotations

import torch

from common.config import CONFIG
from export.decoding import CONTEXT, generate
from export.decoding import TOKEN_LIMIT as LIMIT
from models.nets import KINDS, LABELS
from models.tokenizer import BOS

from ..kit.registry import table
from ..kit.sources import InputError, Sources, file_absent, unavailable


def held_out_preset(presets: list[dict]) -> dict | None:
    """The exporter's held-out test-story preset (id CONFIG.decoding.held_out_preset), if any."""
    return next((p for p in presets if p["id"] == CONFIG.decoding.held_out_preset), None)


def _exported_greedy(parity, kind: str, preset_id) -> list[int] | None:
    """The exporter's PyTorch greedy continuation in parity.json, if recorded."""
    try:
        return list(parity["continuations"][kind][preset_id]["greedy"]["ids"])
    except (KeyError, TypeError):
        return None


def greedy(model: torch.nn.Module, prompt_ids: list[int], limit: int = LIMIT) -> dict:
    def logits_fn(context_ids: list[int]) -> list[float]:
        with torch.no_grad():
            return model(torch.tensor([context_ids]))[0].tolist()

    return generate(logits_fn, prompt_ids, mode="greedy", limit=limit)


@table("part3_continuations", needs=["sources"])
def continuations(sources: Sources) -> dict:
    presets_path = sources.export_dir / "presets.json"
    presets = sources.export_json("presets.json")
    if presets is None:
        return file_absent(presets_path)
    preset = held_out_preset(presets)
    if preset is None:
        return unavailable(f"{presets_path} has no held-out preset yet.")
    vocab = sources.vocab()
    if vocab is None:
        return file_absent(sources.folder.vocab)
    prompt = preset["prompt"]
    parity = sources.export_json("parity.json")
    prompt_ids = vocab.encode(prompt)
    out = {
        "available": True,
        "prompt": prompt,
        "prompt_ids": prompt_ids,
        "limit": LIMIT,
        "context": CONTEXT,
        "preset": {k: v for k, v in preset.items() if isinstance(v, (str, int, float)) and k != "prompt"},
        "source": {k: v for k, v in (preset.get("source") or {}).items() if isinstance(v, (str, int))},
        "models": [],
    }
    for kind in KINDS:
        loaded = sources.model(kind)
        if loaded is None:
            out["models"].append(dict(file_absent(sources.folder.weights(kind)), kind=kind, label=LABELS[kind]))
            continue
        model, info = loaded
        result = greedy(model, prompt_ids)
        reference = _exported_greedy(parity, kind, preset.get("id"))
        if reference is not None and reference != result["ids"]:
            raise InputError(
                f"{sources.export_dir / 'parity.json'}: its greedy continuation of preset "
                f"{preset.get('id')!r} for {kind} differs from the checkpoint's; the export is "
                f"stale (run `python -m export`)"
            )
        out["models"].append(
            {
                "available": True,
                "kind": kind,
                "label": LABELS[kind],
                "seed": info.get("seed"),
                "ids": result["ids"],
                "stop": result["stop"],
                "calls": result["calls"],
                "checked_against_export": reference is not None,
                "n_tokens": len(result["ids"]),
                "text": vocab.decode(result["ids"]),
                "tokens": [vocab.itos[i] for i in result["ids"]],
            }
        )
    out["prompt_tokens"] = [BOS] + [vocab.itos[i] for i in prompt_ids]
    out["rows"] = [
        [
            m["label"],
            m["text"] if m["available"] else "not measured yet",
            (f"{m['n_tokens']} tokens, " + ("stopped at EOS" if m["stop"] == "eos" else "hit the limit"))
            if m["available"]
            else "—",
        ]
        for m in out["models"]
    ]
    return out
