"""The Part III diagrams, drawn from the numbers of their own tables: the
TinyStories pipeline with the audit's counts, the four-head model's data flow
with tensor shapes, the worksheet's two heads split and joined, and attention
arrows weighted by real weights (table ``part3_figures``).

Every figure is an inline <svg role="img"> with a <title> and a <desc> that
states its numbers in words, so a screen reader (and the reading view) gets
the same content as the picture.
"""

from __future__ import annotations

from common.palette import FILLS, GRID, LINE, MUTED

from ..kit.draw import Figure, arranged, chain_down
from ..kit.heads import attention_arrows, head_split
from ..kit.numbers import shape_text
from ..kit.registry import table
from .pipeline_idea import pipeline_figure

LEARNED = FILLS["param"]  # boxes that hold learned parameters
FIXED = FILLS["muted"]  # reshapes and fixed operations


# ---------------------------------------------------------------- pipeline
def pipeline(audit: dict, batch_size: int, steps: int, T: int) -> str:
    """stories -> split -> vocabulary -> windows -> batches, with the audit's
    counts, drawn as the idea (pipeline_idea.py)."""
    return pipeline_figure(audit, batch_size, steps, T)


# ---------------------------------------------------------------- model data flow
def model_flow(shapes: dict, d: int, heads: int, head_width: int, hidden: int, C: int, T: int) -> str:
    """The four-head model as boxes and arrows, each labelled with its output
    shape from forward_details. Learned-parameter boxes are shaded."""
    B = shapes["E"][0]
    top = [
        ("IDs X", shape_text([B, T]), FIXED),
        ("token + position", "E " + shape_text(shapes["E"]), LEARNED),
        ("W_Q, W_K, W_V", "Q, K, V " + shape_text(shapes["Q"]), LEARNED),
        ("scores, mask, softmax", "weights " + shape_text(shapes["weights"]), FIXED),
        ("weights · V", "per head " + shape_text(shapes["heads"]), FIXED),
    ]
    bottom = [
        ("join the heads", "messages " + shape_text(shapes["messages"]), FIXED),
        ("E + messages · W_O", "updated " + shape_text(shapes["updated"]), LEARNED),
        ("final slot → ReLU layer", "hidden " + shape_text([B, hidden]), LEARNED),
        ("vocabulary head", "logits " + shape_text(shapes["logits"]), LEARNED),
    ]
    desc = (
        "Data flow of the four-head model for a batch of "
        + str(B)
        + " windows. "
        + "; then ".join(f"{a} gives {b}" for a, b, _ in top + bottom)
        + ". Shaded boxes hold learned parameters; the others reshape or apply fixed rules."
    )
    W = 1170  # about the slide's full width: the boxes fit their 18-unit text
    f = Figure("fig-model-flow", W, 300, "The four-head model, box by box, with tensor shapes", desc)
    w, h, gap = 204, 78, 27
    for i, (a, b, fill) in enumerate(top):
        x = 10 + i * (w + gap)
        f.box(x, 20, w, h, [a, b], fill=fill, size=14)
        if i:
            f.arrow(x - gap + 2, 59, x - 3, 59)
    # turn down from the last top box, then run right to left
    x_last = 10 + 4 * (w + gap)
    f.path(f"M{x_last + w / 2},{20 + h} L{x_last + w / 2},{150}", marker=True)
    bw = 260
    for i, (a, b, fill) in enumerate(bottom):
        x = W - 10 - (i + 1) * bw - i * 17
        f.box(x, 155, bw, h, [a, b], fill=fill, size=15)
        if i:
            f.arrow(x + bw + 15, 194, x + bw + 3, 194)
    # the residual route: E skips the attention
    ex = 10 + 1 * (w + gap) + w / 2
    f.path(
        f"M{ex},{20 + h} L{ex},{130} L{W - 10 - 2 * bw - 17 + bw / 2},{130} L{W - 10 - 2 * bw - 17 + bw / 2},{152}",
        colour=GRID,
        width=2,
    )
    f.text(ex + 8, 125, "residual: E is added back", size=13, anchor="start", fill=MUTED)
    f.add("rect", x=10, y=262, width=18, height=14, fill=LEARNED, stroke=LINE)
    f.text(34, 274, "learned parameters", size=13, anchor="start", fill=MUTED)
    f.add("rect", x=190, y=262, width=18, height=14, fill=FIXED, stroke=LINE)
    f.text(214, 274, "reshape or fixed rule", size=13, anchor="start", fill=MUTED)
    sizes = f"B = {B}, w = {T}, width {d}, {heads} heads of width {head_width}, C = {C:,}"
    f.text(W - 10, 274, sizes, size=13, anchor="end", fill=MUTED)
    phone = chain_down(
        f.ident,
        f.title,
        desc,
        [[([a, b], fill)] for a, b, fill in top + bottom],
        [("residual: E is added back in “E + messages · W_O”", MUTED), (sizes, MUTED)],
        key=[(LEARNED, "learned parameters"), (FIXED, "reshape or fixed rule")],
    )
    return arranged(f.render(), phone)


@table("part3_figures", needs=["sources", "part3_settings", "part3_fisherman", "part3_batch"])
def figures(sources, part3_settings: dict, part3_fisherman: dict, part3_batch: dict) -> dict:
    """The deck's diagrams, each drawn from the numbers of its own table."""
    cfg, fish, batch, audit = part3_settings, part3_fisherman, part3_batch, sources.audit()
    out = {
        "fisherman_split": head_split(
            "fig-split-toy",
            fish["n_tokens"],
            fish["width"],
            fish["n_heads"],
            fish["head_width"],
            "The worksheet's two heads: split, attend, join",
        ),
        "fisherman_arrows": attention_arrows(
            "fig-fisherman-arrows",
            fish["token_labels"],
            [h["weights"] for h in fish["heads"]],
            fish["tokens"][-1],
            "Where the query token “the” looks in each worksheet head",
            columns=2,
        ),
    }
    if audit is not None:
        out["pipeline"] = pipeline(audit, cfg["batch_size"], cfg["steps"], cfg["T"])
    if batch.get("available") and batch["model"].get("available"):
        mod = batch["model"]
        out["model_flow"] = model_flow(
            mod["shapes"], mod["d"], mod["heads"], mod["head_width"], mod["hidden"], batch["C"], batch["T"]
        )
        out["found_arrows"] = attention_arrows(
            "fig-found-arrows",
            mod["found_tokens"],
            mod["found_weights"],
            mod["found_tokens"][-1],
            "Where the query “found” looks in each trained head",
        )
    return dict(out, available=True)
