"""Tables for the Part II deck, all computed from the toy model in _part2_toy.

`compute()` returns {NAME: table}; `python -m export.tables` writes each one to
build/tables/NAME.json. Tables that a slide shows as a grid carry ready-made
{"header": [...], "rows": [...]} entries so the deck can cite them by source
string. JSON cannot hold -inf, so masked scores appear as the string "−∞".
"""

from __future__ import annotations

import math

import numpy as np

from . import _part2_toy as toy

MASKED = "−∞"
SENTENCE_LABELS = {"river": "river sentence", "cheque": "cheque sentence"}


def L(x):
    """numpy -> plain Python lists/floats for JSON."""
    return np.asarray(x).tolist()


def grid(header, rows):
    return {"header": list(header), "rows": [list(r) for r in rows]}


def labelled(matrix, row_labels, col_labels, corner=""):
    return grid([corner, *col_labels], [[label, *L(row)] for label, row in zip(row_labels, matrix)])


def subs(n: int) -> str:
    """7 -> '₇', 10 -> '₁₀' (for row labels)."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


B7, T10, SQ = subs(toy.BANK), subs(toy.N_POSITIONS), f"√{toy.D_K}"


def tok_label(i, token):
    return f"{i} {token}"


# ---------------------------------------------------------------- the model itself
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


# ---------------------------------------------------------------- prediction
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


# ---------------------------------------------------------------- fixed window
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
            ["w", "inputs wd", "MLP: wdH + H + HV + V", "", "linear head: wdV + V", ""],
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


# ---------------------------------------------------------------- pooled summaries at bank
CHOSEN_WEIGHTS = {  # hand-picked by position for each sentence: the reader's "unequal contributions"
    "river": (0.05, 0.05, 0.05, 0.05, 0.05, 0.6, 0.15),
    "cheque": (0.05, 0.25, 0.05, 0.4, 0.05, 0.05, 0.15),
}


def pooled_table() -> dict:
    out = {}
    for name, s in toy.SENTENCES.items():
        E = toy.embed(s)[: toy.BANK]
        chosen = np.array(CHOSEN_WEIGHTS[name])
        mean, summary = E.mean(axis=0), chosen @ E
        out[name] = {
            "tokens": list(s[: toy.BANK]),
            "rows": L(E),
            "mean": L(mean),
            "chosen": L(chosen),
            "chosen_sum": float(chosen.sum()),
            "summary": L(summary),
            "table": grid(
                ["pos", "token", "mean weight", "chosen weight", *toy.COORDS],
                [[j + 1, t, 1 / toy.BANK, float(chosen[j]), *L(E[j])] for j, t in enumerate(s[: toy.BANK])]
                + [["", f"mean m{B7}", "", "", *L(mean)], ["", f"chosen m{B7}", "", "", *L(summary)]],
            ),
        }
    return out


# ---------------------------------------------------------------- video search
TOPICS = ("rivers", "wildlife", "boats", "weather", "money", "banking", "cooking", "music")
QUERIES = (
    ("Which birds nest on river banks?", {"rivers": 1.0, "wildlife": 1.0}),
    ("How do I pay in a cheque?", {"money": 0.5, "banking": 1.0}),
    ("Is it safe to row in the rain?", {"rivers": 0.5, "boats": 1.0, "weather": 1.0}),
)
VIDEOS = (  # (title, key: what the listing says it is about, value: what watching it gives you)
    ("Kingfishers at the water's edge", {"rivers": 1.0, "wildlife": 1.0}, {"rivers": 0.6, "wildlife": 1.0}),
    ("Canoeing for beginners", {"rivers": 0.5, "boats": 1.0}, {"rivers": 0.5, "boats": 1.0, "weather": 0.2}),
    ("Storm safety on the water", {"boats": 0.5, "weather": 1.0}, {"boats": 0.4, "weather": 1.0}),
    ("Opening a savings account", {"money": 1.0, "banking": 1.0}, {"money": 0.8, "banking": 1.0}),
    ("Paying in a cheque, step by step", {"money": 0.5, "banking": 1.0}, {"money": 0.6, "banking": 1.0}),
    ("Campfire cooking by the lake", {"rivers": 0.3, "cooking": 1.0}, {"cooking": 1.0}),
    ("Songs about rivers", {"rivers": 0.8, "music": 1.0}, {"rivers": 0.3, "music": 1.0}),
    ("Otters and beavers", {"rivers": 0.6, "wildlife": 1.0}, {"rivers": 0.5, "wildlife": 1.0}),
)
TEMPERATURES = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


def topic_vector(weights: dict) -> np.ndarray:
    return np.array([weights.get(t, 0.0) for t in TOPICS])


def video_table() -> dict:
    Qm = np.stack([topic_vector(q) for _, q in QUERIES])
    K = np.stack([topic_vector(k) for _, k, _ in VIDEOS])
    V = np.stack([topic_vector(v) for _, _, v in VIDEOS])
    S = Qm @ K.T
    chosen = 0
    s = S[chosen]
    best = int(np.argmax(s))
    settings = [{"label": "hard", "temperature": None, "weights": L(np.eye(len(VIDEOS))[best]), "returned": L(V[best])}]
    for T in TEMPERATURES:
        w = toy.softmax(s / T)
        settings.append({"label": f"T = {T:g}", "temperature": T, "weights": L(w), "returned": L(w @ V)})
    titles = [t for t, _, _ in VIDEOS]
    return {
        "topics": list(TOPICS),
        "queries": [q for q, _ in QUERIES],
        "query_vectors": L(Qm),
        "titles": titles,
        "keys": L(K),
        "values": L(V),
        "scores": L(S),
        "query_index": chosen,
        "query": QUERIES[chosen][0],
        "best": best,
        "best_title": titles[best],
        "temperatures": list(TEMPERATURES),
        "settings": settings,
        "queries_table": labelled(Qm, [q for q, _ in QUERIES], TOPICS, "query"),
        "keys_table": labelled(K, titles, TOPICS, "key"),
        "values_table": labelled(V, titles, TOPICS, "value"),
        "scores_table": grid(
            ["video", *(f"q{i + 1}·k" for i in range(len(QUERIES)))], [[t, *L(S[:, j])] for j, t in enumerate(titles)]
        ),
    }


# ---------------------------------------------------------------- attention at bank
UPDATE_STEPS = 11


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


# ---------------------------------------------------------------- Q, K, V as projections
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


# ---------------------------------------------------------------- score scaling
SCALING_SEED = 2017
SCALING_DIMS = (1, 4, 16, 64, 256)
SCALING_PAIRS = 20000


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


# ---------------------------------------------------------------- causal mask
MASK_ROW = 5


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


# ---------------------------------------------------------------- full walkthrough and matrix form
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


# ---------------------------------------------------------------- comparison of mixing rules
def compare_table() -> dict:
    T = toy.N_POSITIONS
    j = np.arange(1, T + 1)
    window = (j > T - 3).astype(float)
    mean = np.full(T, 1 / T)
    distance = 0.5 ** (T - j)
    distance = distance / distance.sum()
    out = {"schemes": ["fixed window w=3 (inclusion)", "plain mean", "distance weights 0.5^(i−j)", "attention"]}
    for name, s in toy.SENTENCES.items():
        E = toy.embed(s)
        att = toy.attention_row(E, T)["weights"]
        rows = [window, mean, distance, att]
        out[name] = {
            "tokens": list(s),
            "weights": [L(r) for r in rows],
            "table": grid(["rule", *s], [[label, *L(r)] for label, r in zip(out["schemes"], rows)]),
            "mean_summary": L(mean @ E),
            "attention_summary": L(att @ E),
        }
    out["same_across_sentences"] = [out["river"]["weights"][k] == out["cheque"]["weights"][k] for k in range(4)]
    out["attention_max_difference"] = float(
        np.abs(np.array(out["river"]["weights"][3]) - np.array(out["cheque"]["weights"][3])).max()
    )
    return out


# ---------------------------------------------------------------- positions
SIN_D, SIN_BASE = 8, 10000.0
ROPE_D = 4
ROPE_Q = np.array([1.0, 0.5, -0.3, 0.8])
ROPE_K = np.array([0.6, -0.2, 0.9, 0.4])
ROPE_PAIRS = ((1, 3), (4, 6), (7, 9))


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
    }
    additive = {
        "scores": [r[3] for r in add_rows],
        "position_products": [r[4] for r in add_rows],
        "score_spread": float(max(r[3] for r in add_rows) - min(r[3] for r in add_rows)),
        "product_spread": float(max(r[4] for r in add_rows) - min(r[4] for r in add_rows)),
        "table": grid(["i", "j", "j−i", "(q+pᵢ)·(k+pⱼ)", "pᵢ·pⱼ"], add_rows),
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


def compute() -> dict[str, object]:
    return {
        "part2_model": model_table(),
        "part2_predict": predict_table(),
        "part2_window": window_table(),
        "part2_pooled": pooled_table(),
        "part2_video": video_table(),
        "part2_bank": bank_table(),
        "part2_projections": projections_table(),
        "part2_scaling": scaling_table(),
        "part2_mask": mask_table(),
        "part2_walk": walk_table(),
        "part2_matrix": matrix_table(),
        "part2_compare": compare_table(),
        "part2_positions": positions_table(),
    }
