"""Where the models stage keeps its files, in one place.

    models/
      results.json            every training run (models/records.py checks it)
      corpus_audit.json       documents, tokens, windows per split
      training_trace.json     seed-11 runs' predictions and attention on fixed probes, step by step
      reproduction.json       independent reruns of seed-11 runs and the weights they gave (models/reproduce.py)
      checkpoints/
        vocab.json            the training vocabulary
        <kind>.safetensors    seed-11 weights of each model
        <kind>.json           its settings, selected step and SHA-256s

Training writes this layout (into models/ or a scratch folder); ensure, export,
the tables, the notebooks and the tests read it through ``ModelsFolder``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .settings import MODELS_DIR


@dataclass(frozen=True)
class ModelsFolder:
    """The files of one models folder (the committed one, or a training run's ``--out``)."""

    root: Path

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def vocab(self) -> Path:
        return self.checkpoints / "vocab.json"

    @property
    def results(self) -> Path:
        return self.root / "results.json"

    @property
    def audit(self) -> Path:
        return self.root / "corpus_audit.json"

    @property
    def trace(self) -> Path:
        return self.root / "training_trace.json"

    @property
    def reproduction(self) -> Path:
        return self.root / "reproduction.json"

    def weights(self, kind: str) -> Path:
        return self.checkpoints / f"{kind}.safetensors"

    def info(self, kind: str) -> Path:
        return self.checkpoints / f"{kind}.json"


MODELS = ModelsFolder(MODELS_DIR)  # the committed checkpoints
