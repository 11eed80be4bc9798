"""Build-time SVG diagrams for the Part III and results decks, drawn from the
same numbers the tables hold: the TinyStories pipeline, the four-head model's
data flow with tensor shapes, the split of one layer into heads and their
concatenation, and attention arrows weighted by real weights.

Every figure is an inline <svg role="img"> with a <title> and a <desc> that
states its numbers in words, so a screen reader (and the reading view) gets
the same content as the picture.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

FONT = "system-ui, sans-serif"
INK, MUTED, LINE = "#0f172a", "#475569", "#64748b"
LEARNED = "#fef3c7"  # boxes that hold learned parameters
FIXED = "#f1f5f9"  # reshapes and fixed operations
HEAD_COLOURS = ("#2563eb", "#059669", "#b45309", "#9333ea", "#dc2626", "#0891b2", "#4d7c0f", "#be185d")


def shape_text(shape) -> str:
    return "[" + ", ".join(f"{n:,}" if isinstance(n, int) else str(n) for n in shape) + "]"


class Figure:
    """A small SVG canvas: boxes, text, arrows. ``ident`` prefixes every id
    inside, so several figures can sit on one page."""

    def __init__(self, ident: str, width: int, height: int, title: str, desc: str):
        self.ident, self.width, self.height = ident, width, height
        self.title, self.desc = title, desc
        self.parts: list[str] = []

    def text(self, x, y, s, size=15, anchor="middle", weight="normal", fill=INK, cls=""):
        c = f' class="{cls}"' if cls else ""
        self.parts.append(
            f'<text{c} x="{round(x, 1)}" y="{round(y, 1)}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(str(s))}</text>'
        )

    def box(self, x, y, w, h, lines, fill=FIXED, stroke=LINE, size=15, cls="box", bold_first=True, rx=8):
        self.parts.append(
            f'<rect class="{cls}" x="{round(x, 1)}" y="{round(y, 1)}" width="{round(w, 1)}" '
            f'height="{round(h, 1)}" rx="{rx}" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        )
        lines = [lines] if isinstance(lines, str) else list(lines)
        gap = size * 1.3
        top = y + h / 2 - gap * (len(lines) - 1) / 2 + size * 0.35
        for i, line in enumerate(lines):
            self.text(
                x + w / 2,
                top + i * gap,
                line,
                size=size if i == 0 else size - 2,
                weight="600" if (i == 0 and bold_first) else "normal",
                fill=INK if i == 0 else MUTED,
            )

    def arrow(self, x1, y1, x2, y2, colour=LINE, width=2, opacity=1.0, cls="arrow"):
        self.parts.append(
            f'<line class="{cls}" x1="{round(x1, 1)}" y1="{round(y1, 1)}" x2="{round(x2, 1)}" '
            f'y2="{round(y2, 1)}" stroke="{colour}" stroke-width="{width}" stroke-opacity="{opacity}" '
            f'marker-end="url(#{self.ident}-head)"/>'
        )

    def path(self, d, colour=LINE, width=2, opacity=1.0, cls="", marker=True, title=None):
        c = f' class="{cls}"' if cls else ""
        m = f' marker-end="url(#{self.ident}-head)"' if marker else ""
        t = f"<title>{escape(title)}</title>" if title else ""
        self.parts.append(
            f'<path{c} d="{d}" fill="none" stroke="{colour}" stroke-width="{width}" '
            f'stroke-opacity="{opacity}"{m}>{t}</path>'
        )

    def raw(self, s: str):
        self.parts.append(s)

    def render(self) -> str:
        i = self.ident
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="diagram" id="{i}" role="img" '
            f'viewBox="0 0 {self.width} {self.height}" width="100%" '
            f'style="height:auto;display:block;margin:0 auto" '
            f'font-family="{FONT}" aria-labelledby="{i}-title {i}-desc">'
            f'<title id="{i}-title">{escape(self.title)}</title><desc id="{i}-desc">{escape(self.desc)}</desc>'
            f'<defs><marker id="{i}-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{LINE}"/>'
            f"</marker></defs>" + "".join(self.parts) + "</svg>"
        )


# ---------------------------------------------------------------- pipeline
def pipeline(audit: dict, batch_size: int, steps: int, T: int) -> str:
    """stories -> split -> tokens -> windows -> batches, with the audit's counts."""
    s = audit["splits"]
    stages = [
        ("Stories", [f"{audit['selected_stories']:,} chosen by hash", f"from {audit['pool_stories']:,} in the file"]),
        (
            "Split by story",
            [
                f"train {s['train']['documents']:,}",
                f"validation {s['validation']['documents']:,}",
                f"test {s['test']['documents']:,}",
            ],
        ),
        ("Tokens", [f"train {s['train']['tokens']:,}", f"C = {audit['vocab_size']:,} items,", "fitted on train only"]),
        ("Windows", [f"train {s['train']['windows']:,}", f"≤ {T} IDs each,", "tokens + stories"]),
        ("Batches", [f"{batch_size} windows drawn", "with replacement,", f"{steps:,} steps"]),
    ]
    f = Figure(
        "fig-pipeline",
        1000,
        190,
        "From stories to training batches",
        "The data pipeline with our corpus counts. "
        + "; ".join(f"{name}: {' '.join(lines)}" for name, lines in stages)
        + ".",
    )
    w, gap, y, h = 166, 35, 30, 130
    for i, (name, lines) in enumerate(stages):
        x = 10 + i * (w + gap)
        f.box(x, y, w, h, [name] + lines, size=16)
        if i:
            f.arrow(x - gap + 2, y + h / 2, x - 3, y + h / 2)
    f.text(
        500,
        184,
        "Every story goes to one split before any window is cut; a window never crosses two stories.",
        size=14,
        fill=MUTED,
    )
    return f.render()


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
    f = Figure("fig-model-flow", 1000, 300, "The four-head model, box by box, with tensor shapes", desc)
    w, h, gap = 176, 78, 24
    for i, (a, b, fill) in enumerate(top):
        x = 10 + i * (w + gap)
        f.box(x, 20, w, h, [a, b], fill=fill, size=14)
        if i:
            f.arrow(x - gap + 2, 59, x - 3, 59)
    # turn down from the last top box, then run right to left
    x_last = 10 + 4 * (w + gap)
    f.path(f"M{x_last + w / 2},{20 + h} L{x_last + w / 2},{150}", marker=True)
    bw = 218
    for i, (a, b, fill) in enumerate(bottom):
        x = 1000 - 10 - (i + 1) * bw - i * 17
        f.box(x, 155, bw, h, [a, b], fill=fill, size=15)
        if i:
            f.arrow(x + bw + 15, 194, x + bw + 3, 194)
    # the residual route: E skips the attention
    ex = 10 + 1 * (w + gap) + w / 2
    f.path(
        f"M{ex},{20 + h} L{ex},{130} L{1000 - 10 - 2 * bw - 17 + bw / 2},{130} "
        f"L{1000 - 10 - 2 * bw - 17 + bw / 2},{152}",
        colour="#94a3b8",
        width=2,
    )
    f.text(ex + 8, 125, "residual: E is added back", size=13, anchor="start", fill=MUTED)
    f.raw(f'<rect x="10" y="262" width="18" height="14" fill="{LEARNED}" stroke="{LINE}"/>')
    f.text(34, 274, "learned parameters", size=13, anchor="start", fill=MUTED)
    f.raw(f'<rect x="190" y="262" width="18" height="14" fill="{FIXED}" stroke="{LINE}"/>')
    f.text(214, 274, "reshape or fixed rule", size=13, anchor="start", fill=MUTED)
    f.text(
        990,
        274,
        f"B = {B}, T = {T}, width {d}, {heads} heads of width {head_width}, C = {C:,}",
        size=13,
        anchor="end",
        fill=MUTED,
    )
    return f.render()


# ---------------------------------------------------------------- heads: split and join
def head_split(ident: str, T: int, D: int, n_heads: int, head_width: int, title: str) -> str:
    """One packed projection of width D split into n_heads groups of
    head_width, each head attending on its own, the messages joined back to
    width D, then W_O and the residual."""
    rows = n_heads
    lane = 52 if n_heads <= 2 else 44
    height = 70 + rows * lane + 40
    desc = (
        f"E has shape [{T}, {D}]. Each packed projection E·W gives [{T}, {D}], which is split into "
        f"{n_heads} heads of width {head_width}, shape [{n_heads}, {T}, {head_width}]. Each head computes its "
        f"own weights softmax(QKᵀ/√{head_width} + M) of shape [{T}, {T}] and its message AV of shape "
        f"[{T}, {head_width}]. The {n_heads} messages are joined side by side into [{T}, {n_heads * head_width}], "
        f"multiplied by W_O [{n_heads * head_width}, {D}] and added to E, giving [{T}, {D}]."
    )
    f = Figure(ident, 1000, height, title, desc)
    mid = 40 + rows * lane / 2
    f.box(10, mid - 40, 120, 80, ["E", shape_text([T, D])], size=16)
    f.box(160, mid - 40, 150, 80, ["E·W_Q, E·W_K,", "E·W_V, each", shape_text([T, D])], fill=LEARNED, size=14)
    f.arrow(130, mid, 162, mid)
    x_split, x_att, x_join = 345, 505, 735
    for k in range(n_heads):
        y = 40 + k * lane + lane / 2
        colour = HEAD_COLOURS[k % len(HEAD_COLOURS)]
        f.path(f"M310,{mid} C328,{mid} 328,{y} {x_split - 3},{y}", colour=colour, width=2)
        f.raw(
            f'<rect class="head-slice" data-head="{k + 1}" x="{x_split}" y="{y - 16}" width="120" height="32" rx="6" '
            f'fill="{colour}" fill-opacity="0.15" stroke="{colour}" stroke-width="1.5"/>'
        )
        f.text(x_split + 60, y + 5, f"head {k + 1}: {shape_text([T, head_width])}", size=13)
        f.arrow(x_split + 120, y, x_att - 3, y, colour=colour)
        f.raw(
            f'<rect x="{x_att}" y="{y - 16}" width="190" height="32" rx="6" fill="white" stroke="{colour}" '
            f'stroke-width="1.5"/>'
        )
        f.text(x_att + 95, y + 5, f"A {shape_text([T, T])} · V → H{k + 1}", size=13)
        f.path(f"M{x_att + 190},{y} C{x_join - 20},{y} {x_join - 20},{mid} {x_join - 3},{mid}", colour=colour, width=2)
    f.box(x_join, mid - 40, 120, 80, ["join", shape_text([T, n_heads * head_width])], size=15)
    f.box(x_join + 150, mid - 40, 105, 80, ["· W_O, + E", shape_text([T, D])], fill=LEARNED, size=14)
    f.arrow(x_join + 120, mid, x_join + 147, mid)
    f.text(x_split + 60, 24, "split into heads", size=13, fill=MUTED)
    f.text(x_att + 95, 24, "each head attends alone", size=13, fill=MUTED)
    f.text(x_join + 60, 24, "concatenate", size=13, fill=MUTED)
    f.text(
        500,
        height - 10,
        f"{n_heads} × {head_width} = {n_heads * head_width} coordinates: "
        "splitting reshapes the projections, it adds no weights.",
        size=13,
        fill=MUTED,
    )
    return f.render()


# ---------------------------------------------------------------- attention arrows
def attention_arrows(
    ident: str,
    words: list[str],
    weight_rows: list[list[float]],
    query: str,
    title: str,
    head_names=None,
    columns: int | None = None,
) -> str:
    """One panel per head: the source tokens in a column on the left, the
    query on the right, one line per source whose width and opacity grow with
    its real weight; the weight is printed next to each source."""
    n, heads = len(words), len(weight_rows)
    head_names = head_names or [f"head {h + 1}" for h in range(heads)]
    columns = columns or heads
    rows_of_panels = -(-heads // columns)
    panel_w = 1000 // columns
    row_h = 24 if n <= 10 else 18
    panel_h = 40 + n * row_h + 10
    height = rows_of_panels * panel_h + 10
    parts = []
    for h, row in enumerate(weight_rows):
        best = max(range(n), key=lambda i: row[i])
        parts.append(
            f"{head_names[h]}: "
            + ", ".join(f"{w} {row[i]:.3f}" for i, w in enumerate(words))
            + f" (largest: {words[best]})"
        )
    desc = (
        f"Attention weights of the query {query!r} over the {n} source tokens, one panel per head. "
        + "; ".join(parts)
        + "."
    )
    f = Figure(ident, 1000, height, title, desc)
    for h, row in enumerate(weight_rows):
        px = (h % columns) * panel_w
        py = (h // columns) * panel_h
        colour = HEAD_COLOURS[h % len(HEAD_COLOURS)]
        f.text(px + panel_w / 2, py + 22, head_names[h], size=15, weight="600", fill=colour)
        qx = px + panel_w - 20
        qy = py + 40 + n * row_h / 2
        sx = px + (panel_w * 0.42 if columns > 2 else panel_w * 0.35)
        best = max(range(n), key=lambda i: row[i])
        for i, (word, w) in enumerate(zip(words, row)):
            y = py + 40 + i * row_h + row_h / 2
            f.text(
                sx - 6,
                y + 5,
                word,
                size=13 if columns > 2 else 14,
                anchor="end",
                weight="700" if i == best else "normal",
            )
            f.text(px + 6, y + 5, f"{w:.3f}", size=12, anchor="start", fill=MUTED)
            if w > 0.0005:
                f.raw(
                    f'<line class="weight" data-head="{h + 1}" data-slot="{i}" data-weight="{w:.6f}" '
                    f'x1="{round(sx, 1)}" y1="{round(y, 1)}" x2="{round(qx - 36, 1)}" y2="{round(qy, 1)}" '
                    f'stroke="{colour}" stroke-width="{round(0.8 + 12 * w, 2)}" '
                    f'stroke-opacity="{round(0.25 + 0.75 * w, 3)}" stroke-linecap="round">'
                    f"<title>{escape(word)}: {w:.3f}</title></line>"
                )
        f.raw(
            f'<rect x="{round(qx - 36, 1)}" y="{round(qy - 14, 1)}" width="52" height="28" rx="6" fill="white" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        f.text(qx - 10, qy + 5, query, size=13, weight="600")
    return f.render()
