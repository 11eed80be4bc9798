"""Which query rows the models were trained on (``results_per_step``).

Training calls ``attend``, which forms the query from the final slot of a
window only: W_Q never learned from any other query row. ``forward_details``
computes every row in one pass (the one-pass matrix). What the model actually
did when it predicted the token after position t is the final query of the
window ending at t: we run ``attend`` window by window to get those per-step
rows, and measure how often each one-pass row's strongest source agrees with
the per-step row's, and how far their weights differ.
"""

from __future__ import annotations

import torch

from export.decoding import context_window
from models.nets import LABELS
from models.tokenizer import PAD_ID

from ..kit.registry import table
from ..kit.sources import Sources
from .model import PROMPT

KINDS = ("attn1", "attn4")


def rows_for(model, history: list[int]) -> dict:
    """One-pass and per-step weight rows of every head over the history's tokens.

    Returns one_pass and per_step as [heads][t][source] lists (source <= t),
    each row over the real tokens history[: t + 1]."""
    w = model.config.w
    n = len(history)
    X = torch.tensor([context_window(history, w)])
    with torch.no_grad():
        A = model.forward_details(X)["weights"][0]  # [heads, w, w]
    real = X[0].ne(PAD_ID)
    slots = real.nonzero().flatten().tolist()[-n:]  # the slots holding history[-n:]
    one_pass = [[[float(A[h, slots[t], slots[j]]) for j in range(t + 1)] for t in range(n)] for h in range(A.shape[0])]
    per_step = [[None] * n for _ in range(A.shape[0])]
    for t in range(n):
        window = torch.tensor([context_window(history[: t + 1], w)])
        with torch.no_grad():
            _, weights = model.attend(window)  # [1, heads, w]: the final query, as in training
        keep = window[0].ne(PAD_ID)
        for h in range(weights.shape[1]):
            per_step[h][t] = [float(x) for x in weights[0, h, keep]]
    return {"one_pass": one_pass, "per_step": per_step}


def agreement(one_pass: list, per_step: list) -> dict:
    """Rows with a choice (two or more sources): how many have the same
    strongest source in both, and the largest weight difference of any row."""

    def top(row):
        return max(range(len(row)), key=lambda j: row[j])

    compared = agree = 0
    diff = 0.0
    for a, b in zip(one_pass, per_step):
        diff = max(diff, max(abs(x - y) for x, y in zip(a, b)))
        if len(a) < 2:
            continue
        compared += 1
        agree += top(a) == top(b)
    return {"rows": compared, "agree": agree, "max_weight_difference": diff}


def padded(rows: list, n: int) -> list[list]:
    """A lower-triangular list of rows as an n x n matrix (later sources: 0)."""
    return [row + [0.0] * (n - len(row)) for row in rows]


@table("results_per_step", needs=["sources"])
def per_step_rows(sources: Sources, prompt: str = PROMPT) -> dict:
    out = {"available": True, "prompt": prompt, "kinds": {}}
    for kind in KINDS:
        ctx, absent = sources.prompt_context(kind, prompt)
        if absent:
            return absent
        history, vocab = ctx["history"], ctx["vocab"]
        r = rows_for(ctx["model"], history)
        words = [vocab.itos[i] for i in history]
        heads = []
        for h, (a, b) in enumerate(zip(r["one_pass"], r["per_step"])):
            heads.append(
                {
                    "head": h + 1,
                    "one_pass": padded(a, len(history)),
                    "per_step": padded(b, len(history)),
                    **agreement(a, b),
                }
            )
        total_rows = sum(x["rows"] for x in heads)
        total_agree = sum(x["agree"] for x in heads)
        out["kinds"][kind] = {
            "words": words,
            "labels": [f"{i + 1} {t}" for i, t in enumerate(words)],
            "heads": heads,
            "rows": total_rows,
            "agree": total_agree,
            "disagree": total_rows - total_agree,
            "max_weight_difference": max(x["max_weight_difference"] for x in heads),
            "final_row_difference": max(
                max(abs(x - y) for x, y in zip(hd["one_pass"][-1], hd["per_step"][-1])) for hd in heads
            ),
            "seed": ctx["info"].get("seed"),
        }
    four = out["kinds"]["attn4"]
    out["shown_head"] = four["heads"][0]["head"]
    out["agreement"] = {
        "header": ["model", "strongest source agrees", "rows with a choice", "largest weight difference"],
        "rows": [[LABELS[kind], d["agree"], d["rows"], d["max_weight_difference"]] for kind, d in out["kinds"].items()],
    }
    return out
