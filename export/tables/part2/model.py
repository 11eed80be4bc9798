"""The Part II toy model itself (``part2_model``), its predictions in both
sentences with attention on and bypassed (``part2_predict``), and what a fixed
window would cost (``part2_window``)."""

from __future__ import annotations

import numpy as np

from ..kit.registry import table
from . import toy
from .grids import B7, SENTENCE_LABELS, T10, L, grid, labelled


@table("part2_model")
def model_table() -> dict:
    d, dk, dv, H, V = len(toy.COORDS), toy.D_K, toy.W_V.shape[1], len(toy.HIDDEN), len(toy.CANDIDATES)
    sentences = {name: list(s) for name, s in toy.SENTENCES.items()}
    e_tables = {}
    for name, s in toy.SENTENCES.items():
        words, E = toy.word_rows(s), toy.embed(s)
        e_tables[name] = grid(
            ["pos", "token", *(f"word {c}" for c in toy.COORDS), "+ pos noun", *toy.COORDS],
            [[i + 1, t, *L(words[i]), float(toy.POSITIONS[i][2]), *L(E[i])] for i, t in enumerate(s)],
        )
    attention_params = sum(W.size for W in (toy.W_Q, toy.W_K, toy.W_V, toy.W_O))
    head_params = toy.W1.size + toy.b1.size + toy.W2.size + toy.b2.size
    return {
        "coords": list(toy.COORDS),
        "qk_axes": list(toy.QK_AXES),
        "v_axes": list(toy.V_AXES),
        "d_model": d,
        "d_k": dk,
        "d_v": dv,
        "n_hidden": H,
        "n_candidates": V,
        "hidden": list(toy.HIDDEN),
        "candidates": list(toy.CANDIDATES),
        "sentences": sentences,
        "bank_position": toy.BANK,
        "bank_subscript": B7,
        "n_positions": toy.N_POSITIONS,
        "shared_tail": sentences["river"][-3:] == sentences["cheque"][-3:],
        "W_Q": L(toy.W_Q),
        "W_K": L(toy.W_K),
        "W_V": L(toy.W_V),
        "W_O": L(toy.W_O),
        "W1": L(toy.W1),
        "b1": L(toy.b1),
        "W2": L(toy.W2),
        "b2": L(toy.b2),
        "positions": L(toy.POSITIONS),
        "position_step": toy.POSITION_STEP,
        "water_nouns": list(toy.WATER_NOUNS),
        "finance_nouns": list(toy.FINANCE_NOUNS),
        "generic_nouns": list(toy.GENERIC_NOUNS),
        "attention_parameters": int(attention_params),
        "head_parameters": int(head_params),
        "sentences_table": grid(
            ["position", *range(1, len(toy.RIVER) + 1)],
            [["river sentence", *toy.RIVER], ["cheque sentence", *toy.CHEQUE]],
        ),
        "words_table": labelled([toy.WORDS[w] for w in toy.WORDS], list(toy.WORDS), toy.COORDS, "word"),
        "positions_table": labelled(
            toy.POSITIONS, [str(i) for i in range(1, toy.N_POSITIONS + 1)], toy.COORDS, "position"
        ),
        "e_tables": e_tables,
        "W_Q_table": labelled(toy.W_Q, toy.COORDS, toy.QK_AXES, "W_Q"),
        "W_K_table": labelled(toy.W_K, toy.COORDS, toy.QK_AXES, "W_K"),
        "W_V_table": labelled(toy.W_V, toy.COORDS, toy.V_AXES, "W_V"),
        "W_O_table": labelled(toy.W_O, toy.V_AXES, toy.COORDS, "W_O"),
        "W1_table": labelled(toy.W1, toy.COORDS, toy.HIDDEN, "W1"),
    }


@table("part2_predict")
def predict_table() -> dict:
    contexts, probs = {}, {}
    for name, s in toy.SENTENCES.items():
        on, off = toy.predict_next(s), toy.predict_next(s, bypass=True)
        row = on["attention"]
        probs[name] = (on["probs"], off["probs"])
        contexts[name] = {
            "tokens": list(s),
            "probs": L(on["probs"]),
            "probs_bypass": L(off["probs"]),
            "top": on["top"],
            "top_index": int(np.argmax(on["probs"])),
            "top_prob": float(on["probs"].max()),
            "weights": L(row["weights"]),
            "message": L(row["message"]),
            "delta": L(row["delta"]),
            "e_last": L(row["e"]),
            "final": L(on["final"]),
            "hidden": L(on["hidden"]),
            "logits": L(on["logits"]),
            "bypass_hidden": L(off["hidden"]),
            "bypass_logits": L(off["logits"]),
            "weights_table": grid(
                ["pos", "token", "α"], [[j + 1, t, float(a)] for j, (t, a) in enumerate(zip(s, row["weights"]))]
            ),
        }
    bypass = probs["river"][1]
    best = bypass.max()
    tied = [c for c, p in zip(toy.CANDIDATES, bypass) if abs(p - best) < 1e-12]
    order = sorted(
        range(len(toy.CANDIDATES)), key=lambda k: -max(probs["river"][0][k], probs["cheque"][0][k], bypass[k])
    )[:10]
    last = toy.embed(toy.RIVER)[-1]
    return {
        "candidates": list(toy.CANDIDATES),
        "contexts": contexts,
        "bypass_max_difference": float(np.abs(probs["river"][1] - probs["cheque"][1]).max()),
        "attention_max_difference": float(np.abs(probs["river"][0] - probs["cheque"][0]).max()),
        "bypass_top": tied,
        "bypass_n_tied": len(tied),
        "bypass_top_prob": float(best),
        "last_row": L(last),
        "last_rows_table": grid(
            ["sentence", "pos", "token", *toy.COORDS],
            [[SENTENCE_LABELS[n], len(s), s[-1], *L(toy.embed(s)[-1])] for n, s in toy.SENTENCES.items()],
        ),
        "compare_table": grid(
            ["candidate", "river", "cheque", "attention bypassed (both)"],
            [
                [toy.CANDIDATES[k], float(probs["river"][0][k]), float(probs["cheque"][0][k]), float(bypass[k])]
                for k in order
            ],
        ),
        "final_weights_table": grid(
            ["pos", "river sentence", "α", "cheque sentence", "α"],
            [
                [j + 1, a, contexts["river"]["weights"][j], b, contexts["cheque"]["weights"][j]]
                for j, (a, b) in enumerate(zip(toy.RIVER, toy.CHEQUE))
            ],
        ),
        "hidden_table": grid(
            ["hidden unit", "river", "cheque", "bypassed"],
            [
                [
                    h,
                    contexts["river"]["hidden"][u],
                    contexts["cheque"]["hidden"][u],
                    contexts["river"]["bypass_hidden"][u],
                ]
                for u, h in enumerate(toy.HIDDEN)
            ],
        ),
        "final_table": grid(
            ["row", *toy.COORDS],
            [
                [f"e{T10} (the)", *contexts["river"]["e_last"]],
                [f"Δe{T10} river", *contexts["river"]["delta"]],
                [f"e′{T10} river", *contexts["river"]["final"]],
                [f"Δe{T10} cheque", *contexts["cheque"]["delta"]],
                [f"e′{T10} cheque", *contexts["cheque"]["final"]],
            ],
        ),
    }


@table("part2_window")
def window_table() -> dict:
    d, H, V = len(toy.COORDS), len(toy.HIDDEN), len(toy.CANDIDATES)
    T = toy.N_POSITIONS
    widths = []
    for w in range(1, T + 1):
        first = T - w + 1
        widths.append(
            {
                "w": w,
                "first": first,
                "inputs": w * d,
                "W1_shape": [w * d, H],
                "linear_shape": [w * d, V],
                "mlp_parameters": toy.mlp_parameters(w, d, H, V),
                "linear_parameters": toy.linear_head_parameters(w, d, V),
                "river_tokens": list(toy.RIVER[first - 1 :]),
                "cheque_tokens": list(toy.CHEQUE[first - 1 :]),
                "river_inside": first <= toy.RIVER.index("river") + 1,
                "cheque_inside": first <= toy.CHEQUE.index("cheque") + 1,
            }
        )
    by_w = {str(x["w"]): x for x in widths}
    return {
        "d": d,
        "H": H,
        "V": V,
        "widths": widths,
        "by_w": by_w,
        "short": by_w["3"],
        "long": by_w[str(T)],
        "mlp_extra_per_slot": d * H,
        "linear_extra_per_slot": d * V,
        "river_position": toy.RIVER.index("river") + 1,
        "cheque_position": toy.CHEQUE.index("cheque") + 1,
        "table": grid(
            ["w", "inputs wd", "MLP: wdH + H + HC + C", "", "linear head: wdC + C", ""],
            [
                [
                    x["w"],
                    x["inputs"],
                    f"{x['w']}·{d}·{H} + {H} + {H}·{V} + {V}",
                    x["mlp_parameters"],
                    f"{x['w']}·{d}·{V} + {V}",
                    x["linear_parameters"],
                ]
                for x in widths
                if x["w"] in (3, T)
            ],
        ),
    }
