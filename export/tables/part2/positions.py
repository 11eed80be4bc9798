"""Positions in the Part II toy: swapping two words with and without
position rows, sinusoidal angle addition, RoPE and additive positions
(``part2_positions``); two-coordinate tokens with identity projections, so
every number can be checked by eye: swapping the two earlier tokens changes
the final query's message only when position vectors are added
(``part2_swap2d``)."""

from __future__ import annotations

import math

import numpy as np

from ..kit.registry import table
from . import toy
from .grids import L, grid

SIN_D, SIN_BASE = 8, 10000.0
ROPE_D = 4
ROPE_Q = np.array([1.0, 0.5, -0.3, 0.8])
ROPE_K = np.array([0.6, -0.2, 0.9, 0.4])
ROPE_PAIRS = ((1, 3), (4, 6), (7, 9))
GRID_SLOTS = 16  # slots drawn in the heatmap of the sinusoidal encoding


@table("part2_positions")
def positions_table() -> dict:
    swapped = list(toy.RIVER)
    swapped[0], swapped[5] = swapped[5], swapped[0]
    runs = {}
    for label, pos in (("with", True), ("without", False)):
        a, b = toy.predict_next(toy.RIVER, positions=pos), toy.predict_next(swapped, positions=pos)
        runs[label] = {
            "original": L(a["probs"]),
            "swapped": L(b["probs"]),
            "max_difference": float(np.abs(a["probs"] - b["probs"]).max()),
            "top_original": a["top"],
            "top_swapped": b["top"],
            "river_weight_original": float(a["attention"]["weights"][5]),
            "river_weight_swapped": float(b["attention"]["weights"][0]),
        }
    show = [toy.CANDIDATES.index(w) for w in toy.WATER_NOUNS]
    swap_table = grid(
        [
            "candidate",
            "original, with positions",
            "swapped, with positions",
            "original, no positions",
            "swapped, no positions",
        ],
        [
            [
                toy.CANDIDATES[k],
                runs["with"]["original"][k],
                runs["with"]["swapped"][k],
                runs["without"]["original"][k],
                runs["without"]["swapped"][k],
            ]
            for k in show
        ],
    )

    # sinusoidal angle addition: PE(i + delta) = T(delta) PE(i)
    errors = [
        np.abs(
            toy.sinusoidal(i + dl, SIN_D, SIN_BASE)
            - toy.shift_matrix(dl, SIN_D, SIN_BASE) @ toy.sinusoidal(i, SIN_D, SIN_BASE)
        ).max()
        for i in range(0, 50)
        for dl in range(0, 20)
    ]
    i, dl = 3, 2
    pe_i, pe_sum = toy.sinusoidal(i, SIN_D, SIN_BASE), toy.sinusoidal(i + dl, SIN_D, SIN_BASE)
    shifted = toy.shift_matrix(dl, SIN_D, SIN_BASE) @ pe_i
    rates = toy.rates(SIN_D, SIN_BASE)
    river_slot = swapped.index("river") + 1  # 1-based, as the slide counts positions
    sinus = {
        "d": SIN_D,
        "base": SIN_BASE,
        "rates": L(rates),
        "i": i,
        "delta": dl,
        "pe_i": L(pe_i),
        "pe_sum": L(pe_sum),
        "shifted": L(shifted),
        "max_error": float(max(errors)),
        "n_checked": len(errors),
        # the encoding over slots 0..GRID_SLOTS-1 (rows: slots, columns: coordinates), for the heatmap
        "grid": {
            "slots": list(range(GRID_SLOTS)),
            "coordinates": [f"{f} ω{k}" for k in range(SIN_D // 2) for f in ("sin", "cos")],
            "values": [L(toy.sinusoidal(p, SIN_D, SIN_BASE)) for p in range(GRID_SLOTS)],
        },
        "table": grid(
            ["pair k", "rate ωₖ", "sin (i+δ)ω", "via rotation", "cos (i+δ)ω", "via rotation"],
            [
                [
                    k,
                    float(rates[k]),
                    float(pe_sum[2 * k]),
                    float(shifted[2 * k]),
                    float(pe_sum[2 * k + 1]),
                    float(shifted[2 * k + 1]),
                ]
                for k in range(SIN_D // 2)
            ],
        ),
    }

    # RoPE: R_i^T R_j = R_{j-i}, so <R_i q, R_j k> depends on j - i only
    mat_err = max(
        np.abs(toy.rope_matrix(a, ROPE_D).T @ toy.rope_matrix(b, ROPE_D) - toy.rope_matrix(b - a, ROPE_D)).max()
        for a in range(12)
        for b in range(12)
    )
    rope_rows, add_rows = [], []
    for a, b in ROPE_PAIRS:
        score = float((toy.rope_matrix(a, ROPE_D) @ ROPE_Q) @ (toy.rope_matrix(b, ROPE_D) @ ROPE_K))
        relative = float(ROPE_Q @ toy.rope_matrix(b - a, ROPE_D) @ ROPE_K)
        rope_rows.append([a, b, b - a, score, relative])
        pa, pb = toy.sinusoidal(a, ROPE_D), toy.sinusoidal(b, ROPE_D)
        add_rows.append([a, b, b - a, float((ROPE_Q + pa) @ (ROPE_K + pb)), float(pa @ pb)])
    rope = {
        "d": ROPE_D,
        "q": L(ROPE_Q),
        "k": L(ROPE_K),
        "pairs": [list(p) for p in ROPE_PAIRS],
        "matrix_max_error": float(mat_err),
        "scores": [r[3] for r in rope_rows],
        "relative": [r[4] for r in rope_rows],
        "score_spread": float(max(r[3] for r in rope_rows) - min(r[3] for r in rope_rows)),
        "table": grid(["i", "j", "j−i", "⟨Rᵢq, Rⱼk⟩", "qᵀ R(j−i) k"], rope_rows),
        # the first coordinate pair of q and k after rotating by i and j (the picture of RoPE)
        "rotated_first_pair": [
            {
                "i": a,
                "j": b,
                "q": L((toy.rope_matrix(a, ROPE_D) @ ROPE_Q)[:2]),
                "k": L((toy.rope_matrix(b, ROPE_D) @ ROPE_K)[:2]),
            }
            for a, b in ROPE_PAIRS
        ],
    }
    additive = {
        "scores": [r[3] for r in add_rows],
        "position_products": [r[4] for r in add_rows],
        "score_spread": float(max(r[3] for r in add_rows) - min(r[3] for r in add_rows)),
        "product_spread": float(max(r[4] for r in add_rows) - min(r[4] for r in add_rows)),
        "table": grid(["i", "j", "j−i", "(q+Pᵢ)·(k+Pⱼ)", "Pᵢ·Pⱼ"], add_rows),
    }
    return {
        "original": list(toy.RIVER),
        "swapped": swapped,
        "river_slot_swapped": river_slot,
        "runs": runs,
        "swap_table": swap_table,
        "sinusoidal": sinus,
        "rope": rope,
        "additive": additive,
    }


# ---------------------------------------------------------------- two-coordinate swap
# Two story words and a final query word. Real words, not letters: A (attention
# weights), B (batch size) and q (a query row) are symbols of the course's
# notation (content/notation.toml), so a token named after one would read as it.
SWAP_WORDS = {"cat": [1.0, 0.0], "dog": [0.0, 1.0], "ran": [0.6, 0.8]}
FIRST, SECOND, QUERY = SWAP_WORDS
OMEGA = 1.0  # one sine/cosine pair: P_i = (sin iω, cos iω)


def _attend(rows: np.ndarray, divisor: float = 1.0) -> tuple[list, list, list]:
    """Identity projections; scores are plain dot products unless ``divisor``
    (√d_k) is given."""
    q, K, V = rows[-1], rows, rows
    s = K @ q / divisor
    w = np.exp(s - s.max())
    w = w / w.sum()
    return [float(x) for x in s], [float(x) for x in w], [float(x) for x in w @ V]


@table("part2_swap2d")
def swap2d() -> dict:
    runs, rows = {}, []
    for order in ((FIRST, SECOND, QUERY), (SECOND, FIRST, QUERY)):
        for with_pos in (True, False):
            E = np.array([SWAP_WORDS[t] for t in order])
            if with_pos:
                E = E + np.array([[math.sin(i * OMEGA), math.cos(i * OMEGA)] for i in range(1, len(order) + 1)])
            scores, weights, message = _attend(E)
            key = f"{order[0]}_{order[1]}_{'pos' if with_pos else 'nopos'}"
            runs[key] = {"scores": scores, "weights": weights, "message": message}
            rows.append([" ".join(order), "yes" if with_pos else "no", *weights, *message])
    scaled = []
    for order in ((FIRST, SECOND, QUERY), (SECOND, FIRST, QUERY)):
        E = np.array([SWAP_WORDS[t] for t in order])
        E = E + np.array([[math.sin(i * OMEGA), math.cos(i * OMEGA)] for i in range(1, len(order) + 1)])
        scaled.append(_attend(E, math.sqrt(E.shape[1]))[2])

    def messages(kind: str) -> tuple[list, list]:
        return runs[f"{FIRST}_{SECOND}_{kind}"]["message"], runs[f"{SECOND}_{FIRST}_{kind}"]["message"]

    diff_pos = max(abs(a - b) for a, b in zip(*messages("pos")))
    diff_nopos = max(abs(a - b) for a, b in zip(*messages("nopos")))
    # how far the message moves (Euclidean distance), beside the largest coordinate change above
    dist_pos = math.dist(*messages("pos"))
    dist_nopos = math.dist(*messages("nopos"))
    return {
        "words": SWAP_WORDS,
        "order": [FIRST, SECOND, QUERY],  # the words in their first order; the query word is last
        "omega": OMEGA,
        "runs": runs,
        "message_change_with_positions": diff_pos,
        "message_change_without_positions": diff_nopos,
        "message_distance_with_positions": dist_pos,
        "message_distance_without_positions": dist_nopos,
        "message_distance_with_positions_scaled": math.dist(*scaled),
        "scaled": False,  # the table's scores are plain dot products (no division by √d_k)
        "d_k": len(SWAP_WORDS[QUERY]),
        "message_change_with_positions_scaled": max(abs(a - b) for a, b in zip(*scaled)),
        "table": {
            "header": [
                *("order", "positions", "α slot 1", "α slot 2", f"α slot 3 ({QUERY})"),
                *("message coord 1", "message coord 2"),
            ],
            "rows": rows,
        },
    }
