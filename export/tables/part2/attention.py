"""One attention step of the Part II toy: at "bank" phase by phase
(``part2_bank``), Q, K and V as projections (``part2_projections``), the causal
mask (``part2_mask``), every row of both sentences (``part2_walk``) and the
matrix form (``part2_matrix``)."""

from __future__ import annotations

import math

import numpy as np

from ..kit.registry import table
from . import toy
from .grids import B7, MASKED, SQ, L, grid, tok_label

UPDATE_STEPS = 11


@table("part2_bank")
def bank_table() -> dict:
    out = {
        "position": toy.BANK,
        "d_k": toy.D_K,
        "sqrt_d_k": math.sqrt(toy.D_K),
        "qk_axes": list(toy.QK_AXES),
        "v_axes": list(toy.V_AXES),
        "coords": list(toy.COORDS),
        "W_O": L(toy.W_O),
    }
    for name, s in toy.SENTENCES.items():
        E = toy.embed(s)[: toy.BANK]
        r = toy.attention_row(E, toy.BANK)
        toks = list(s[: toy.BANK])
        steps = [{"t": t, "row": L(r["e"] + t * r["delta"])} for t in np.linspace(0.0, 1.0, UPDATE_STEPS)]
        out[name] = {
            "tokens": toks,
            "e": L(r["e"]),
            "q": L(r["q"]),
            "keys": L(r["K"]),
            "terms": L(r["terms"]),
            "raw": L(r["raw"]),
            "scaled": L(r["scaled"]),
            "weights": L(r["weights"]),
            "values": L(r["V"]),
            "weighted": L(r["weighted"]),
            "message": L(r["message"]),
            "delta": L(r["delta"]),
            "e_new": L(r["e_new"]),
            "steps": steps,
            "weight_sum": float(r["weights"].sum()),
            "top_source": toks[int(np.argmax(r["weights"]))],
            "phase_a": grid(
                ["pos", "token", *(f"k {a}" for a in toy.QK_AXES), "q·k", f"q·k/{SQ}", "α"],
                [
                    [j + 1, t, *L(r["K"][j]), float(r["raw"][j]), float(r["scaled"][j]), float(r["weights"][j])]
                    for j, t in enumerate(toks)
                ],
            ),
            "phase_b": grid(
                ["pos", "token", "α", *(f"v {a}" for a in toy.V_AXES), *(f"αv {a}" for a in toy.V_AXES)],
                [[j + 1, t, float(r["weights"][j]), *L(r["V"][j]), *L(r["weighted"][j])] for j, t in enumerate(toks)]
                + [["", f"sum m{B7}", float(r["weights"].sum()), "", "", *L(r["message"])]],
            ),
            "residual": grid(
                ["row", *toy.COORDS],
                [
                    [f"e{B7} (bank)", *L(r["e"])],
                    [f"Δe{B7} = m{B7} W_O", *L(r["delta"])],
                    [f"e′{B7} = e{B7} + Δe{B7}", *L(r["e_new"])],
                ],
            ),
        }
    out["both"] = grid(
        ["pos", "river", "α river", "cheque", "α cheque"],
        [
            [
                j + 1,
                out["river"]["tokens"][j],
                out["river"]["weights"][j],
                out["cheque"]["tokens"][j],
                out["cheque"]["weights"][j],
            ]
            for j in range(toy.BANK)
        ]
        + [
            [
                "",
                f"m{B7}",
                f"({out['river']['message'][0]:.3f}, {out['river']['message'][1]:.3f})",
                f"m{B7}",
                f"({out['cheque']['message'][0]:.3f}, {out['cheque']['message'][1]:.3f})",
            ]
        ],
    )
    out["e_same"] = out["river"]["e"] == out["cheque"]["e"]
    rw, cw = out["river"]["weights"], out["cheque"]["weights"]
    out["clues"] = {
        "river": rw[toy.RIVER.index("river")],
        "cheque": cw[toy.CHEQUE.index("cheque")],
        "deposited": cw[toy.CHEQUE.index("deposited")],
        "cheque_and_deposited": cw[toy.CHEQUE.index("cheque")] + cw[toy.CHEQUE.index("deposited")],
    }
    return out


@table("part2_projections")
def projections_table() -> dict:
    out = {}
    for name, s in toy.SENTENCES.items():
        E = toy.embed(s)
        Q, K, V = toy.project(E)
        out[name] = {
            "tokens": list(s),
            "E": L(E),
            "Q": L(Q),
            "K": L(K),
            "V": L(V),
            "table": grid(
                [
                    "pos",
                    "token",
                    *(f"q {a}" for a in toy.QK_AXES),
                    *(f"k {a}" for a in toy.QK_AXES),
                    *(f"v {a}" for a in toy.V_AXES),
                ],
                [[i + 1, t, *L(Q[i]), *L(K[i]), *L(V[i])] for i, t in enumerate(s)],
            ),
        }
    bank = toy.BANK - 1
    E = toy.embed(toy.RIVER)
    out["bank_rows"] = grid(
        ["row", "width", "values"],
        [
            ["e (input)", len(toy.COORDS), L(E[bank])],
            ["q = e W_Q", toy.D_K, L(E[bank] @ toy.W_Q)],
            ["k = e W_K", toy.D_K, L(E[bank] @ toy.W_K)],
            ["v = e W_V", toy.W_V.shape[1], L(E[bank] @ toy.W_V)],
        ],
    )
    return out


MASK_ROW = 5


@table("part2_mask")
def mask_table() -> dict:
    s = toy.RIVER
    E = toy.embed(s)
    on, off = toy.attention_row(E, MASK_ROW), toy.attention_row(E, MASK_ROW, causal=False)
    future = np.arange(1, len(s) + 1) > MASK_ROW
    pattern = [[j <= i for j in range(4)] for i in range(4)]
    return {
        "row": MASK_ROW,
        "token": s[MASK_ROW - 1],
        "tokens": list(s),
        "scaled": L(on["scaled"]),
        "allowed": L(on["allowed"]),
        "masked_scores": [float(x) if a else MASKED for x, a in zip(on["scaled"], on["allowed"])],
        "weights_on": L(on["weights"]),
        "weights_off": L(off["weights"]),
        "message_on": L(on["message"]),
        "message_off": L(off["message"]),
        "future_mass_off": float(off["weights"][future].sum()),
        "future_mass_on": float(on["weights"][future].sum()),
        "top_off": s[int(np.argmax(off["weights"]))],
        "top_on": s[int(np.argmax(on["weights"]))],
        "next_token": s[MASK_ROW],
        "pattern": pattern,
        "pattern_table": grid(
            ["query \\ source", *(f"j={j + 1}" for j in range(4))],
            [[f"i={i + 1}", *("✓" if ok else "✗" for ok in row)] for i, row in enumerate(pattern)],
        ),
        "table": grid(
            ["pos", "token", "score", "α mask on", "α mask off"],
            [
                [j + 1, t, float(on["scaled"][j]), float(on["weights"][j]), float(off["weights"][j])]
                for j, t in enumerate(s)
            ],
        ),
    }


@table("part2_walk")
def walk_table() -> dict:
    out = {
        "qk_axes": list(toy.QK_AXES),
        "v_axes": list(toy.V_AXES),
        "coords": list(toy.COORDS),
        "d_k": toy.D_K,
        "sqrt_d_k": math.sqrt(toy.D_K),
    }
    for name, s in toy.SENTENCES.items():
        E = toy.embed(s)
        mx = toy.attention_matrix(E)
        T = len(s)
        allowed = mx["M"] == 0
        out[name] = {
            "tokens": list(s),
            "E": L(E),
            "Q": L(mx["Q"]),
            "K": L(mx["K"]),
            "V": L(mx["V"]),
            "S": L(mx["S"]),
            "allowed": L(allowed),
            "A": L(mx["A"]),
            "H": L(mx["H"]),
            "dE": L(mx["dE"]),
            "E_new": L(mx["E_new"]),
            "terms": L(mx["Q"][:, None, :] * mx["K"][None, :, :]),  # [i][j][l] = q_il k_jl
            "S_masked": [[float(mx["S"][i, j]) if allowed[i, j] else MASKED for j in range(T)] for i in range(T)],
        }
    return out


@table("part2_matrix")
def matrix_table() -> dict:
    s = toy.RIVER[: toy.BANK]
    E = toy.embed(s)
    mx = toy.attention_matrix(E)
    stepwise = np.stack([toy.attention_row(E, i)["e_new"] for i in range(1, len(s) + 1)])
    T = len(s)
    allowed = mx["M"] == 0
    return {
        "tokens": list(s),
        "row_labels": [tok_label(i + 1, t) for i, t in enumerate(s)],
        "E": L(E),
        "Q": L(mx["Q"]),
        "K": L(mx["K"]),
        "V": L(mx["V"]),
        "S": L(mx["S"]),
        "S_masked": [[float(mx["S"][i, j]) if allowed[i, j] else MASKED for j in range(T)] for i in range(T)],
        "A": L(mx["A"]),
        "H": L(mx["H"]),
        "dE": L(mx["dE"]),
        "E_new": L(mx["E_new"]),
        "stepwise_E_new": L(stepwise),
        "max_difference": float(np.abs(stepwise - mx["E_new"]).max()),
        "shapes": {
            "E": [T, len(toy.COORDS)],
            "Q": [T, toy.D_K],
            "K": [T, toy.D_K],
            "V": [T, toy.W_V.shape[1]],
            "S": [T, T],
            "A": [T, T],
            "H": [T, toy.W_V.shape[1]],
            "dE": [T, len(toy.COORDS)],
        },
    }
