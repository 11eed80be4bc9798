"""What a tables run reads, each file loaded once per run: the models folder
(common.layout.ModelsFolder: checkpoints, vocabulary, results.json, the corpus
audit), the export's JSON (build/export), bench/bench.json, the experiments
over the test split (build/experiments, export/experiments.py), and the
prepared course corpus with its training windows.

An absent input gives None (the table then says "available": false, see
``unavailable`` and ``file_absent``); a corrupt one stops the run with a
message naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch

from common.config import CONFIG
from common.files import Missing, read_json, shown
from common.layout import ModelsFolder
from common.settings import BENCH_FILE, BUILD_DIR, EXPORT_DIR, MODELS_DIR
from export.decoding import context_window, start_history
from models.checkpoints import CheckpointError, load_checkpoint, load_vocab
from models.corpus import DataError, prepare
from models.records import load_reproduction, load_results, load_trace
from models.tokenizer import tokenize


class InputError(RuntimeError):
    """An input file of the tables is corrupt; the message names it."""


def unavailable(reason: str) -> dict:
    """A table (or part of one) that cannot be computed yet, and why."""
    return {"available": False, "reason": reason}


def file_absent(path: Path) -> dict:
    """``unavailable`` because ``path`` does not exist yet."""
    return unavailable(f"{shown(path)} does not exist yet.")


@dataclass
class Sources:
    models_dir: Path = MODELS_DIR
    export_dir: Path = EXPORT_DIR
    bench_path: Path = BENCH_FILE  # the benchmark stage's measurement file
    experiments_path: Path = BUILD_DIR / "experiments" / "experiments.json"  # export/experiments.py
    _cache: dict = field(default_factory=dict, repr=False)

    def _once(self, key: str, load):
        if key not in self._cache:
            self._cache[key] = load()
        return self._cache[key]

    @property
    def folder(self) -> ModelsFolder:
        return ModelsFolder(self.models_dir)

    def json(self, path: Path):
        """Parsed JSON of ``path``, or None when the file does not exist."""

        def load():
            try:
                return read_json(path, InputError)
            except Missing:
                return None

        return self._once(f"json:{Path(path)}", load)

    def results(self):
        """results.json checked against its schema (every run of the profile,
        every field), or None when absent."""
        path = self.folder.results
        return self._once("results", lambda: None if self.json(path) is None else load_results(path, InputError))

    def reproduction(self):
        """models/reproduction.json checked against its schema, or None when absent."""
        path = self.folder.reproduction
        return self._once(
            "reproduction", lambda: None if self.json(path) is None else load_reproduction(self.folder, InputError)
        )

    def trace(self):
        """models/training_trace.json checked against its schema, or None when absent."""
        path = self.folder.trace
        return self._once("trace", lambda: None if self.json(path) is None else load_trace(self.folder, InputError, {}))

    def audit(self):
        return self.json(self.folder.audit)

    def export_json(self, name: str):
        return self.json(self.export_dir / name)

    def config(self) -> dict:
        """The course configuration as the export recorded it (metadata.json's
        "config", the file the lab reads), so slides and lab quote one source;
        the code's own (common/config.py) before there is an export."""
        metadata = self.export_json("metadata.json")
        if metadata is not None and "config" in metadata:
            return metadata["config"]
        return CONFIG.as_dict()

    def bench(self):
        return self.json(self.bench_path)

    def experiments(self):
        """The head and attention experiments over the test split, or None when absent."""
        return self.json(self.experiments_path)

    def corpus(self):
        """The prepared course corpus (models/corpus.py prepare("course")).
        Raises DataError or OSError when it cannot be loaded."""
        return self._once("corpus", lambda: prepare("course"))

    def corpus_or_reason(self):
        """(corpus, None), or (None, why it could not be loaded)."""
        try:
            return self.corpus(), None
        except (DataError, OSError) as exc:
            return None, f"the course corpus could not be loaded: {exc}"

    def train_windows(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The course corpus's training windows (X, y)."""
        return self._once("train_windows", lambda: self.corpus().windows("train"))

    def vocab(self):
        """The training vocabulary, or None when vocab.json is absent."""
        return self._once("vocab", lambda: load_vocab(self.folder) if self.folder.vocab.exists() else None)

    def model(self, kind: str):
        """(model, info) of the seed-11 checkpoint, or None when its files are
        absent. A checkpoint that exists but does not verify raises."""

        def load():
            if not self.folder.info(kind).exists() or not self.folder.weights(kind).exists():
                return None
            try:
                return load_checkpoint(kind, self.folder)
            except CheckpointError as exc:
                raise InputError(str(exc)) from exc

        return self._once(f"model:{kind}", load)

    def prompt_context(self, kind: str, prompt: str):
        """A prompt as the checkpoint of ``kind`` reads it. Returns (context,
        None) with context = dict(model, info, vocab, tokens, history = [BOS] +
        IDs, X = the [1, w] window left-padded with PAD); or (None, the "not
        measured yet" dict naming the missing file) when vocab or checkpoint
        files are absent."""
        vocab = self.vocab()
        if vocab is None:
            return None, file_absent(self.folder.vocab)
        loaded = self.model(kind)
        if loaded is None:
            return None, file_absent(self.folder.weights(kind))
        model, info = loaded
        tokens = tokenize(prompt)
        history = start_history(vocab.encode_tokens(tokens))
        X = torch.tensor([context_window(history, model.config.w)])
        return dict(model=model, info=info, vocab=vocab, tokens=tokens, history=history, X=X), None
