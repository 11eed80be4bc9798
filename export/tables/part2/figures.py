"""Diagrams for the Part II deck, drawn from the Part II tables of the
hand-built "bank" model: attention arrows into "bank" weighted
by the real weights (river and cheque sentences), the causal mask as a matrix of
real weights, one attention step as data flow (phase A, phase B, W_O, residual)
with the cheque sentence's numbers, the life of q, k and v (computed once,
reused by later queries), and how the top weight saturates without scaling.
Table: ``part2_figures``."""

from __future__ import annotations

from common.palette import ACCENT, ALERT, GRIDLINE, INK, LINE, MUTED, PAPER

from ..kit.cells import cells, legend, vector_box
from ..kit.draw import COLUMN, MIN_TEXT, PHONE, Drawing, arranged, text_width, wrap_words
from ..kit.registry import table


def _one(x, digits=2) -> str:
    """A number with at most ``digits`` decimals, trailing zeros dropped."""
    text = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text.replace("-", "−")


def _v(xs, digits=2) -> str:
    """A short vector: at most ``digits`` decimals, trailing zeros dropped."""
    return "[" + ", ".join(_one(x, digits) for x in xs) + "]"


def bank_arrows(walk: dict, position: int) -> str:
    """Arrows from each earlier word into "bank" (1-based ``position``), width = weight."""
    row = position - 1
    desc = []
    for name in ("river", "cheque"):
        toks, weights = walk[name]["tokens"][:position], walk[name]["A"][row][:position]
        desc.append(f"{name} sentence: " + ", ".join(f"{t} {w:.2f}" for t, w in zip(toks, weights)))
    d = Drawing(
        1000,
        360,
        "part2-bank-arrows",
        "Where “bank” reads in each sentence: the model's attention weights",
        "Arrows into “bank” from every word up to it, as thick as its attention weight. " + "; ".join(desc) + ".",
    )
    for s, name in enumerate(("river", "cheque")):
        toks, weights = walk[name]["tokens"][:position], walk[name]["A"][row][:position]
        y = 60 + s * 150
        d.text(10, y - 22, f"{name} sentence", size=MIN_TEXT, anchor="start", weight="600")
        w = 128
        boxes = [
            d.box(10 + j * (w + 13), y, w, 60, t, sub=f"{a:.2f}", kind="op" if j == row else "data")
            for j, (t, a) in enumerate(zip(toks, weights))
        ]
        target = boxes[row]
        for j, (b, a) in enumerate(zip(boxes[:-1], weights[:-1])):
            d.arrow(
                b.bottom,
                (target.x + 20 + j * 12, target.y + target.h),
                width=1 + 10 * a,
                colour=ACCENT,
                opacity=0.3 + 0.7 * a,
                bend=-(40 + 8 * (row - j)),
            )
    d.text(990, 352, "numbers: the attention weight of each word for “bank”", anchor="end", fill=MUTED)
    return arranged(d.render(), _bank_arrows_down(walk, position, d.title, d.desc))


def _bank_arrows_down(walk: dict, position: int, heading: str, desc: str) -> Drawing:
    """``bank_arrows`` for a phone: one sentence under the other, its words in
    a column, each arrow into “bank” (on the right) as thick as its weight."""
    row, step, top = position - 1, 54, 40
    block = top + step * row + 30
    d = Drawing(PHONE, block * 2 + 30, "part2-bank-arrows-phone", heading, desc)
    for s, name in enumerate(("river", "cheque")):
        toks, weights = walk[name]["tokens"][:position], walk[name]["A"][row][:position]
        y0 = s * block
        d.text(10, y0 + 26, f"{name} sentence", size=MIN_TEXT, anchor="start", weight="600")
        mid = y0 + top + (step * row - 8) / 2
        target = d.box(250, mid - 30, 140, 60, toks[row], sub=f"{weights[row]:.2f}", kind="op")
        for j, (t, a) in enumerate(zip(toks[:row], weights[:row])):
            b = d.box(10, y0 + top + j * step, 128, 48, t, sub=f"{a:.2f}")
            end = (target.x, target.y + 10 + j * (target.h - 20) / max(1, row - 1))
            d.arrow(b.right, end, width=1 + 10 * a, colour=ACCENT, opacity=0.3 + 0.7 * a)
    for k, line in enumerate(wrap_words("numbers: the attention weight of each word for “bank”")):
        d.text(PHONE / 2, block * 2 + 6 + k * 22, line, fill=MUTED)
    return d


def causal_mask(walk: dict) -> str:
    """The river sentence's attention weights as a matrix of cells (kit/cells.py),
    the future cells blocked; drawn for one of two columns."""
    toks, A = walk["river"]["tokens"], walk["river"]["A"]
    n = len(toks)
    desc = (
        f"A {n} by {n} grid for the river sentence: row i is the query word, column j the source word. Cells "
        f"with j after i are blocked (grey, weight exactly 0); the other cells show the attention weight, "
        f"darker for larger weights, and each row sums to 1."
    )
    labels = [f"{i + 1} {t}" for i, t in enumerate(toks)]
    x0 = max(text_width(label, MIN_TEXT) for label in labels) + 14
    y0, cell_h = 76, 32
    d = Drawing(
        COLUMN,
        y0 + n * cell_h + 84,
        "part2-causal-mask",
        "The causal mask: each word reads only itself and earlier words",
        desc,
    )
    grid = [[A[r][c] if c <= r else None for c in range(n)] for r in range(n)]
    box = cells(
        d,
        x0,
        y0,
        grid,
        "weight",
        fmt=lambda v: f"{v:.2f}"[1:] if v < 1 else "1",
        cell_w=min(46.0, (COLUMN - x0 - 8) / n),
        cell_h=cell_h,
        row_labels=labels,
        col_labels=toks,
        rotate_cols=True,
    )
    legend(d, x0, box.y + box.h + 14, "weight", width=200)
    d.text(x0, box.y + box.h + 76, "× = a future word, blocked before the softmax", anchor="start", fill=MUTED)
    return d.render()


def phases(bank: dict, model: dict) -> str:
    c = bank["cheque"]
    top = c["top_source"]
    d_model, dk, dv = model["d_model"], model["d_k"], model["d_v"]
    desc = (
        f"One attention step for “bank” in the cheque sentence. Phase A: the query of bank {_v(c['q'])} "
        f"(width {dk}) is compared with every key, scaled by √{dk} and turned into weights by softmax; the largest "
        f"weight goes to {top} ({max(c['weights']):.2f}). Phase B: the weights mix the values (width {dv}) into "
        f"the message {_v(c['message'])}. W_O maps the message to width {d_model}, giving the update "
        f"{_v(c['delta'])}, and the residual adds it to bank's row {_v(c['e'])}, giving {_v(c['e_new'])}."
    )
    V = "part2-vectors"  # the bank model's colour scale (kit/scales.py)
    d = Drawing(1000, 370, "part2-phases", "Phase A (match), phase B (mix), W_O and the residual, at “bank”", desc)
    e = vector_box(d, 10, 130, "row e₇ (bank)", c["e"], "part2-vectors", fmt=_one)
    q = vector_box(d, 290, 24, "query q₇", c["q"], "part2-vectors", fmt=_one, kind="op", role="query")
    k = d.box(290, 126, q.w, 68, "keys k₁…k₇", sub=f"width {dk}", kind="op", role="key")
    v = d.box(290, 214, q.w, 68, "values v₁…v₇", sub=f"width {dv}", kind="op", role="value")
    d.arrow(e.right, q.left, label="W_Q", label_offset=-12, label_size=MIN_TEXT)
    d.arrow(e.right, k.left, label="W_K", label_offset=22, label_size=MIN_TEXT)
    d.arrow(e.right, v.left, label="W_V", label_offset=26, label_size=MIN_TEXT)
    a = d.box(510, 62, 180, 84, "phase A: α", sub=f"top: {top} {max(c['weights']):.2f}", kind="op")
    d.arrow(q.right, a.left)
    d.arrow(k.right, a.left)
    d.text(600, 42, f"softmax(q·k/√{dk})", fill=MUTED)
    m = vector_box(d, 510, 206, "phase B: m₇ = Σ α v", c["message"], V, fmt=_one, kind="op", role="message")
    d.arrow(a.bottom, (a.x + a.w / 2, m.y))
    d.arrow(v.right, m.left)
    up = vector_box(d, m.x + m.w + 40, 206, "update Δe₇", c["delta"], V, fmt=_one, kind="param", role="message")
    d.arrow(m.right, up.left, label="W_O", label_offset=-12, label_size=MIN_TEXT)
    new = vector_box(d, 1000 - 10 - up.w, 62, "new row e′₇", c["e_new"], "part2-vectors", fmt=_one, kind="out")
    d.arrow((up.x + up.w / 2, up.y), (new.x + new.w / 2, new.y + new.h))
    d.polyline([(e.x + 40, e.y), (e.x + 40, 10), (new.x + 40, 10), (new.x + 40, new.y)], dash="5 4", colour=ACCENT)
    d.text(e.x + 52, 34, "residual: e′₇ = e₇ + Δe₇", anchor="start", fill=ACCENT)
    legend(d, 10, 322, "part2-vectors", name="coordinate value")
    return d.render()


def qkv_lifetime(model: dict) -> str:
    toks = model["sentences"]["river"][:5]
    n = len(toks)
    desc = (
        f"Five words of the river sentence. Each word's query, key and value are computed once, when the word "
        f"arrives. The query of word {n} ({toks[-1]}) is compared with the keys of words 1 to {n} and mixes their "
        f"values; those keys and values were computed earlier and are reused, not recomputed. A generator keeps "
        f"them in a key-value cache; a word's query is used only by that word."
    )
    d = Drawing(
        1000, 290, "part2-qkv-lifetime", "q, k and v are computed once per word; later queries reuse k and v", desc
    )
    w = 170
    for j, t in enumerate(toks):
        x = 10 + j * (w + 26)
        d.box(x, 20, w, 56, f"{j + 1} {t}")
        last = j == n - 1
        d.box(x + 4, 110, 50, 44, "q", kind="op" if last else "muted", size=16, role="query")
        d.box(x + 60, 110, 50, 44, "k", kind="param", size=16, role="key")
        d.box(x + 116, 110, 50, 44, "v", kind="param", size=16, role="value")
        d.arrow((x + w / 2, 76), (x + w / 2, 108))
        if not last:
            d.polyline(
                [
                    (x + 85, 154),
                    (x + 85, 200 + 8 * j),
                    (10 + (n - 1) * (w + 26) + 30 + 10 * j, 200 + 8 * j),
                    (10 + (n - 1) * (w + 26) + 30 + 10 * j, 156),
                ],
                colour=ACCENT,
                width=1.5,
            )
    d.text(
        500,
        262,
        f"word {n}'s query reads the keys and values of words 1–{n}, stored when each word arrived",
        size=MIN_TEXT,
        fill=INK,
    )
    d.text(
        500,
        282,
        "greyed q: used once by its own word, never again (so a cache keeps only k and v)",
        size=MIN_TEXT,
        fill=MUTED,
    )
    return d.render()


def saturation(scaling: dict) -> str:
    """The top weight of the unscaled and the scaled scores as d_k grows, a
    line each: at a slide's width with each line's name at its end, and on a
    phone (PHONE units) with the names above the plot."""
    rows = scaling["saturation"]
    desc = (
        "Top softmax weight for two keys one standard deviation above and below the mean, as d_k grows: "
        + "; ".join(f"d_k {r['d_k']}: {r['top_raw']:.3f} unscaled, {r['top_scaled']:.3f} scaled" for r in rows)
        + ". Without dividing by √d_k the top weight heads to 1 and the softmax slope vanishes."
    )
    lines = (("top_raw", ALERT, "q·k, unscaled"), ("top_scaled", ACCENT, "q·k/√d_k"))

    def draw(phone: bool) -> Drawing:
        top = 2 * 28 + 10 if phone else 0  # the lines' names, one a row, above a phone's plot
        width, x0, w = (PHONE, 70, PHONE - 70 - 16) if phone else (1000, 110, 640)
        ident = "part2-saturation" + ("-phone" if phone else "")
        d = Drawing(width, 330 + top, ident, "Without √d_k the top weight saturates as d_k grows", desc)
        y0, h, lo = 30 + top, 240, 0.5
        d.rect(x0, y0, w, h, fill=PAPER, stroke=LINE, radius=0)
        for t in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
            y = y0 + h - (t - lo) / (1 - lo) * h
            d.polyline([(x0, y), (x0 + w, y)], colour=GRIDLINE, width=1, arrow=False)
            d.text(x0 - 8, y + 5, f"{t:.1f}", size=MIN_TEXT, anchor="end")
        inset = 20 if phone else 30
        xs = [x0 + inset + i * (w - 2 * inset) / (len(rows) - 1) for i in range(len(rows))]
        for x, r in zip(xs, rows):
            d.text(x, y0 + h + 22, str(r["d_k"]), size=MIN_TEXT)
        d.text(x0 + w / 2, y0 + h + 48, "d_k (width of queries and keys)", size=MIN_TEXT)
        d.text(
            30 if not phone else 14,
            y0 + h / 2,
            "top weight",
            size=MIN_TEXT,
            transform=f"rotate(-90 {30 if not phone else 14} {y0 + h / 2})",
        )
        for n, (key, colour, label) in enumerate(lines):
            pts = [(x, y0 + h - (r[key] - lo) / (1 - lo) * h) for x, r in zip(xs, rows)]
            d.polyline(pts, colour=colour, width=3, arrow=False)
            for x, y in pts:
                d.dot(x, y, 5, colour)
            if phone:
                ly = 22 + n * 28
                d.polyline([(x0, ly - 6), (x0 + 28, ly - 6)], colour=colour, width=3, arrow=False)
                d.text(x0 + 38, ly, label, size=MIN_TEXT, anchor="start", fill=colour, weight="600")
            else:
                d.text(x0 + w + 14, pts[-1][1] + 5, label, size=MIN_TEXT, anchor="start", fill=colour, weight="600")
        return d

    return arranged(draw(False).render(), draw(True))


@table("part2_figures", needs=["part2_model", "part2_walk", "part2_bank", "part2_scaling"])
def figures(part2_model: dict, part2_walk: dict, part2_bank: dict, part2_scaling: dict) -> dict:
    return {
        "bank_arrows": bank_arrows(part2_walk, part2_model["bank_position"]),
        "causal_mask": causal_mask(part2_walk),
        "phases": phases(part2_bank, part2_model),
        "qkv_lifetime": qkv_lifetime(part2_model),
        "saturation": saturation(part2_scaling),
    }
