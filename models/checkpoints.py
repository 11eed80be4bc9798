"""Save and load seed-11 model checkpoints: safetensors weights beside a small
JSON (kind, shape settings, selected step, SHA-256 of the weights file)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from .nets import from_config
from .tokenizer import Vocab

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"


class CheckpointError(RuntimeError):
    """A checkpoint file is missing or corrupt."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_json(path: Path, data) -> None:
    """Write JSON atomically (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def save_checkpoint(model: torch.nn.Module, info: dict, directory: Path = CHECKPOINT_DIR) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    weights = directory / f"{model.kind}.safetensors"
    tensors = {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()}
    save_file(tensors, str(weights), metadata={"kind": model.kind})
    meta = dict(info, kind=model.kind, config=model.config, weights=weights.name,
                sha256=sha256_file(weights))
    write_json(directory / f"{model.kind}.json", meta)
    return weights


def read_info(kind: str, directory: Path = CHECKPOINT_DIR) -> dict:
    meta_path = Path(directory) / f"{kind}.json"
    if not meta_path.exists():
        raise CheckpointError(f"checkpoint metadata missing: {meta_path} (run `make train`)")
    try:
        return json.loads(meta_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"checkpoint metadata is corrupt: {meta_path} ({exc})") from exc


def load_checkpoint(kind: str, directory: Path = CHECKPOINT_DIR) -> tuple[torch.nn.Module, dict]:
    """Rebuild the model of ``kind`` from its checkpoint, after checking the hash."""
    directory = Path(directory)
    info = read_info(kind, directory)
    weights = directory / info.get("weights", f"{kind}.safetensors")
    if not weights.exists():
        raise CheckpointError(f"checkpoint weights missing: {weights} (run `make train`)")
    digest = sha256_file(weights)
    if digest != info.get("sha256"):
        raise CheckpointError(f"checkpoint is corrupt: {weights} has SHA-256 {digest}, "
                              f"expected {info.get('sha256')} from {directory / (kind + '.json')}")
    try:
        model = from_config(kind, info["config"])
        model.load_state_dict(load_file(str(weights)))
    except (SafetensorError, KeyError, RuntimeError, TypeError) as exc:
        raise CheckpointError(f"checkpoint does not load: {weights} ({exc})") from exc
    model.eval()
    return model, info


def load_vocab(directory: Path = CHECKPOINT_DIR) -> Vocab:
    try:
        return Vocab.load(Path(directory) / "vocab.json")
    except (FileNotFoundError, ValueError) as exc:
        raise CheckpointError(str(exc)) from exc
