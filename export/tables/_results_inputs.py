"""Where the Part III and results tables read their inputs, and how.

An absent input gives None (the table then says "available": false); a
corrupt one stops the build with a message naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch

from common.files import Missing, read_json, shown
from common.layout import ModelsFolder
from common.settings import BENCH_FILE, EXPORT_DIR, MODELS_DIR
from export.decoding import context_window, start_history
from models.checkpoints import CheckpointError, load_checkpoint, load_vocab
from models.results_file import load_results
from models.tokenizer import tokenize


class InputError(RuntimeError):
    """An input file of the tables is corrupt; the message names it."""


@dataclass
class Inputs:
    models_dir: Path = MODELS_DIR
    export_dir: Path = EXPORT_DIR
    bench_path: Path = BENCH_FILE  # the benchmark stage's measurement file
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def folder(self) -> ModelsFolder:
        return ModelsFolder(self.models_dir)

    def json(self, path: Path):
        """Parsed JSON of ``path``, or None when the file does not exist."""
        try:
            return read_json(path, InputError)
        except Missing:
            return None

    def results(self):
        """results.json checked against its schema (every run of the profile,
        every field), or None when absent."""
        path = self.folder.results
        return None if self.json(path) is None else load_results(path, InputError)

    def audit(self):
        return self.json(self.folder.audit)

    def export_json(self, name: str):
        return self.json(self.export_dir / name)

    def bench(self):
        return self.json(self.bench_path)

    def vocab(self):
        """The training vocabulary, or None when vocab.json is absent."""
        if "vocab" not in self._cache:
            self._cache["vocab"] = load_vocab(self.folder) if self.folder.vocab.exists() else None
        return self._cache["vocab"]

    def model(self, kind: str):
        """(model, info) of the seed-11 checkpoint, or None when its files are
        absent. A checkpoint that exists but does not verify raises."""
        key = f"model:{kind}"
        if key not in self._cache:
            if not self.folder.info(kind).exists() or not self.folder.weights(kind).exists():
                self._cache[key] = None
            else:
                try:
                    self._cache[key] = load_checkpoint(kind, self.folder)
                except CheckpointError as exc:
                    raise InputError(str(exc)) from exc
        return self._cache[key]

    def prompt_context(self, kind: str, prompt: str):
        """A prompt as the checkpoint of ``kind`` reads it. Returns (context,
        None) with context = dict(model, info, vocab, tokens, history = [BOS] +
        IDs, X = the [1, w] window left-padded with PAD); or (None, the "not
        measured yet" dict naming the missing file) when vocab or checkpoint
        files are absent."""
        vocab = self.vocab()
        if vocab is None:
            return None, missing(self.folder.vocab)
        loaded = self.model(kind)
        if loaded is None:
            return None, missing(self.folder.weights(kind))
        model, info = loaded
        tokens = tokenize(prompt)
        history = start_history(vocab.encode_tokens(tokens))
        X = torch.tensor([context_window(history, model.config.w)])
        return dict(model=model, info=info, vocab=vocab, tokens=tokens, history=history, X=X), None


def unavailable(reason: str) -> dict:
    return {"available": False, "reason": reason}


def missing(path: Path) -> dict:
    return unavailable(f"{shown(path)} does not exist yet.")
