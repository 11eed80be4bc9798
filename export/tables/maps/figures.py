"""Diagrams for the maps deck, drawn from the maps tables (the same toy:
C=10, w=4, B=2): the data pipeline, the MLP's and the attention model's data
flow with tensor shapes, attention arrows weighted by the toy model's real
weights, and the generation loop. Table: ``maps_figures``."""

from __future__ import annotations

from common.palette import ACCENT, FILLS, LINE, MUTED, ROLES

from ..kit.draw import PHONE, Drawing, arranged, chain_down, flow
from ..kit.registry import table


def _shape(s) -> str:
    return "[" + ", ".join(str(x) for x in s) + "]"


def pipeline(story: dict, windows: dict, batch: dict) -> str:
    n_ids = len(story["ids"])
    stages = [
        ("story text", "1 sentence", "data"),
        ("tokens", f"{n_ids - 2} pieces", "data"),
        ("IDs with BOS, EOS", _shape([n_ids]), "data"),
        ("windows X, y", f"{_shape(windows['X_shape'])}, {_shape(windows['y_shape'])}", "data"),
        ("batches", f"{batch['steps_per_pass']} of ≤ {batch['B']}", "data"),
        ("model → loss", "one number", "op"),
    ]
    desc = (
        f"Left to right: the toy story is tokenized into {n_ids - 2} ordinary tokens, wrapped in BOS and EOS to "
        f"give {n_ids} IDs, cut into {windows['N']} windows of width {windows['w']} with one target each, grouped "
        f"into {batch['steps_per_pass']} batches of at most {batch['B']} examples, and fed to a model whose "
        f"output is one loss value per batch."
    )
    return flow(
        "maps-pipeline",
        "The training data pipeline of the toy",
        desc,
        stages,
        ["tokenize", "vocabulary", "slide w", "batch", "forward"],
    )


def mlp_flow(dims: dict, mlp: dict) -> str:
    B, w, d, h, C = dims["B"], dims["w"], dims["d"], dims["h"], dims["C"]
    stages = [
        ("IDs X", _shape([B, w]), "data"),
        ("embeddings E", _shape(mlp["E_shape"]), "data"),
        ("flattened", _shape(mlp["flat_shape"]), "data"),
        ("hidden h", _shape(mlp["hidden_shape"]), "data"),
        ("logits z", _shape([B, C]), "out"),
    ]
    desc = (
        f"The fixed-window MLP: the ID batch of shape [{B}, {w}] selects embedding rows ([{B}, {w}, {d}]), each "
        f"example's {w} rows are concatenated into {w * d} numbers, a linear layer with ReLU gives {h} hidden "
        f"units, and a second linear layer gives {C} vocabulary scores per example."
    )
    return flow(
        "maps-mlp-flow",
        "Data flow of the fixed-window MLP, with tensor shapes",
        desc,
        stages,
        ["table lookup", "concatenate", "W₁, ReLU", "W₂"],
    )


def attention_flow(dims: dict, att: dict) -> str:
    B, w, d, dk = dims["B"], dims["w"], dims["d"], dims["d_k"]
    desc = (
        f"The one-head attention model. IDs [{B}, {w}] become token rows plus position rows E "
        f"{_shape(att['E_shape'])}. The final row gives one query q {_shape(att['q_shape'])}; every row gives a key "
        f"(K {_shape(att['K_shape'])}) and a value (V {_shape(att['V_shape'])}). Scores q·K/√{dk} with PAD masked "
        f"pass through softmax to weights {_shape(att['weights_shape'])}; the weighted sum of values is the "
        f"message {_shape(att['message_shape'])}; W_O maps it to width {d} and it is added to the final row "
        f"(the residual). A hidden layer ({_shape(att['hidden_shape'])}) and the vocabulary head give logits "
        f"{_shape(att['logits_shape'])}."
    )
    dr = Drawing(
        1000, 330, "maps-attention-flow", "Data flow of the one-head attention model, with tensor shapes", desc
    )
    x_ids = dr.box(10, 120, 120, 70, "IDs X", sub=_shape([B, w]))
    e = dr.box(175, 120, 150, 70, "E = tok + pos", sub=_shape(att["E_shape"]))
    dr.arrow(x_ids.right, e.left)
    q = dr.box(380, 20, 140, 64, "query q", sub=_shape(att["q_shape"]), kind="op", role="query")
    k = dr.box(380, 123, 140, 64, "keys K", sub=_shape(att["K_shape"]), kind="op", role="key")
    v = dr.box(380, 226, 140, 64, "values V", sub=_shape(att["V_shape"]), kind="op", role="value")
    dr.arrow(e.right, q.left, label="W_Q, final row", label_offset=-12)
    dr.arrow(e.right, k.left, label="W_K")
    dr.arrow(e.right, v.left, label="W_V", label_offset=22)
    a = dr.box(575, 60, 170, 70, "weights α", sub=_shape(att["weights_shape"]), kind="op")
    dr.arrow(q.right, a.left)
    dr.arrow(k.right, a.left)
    dr.text(660, 45, f"softmax(q·Kᵀ/√{dk}), PAD masked", size=14, fill=MUTED)
    msg = dr.box(575, 200, 170, 70, "message α·V", sub=_shape(att["message_shape"]), kind="op", role="message")
    dr.arrow(a.bottom, msg.top)
    dr.arrow(v.right, msg.left)
    fin = dr.box(820, 200, 175, 70, "updated row", sub=_shape(att["update_shape"]), kind="data")
    dr.arrow(msg.right, fin.left, label="W_O, add", label_offset=-12)
    out = dr.box(820, 60, 175, 70, "hidden → logits", sub=_shape(att["logits_shape"]), kind="out")
    dr.arrow(fin.top, out.bottom)
    dr.text(898, 170, "ReLU layer, W₂", anchor="end", fill=MUTED)
    dr.polyline(
        [e.bottom, (e.bottom[0], 318), (fin.x + 40, 318), (fin.x + 40, fin.y + fin.h)], dash="5 4", colour=ACCENT
    )
    dr.text(600, 312, "residual: the final row of E is added back", size=14, fill=ACCENT)
    data, op = FILLS["data"], FILLS["op"]
    steps = [
        [(["IDs X", _shape([B, w])], data)],
        [(["E = tok + pos", _shape(att["E_shape"])], data)],
        [
            (["query q", _shape(att["q_shape"])], op, ROLES["query"]),
            (["keys K", _shape(att["K_shape"])], op, ROLES["key"]),
            (["values V", _shape(att["V_shape"])], op, ROLES["value"]),
        ],
        [(["weights α", _shape(att["weights_shape"])], op)],
        [(["message α·V", _shape(att["message_shape"])], op, ROLES["message"])],
        [(["updated row", _shape(att["update_shape"])], data)],
        [(["hidden → logits", _shape(att["logits_shape"])], FILLS["out"])],
    ]
    notes = [
        ("W_Q (final row), W_K, W_V; then " + f"softmax(q·Kᵀ/√{dk}), PAD masked; W_O, add; ReLU layer, W₂", MUTED),
        ("residual: the final row of E is added back", ACCENT),
    ]
    return arranged(dr.render(), chain_down(dr.ident, dr.title, desc, steps, notes))


def attention_arrows(att: dict) -> str:
    """For each example, arrows from the four context slots to the prediction,
    stroke width and label from the real attention weight (PAD: weight 0, dashed)."""
    tokens, weights = att["context_tokens"], [row[0] for row in att["weights"]]
    desc_parts = []
    for b, (toks, ws) in enumerate(zip(tokens, weights)):
        pairs = ", ".join(f"{t} {wt:.3f}" for t, wt in zip(toks, ws))
        desc_parts.append(f"example {b + 1}: {pairs}")
    desc = (
        "Arrows from each context slot to the final query, drawn as thick as the toy model's attention weight: "
        + "; ".join(desc_parts)
        + ". PAD gets weight 0 and is dashed."
    )
    dr = Drawing(1000, 340, "maps-attention-arrows", "Where the final query reads: the real attention weights", desc)
    for b, (toks, ws) in enumerate(zip(tokens, weights)):
        y = 70 + b * 160
        dr.text(10, y + 42, f"example {b + 1}", size=15, anchor="start", weight="600")
        query = dr.box(820, y + 10, 160, 64, "query", sub=f"slot {len(toks)}: {toks[-1]}", kind="op")
        for s, (t, wt) in enumerate(zip(toks, ws)):
            box = dr.box(
                120 + s * 165, y + 10, 130, 64, t, sub=f"α = {wt:.3f}", kind="muted" if t == "<PAD>" else "data"
            )
            if wt > 0:
                dr.arrow(
                    box.right if s == len(toks) - 1 else box.top,
                    query.left if s == len(toks) - 1 else query.top,
                    width=1 + 9 * wt,
                    colour=ACCENT,
                    opacity=0.35 + 0.65 * wt,
                    bend=0 if s == len(toks) - 1 else 20 + 10 * (len(toks) - s),
                )
            else:
                dr.arrow(box.top, query.top, width=1.5, colour=LINE, dash="4 4", bend=20 + 10 * (len(toks) - s))
    return arranged(dr.render(), _attention_arrows_down(tokens, weights, desc))


def _attention_arrows_down(tokens, weights, desc) -> Drawing:
    """``attention_arrows`` for a phone: one example under the other, its
    slots in a column, each arrow into the query as thick as its weight."""
    slot_h, step, top = 56, 64, 40
    block = top + step * len(tokens[0]) + 24
    heading = "Where the final query reads: the real attention weights"
    dr = Drawing(PHONE, block * len(tokens), "maps-attention-arrows-phone", heading, desc)
    for b, (toks, ws) in enumerate(zip(tokens, weights)):
        y0 = b * block
        dr.text(10, y0 + 26, f"example {b + 1}", size=15, anchor="start", weight="600")
        mid = y0 + top + (step * len(toks) - (step - slot_h)) / 2
        query = dr.box(240, mid - 32, 150, 64, "query", sub=f"slot {len(toks)}: {toks[-1]}", kind="op")
        for s, (t, wt) in enumerate(zip(toks, ws)):
            kind = "muted" if t == "<PAD>" else "data"
            box = dr.box(10, y0 + top + s * step, 130, slot_h, t, sub=f"α = {wt:.3f}", kind=kind)
            end = (query.x, query.y + 12 + s * (query.h - 24) / max(1, len(toks) - 1))
            if wt > 0:
                dr.arrow(box.right, end, width=1 + 9 * wt, colour=ACCENT, opacity=0.35 + 0.65 * wt)
            else:
                dr.arrow(box.right, end, width=1.5, colour=LINE, dash="4 4")
    return dr


def generation_loop(gen: dict) -> str:
    desc = (
        "The generation loop: prepare the newest window of the history, run the frozen model, block special "
        "tokens and take a softmax, choose a token (greedy or sampled); if it is EOS, stop, otherwise append it "
        "to the history and repeat. The parameters never change."
    )
    dr = Drawing(1000, 290, "maps-generation-loop", "The generation loop", desc)
    hist = dr.box(10, 90, 150, 70, "history", sub="IDs so far")
    win = dr.box(205, 90, 150, 70, "window", sub="last w IDs")
    model = dr.box(400, 90, 150, 70, "frozen model", sub="logits", kind="op")
    probs = dr.box(595, 90, 150, 70, "probabilities", sub="specials blocked", kind="op")
    choose = dr.box(790, 90, 190, 70, "choose a token", sub="greedy or sample", kind="out")
    dr.arrow(hist.right, win.left)
    dr.arrow(win.right, model.left)
    dr.arrow(model.right, probs.left)
    dr.arrow(probs.right, choose.left)
    dr.arrow(choose.bottom, hist.bottom, bend=-110)
    dr.text(495, 262, "not EOS: append the token to the history, repeat", size=15, fill=MUTED)
    dr.arrow(choose.top, (choose.x + choose.w / 2, 20), colour=ACCENT)
    dr.text(choose.x + choose.w / 2 - 12, 16, "EOS or budget: stop", size=15, anchor="end", fill=ACCENT)
    steps = [
        [(["history", "IDs so far"], FILLS["data"])],
        [(["window", "last w IDs"], FILLS["data"])],
        [(["frozen model", "logits"], FILLS["op"])],
        [(["probabilities", "specials blocked"], FILLS["op"])],
        [(["choose a token", "greedy or sample"], FILLS["out"])],
    ]
    notes = [("EOS or budget: stop", ACCENT), ("not EOS: append the token to the history, repeat", MUTED)]
    return arranged(dr.render(), chain_down(dr.ident, dr.title, desc, steps, notes))


@table(
    "maps_figures", needs=["maps_story", "maps_windows", "maps_batch", "maps_mlp", "maps_attention", "maps_generation"]
)
def figures(maps_story, maps_windows, maps_batch, maps_mlp, maps_attention, maps_generation) -> dict:
    return {
        "pipeline": pipeline(maps_story, maps_windows, maps_batch),
        "mlp_flow": mlp_flow(maps_batch["dims"], maps_mlp),
        "attention_flow": attention_flow(maps_batch["dims"], maps_attention),
        "attention_arrows": attention_arrows(maps_attention),
        "generation_loop": generation_loop(maps_generation),
    }
