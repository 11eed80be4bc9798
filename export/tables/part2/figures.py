"""Diagrams for the Part II deck, drawn from the Part II tables of the
hand-built "bank" model: attention arrows into "bank" weighted
by the real weights (river and cheque sentences), the causal mask as a matrix of
real weights, one attention step as data flow (phase A, phase B, W_O, residual)
with the cheque sentence's numbers, the life of q, k and v (computed once,
reused by later queries), and how the top weight saturates without scaling.
Table: ``part2_figures``."""

from __future__ import annotations

import math

from common.palette import ACCENT, ALERT, GRID, GRIDLINE, INK, LINE, MUTED, PAPER, SENTENCES

from ..kit.cells import cells, legend, vector_box
from ..kit.draw import COLUMN, FONT, MIN_TEXT, PHONE, Box, Drawing, _n, arranged, element, text_width, wrap_words
from ..kit.registry import table
from ..kit.ribbons import weighted_arrow


def _one(x, digits=2) -> str:
    """A number with at most ``digits`` decimals, trailing zeros dropped."""
    text = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text.replace("-", "−")


def _v(xs, digits=2) -> str:
    """A short vector: at most ``digits`` decimals, trailing zeros dropped."""
    return "[" + ", ".join(_one(x, digits) for x in xs) + "]"


SENTENCE_NAMES = ("river", "cheque")


def _update_axes(bank: dict) -> list[int]:
    """The two coordinates the updates of “bank” move most (water and finance in
    the toy), in the order of the model's coordinates."""
    moved = [sum(abs(bank[name]["delta"][c]) for name in SENTENCE_NAMES) for c in range(len(bank["coords"]))]
    return sorted(sorted(range(len(moved)), key=lambda c: -moved[c])[:2])


def _bank_desc(bank: dict) -> str:
    coords, row = bank["coords"], bank["position"] - 1
    out = []
    for name in SENTENCE_NAMES:
        b = bank[name]
        reads = ", ".join(f"{t} {w:.2f}" for t, w in zip(b["tokens"][:row], b["weights"][:row]))
        moves = ", ".join(f"{c} {v:+.2f}" for c, v in zip(coords, b["delta"]))
        out.append(f"{name} sentence: “bank” reads {reads} (itself {b['weights'][row]:.2f}); its update is {moves}")
    return (
        "Arrows into “bank” from every earlier word, as thick as its attention weight, and the update those "
        "weights make to the row of “bank”, drawn from the same starting row in both sentences. " + "; ".join(out) + "."
    )


def _reads(d: Drawing, x: float, y: float, bank: dict, name: str, vertical: bool) -> Box:
    """One sentence's words up to “bank” as boxes, and an arrow from each earlier
    word into “bank”, as thick as its weight (kit/ribbons.py), in the sentence's
    colour: a row with the arrows arching above it, or (``vertical``) a column
    with the weights on its left and the arrows bulging to its right. Returns
    the box of “bank”."""
    b, row, colour = bank[name], bank["position"] - 1, SENTENCES[name]
    toks, weights = b["tokens"][: row + 1], b["weights"][: row + 1]
    if vertical:
        step, w, h = 42, 100, 34
        boxes = []
        for j, (t, a) in enumerate(zip(toks, weights)):
            boxes.append(d.box(x + 42, y + j * step, w, h, t, kind="op" if j == row else "data"))
            d.text(x + 36, y + j * step + h / 2 + 6, f"{a:.2f}", size=MIN_TEXT, anchor="end", fill=MUTED)
        target = boxes[row]
        for j, (box, a) in enumerate(zip(boxes[:row], weights[:row])):
            end = (target.x + target.w, target.y + 6 + (j / max(1, row - 1)) * (target.h - 12))
            weighted_arrow(d, box.right, end, a, colour, lift=6 + 6 * (row - j), side=(1.0, 0.0))
        return target
    step, w = 100, 92
    boxes = [
        d.box(x + j * step, y, w, 56, t, sub=f"{a:.2f}", kind="op" if j == row else "data")
        for j, (t, a) in enumerate(zip(toks, weights))
    ]
    target = boxes[row]
    for j, (box, a) in enumerate(zip(boxes[:row], weights[:row])):
        end = (target.x + target.w - 8 - (j / max(1, row - 1)) * (target.w - 16), target.y)
        weighted_arrow(d, box.top, end, a, colour, lift=18 + 8 * (row - j))
    return target


def _update_plane(d: Drawing, x: float, y: float, w: float, h: float, bank: dict) -> None:
    """The update of “bank” in each sentence as an arrow in the plane of the two
    coordinates it moves (water across, finance up), from the row “bank” starts
    with (the same in both sentences), in each sentence's colour."""
    cx, cy = _update_axes(bank)
    coords, start = bank["coords"], bank["river"]["e"]
    ends = {name: [bank[name]["e"][c] + bank[name]["delta"][c] for c in (cx, cy)] for name in SENTENCE_NAMES}
    lo_x = min([0.0, start[cx]] + [e[0] for e in ends.values()])
    lo_y = min([0.0, start[cy]] + [e[1] for e in ends.values()])
    hi = math.ceil(2 * max([start[cx], start[cy]] + [v for e in ends.values() for v in e])) / 2
    px, py, pw, ph = x + 60, y + 66, w - 90, h - 132  # the plot, one scale both ways
    s = min(pw / (hi - lo_x), ph / (hi - lo_y))

    def at(u: float, v: float) -> tuple[float, float]:
        return px + (u - lo_x) * s, py + ph - (v - lo_y) * s

    d.text(x + w / 2, y + 16, "what the weights add to “bank”", size=MIN_TEXT, weight="600")
    d.text(x + w / 2, y + 40, "its update Δe₇, from the same row", size=MIN_TEXT, fill=MUTED)
    o = at(start[cx], start[cy])
    d.polyline([at(lo_x, 0), at(hi, 0)], colour=GRID, width=1.5)
    d.polyline([at(0, lo_y), at(0, hi)], colour=GRID, width=1.5)
    d.text(at(hi, 0)[0], at(hi, 0)[1] + 26, coords[cx], size=MIN_TEXT, anchor="end", fill=MUTED)
    d.text(at(0, hi)[0] + 12, at(0, hi)[1] + 10, coords[cy], size=MIN_TEXT, anchor="start", fill=MUTED)
    for name in SENTENCE_NAMES:
        delta, end = bank[name]["delta"], at(*ends[name])
        d.arrow(o, end, width=5, colour=SENTENCES[name])
        moved = cx if abs(delta[cx]) >= abs(delta[cy]) else cy
        label = f"{name}: {_signed(delta[moved])} {coords[moved]}"
        if moved == cx:  # along the floor: the words under the arrow's end
            d.text(end[0], end[1] + 50, label, size=MIN_TEXT, anchor="end", fill=SENTENCES[name], weight="600")
        else:  # up the wall: the words beside the arrow's end
            d.text(end[0] + 14, end[1] + 6, label, size=MIN_TEXT, anchor="start", fill=SENTENCES[name], weight="600")
    d.dot(*o, 6, INK)
    d.text(o[0] - 10, o[1] + 24, "bank", size=MIN_TEXT, anchor="end", fill=INK)


def _signed(x: float) -> str:
    return ("+" if x >= 0 else "−") + f"{abs(x):.2f}"


def bank_arrows(bank: dict) -> str:
    """Where “bank” reads in each sentence (arrows as thick as the weights,
    kit/ribbons.py) and what that reading does: the update of “bank” in the
    plane of the coordinates it moves. A slide's arrangement has the two
    sentences as rows with the plane at their right; a phone's (PHONE units)
    the two sentences as columns side by side with the plane under them."""
    heading = "Where “bank” reads in each sentence, and where that moves it"
    desc = _bank_desc(bank)
    n = bank["position"]
    d = Drawing(1000, 2 * (24 + 12 + 9 * (n - 1) + 76) + 20, "part2-bank-arrows", heading, desc)
    y = 0.0
    for name in SENTENCE_NAMES:
        d.text(10, y + 20, f"{name} sentence", size=MIN_TEXT, anchor="start", weight="600", fill=SENTENCES[name])
        _reads(d, 10, y + 24 + 12 + 9 * (n - 1) + 8, bank, name, vertical=False)
        y += 24 + 12 + 9 * (n - 1) + 76
    _update_plane(d, 10 + n * 100 + 20, 0, 1000 - (10 + n * 100 + 20) - 10, d.height, bank)
    d.text(
        10, d.height - 4, "numbers: each word’s attention weight for “bank”", size=MIN_TEXT, anchor="start", fill=MUTED
    )

    p = Drawing(PHONE, 0, "part2-bank-arrows-phone", heading, desc)
    for s, name in enumerate(SENTENCE_NAMES):
        p.text(6 + s * 200, 22, f"{name} sentence", size=MIN_TEXT, anchor="start", weight="600", fill=SENTENCES[name])
        _reads(p, s * 200, 40, bank, name, vertical=True)
    top = 40 + 42 * n + 16
    p.text(PHONE / 2, top, "numbers: each word’s attention weight", size=MIN_TEXT, fill=MUTED)
    _update_plane(p, 0, top + 20, PHONE, 290, bank)
    p.height = top + 20 + 290
    return arranged(d.render(), p)


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

    # a phone: the same boxes in rows, top to bottom. e₇ at the top left; its
    # keys under it and its query at the right feed phase A, its softmax
    # inside it; the values come straight down the left into phase B, which
    # takes α from phase A above it; W_O, the update and the new row follow
    # down the right, and the residual runs down the left edge and under the
    # new row, into it from below
    p = Drawing(PHONE, 0, "part2-phases-phone", d.title, desc)
    lane = 22  # the residual's lane, left of every box but e₇
    e = vector_box(p, 10, 10, "row e₇ (bank)", c["e"], V, fmt=_one)
    k = p.box(108, 136, 116, 68, "keys k₁…k₇", sub=f"width {dk}", kind="op", role="key")
    q = vector_box(p, PHONE - 10 - q.w, 128, "query q₇", c["q"], V, fmt=_one, kind="op", role="query")
    p.arrow((k.x + k.w / 2, e.y + e.h), k.top)
    p.text(k.x + k.w / 2 - 10, e.y + e.h + 28, "W_K", size=MIN_TEXT, anchor="end", fill=MUTED)
    p.arrow(e.right, q.top)
    p.text(e.x + e.w + 34, e.y + e.h / 2 + 10, "W_Q", size=MIN_TEXT, anchor="start", fill=MUTED)
    a = p.box(PHONE - 10 - 190, 244, 190, 104, "", kind="op")  # phase A, its softmax inside
    p.text(a.x + a.w / 2, a.y + 30, "phase A: α", size=MIN_TEXT, weight="600")
    p.text(a.x + a.w / 2, a.y + 58, f"softmax(q·k/√{dk})", fill=MUTED)
    p.text(a.x + a.w / 2, a.y + 86, f"top: {top} {max(c['weights']):.2f}", size=MIN_TEXT, fill=MUTED)
    p.arrow(q.bottom, (q.x + q.w / 2, a.y))
    p.arrow(k.bottom, (a.x + 20, a.y))
    m = vector_box(
        p, PHONE - 10 - 192, 382, "phase B: m₇ = Σ α v", c["message"], V, fmt=_one, kind="op", role="message"
    )
    v = p.box(lane + 8, m.y + 8, 134, 68, "values v₁…v₇", sub=f"width {dv}", kind="op", role="value")
    p.arrow((v.x + v.w / 2, e.y + e.h), v.top)
    p.text(v.x + v.w / 2 - 10, e.y + e.h + 28, "W_V", size=MIN_TEXT, anchor="end", fill=MUTED)
    p.arrow((a.x + a.w / 2, a.y + a.h), (a.x + a.w / 2, m.y))
    p.arrow(v.right, m.left)
    up = vector_box(p, PHONE - 10 - 200, 500, "update Δe₇", c["delta"], V, fmt=_one, kind="param", role="message")
    p.arrow((up.x + up.w / 2, m.y + m.h), up.top)
    p.text(up.x + up.w / 2 - 10, m.y + m.h + 24, "W_O", size=MIN_TEXT, anchor="end", fill=MUTED)
    new = vector_box(p, up.x, 618, "new row e′₇", c["e_new"], V, fmt=_one, kind="out")
    p.arrow(up.bottom, new.top)
    under = new.y + new.h + 34
    p.polyline([(lane, e.y + e.h), (lane, under), new.centre[:1] + (under,), new.bottom], dash="5 4", colour=ACCENT)
    p.text(lane + 8, under - 10, "residual: e′₇ = e₇ + Δe₇", anchor="start", fill=ACCENT)
    legend(p, 10, under + 24, V, width=200, name="coordinate value")
    p.height = under + 24 + 14 + MIN_TEXT + 8
    return arranged(d.render(), p)


def _sentence(d: Drawing, x: float, y: float, text: str, fill: str, width: float) -> float:
    """``text`` as one <text> of lines no wider than ``width`` units, centred
    on ``x`` (a phone's caption): each line a <tspan>, a space kept at the end
    of each but the last, so the element reads as the one sentence the wide
    figure writes on one line. Returns the baseline of the last line."""
    lines = wrap_words(text, width)
    step = MIN_TEXT * 1.25
    spans = "".join(
        element("tspan", line + (" " if i < len(lines) - 1 else ""), x=_n(x), dy=None if i == 0 else _n(step))
        for i, line in enumerate(lines)
    )
    d.parts.append(
        element(
            "text",
            children=spans,
            x=_n(x),
            y=_n(y),
            font_size=MIN_TEXT,
            text_anchor="middle",
            fill=fill,
            font_family=FONT,
        )
    )
    return y + step * (len(lines) - 1)


def qkv_lifetime(model: dict) -> str:
    """Five words of the river sentence with the q, k and v each computes once,
    and a line from each earlier word's key into the last word's query. A
    slide's arrangement has the words in a row with the lines running under
    them; a phone's (PHONE units) one word a row, its q, k and v beside it,
    the lines running down a lane each at the right into the last query."""
    toks = model["sentences"]["river"][:5]
    n = len(toks)
    heading = "q, k and v are computed once per word; later queries reuse k and v"
    desc = (
        f"Five words of the river sentence. Each word's query, key and value are computed once, when the word "
        f"arrives. The query of word {n} ({toks[-1]}) is compared with the keys of words 1 to {n} and mixes their "
        f"values; those keys and values were computed earlier and are reused, not recomputed. A generator keeps "
        f"them in a key-value cache; a word's query is used only by that word."
    )
    reads = f"word {n}'s query reads the keys and values of words 1–{n}, stored when each word arrived"
    greyed = "greyed q: used once by its own word, never again (so a cache keeps only k and v)"

    def qkv(d: Drawing, x: float, y: float, last: bool) -> None:
        d.box(x, y, 50, 44, "q", kind="op" if last else "muted", size=16, role="query")
        d.box(x + 56, y, 50, 44, "k", kind="param", size=16, role="key")
        d.box(x + 112, y, 50, 44, "v", kind="param", size=16, role="value")

    d = Drawing(1000, 290, "part2-qkv-lifetime", heading, desc)
    w = 170
    for j, t in enumerate(toks):
        x = 10 + j * (w + 26)
        d.box(x, 20, w, 56, f"{j + 1} {t}")
        last = j == n - 1
        qkv(d, x + 4, 110, last)
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
    d.text(500, 262, reads, size=MIN_TEXT, fill=INK)
    d.text(500, 282, greyed, size=MIN_TEXT, fill=MUTED)

    # a phone: one word a row; the line from word j's key turns right under
    # its row into a lane of its own (the first word's outermost, so no two
    # lines cross), runs down past the last row and comes up into its query
    step, qx = 66, 172
    p = Drawing(PHONE, 0, "part2-qkv-lifetime-phone", heading, desc)
    for j, t in enumerate(toks):
        y = 10 + j * step
        word = p.box(10, y, 130, 44, f"{j + 1} {t}")
        p.arrow(word.right, (qx - 2, y + 22))
        qkv(p, qx, y, j == n - 1)
    bottom = 10 + (n - 1) * step + 44
    for j in range(n - 1):
        y, lane, enter = 10 + j * step + 44, 388 - 10 * j, qx + 7 + 12 * j
        below = bottom + 12 + 8 * (n - 2 - j)
        p.polyline(
            [(qx + 81, y), (qx + 81, y + 11), (lane, y + 11), (lane, below), (enter, below), (enter, bottom + 2)],
            colour=ACCENT,
            width=1.5,
        )
    y = bottom + 12 + 8 * (n - 2) + 36
    y = _sentence(p, PHONE / 2, y, reads, INK, PHONE - 70)
    y = _sentence(p, PHONE / 2, y + 30, greyed, MUTED, PHONE - 70)
    p.height = y + 10
    return arranged(d.render(), p)


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
        "bank_arrows": bank_arrows(part2_bank),
        "causal_mask": causal_mask(part2_walk),
        "phases": phases(part2_bank, part2_model),
        "qkv_lifetime": qkv_lifetime(part2_model),
        "saturation": saturation(part2_scaling),
    }
