"""Save and load seed-11 model checkpoints: safetensors weights beside a small
JSON (kind, shape settings, selected step, SHA-256 of the weights file, and
``vocab_sha256``: the SHA-256 of the vocab.json the model was trained with,
which every load checks against the vocab.json beside it)."""

from __future__ import annotations

from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from common.files import Missing, missing, read_json, sha256_file, shown, write_json
from common.layout import MODELS, ModelsFolder

from .nets import from_config
from .tokenizer import Vocab, VocabError

__all__ = ["CheckpointError", "save_checkpoint", "read_info", "load_checkpoint", "load_vocab"]


class CheckpointError(RuntimeError):
    """A checkpoint file is missing or corrupt."""


def save_checkpoint(model: torch.nn.Module, info: dict, folder: ModelsFolder = MODELS) -> Path:
    folder.checkpoints.mkdir(parents=True, exist_ok=True)
    weights = folder.weights(model.kind)
    tensors = {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()}
    save_file(tensors, str(weights), metadata={"kind": model.kind})
    vocab = folder.vocab
    meta = dict(
        info,
        kind=model.kind,
        config=model.config.as_dict(),
        weights=weights.name,
        sha256=sha256_file(weights),
        vocab_sha256=sha256_file(vocab) if vocab.exists() else None,
    )
    write_json(folder.info(model.kind), meta)
    return weights


def read_info(kind: str, folder: ModelsFolder = MODELS) -> dict:
    return read_json(folder.info(kind), CheckpointError, "checkpoint metadata")


def weights_file(kind: str, info: dict, folder: ModelsFolder = MODELS) -> Path:
    """The weights file ``info`` (the checkpoint's JSON) names; raises a
    missing CheckpointError when it does not exist."""
    weights = folder.checkpoints / info.get("weights", folder.weights(kind).name)
    if not weights.exists():
        raise missing(CheckpointError)(f"checkpoint weights missing: {weights} (run `make train`)")
    return weights


def load_checkpoint(kind: str, folder: ModelsFolder = MODELS) -> tuple[torch.nn.Module, dict]:
    """Rebuild the model of ``kind`` from its checkpoint, after checking the hash."""
    info = read_info(kind, folder)
    weights = weights_file(kind, info, folder)
    digest = sha256_file(weights)
    if digest != info.get("sha256"):
        raise CheckpointError(
            f"checkpoint is corrupt: {weights} has SHA-256 {digest}, "
            f"expected {info.get('sha256')} from {folder.info(kind)}"
        )
    try:
        model = from_config(kind, info["config"])
        model.load_state_dict(load_file(str(weights)))
    except (SafetensorError, KeyError, RuntimeError, TypeError) as exc:
        raise CheckpointError(f"checkpoint does not load: {weights} ({exc})") from exc
    check_vocab(kind, info, folder)
    model.eval()
    return model, info


def check_vocab(kind: str, info: dict, folder: ModelsFolder = MODELS) -> None:
    """The vocab.json beside the checkpoint must be the one it was trained with
    (its SHA-256 is recorded in <kind>.json). Skipped when there is no vocab.json
    (loading the vocabulary then fails on its own)."""
    vocab = folder.vocab
    if not vocab.exists():
        return
    meta = folder.info(kind)
    recorded = info.get("vocab_sha256")
    if not recorded:
        raise CheckpointError(
            f"{meta}: no vocab_sha256 recorded, so {vocab} cannot be checked against the "
            f"vocabulary {kind} was trained with (retrain with `make train`)"
        )
    actual = sha256_file(vocab)
    if actual != recorded:
        raise CheckpointError(
            f"{vocab} is not the vocabulary {kind} was trained with: its SHA-256 is {actual}, "
            f"{meta} records {recorded} (restore it with `git checkout {shown(vocab)}` "
            f"or retrain with `make train`)"
        )


def load_vocab(folder: ModelsFolder = MODELS, size: int | None = None) -> Vocab:
    try:
        return Vocab.load(folder.vocab, size)
    except VocabError as exc:
        raise (missing(CheckpointError) if isinstance(exc, Missing) else CheckpointError)(str(exc)) from exc
