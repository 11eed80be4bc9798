"""The training protocol as recorded (models/results.json, the corpus audit,
models/train.py and models/corpus.py: ``results_protocol``) and the worked
mean ± SD of one model's perplexities (``results_worked``)."""

from __future__ import annotations

import math
import statistics

from models.corpus import PROFILES
from models.nets import KINDS, LABELS
from models.train import CHECKPOINT_SEED, CLIP_NORM, OPTIMIZER

from ..kit.registry import table
from ..kit.sources import Sources


def _one(values):
    values = sorted(set(values))
    return values[0] if len(values) == 1 else values


def protocol(results: dict | None, audit: dict | None) -> dict:
    """What every course run shared. Values recorded per run in results.json
    win over the code's defaults; the code's settings fill in what a run does
    not record (and a test checks the two agree)."""
    course, smoke = PROFILES["course"], PROFILES["smoke"]
    runs = (results or {}).get("runs", [])
    optim = {k: {"lr": OPTIMIZER[k][0], "weight_decay": OPTIMIZER[k][1]} for k in KINDS}
    for r in runs:
        optim[r["kind"]] = {"lr": r["lr"], "weight_decay": r["weight_decay"]}
    out = {
        "available": True,
        "recorded": bool(runs),
        "stories": audit["selected_stories"] if audit else course.n_stories,
        "vocab_size": audit["vocab_size"] if audit else course.vocab_size,
        "context": audit["context"] if audit else None,
        "train_stories": audit["splits"]["train"]["documents"] if audit else None,
        "batch_size": _one(r["batch_size"] for r in runs) if runs else course.batch_size,
        "steps": _one(r["steps"] for r in runs) if runs else course.steps,
        "eval_every": course.eval_every,
        "validation_windows": (results or {}).get("validation_windows", course.val_windows),
        "validation_total": audit["splits"]["validation"]["windows"] if audit else None,
        "test_windows": (results or {}).get("test_windows"),
        "seeds": list(course.seeds),
        "checkpoint_seed": CHECKPOINT_SEED,
        "clip_norm": CLIP_NORM,
        "optimizer": optim,
        "optimizer_rows": [[LABELS[k], optim[k]["lr"], optim[k]["weight_decay"]] for k in KINDS],
        "attn_settings_shared": optim["attn1"] == optim["attn4"],
        "smoke": {
            "stories": smoke.n_stories,
            "vocab_size": smoke.vocab_size,
            "steps": smoke.steps,
            "batch_size": smoke.batch_size,
            "eval_every": smoke.eval_every,
            "validation_windows": smoke.val_windows,
        },
    }
    out["rows"] = [
        ["stories (whole documents)", f"{out['stories']:,}"],
        [
            "vocabulary",
            f"{out['vocab_size']:,} items, fitted on the {out['train_stories']:,} training stories only"
            if out["train_stories"]
            else f"{out['vocab_size']:,} items, fitted on training stories only",
        ],
        ["windows per batch", f"{out['batch_size']:,}, drawn at random with replacement"],
        ["optimizer steps", f"{out['steps']:,} (a ceiling: the best validation step is kept)"],
        [
            "validation",
            f"every {out['eval_every']:,} steps, on a fixed slice of {out['validation_windows']:,} "
            f"validation windows" + (f" (of {out['validation_total']:,})" if out["validation_total"] else ""),
        ],
        ["optimizer", "AdamW, gradient norm clipped at " + f"{CLIP_NORM:g}"],
        ["seeds", ", ".join(str(s) for s in out["seeds"])],
    ]
    out["header"] = ["setting", "value"]
    return out


def worked_sd(results: dict | None, kind: str = "attn4", baseline: str = "attn1") -> dict:
    """The mean ± sample SD of one model's test perplexities, step by step,
    and the percentage reduction of its mean against the baseline's."""
    runs = sorted((r for r in (results or {}).get("runs", []) if r["kind"] == kind), key=lambda r: r["seed"])
    base = [r["test_perplexity"] for r in (results or {}).get("runs", []) if r["kind"] == baseline]
    if len(runs) < 2 or not base:
        return {
            "available": False,
            "reason": f"models/results.json needs at least two runs of {LABELS[kind]} and one of {LABELS[baseline]}.",
        }
    values = [r["test_perplexity"] for r in runs]
    n = len(values)
    mean = sum(values) / n
    deviations = [v - mean for v in values]
    squares = [d * d for d in deviations]
    variance = sum(squares) / (n - 1)
    sd = math.sqrt(variance)
    assert abs(sd - statistics.stdev(values)) < 1e-9
    base_mean = statistics.mean(base)
    reduction = (base_mean - mean) / base_mean * 100
    return {
        "available": True,
        "kind": kind,
        "label": LABELS[kind],
        "baseline": baseline,
        "baseline_label": LABELS[baseline],
        "seeds": [r["seed"] for r in runs],
        "values": values,
        "n": n,
        "n_minus_1": n - 1,
        "sum": sum(values),
        "mean": mean,
        "deviations": deviations,
        "squares": squares,
        "sum_squares": sum(squares),
        "variance": variance,
        "sd": sd,
        "baseline_mean": base_mean,
        "difference": base_mean - mean,
        "reduction_percent": reduction,
        "direction": "lower" if mean < base_mean else "higher" if mean > base_mean else "equal",
        "rows": [[r["seed"], v, d, q] for r, v, d, q in zip(runs, values, deviations, squares)],
        "header": ["seed", "perplexity", "minus the mean", "squared"],
    }


@table("results_protocol", needs=["sources"])
def protocol_table(sources: Sources) -> dict:
    return protocol(sources.results(), sources.audit())


@table("results_worked", needs=["sources"])
def worked_table(sources: Sources) -> dict:
    return worked_sd(sources.results())
