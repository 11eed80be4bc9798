"""The paired comparison that opens the results deck (``results_paired``):
one head against four heads, seed by seed. With the same seed both models
start from the same weights (checked here by building both) and draw the
same batches (models/train.py seeds one generator with the seed), so each
seed's difference is a paired gain. Beside it: the seed-11 gain's interval
from the bootstrap over test stories (export/bootstrap.py, computed by
export/experiments.py), what differs between attention and the MLP (the
confounds of any attention-vs-MLP comparison), and each model's training
times as per-run values and medians."""

from __future__ import annotations

import statistics

import torch

from common.config import CONFIG
from common.numbers import written
from models.nets import KINDS, LABELS, build

from ..kit.registry import table
from ..kit.sources import Sources, file_absent, unavailable
from .head_cost import experiments_or_reason

ONE, FOUR = "attn1", "attn4"


def same_start(seed: int) -> bool:
    """Whether the one-head and four-head models built after
    ``torch.manual_seed(seed)`` (as models/train.py builds them) hold the
    same weights, bit for bit."""
    state = {}
    for kind in (ONE, FOUR):
        torch.manual_seed(seed)
        state[kind] = build(kind).state_dict()
    a, b = state[ONE], state[FOUR]
    return list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)


def pairs(runs: list[dict]) -> list[dict]:
    """Per seed with both attention runs: their perplexities and the paired gain."""
    by = {(r["kind"], r["seed"]): r for r in runs}
    out = []
    for seed in sorted({s for k, s in by if k == ONE and (FOUR, s) in by}):
        one, four = by[(ONE, seed)], by[(FOUR, seed)]
        gain = one["test_perplexity"] - four["test_perplexity"]
        out.append(
            {
                "seed": seed,
                "one": one["test_perplexity"],
                "four": four["test_perplexity"],
                "gain": gain,
                "gain_percent": gain / one["test_perplexity"] * 100,
                "loss_gain": one["test_loss"] - four["test_loss"],
            }
        )
    return out


def times(runs: list[dict]) -> dict:
    """Per kind: every run's training seconds (by seed) and their median."""
    out = {}
    for kind in KINDS:
        mine = sorted((r for r in runs if r["kind"] == kind), key=lambda r: r["seed"])
        if mine:
            seconds = [r["train_seconds"] for r in mine]
            out[kind] = {"seeds": [r["seed"] for r in mine], "seconds": seconds, "median": statistics.median(seconds)}
    return out


def _seeds(t: dict) -> str:
    return ", ".join(map(str, next(iter(t.values()))["seeds"]))


def confounds(runs: list[dict]) -> dict:
    """What differs between the MLP and the attention models besides how they
    read the window: parameters, optimizer settings, selected steps."""
    out = {}
    for kind in KINDS:
        mine = [r for r in runs if r["kind"] == kind]
        if mine:
            out[kind] = {
                "label": LABELS[kind],
                "parameters": mine[0]["parameters"],
                "lr": mine[0]["lr"],
                "weight_decay": mine[0]["weight_decay"],
                "selected_steps": sorted({r["selected_step"] for r in mine}),
                "first_selected_step": min(r["selected_step"] for r in mine),
                "last_selected_step": max(r["selected_step"] for r in mine),
            }
    return out


def paired(results: dict, experiments: dict | None) -> dict:
    runs = results["runs"]
    p = pairs(runs)
    if not p:
        return unavailable("no seed has both a one-head and a four-head run yet")
    ones = [r["test_perplexity"] for r in runs if r["kind"] == ONE]
    fours = [r["test_perplexity"] for r in runs if r["kind"] == FOUR]
    t = times(runs)
    out = {
        "available": True,
        "pairs": p,
        "n": len(p),
        "seeds_text": ", ".join(str(x["seed"]) for x in p),
        "same_start": all(same_start(x["seed"]) for x in p),
        "all_positive": all(x["gain"] > 0 for x in p),
        "separated": max(fours) < min(ones),
        "min_gain": min(x["gain"] for x in p),
        "max_gain": max(x["gain"] for x in p),
        "min_percent": min(x["gain_percent"] for x in p),
        "max_percent": max(x["gain_percent"] for x in p),
        "header": ["seed", "one head", "four heads", "paired gain", "gain (%)"],
        "rows": [
            [x["seed"], f"{x['one']:.2f}", f"{x['four']:.2f}", f"{x['gain']:+.2f}", f"{x['gain_percent']:.1f}"]
            for x in p
        ],
        "times": t,
        "time_rows": [
            # "; " between the runs: a comma between grouped numbers (1,094, 467) reads as one number
            [LABELS[k], "; ".join(written(s, 0) for s in t[k]["seconds"]), written(t[k]["median"], 0)]
            for k in t
        ],
        "time_header": ["model", f"training seconds per run (seeds {_seeds(t)})", "median"],
        "confounds": confounds(runs),
        "bootstrap": None,
    }
    if ONE in t and FOUR in t:
        out["median_time_ratio"] = t[FOUR]["median"] / t[ONE]["median"]
        out["median_time_percent"] = (out["median_time_ratio"] - 1) * 100
        out["median_time_percent_abs"] = abs(out["median_time_percent"])
    c = out["confounds"]
    if "mlp" in c and ONE in c:
        out["parameter_ratio"] = c["mlp"]["parameters"] / c[ONE]["parameters"]
    if experiments is not None and "bootstrap" in experiments:
        b, v = experiments["bootstrap"], experiments["variants"]
        seed11 = next((x for x in p if x["seed"] == CONFIG.training.checkpoint_seed), None)
        out["bootstrap"] = {
            "seed": b["seed"],
            "draws": b["draws"],
            "stories": b["stories"],
            "level_percent": round(b["level"] * 100),
            "checkpoint_seed": CONFIG.training.checkpoint_seed,
            "ppl_gain": v[ONE]["perplexity"] - v[FOUR]["perplexity"],
            "ppl_gain_ci": b["paired"]["ppl_gain"],
            "loss_gain": v[ONE]["loss"] - v[FOUR]["loss"],
            "loss_gain_ci": b["paired"]["loss_gain"],
            "excludes_zero": b["paired"]["ppl_gain"][0] > 0 or b["paired"]["ppl_gain"][1] < 0,
            "run_gain": seed11["gain"] if seed11 else None,
        }
    return out


@table("results_paired", needs=["sources"])
def paired_table(sources: Sources) -> dict:
    results = sources.results()
    if results is None or not results.get("runs"):
        return file_absent(sources.folder.results)
    experiments, _ = experiments_or_reason(sources)
    return paired(results, experiments)
