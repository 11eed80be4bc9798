"""Vectors and small matrices drawn as rows of coloured cells, each with its
value (issue 20), the way Transformer Explainer draws q, k and v: the colour
shows the pattern at a glance, the printed value keeps the number exact.

One colour ramp per meaning, the same in every figure (common/palette.py):

- ``"weight"``: attention weights and probabilities, 0 to 1: the lab's
  heat scale (WEIGHT_SCALE, white to dark blue);
- ``"signed"``: coordinates (embeddings, q, k, v, messages, updates), scores
  and logits: a diverging scale about 0 (SIGNED_SCALE, brown below 0, teal
  above), symmetric to a limit;
- ``"surprisal"``: bits or nats of surprise, 0 to a limit (SURPRISAL_SCALE).

Every heatmap names its scale (kit/scales.py: a meaning and a fixed, rounded
limit shared by a run of figures, so one colour means one number on every
slide of the run) and carries a legend of it (``legend``), its ends printed
as rounded numbers. The cells draw through a ``Drawing`` (kit/draw.py writes
the markup):

    d = Drawing(COLUMN, 200, "p2-q", "The query of bank", "q = [2.7, 0, 0.68] ...")
    box = cells(d, 90, 40, [[2.7, 0.0, 0.68]], "part2-vectors", row_labels=["q₇"], col_labels=["a", "b", "c"])
    legend(d, 90, box.y + box.h + 20, "part2-vectors")

``vectors(...)`` draws a whole figure of labelled vectors with its legend.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.numbers import written
from common.palette import BLOCKED, GRID, INK_SOFT, MUTED, SIGNED_SCALE, SURPRISAL_SCALE, WEIGHT_SCALE, scale_colour

from .draw import COLUMN, MIN_TEXT, Box, Drawing, text_on, text_width
from .scales import check, end_text, scale


@dataclass(frozen=True)
class Meaning:
    name: str  # shown on the legend
    stops: tuple
    signed: bool  # symmetric about 0 (else 0 to vmax)
    vmax: float | None = None  # a fixed top (weights: 1)


MEANINGS = {
    "weight": Meaning("attention weight", WEIGHT_SCALE, signed=False, vmax=1.0),
    "signed": Meaning("value", SIGNED_SCALE, signed=True),
    "surprisal": Meaning("surprisal", SURPRISAL_SCALE, signed=False),
}


def number(v: float, digits: int = 2) -> str:
    """A cell's text, as the decks print numbers (common/numbers.written): fixed
    decimals, grouped from 1,000 on, a true minus sign, no sign on zero."""
    return written(float(v), digits)


def top(values, meaning: str) -> float:
    """The scale's top for ``values`` (nested lists; None cells left out)."""
    m = MEANINGS[meaning]
    if m.vmax is not None:
        return m.vmax
    flat = [abs(v) for row in values for v in (row if isinstance(row, list) else [row]) if v is not None]
    return max(flat, default=0.0) or 1.0


def colour(v: float, meaning: str, vmax: float) -> str:
    """The fill of value ``v`` on the meaning's scale."""
    m = MEANINGS[meaning]
    t = (v / vmax + 1) / 2 if m.signed else v / vmax
    return scale_colour(t, m.stops)


def cells(
    d: Drawing,
    x: float,
    y: float,
    values,
    scale_name: str,
    digits: int = 2,
    fmt=None,
    cell_w: float | None = None,
    cell_h: float = 36,
    row_labels=None,
    col_labels=None,
    rotate_cols: bool = False,
    blocked: str = "×",
) -> Box:
    """A vector (a list) or a matrix (a list of rows) as coloured cells with
    their values, on the named scale (kit/scales.py); a None cell is blocked
    (grey, ``blocked`` printed). Row labels stand left of ``x``, column labels
    above ``y``. Returns the cells' Box."""
    rows = values if values and isinstance(values[0], list) else [values]
    s = scale(scale_name)
    check(s, rows, d.ident)
    meaning, vmax = s.meaning, s.limit
    fmt = fmt or (lambda v: number(v, digits))
    texts = [[blocked if v is None else fmt(v) for v in row] for row in rows]
    widest = max((text_width(t, MIN_TEXT) for row in texts for t in row), default=0)
    cell_w = cell_w or max(44.0, widest + 14)
    start = len(d.parts)
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            fill = BLOCKED if v is None else colour(v, meaning, vmax)
            cx, cy = x + c * cell_w, y + r * cell_h
            d.rect(cx, cy, cell_w, cell_h, fill=fill, stroke=GRID, width=1, radius=0)
            ink = MUTED if v is None else text_on(fill)
            d.text(cx + cell_w / 2, cy + cell_h / 2 + MIN_TEXT * 0.35, texts[r][c], size=MIN_TEXT, fill=ink)
    d.wrap(start, cls="cells", data_scale=s.name)
    for r, label in enumerate(row_labels or []):
        d.text(x - 8, y + r * cell_h + cell_h / 2 + MIN_TEXT * 0.35, label, size=MIN_TEXT, anchor="end")
    for c, label in enumerate(col_labels or []):
        lx = x + c * cell_w + cell_w / 2
        if rotate_cols:
            d.text(lx, y - 10, label, size=MIN_TEXT, anchor="start", transform=f"rotate(-40 {lx:.1f} {y - 10:.1f})")
        else:
            d.text(lx, y - 10, label, size=MIN_TEXT, fill=INK_SOFT)
    return Box(x, y, cell_w * max(len(r) for r in rows), cell_h * len(rows))


def vector_box(
    d: Drawing, x: float, y: float, label: str, values, scale_name: str, fmt=None, kind="data", role=None
) -> Box:
    """A labelled box holding one vector as a row of cells (a box of
    Drawing.box whose second line is the vector); its size follows the cells."""
    fmt = fmt or number
    widest = max(text_width(fmt(v), MIN_TEXT) for v in values)
    cell_w = max(40.0, widest + 12)
    w = max(cell_w * len(values), text_width(label, MIN_TEXT, bold=True)) + 20
    box = d.box(x, y, w, 84, "", kind=kind, role=role)
    d.text(box.x + w / 2, y + 26, label, size=MIN_TEXT, weight="600")
    cells(
        d,
        box.x + (w - cell_w * len(values)) / 2,
        y + 38,
        list(values),
        scale_name,
        fmt=fmt,
        cell_w=cell_w,
        cell_h=34,
    )
    return box


def legend(d: Drawing, x: float, y: float, scale_name: str, width: float = 240, name=None) -> Box:
    """The named scale as a bar of steps with its ends (and 0) labelled as
    rounded numbers; ``name`` (say "score") replaces the meaning's name beside it."""
    s = scale(scale_name)
    m = MEANINGS[s.meaning]
    steps, h = 11, 14
    lo, hi = s.low, s.high
    start = len(d.parts)
    for k in range(steps):
        v = lo + (hi - lo) * (k + 0.5) / steps
        d.rect(x + k * width / steps, y, width / steps, h, fill=colour(v, s.meaning, hi), stroke="none", radius=0)
    d.rect(x, y, width, h, fill="none", stroke=GRID, width=1, radius=0)
    ty = y + h + MIN_TEXT + 2
    d.text(x, ty, end_text(lo), size=MIN_TEXT, anchor="start", fill=MUTED)
    d.text(x + width, ty, end_text(hi), size=MIN_TEXT, anchor="end", fill=MUTED)
    if m.signed:
        d.text(x + width / 2, ty, "0", size=MIN_TEXT, fill=MUTED)
    d.text(x + width + 14, y + h / 2 + MIN_TEXT * 0.35, name or m.name, size=MIN_TEXT, anchor="start", fill=MUTED)
    d.wrap(start, cls="scale-legend", data_scale=s.name, data_low=end_text(lo), data_high=end_text(hi))
    return Box(x, y, width, h + MIN_TEXT + 6)


def vectors(
    ident: str,
    title: str,
    desc: str,
    rows: list[tuple[str, list[float]]],
    scale_name: str,
    col_labels=None,
    digits: int = 2,
    width: float = COLUMN,
    name: str | None = None,
) -> str:
    """A whole figure: one labelled row of cells per vector (``rows`` =
    [(label, values)]) on the named scale, column labels above, the legend
    beneath. Drawn for a column (COLUMN units wide) unless ``width`` says otherwise."""
    values = [list(v) for _, v in rows]
    label_w = max(text_width(label, MIN_TEXT) for label, _ in rows) + 16
    top_y = 44 if col_labels else 10
    cell_h = 36
    height = top_y + cell_h * len(rows) + 70
    d = Drawing(width, height, ident, title, desc)
    box = cells(
        d,
        label_w,
        top_y,
        values,
        scale_name,
        digits=digits,
        row_labels=[lab for lab, _ in rows],
        col_labels=col_labels,
        cell_h=cell_h,
    )
    legend(d, label_w, box.y + box.h + 18, scale_name, width=min(240.0, box.w), name=name)
    return d.render()
