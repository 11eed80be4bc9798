"""Two small Part II experiments that need their own numbers.

* ``part2_swap2d``: two-coordinate tokens with identity Q/K/V projections, so
  every number can be checked by eye. Swapping the two earlier tokens changes
  the final query's message only when position vectors are added.
* ``part2_divisor``: the cheque sentence's raw scores for "bank" divided by a
  range of divisors (√d_k among them): a larger divisor flattens the weights,
  a smaller one sharpens them. Feeds the divisor slider.
"""

from __future__ import annotations

import math

import numpy as np

from . import part2

WORDS = {"A": [1.0, 0.0], "B": [0.0, 1.0], "q": [0.6, 0.8]}
OMEGA = 1.0  # one sine/cosine pair: p_i = (sin iω, cos iω)
DIVISORS = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def _attend(rows: np.ndarray) -> tuple[list, list, list]:
    q, K, V = rows[-1], rows, rows  # identity projections
    s = K @ q
    w = np.exp(s - s.max())
    w = w / w.sum()
    return [float(x) for x in s], [float(x) for x in w], [float(x) for x in w @ V]


def swap2d() -> dict:
    runs, rows = {}, []
    for order in (("A", "B", "q"), ("B", "A", "q")):
        for with_pos in (True, False):
            E = np.array([WORDS[t] for t in order])
            if with_pos:
                E = E + np.array([[math.sin(i * OMEGA), math.cos(i * OMEGA)] for i in range(1, len(order) + 1)])
            scores, weights, message = _attend(E)
            key = f"{''.join(order[:2])}_{'pos' if with_pos else 'nopos'}"
            runs[key] = {"scores": scores, "weights": weights, "message": message}
            rows.append([" ".join(order), "yes" if with_pos else "no", *weights, *message])
    diff_pos = max(abs(a - b) for a, b in zip(runs["AB_pos"]["message"], runs["BA_pos"]["message"]))
    diff_nopos = max(abs(a - b) for a, b in zip(runs["AB_nopos"]["message"], runs["BA_nopos"]["message"]))
    return {
        "words": WORDS,
        "omega": OMEGA,
        "runs": runs,
        "message_change_with_positions": diff_pos,
        "message_change_without_positions": diff_nopos,
        "table": {
            "header": ["order", "positions", "α slot 1", "α slot 2", "α slot 3 (q)", "message x", "message y"],
            "rows": rows,
        },
    }


def divisor() -> dict:
    bank = part2.bank_table()["cheque"]
    model = part2.model_table()
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


def compute() -> dict:
    return {"part2_swap2d": swap2d(), "part2_divisor": divisor()}
