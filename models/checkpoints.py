"""Save and load seed-11 model checkpoints: safetensors weights beside a small
JSON (kind, shape settings, selected step, SHA-256 of the weights file, and
``vocab_sha256``: the SHA-256 of the vocab.json the model was trained with,
which every load checks against the vocab.json beside it)."""

from __future__ import annotations

from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from .files import Missing, missing, read_json, sha256_file, shown, write_json
from .nets import from_config
from .settings import CHECKPOINT_DIR
from .tokenizer import Vocab, VocabError

__all__ = ["CHECKPOINT_DIR", "CheckpointError", "sha256_file", "write_json", "save_checkpoint",
           "read_info", "load_checkpoint", "load_vocab"]


class CheckpointError(RuntimeError):
    """A checkpoint file is missing or corrupt."""


def save_checkpoint(model: torch.nn.Module, info: dict, directory: Path = CHECKPOINT_DIR) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    weights = directory / f"{model.kind}.safetensors"
    tensors = {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()}
    save_file(tensors, str(weights), metadata={"kind": model.kind})
    vocab = directory / "vocab.json"
    meta = dict(info, kind=model.kind, config=model.config, weights=weights.name,
                sha256=sha256_file(weights), vocab_sha256=sha256_file(vocab) if vocab.exists() else None)
    write_json(directory / f"{model.kind}.json", meta)
    return weights


def read_info(kind: str, directory: Path = CHECKPOINT_DIR) -> dict:
    return read_json(Path(directory) / f"{kind}.json", CheckpointError, "checkpoint metadata")


def load_checkpoint(kind: str, directory: Path = CHECKPOINT_DIR) -> tuple[torch.nn.Module, dict]:
    """Rebuild the model of ``kind`` from its checkpoint, after checking the hash."""
    directory = Path(directory)
    info = read_info(kind, directory)
    weights = directory / info.get("weights", f"{kind}.safetensors")
    if not weights.exists():
        raise missing(CheckpointError)(f"checkpoint weights missing: {weights} (run `make train`)")
    digest = sha256_file(weights)
    if digest != info.get("sha256"):
        raise CheckpointError(f"checkpoint is corrupt: {weights} has SHA-256 {digest}, "
                              f"expected {info.get('sha256')} from {directory / (kind + '.json')}")
    try:
        model = from_config(kind, info["config"])
        model.load_state_dict(load_file(str(weights)))
    except (SafetensorError, KeyError, RuntimeError, TypeError) as exc:
        raise CheckpointError(f"checkpoint does not load: {weights} ({exc})") from exc
    check_vocab(kind, info, directory)
    model.eval()
    return model, info


def check_vocab(kind: str, info: dict, directory: Path = CHECKPOINT_DIR) -> None:
    """The vocab.json beside the checkpoint must be the one it was trained with
    (its SHA-256 is recorded in <kind>.json). Skipped when there is no vocab.json
    (loading the vocabulary then fails on its own)."""
    vocab = Path(directory) / "vocab.json"
    if not vocab.exists():
        return
    meta = Path(directory) / f"{kind}.json"
    recorded = info.get("vocab_sha256")
    if not recorded:
        raise CheckpointError(f"{meta}: no vocab_sha256 recorded, so {vocab} cannot be checked against the "
                              f"vocabulary {kind} was trained with (retrain with `make train`)")
    actual = sha256_file(vocab)
    if actual != recorded:
        raise CheckpointError(f"{vocab} is not the vocabulary {kind} was trained with: its SHA-256 is {actual}, "
                              f"{meta} records {recorded} (restore it with `git checkout {shown(vocab)}` "
                              f"or retrain with `make train`)")


def load_vocab(directory: Path = CHECKPOINT_DIR, size: int | None = None) -> Vocab:
    try:
        return Vocab.load(Path(directory) / "vocab.json", size)
    except VocabError as exc:
        raise (missing(CheckpointError) if isinstance(exc, Missing) else CheckpointError)(str(exc)) from exc
