"""The maps deck's vectors and small matrices drawn as coloured cells with
their values (issue 20), from the maps tables: the embedding table, the
batch's embeddings, the flattened rows, the hidden layer before and after
ReLU, the logits of both models, token plus position rows, q, K and V, the
scores (raw and masked), the attention weights as a heatmap, the message,
the update; and the two probability distributions as bars (kit/bars.py).
and the loss −ln p as a curve with the batch's examples on it.
One named scale per run (kit/scales.py): every vector of the forward pass on
``part1-vectors`` (±3), scores and logits on ``part1-scores`` (±1), weights
on ``weight`` (0 to 1). Table: ``maps_cell_figures``."""

from __future__ import annotations

import math

from common.palette import ACCENT, GRID, LINE, MUTED

from ..kit.bars import bars
from ..kit.cell_panels import Panel, panels
from ..kit.cells import number
from ..kit.charts import nice_ticks, tick_text
from ..kit.draw import COLUMN, MIN_TEXT, PHONE, Drawing, arranged, text_width
from ..kit.registry import table

SLOTS = 4  # the toy's w, checked against the tables below


def _v(row, digits=3) -> str:
    return "[" + ", ".join("−∞" if v is None else number(v, digits) for v in row) + "]"


def _m(rows, digits=3) -> str:
    return "; ".join(_v(r, digits) for r in rows)


def mlp_figures(mlp: dict, itos: list, ctx: list) -> dict:
    d = len(mlp["embedding_table"][0])
    coords = [f"{c + 1}" for c in range(d)]
    found = mlp["found_id"]
    out = {
        "embedding": panels(
            "maps-embedding",
            f"The embedding table W_E: {len(itos)} rows of d = {d}",
            f"One row of {d} initial, untrained numbers per vocabulary item; row {found} ({itos[found]}) is "
            f"outlined. Rows: " + "; ".join(f"{t} {_v(r)}" for t, r in zip(itos, mlp["embedding_table"])),
            [Panel("W_E: one row per token", mlp["embedding_table"], itos, coords, outline_rows=(found,))],
            scale_name="part1-vectors",
            digits=3,
            width=COLUMN,
            name="coordinate",
        ),
        "E": panels(
            "maps-E",
            "The batch's embeddings E: examples × slots × coordinates",
            "Each example's four context tokens, one embedding row each. "
            + " ".join(f"Example {b + 1}: {_m(mlp['E'][b])}." for b in range(len(mlp["E"]))),
            [Panel(f"example {b + 1}", mlp["E"][b], ctx[b], coords) for b in range(len(mlp["E"]))],
            scale_name="part1-vectors",
            digits=3,
            name="coordinate",
        ),
    }
    flat = mlp["flat"]
    groups = [f"slot {k // d + 1}" if k % d == 0 else "" for k in range(len(flat[0]))]
    out["flat"] = panels(
        "maps-flat",
        f"Flattened: one row of {len(flat[0])} numbers per example",
        f"The {len(flat[0]) // d} slot vectors of each example joined end to end, slot 1 first. "
        + " ".join(f"Example {b + 1}: {_v(r, 2)}." for b, r in enumerate(flat)),
        [Panel("f = [e₁, e₂, e₃, e₄]", flat, [f"example {b + 1}" for b in range(len(flat))], groups)],
        scale_name="part1-vectors",
        digits=2,
        name="coordinate",
    )
    units = [f"{j + 1}" for j in range(len(mlp["hidden"][0]))]
    rows = [f"ex. {b + 1}" for b in range(len(mlp["hidden"]))]
    out["hidden"] = panels(
        "maps-hidden",
        "The hidden layer before and after ReLU",
        f"Before ReLU, f·W₁ + b₁: {_m(mlp['pre_hidden'])}. After ReLU, negative sums become 0 "
        f"({mlp['relu_zeroed']} of them): {_m(mlp['hidden'])}.",
        [
            Panel("before ReLU: f·W₁ + b₁", mlp["pre_hidden"], rows, units),
            Panel("after ReLU: h", mlp["hidden"], rows, units),
        ],
        scale_name="part1-vectors",
        digits=3,
        name="hidden unit value",
    )
    out["logits"] = logits("maps-mlp-logits", "The MLP's logits: one score per vocabulary item", mlp, itos)
    return out


def logits(ident: str, title: str, model: dict, itos: list) -> str:
    z = model["logits"]
    desc = (
        f"{len(z)} rows of {len(itos)} raw scores, one column per token ("
        + ", ".join(itos)
        + "). "
        + " ".join(f"Example {b + 1}: {_v(r, 2)}." for b, r in enumerate(z))
        + f" Largest: {', '.join(model['predicted_tokens'])}."
    )
    return panels(
        ident,
        title,
        desc,
        [Panel("logits z", z, [f"example {b + 1}" for b in range(len(z))], itos)],
        scale_name="part1-scores",
        digits=2,
        name="logit",
    )


def attention_figures(att: dict) -> dict:
    ctx = att["context_tokens"]
    d = len(att["position_table"][0])
    coords = [f"{c + 1}" for c in range(d)]
    slots = att["slot_labels"]
    if len(slots) != SLOTS:
        raise ValueError(f"the maps figures expect {SLOTS} slots, the table has {len(slots)}")
    out = {
        "positions": panels(
            "maps-positions",
            "Token rows plus position rows give E (example 2)",
            f"Example 2's token rows {_m(att['token_rows_example1'])}, plus the position rows, one per slot, "
            f"{_m(att['position_table'])}, give E {_m(att['E'][1])}.",
            [
                Panel("token rows", att["token_rows_example1"], ctx[1], coords, after="+"),
                Panel("position rows", att["position_table"], slots, coords, after="="),
                Panel("E, example 2", att["E"][1], ctx[1], coords),
            ],
            scale_name="part1-vectors",
            gap=44,
            digits=3,
            name="coordinate",
        ),
        "qkv": panels(
            "maps-qkv",
            "Example 2: one query, four keys, four values",
            f"The query of the final token a, q = {_v(att['q'][1][0])}; the keys K = {_m(att['K'][1])} and the "
            f"values V = {_m(att['V'][1])}, one row per slot ({', '.join(ctx[1])}).",
            [
                Panel(
                    "query q", att["q"][1], [ctx[1][-1]], [f"{c + 1}" for c in range(len(att["q"][1][0]))], role="query"
                ),
                Panel("keys K", att["K"][1], ctx[1], [f"{c + 1}" for c in range(len(att["K"][1][0]))], role="key"),
                Panel("values V", att["V"][1], ctx[1], [f"{c + 1}" for c in range(len(att["V"][1][0]))], role="value"),
            ],
            scale_name="part1-vectors",
            digits=3,
            name="coordinate",
        ),
    }
    scores = [[[None if isinstance(v, str) else v for v in row] for row in ex] for ex in att["masked_scores"]]
    for key, values, title, blocked in (
        ("scores", att["scores"], "The scores s = q·k / √d_k, one per slot", False),
        ("masked", scores, "The scores after the PAD mask", True),
    ):
        out[key] = panels(
            f"maps-{key}",
            title,
            "One row per example, one score per context slot. "
            + " ".join(f"Example {b + 1} ({' '.join(ctx[b])}): {_v(values[b][0])}." for b in range(len(ctx)))
            + (" The PAD slot's score is −∞." if blocked else ""),
            [
                Panel(f"example {b + 1}", values[b], ["s"], ctx[b], cells={"blocked": "−∞"} if blocked else {})
                for b in range(len(ctx))
            ],
            scale_name="part1-scores",
            digits=3,
            name="score",
        )
    A = [ex[0] for ex in att["weights"]]
    out["weights"] = panels(
        "maps-weights",
        "The attention weights α: a heatmap, one row per example",
        "Softmax over the slots turns each row of scores into weights that sum to 1. "
        + " ".join(f"Example {b + 1} ({' '.join(ctx[b])}): {_v(A[b])}." for b in range(len(A)))
        + " PAD gets weight exactly 0.",
        [Panel(f"example {b + 1}", [A[b]], ["α"], ctx[b]) for b in range(len(A))],
        scale_name="weight",
        digits=3,
    )
    contrib, msg = att["contributions_example1"], att["message"][1]
    dv = [f"{c + 1}" for c in range(len(msg[0]))]
    out["message"] = panels(
        "maps-message",
        "Example 2's message: the weighted value rows, added up",
        f"Each value row scaled by its weight, α_j·v_j: {_m(contrib)}; their sum is the message m = {_v(msg[0])}.",
        [Panel("α_j · v_j", contrib, ctx[1], dv, after="Σ →"), Panel("message m", msg, ["m"], dv, role="message")],
        scale_name="part1-vectors",
        digits=3,
        name="coordinate",
    )
    out["update"] = panels(
        "maps-update",
        "The update from W_O, and the final row",
        f"The update Δe = m·W_O for each example, {_m(att['update'])}, is added to the final input row, giving "
        f"{_m(att['final'])}.",
        [
            Panel("Δe = m·W_O", att["update"], ["ex. 1", "ex. 2"], coords),
            Panel("e′ = E[:, −1] + Δe", att["final"], ["ex. 1", "ex. 2"], coords),
        ],
        scale_name="part1-vectors",
        digits=3,
        name="coordinate",
    )
    return out


def probability_bars(mlp: dict, gen: dict, itos: list) -> dict:
    ex = mlp["example1"]
    blocked = gen["blocked_ids"]
    return {
        "mlp_probs": bars(
            "maps-mlp-probs",
            f"The MLP's probabilities for example 2 (target {ex['target']})",
            f"Softmax of the {len(itos)} logits of example 2: "
            + ", ".join(f"{t} {number(p, 4)}" for t, p in zip(itos, ex["p"]))
            + f". The target {ex['target']} is highlighted.",
            itos,
            [("", ex["p"])],
            digits=4,
            highlight=[ex["target_id"]],
            width=COLUMN,
            axis=True,
        ),
        "generation_probs": bars(
            "maps-generation-probs",
            "Next-token probabilities after blocking PAD, BOS and UNK",
            "The frozen toy MLP's probabilities for the window of the prompt: "
            + ", ".join(f"{t} {number(p, 4)}" for t, p in zip(itos, gen["p"]))
            + f". PAD, BOS and UNK are blocked (probability 0); the greedy choice {gen['greedy']} is highlighted.",
            itos,
            [("", gen["p"])],
            digits=4,
            highlight=[gen["greedy_id"]],
            blocked=blocked,
            width=COLUMN,
            axis=True,
        ),
    }


def loss_curve(mlp: dict) -> str:
    """−log p against p, with each example of the batch marked at its p(target):
    at a column's width and on a phone (PHONE units), the same axes and points."""
    rows = mlp["loss_table"]["rows"]  # [example, target, p(target), −log p(target)]
    desc = (
        "The curve −ln p for p from near 0 to 1: the loss is 0 at p = 1 and grows without bound as p falls to 0. "
        + " ".join(f"Example {r[0]} (target {r[1]}): p = {number(r[2], 4)}, loss {number(r[3], 4)}." for r in rows)
    )
    p_min = min(0.03, min(r[2] for r in rows) / 2)
    yticks = nice_ticks(0, -math.log(p_min), 4)
    wide, phone = (_loss_curve(rows, desc, p_min, yticks, width) for width in (COLUMN, PHONE))
    return arranged(wide.render(), phone)


def _loss_curve(rows: list, desc: str, p_min: float, yticks: list, width: float) -> Drawing:
    height, left, right, top_, bottom = 380, 70, 24, 40, 76
    ident = "maps-loss-curve" + ("-phone" if width == PHONE else "")

    def x(p: float) -> float:
        return left + p * (width - left - right)

    def y(v: float) -> float:
        return height - bottom - v / yticks[-1] * (height - top_ - bottom)

    d = Drawing(width, height, ident, "The loss −ln p(target): small when p is large", desc)
    for t in yticks:
        d.rect(left, y(t), width - left - right, 0.5, fill=GRID, stroke=GRID, width=0.5, radius=0)
        d.text(left - 10, y(t) + 6, tick_text(t), size=MIN_TEXT, anchor="end", fill=MUTED)
    for p in (0, 0.5, 1):
        d.text(x(p), height - bottom + 26, tick_text(p), size=MIN_TEXT, fill=MUTED)
    d.text((left + width - right) / 2, height - 18, "p(target)", size=MIN_TEXT, fill=MUTED)
    d.text(left - 10, 18, "loss (nats)", size=MIN_TEXT, anchor="start", fill=MUTED)
    n = 80
    ps = [p_min * (1 / p_min) ** (k / n) for k in range(n + 1)]  # denser where the curve is steep
    d.polyline([(x(p), y(-math.log(p))) for p in ps], colour=LINE, width=3, arrow=False)
    for ex, target, p, loss in rows:
        d.dot(x(p), y(loss), 8, ACCENT)
        label = f"ex. {ex}: {target}"
        right_side = x(p) + 14 + text_width(label, MIN_TEXT) <= width  # else on the point's left
        d.text(
            x(p) + 14 if right_side else x(p) - 14,
            y(loss) + 6,
            label,
            size=MIN_TEXT,
            anchor="start" if right_side else "end",
            fill=ACCENT,
        )
    return d


@table("maps_cell_figures", needs=["maps_vocab", "maps_mlp", "maps_attention", "maps_generation"])
def cell_figures(maps_vocab, maps_mlp, maps_attention, maps_generation) -> dict:
    itos = maps_vocab["itos"]
    ctx = maps_attention["context_tokens"]
    return {
        **mlp_figures(maps_mlp, itos, ctx),
        **attention_figures(maps_attention),
        "attention_logits": logits(
            "maps-attention-logits", "The attention model's logits: one score per vocabulary item", maps_attention, itos
        ),
        **probability_bars(maps_mlp, maps_generation, itos),
        "loss_curve": loss_curve(maps_mlp),
    }
