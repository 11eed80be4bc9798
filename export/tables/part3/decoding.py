"""Sampling rules on a real next-token distribution (``part3_decoding``): the
four-head checkpoint's logits after "Lily found", reshaped by temperature,
top-k and top-p with the lab's own rule (export/decoding.py's
sampling_weights, which web/core/decoding.js mirrors), greedy as the limit.

The table carries every logit so the slide widget can apply the same rule
live (web/widgets/part3-sampling.js imports web/core/decoding.js)."""

from __future__ import annotations

import torch

from export.decoding import BANNED, greedy_choice, kept_ids, sampling_weights

from ..kit.registry import table
from ..kit.sources import Sources
from .real import GENERATION_PROMPT

SHOWN = 8  # tokens shown by name; the rest are one "all others" row
TEMPERATURES = (0.5, 1.0, 2.0)
TOP_K, TOP_P = 3, 0.9
SMALL_T = 0.05  # "greedy as the limit": the lab's lowest temperature
CHECKS = ((1.0, 0, 1.0), (0.5, 0, 1.0), (2.0, 0, 1.0), (1.0, TOP_K, 1.0), (1.0, 0, TOP_P), (0.7, 5, 0.8))


def distribution(logits: list[float], temperature: float, top_k: int = 0, top_p: float = 1.0) -> list[float]:
    """The probabilities sampling draws from: the lab's weights, normalised."""
    w = sampling_weights(logits, temperature, top_k, top_p)
    total = sum(w)
    return [x / total for x in w]


def rows_for(logits, order, names, columns) -> list[list]:
    """One row per shown token (in ranking order), then "all others"."""
    rows = [[names[i], *(col[i] for col in columns)] for i in order[:SHOWN]]
    rest = set(range(len(logits))) - set(order[:SHOWN])
    rows.append([f"all other {len(order) - SHOWN:,} tokens", *(sum(col[i] for i in rest) for col in columns)])
    return rows


@table("part3_decoding", needs=["sources"])
def decoding_table(sources: Sources) -> dict:
    ctx, absent = sources.prompt_context("attn4", GENERATION_PROMPT)
    if absent:
        return absent
    model, vocab, X = ctx["model"], ctx["vocab"], ctx["X"]
    with torch.no_grad():
        logits = [float(x) for x in model(X)[0]]
    names = list(vocab.itos)
    base = distribution(logits, 1.0)
    order = sorted((i for i in range(len(logits)) if i not in BANNED), key=lambda i: (-logits[i], i))
    by_t = [distribution(logits, t) for t in TEMPERATURES]
    filtered = [base, distribution(logits, 1.0, TOP_K), distribution(logits, 1.0, 0, TOP_P)]
    kept_p = kept_ids(logits, sampling_weights(logits, 1.0), 0, TOP_P)
    greedy = greedy_choice(logits)
    small = distribution(logits, SMALL_T)
    return {
        "available": True,
        "prompt": GENERATION_PROMPT,
        "labels": names,
        "logits": logits,
        "banned": sorted(BANNED),
        "shown": SHOWN,
        "order": order[:SHOWN],
        "temperatures": list(TEMPERATURES),
        "top_k": TOP_K,
        "top_p": TOP_P,
        "temperature_table": {
            "header": ["token", *(f"T = {t:g}" for t in TEMPERATURES)],
            "rows": rows_for(logits, order, names, by_t),
        },
        "filter_table": {
            "header": ["token", "all tokens (T = 1)", f"top-k = {TOP_K}", f"top-p = {TOP_P:g}"],
            "rows": rows_for(logits, order, names, filtered),
        },
        "top_probability": [p[order[0]] for p in by_t],  # one per temperature
        "top_p_kept": len(kept_p),
        "top_p_kept_share": sum(base[i] for i in kept_p),
        "top_k_share": sum(base[i] for i in order[:TOP_K]),
        "greedy": names[greedy],
        "greedy_is_top": greedy == order[0],
        "small_temperature": SMALL_T,
        "small_temperature_top": small[greedy],
        "checks": [
            {
                "temperature": t,
                "top_k": k,
                "top_p": p,
                "top": [[names[i], q[i]] for i in order[:5]],
                "kept": sum(1 for x in q if x > 0),
            }
            for t, k, p in CHECKS
            for q in [distribution(logits, t, k, p)]
        ],
    }
