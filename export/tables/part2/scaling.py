"""Why scores are divided by √d_k: simulated score spreads and softmax
saturation (``part2_scaling``); the cheque sentence's raw scores for "bank"
divided by a range of divisors, √d_k among them: a larger divisor flattens
the weights, a smaller one sharpens them (``part2_divisor``, the divisor slider)."""

from __future__ import annotations

import math

import numpy as np

from ..kit.registry import table
from . import toy
from .grids import SQ, L, grid

SCALING_SEED = 2017
SCALING_DIMS = (1, 4, 16, 64, 256)
SCALING_PAIRS = 20000


@table("part2_scaling")
def scaling_table() -> dict:
    rng = np.random.default_rng(SCALING_SEED)
    ex_q, ex_k = rng.standard_normal(8), rng.standard_normal(8)
    example = {
        "d_k": 8,
        "q": L(ex_q),
        "k": L(ex_k),
        "products": L(ex_q * ex_k),
        "score": float(ex_q @ ex_k),
        "scaled": float(ex_q @ ex_k / math.sqrt(8)),
    }
    rows = []
    for dk in SCALING_DIMS:
        q = rng.standard_normal((SCALING_PAIRS, dk))
        k = rng.standard_normal((SCALING_PAIRS, dk))
        raw = (q * k).sum(axis=1)
        scaled = raw / math.sqrt(dk)
        rows.append(
            {
                "d_k": dk,
                "mean_raw": float(raw.mean()),
                "var_raw": float(raw.var()),
                "sd_raw": float(raw.std()),
                "var_scaled": float(scaled.var()),
                "sd_scaled": float(scaled.std()),
                "max_abs_raw": float(np.abs(raw).max()),
            }
        )
    saturation = []
    for dk in SCALING_DIMS:  # two keys, one standard deviation above and below the mean score
        raw_top = float(toy.softmax(np.array([math.sqrt(dk), -math.sqrt(dk)]))[0])
        scaled_top = float(toy.softmax(np.array([1.0, -1.0]))[0])
        saturation.append(
            {
                "d_k": dk,
                "gap_raw": 2 * math.sqrt(dk),
                "top_raw": raw_top,
                "slope_raw": raw_top * (1 - raw_top),
                "top_scaled": scaled_top,
                "slope_scaled": scaled_top * (1 - scaled_top),
            }
        )
    r = toy.attention_row(toy.embed(toy.RIVER)[: toy.BANK], toy.BANK)
    unscaled_w = toy.softmax(r["raw"])
    toks = toy.RIVER[: toy.BANK]
    return {
        "seed": SCALING_SEED,
        "n_pairs": SCALING_PAIRS,
        "example": example,
        "simulation": rows,
        "saturation": saturation,
        "simulation_table": grid(
            ["d_k", "mean q·k", "var q·k", "sd q·k", "var q·k/√d_k"],
            [[x["d_k"], x["mean_raw"], x["var_raw"], x["sd_raw"], x["var_scaled"]] for x in rows],
        ),
        "saturation_table": grid(
            ["d_k", "score gap", "top weight (raw)", "slope α(1−α) raw", "top weight (scaled)", "slope scaled"],
            [
                [x["d_k"], x["gap_raw"], x["top_raw"], x["slope_raw"], x["top_scaled"], x["slope_scaled"]]
                for x in saturation
            ],
        ),
        "example_table": grid(
            ["l", "q_l", "k_l", "q_l k_l"], [[i + 1, a, b, a * b] for i, (a, b) in enumerate(zip(ex_q, ex_k))]
        ),
        "bank": {
            "raw": L(r["raw"]),
            "scaled": L(r["scaled"]),
            "weights_scaled": L(r["weights"]),
            "weights_unscaled": L(unscaled_w),
        },
        "bank_table": grid(
            ["pos", "token", "q·k", "α without √d_k", f"q·k/{SQ}", "α with √d_k"],
            [
                [j + 1, t, float(r["raw"][j]), float(unscaled_w[j]), float(r["scaled"][j]), float(r["weights"][j])]
                for j, t in enumerate(toks)
            ],
        ),
    }


# ---------------------------------------------------------------- divisor slider
DIVISORS = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


@table("part2_divisor", needs=["part2_bank", "part2_model"])
def divisor(part2_bank: dict, part2_model: dict) -> dict:
    bank = part2_bank["cheque"]
    model = part2_model
    raw = np.array(bank["raw"])
    settings = []
    for d in DIVISORS:
        s = raw / d
        w = np.exp(s - s.max())
        w = w / w.sum()
        settings.append({"divisor": d, "weights": [float(x) for x in w], "top": float(w.max())})
    sqrt_dk = math.sqrt(model["d_k"])
    s = raw / sqrt_dk
    w = np.exp(s - s.max())
    return {
        "tokens": bank["tokens"],
        "raw": [float(x) for x in raw],
        "d_k": model["d_k"],
        "sqrt_d_k": sqrt_dk,
        "settings": settings,
        "scaled_weights": [float(x) for x in w / w.sum()],
        "table": {"header": ["divisor"] + bank["tokens"], "rows": [[st["divisor"], *st["weights"]] for st in settings]},
    }
