"""The head figures that Part III and the results deck share: one layer
split into heads and joined again, and one panel of attention lines per head,
each line as wide as its real weight. Each head has its colour
(common/palette.py HEADS) in every figure."""

from __future__ import annotations

from common.palette import FILLS, HEADS, MUTED, PAPER

from .draw import MIN_TEXT, PHONE, Figure, arranged, at, text_width, title
from .numbers import shape_text


def head_colour(h: int) -> str:
    """The colour of head ``h`` (0-based). The palette has one colour per head
    of the four-head model; a fifth head would have to repeat a colour, so it
    is refused rather than drawn in another head's colour."""
    if not 0 <= h < len(HEADS):
        raise ValueError(f"head {h + 1}: common/palette.py HEADS has colours for heads 1 to {len(HEADS)} only")
    return HEADS[h]


def _head_slice(f: Figure, k: int, x: float, y: float, width: float) -> None:
    """Head k's slice of the projections: a box in the head's colour, centred on y."""
    colour = head_colour(k)
    f.add(
        "rect",
        cls="head-slice",
        data_head=k + 1,
        x=x,
        y=y - 16,
        width=width,
        height=32,
        rx=6,
        fill=colour,
        fill_opacity=0.15,
        stroke=colour,
        stroke_width=1.5,
    )


def head_split(ident: str, T: int, D: int, n_heads: int, head_width: int, heading: str) -> str:
    """One packed projection of width D split into n_heads groups of
    head_width, each head attending on its own, the messages joined back to
    width D, then W_O and the residual."""
    lane = 52 if n_heads <= 2 else 44
    height = 70 + n_heads * lane + 40
    desc = (
        f"E has shape [{T}, {D}]. Each packed projection E·W gives [{T}, {D}], which is split into "
        f"{n_heads} heads of width {head_width}, shape [{n_heads}, {T}, {head_width}]. Each head computes its "
        f"own weights softmax(QKᵀ/√{head_width} + M) of shape [{T}, {T}] and its message AV of shape "
        f"[{T}, {head_width}]. The {n_heads} messages are joined side by side into [{T}, {n_heads * head_width}], "
        f"multiplied by W_O [{n_heads * head_width}, {D}] and added to E, giving [{T}, {D}]."
    )
    f = Figure(ident, 1000, height, heading, desc)
    mid = 40 + n_heads * lane / 2
    learned = FILLS["param"]
    f.box(10, mid - 40, 100, 80, ["E", shape_text([T, D])])
    f.box(140, mid - 44, 160, 88, ["E·W_Q, E·W_K,", "E·W_V, each", shape_text([T, D])], fill=learned)
    f.arrow(110, mid, 138, mid)
    x_split, x_att, x_join = 330, 500, 730
    for k in range(n_heads):
        y = 40 + k * lane + lane / 2
        colour = head_colour(k)
        f.path(f"M300,{mid} C316,{mid} 316,{y} {x_split - 3},{y}", colour=colour, width=2)
        _head_slice(f, k, x_split, y, 140)
        f.text(x_split + 70, y + 6, f"head {k + 1}: {shape_text([T, head_width])}")
        f.arrow(x_split + 140, y, x_att - 3, y, colour=colour)
        f.add("rect", x=x_att, y=y - 16, width=200, height=32, rx=6, fill=PAPER, stroke=colour, stroke_width=1.5)
        f.text(x_att + 100, y + 6, f"A {shape_text([T, T])} · V → messages")
        f.path(f"M{x_att + 200},{y} C{x_join - 16},{y} {x_join - 16},{mid} {x_join - 3},{mid}", colour=colour, width=2)
    f.box(x_join, mid - 40, 115, 80, ["join", shape_text([T, n_heads * head_width])])
    f.box(x_join + 140, mid - 40, 125, 80, ["· W_O, + E", shape_text([T, D])], fill=learned)
    f.arrow(x_join + 115, mid, x_join + 137, mid)
    f.text(x_split + 70, 24, "split into heads", fill=MUTED)
    f.text(x_att + 100, 24, "each head attends alone", fill=MUTED)
    f.text(x_join + 58, 24, "concatenate", fill=MUTED)
    f.text(
        500,
        height - 10,
        f"{n_heads} × {head_width} = {n_heads * head_width} coordinates: "
        "splitting reshapes the projections, it adds no weights.",
        fill=MUTED,
    )
    return arranged(f.render(), _head_split_down(ident, T, D, n_heads, head_width, heading, desc))


def _head_split_down(ident: str, T: int, D: int, n_heads: int, head_width: int, heading: str, desc: str) -> str:
    """``head_split`` for a phone: top to bottom, one head per row."""
    lane, top = 62, 250
    height = top + n_heads * lane + 330
    f = Figure(f"{ident}-phone", PHONE, height, heading, desc)
    learned, mid = FILLS["param"], PHONE / 2
    f.box(mid - 60, 10, 120, 70, ["E", shape_text([T, D])])
    f.arrow(mid, 80, mid, 108)
    f.box(mid - 110, 110, 220, 88, ["E·W_Q, E·W_K,", "E·W_V, each", shape_text([T, D])], fill=learned)
    f.text(mid, 226, "split into heads", fill=MUTED)
    for k in range(n_heads):
        y = top + k * lane + 24
        colour = head_colour(k)
        _head_slice(f, k, 10, y, 170)
        f.text(95, y + 6, f"head {k + 1}: {shape_text([T, head_width])}")
        f.arrow(180, y, 200, y, colour=colour)
        f.add("rect", x=203, y=y - 24, width=187, height=50, rx=6, fill=PAPER, stroke=colour, stroke_width=1.5)
        f.text(296, y - 4, f"A {shape_text([T, T])} · V", size=MIN_TEXT)
        f.text(296, y + 18, "→ messages", size=MIN_TEXT)
    y = top + n_heads * lane
    f.text(mid, y + 12, "each head attends alone, then concatenate", fill=MUTED)
    f.arrow(mid, y + 22, mid, y + 48)
    f.box(mid - 70, y + 50, 140, 70, ["join", shape_text([T, n_heads * head_width])])
    f.arrow(mid, y + 120, mid, y + 148)
    f.box(mid - 75, y + 150, 150, 70, ["· W_O, + E", shape_text([T, D])], fill=learned)
    f.text(mid, y + 256, f"{n_heads} × {head_width} = {n_heads * head_width} coordinates:", fill=MUTED)
    f.text(mid, y + 280, "splitting reshapes the projections,", fill=MUTED)
    f.text(mid, y + 304, "it adds no weights.", fill=MUTED)
    return f.render()


def attention_arrows(
    ident: str,
    words: list[str],
    weight_rows: list[list[float]],
    query: str,
    heading: str,
    head_names=None,
    columns: int | None = None,
    width: int = 1000,
) -> str:
    """One panel per head: the source tokens in a column on the left, the
    query on the right, one line per source whose width and opacity grow with
    its real weight; the weight is printed next to each source. For a phone
    (kit/draw.py ``arranged``) the same panels are drawn one head per row,
    PHONE units wide."""
    wide = _attention_arrows(ident, words, weight_rows, query, heading, head_names, columns, width)
    if width <= PHONE:
        return wide
    return arranged(wide, _attention_arrows(f"{ident}-phone", words, weight_rows, query, heading, head_names, 1, PHONE))


def _attention_arrows(ident, words, weight_rows, query, heading, head_names, columns, width) -> str:
    """``attention_arrows``'s drawing, ``columns`` panels to a row, ``width`` units wide."""
    n, heads = len(words), len(weight_rows)
    head_names = head_names or [f"head {h + 1}" for h in range(heads)]
    columns = columns or heads
    rows_of_panels = -(-heads // columns)
    panel_w = width // columns
    row_h = 26 if n <= 10 else 22
    panel_h = 44 + n * row_h + 10
    height = rows_of_panels * panel_h + 10
    # per panel: the weights, the source words (right-aligned), the lines, the query
    value_w = text_width("0.000", MIN_TEXT) + 8
    word_w = max(text_width(w, MIN_TEXT, bold=True) for w in words)
    query_w = text_width(query, MIN_TEXT, bold=True) + 16
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
    f = Figure(ident, width, height, heading, desc)
    for h, row in enumerate(weight_rows):
        px = (h % columns) * panel_w
        py = (h // columns) * panel_h
        colour = head_colour(h)
        f.text(px + panel_w / 2, py + 24, head_names[h], weight="600", fill=colour)
        qright = px + panel_w - 10
        qy = py + 44 + n * row_h / 2
        sx = px + 4 + value_w + word_w + 8
        best = max(range(n), key=lambda i: row[i])
        for i, (word, w) in enumerate(zip(words, row)):
            y = py + 44 + i * row_h + row_h / 2
            f.text(sx - 6, y + 6, word, anchor="end", weight="700" if i == best else "normal")
            f.text(px + 4, y + 6, f"{w:.3f}", anchor="start", fill=MUTED)
            if w > 0.0005:
                f.add(
                    "line",
                    children=title(f"{word}: {w:.3f}"),
                    cls="weight",
                    data_head=h + 1,
                    data_slot=i,
                    data_weight=f"{w:.6f}",
                    **at(x1=sx, y1=y, x2=qright - query_w, y2=qy),
                    stroke=colour,
                    stroke_width=round(0.8 + 12 * w, 2),
                    stroke_opacity=round(0.25 + 0.75 * w, 3),
                    stroke_linecap="round",
                )
        f.add(
            "rect",
            **at(x=qright - query_w, y=qy - 16, width=query_w),
            height=32,
            rx=6,
            fill=PAPER,
            stroke=colour,
            stroke_width=2,
        )
        f.text(qright - query_w / 2, qy + 6, query, weight="600")
    return f.render()
