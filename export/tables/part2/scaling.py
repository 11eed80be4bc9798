"""Why scores are divided by √d_k: simulated score spreads and softmax
saturation (``part2_scaling``); the cheque sentence's raw scores for "bank"
divided by a range of divisors, √d_k among them: a larger divisor flattens
the weights, a smaller one sharpens them (``part2_divisor``, the divisor slider)."""

from __future__ import annotations

import math

import numpy as np

from ..kit.charts import nice_ticks
from ..kit.registry import table
from . import toy
from .grids import SQ, L, grid

SCALING_SEED = 2017
SCALING_DIMS = (1, 4, 16, 64, 256)
SCALING_PAIRS = 20000
# the widths whose scores the spread slide draws as histograms: the issue asked
# for 1, 8 and 64; 8 is not a width of the simulation, so 1, 16 and 64 (of
# SCALING_DIMS, the ones that best span 1 to 64: standard deviations 1, 4, 8)
SPREAD_DIMS = (1, 16, 64)
SPREAD_BINS = 60  # about how many bins a histogram's axis holds (a power of two of them per tick step)


def simulation() -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]]:
    """The example pair (d_k = 8) and SCALING_PAIRS unscaled scores q·k per
    width of SCALING_DIMS, drawn in that order from one generator seeded
    SCALING_SEED (the notebook draws them the same way)."""
    rng = np.random.default_rng(SCALING_SEED)
    ex_q, ex_k = rng.standard_normal(8), rng.standard_normal(8)
    raws = {}
    for dk in SCALING_DIMS:
        q = rng.standard_normal((SCALING_PAIRS, dk))
        k = rng.standard_normal((SCALING_PAIRS, dk))
        raws[dk] = (q * k).sum(axis=1)
    return ex_q, ex_k, raws


def histograms(samples: list[np.ndarray]) -> dict:
    """Histograms of ``samples`` (one array per width) on one shared axis:
    symmetric about 0, round ticks (about four each side), bins a power-of-two
    fraction of a tick step (about SPREAD_BINS of them), the axis just wide
    enough for every sample (the counts of each add up to its number of
    samples); each sample's variance beside them."""
    top = max(float(np.abs(x).max()) for x in samples)
    step = nice_ticks(0.0, top, 4)[1]
    per_tick = 2 ** round(math.log2(SPREAD_BINS * step / (2 * top)))
    width = step / per_tick
    half = math.ceil(top / width)
    edges = np.arange(-half, half + 1) * width
    return {
        "edges": L(edges),
        "ticks": [k * step for k in range(-(half // per_tick), half // per_tick + 1)],
        "counts": [[int(c) for c in np.histogram(x, bins=edges)[0]] for x in samples],
        "variance": [float(x.var()) for x in samples],
    }


@table("part2_scaling")
def scaling_table() -> dict:
    ex_q, ex_k, raws = simulation()
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
        raw = raws[dk]
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
        # the spread slide's histograms, of the same scores as the rows above
        "spread": {
            "d_k": list(SPREAD_DIMS),
            "unscaled": histograms([raws[dk] for dk in SPREAD_DIMS]),
            "scaled": histograms([raws[dk] / math.sqrt(dk) for dk in SPREAD_DIMS]),
        },
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
