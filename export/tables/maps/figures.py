"""Diagrams for the maps deck, drawn from the maps tables (the same toy:
C=10, w=4, B=2): the data pipeline, the MLP's and the attention model's data
flow with tensor shapes, attention arrows weighted by the toy model's real
weights, and the generation loop. Table: ``maps_figures``."""

from __future__ import annotations

from common.palette import ACCENT, FILLS, LINE, MUTED

from ..kit.draw import PHONE, Drawing, arranged, chain_down, flow
from ..kit.registry import table
from .attention_flow_idea import attention_flow_figure


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
    """The one-head attention model's data flow, each tensor drawn as a grid
    of its shape (attention_flow_idea.py)."""
    return attention_flow_figure(dims, att)


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
