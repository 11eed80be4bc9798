"""Tables for the Part III deck (multi-head attention and TinyStories)."""

from __future__ import annotations

from pathlib import Path

from models.corpus import prepare

from ._part3_continuations import continuations
from ._part3_corpus import corpus_tables
from ._part3_figures import attention_arrows, head_split, model_flow, pipeline
from ._part3_real import generation_step, real_batch
from ._part3_settings import settings
from ._part3_toys import fisherman, two_source
from ._part3_training import comparison, cost, embedding_rules, sampling, seed_curves
from ._results_inputs import Inputs


def figures(cfg: dict, fish: dict, audit: dict | None, batch: dict) -> dict:
    """The deck's diagrams, each drawn from the numbers of its own table."""
    out = {
        "fisherman_split": head_split(
            "fig-split-toy",
            fish["n_tokens"],
            fish["width"],
            fish["n_heads"],
            fish["head_width"],
            "The worksheet's two heads: split, attend, join",
        ),
        "fisherman_arrows": attention_arrows(
            "fig-fisherman-arrows",
            fish["token_labels"],
            [h["weights"] for h in fish["heads"]],
            fish["tokens"][-1],
            "Where the receiver “the” looks in each worksheet head",
            columns=2,
        ),
    }
    if audit is not None:
        out["pipeline"] = pipeline(audit, cfg["batch_size"], cfg["steps"], cfg["T"])
    if batch.get("available") and batch["model"].get("available"):
        mod = batch["model"]
        out["model_flow"] = model_flow(
            mod["shapes"], mod["d"], mod["heads"], mod["head_width"], mod["hidden"], batch["C"], batch["T"]
        )
        out["found_arrows"] = attention_arrows(
            "fig-found-arrows",
            mod["found_tokens"],
            mod["found_weights"],
            mod["found_tokens"][-1],
            "Where the query “found” looks in each trained head",
        )
    return out


def compute(models_dir: Path | None = None, export_dir: Path | None = None) -> dict[str, object]:
    inputs = Inputs()
    if models_dir is not None:
        inputs.models_dir = Path(models_dir)
    if export_dir is not None:
        inputs.export_dir = Path(export_dir)
    vocab = inputs.vocab()
    audit, results = inputs.audit(), inputs.results()
    corpus = prepare("course")
    train_X, train_y = corpus.windows("train")
    cfg = settings(len(vocab) if vocab is not None else None)
    fish = fisherman()
    batch = real_batch(inputs)
    return {
        "part3_settings": cfg,
        "part3_two_source": two_source(),
        "part3_fisherman": fish,
        "part3_corpus": corpus_tables(audit, corpus),
        "part3_batch": batch,
        "part3_generation": generation_step(inputs),
        "part3_continuations": continuations(inputs),
        "part3_embeddings": embedding_rules(inputs, train_X, train_y),
        "part3_sampling": dict(sampling(len(train_y)), available=True),
        "part3_comparison": comparison(inputs, results),
        "part3_seed_curves": seed_curves(results),
        "part3_cost": dict(cost(cfg["T"], cfg["d"], cfg["heads"]), available=True),
        "part3_figures": dict(figures(cfg, fish, audit, batch), available=True),
    }
