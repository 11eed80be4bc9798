"""Tables for the Part III deck (multi-head attention and TinyStories)."""

from __future__ import annotations

from pathlib import Path

from ._part3_continuations import continuations
from ._part3_corpus import corpus_tables
from ._part3_real import generation_step, real_batch
from ._part3_settings import settings
from ._part3_toys import fisherman, two_source
from ._results_inputs import Inputs


def compute(models_dir: Path | None = None, export_dir: Path | None = None) -> dict[str, object]:
    inputs = Inputs()
    if models_dir is not None:
        inputs.models_dir = Path(models_dir)
    if export_dir is not None:
        inputs.export_dir = Path(export_dir)
    vocab = inputs.vocab()
    return {
        "part3_settings": settings(len(vocab) if vocab is not None else None),
        "part3_two_source": two_source(),
        "part3_fisherman": fisherman(),
        "part3_corpus": corpus_tables(inputs.audit()),
        "part3_batch": real_batch(inputs),
        "part3_generation": generation_step(inputs),
        "part3_continuations": continuations(inputs),
    }
