"""Matrices of coloured cells side by side in one figure, under one legend
(issue 20): the kit's one way to draw several small matrices (two heads'
weights, W_Q beside W_K, q, K and V, a sum drawn as matrices joined by
``+`` and ``=``). Each panel is a matrix of kit/cells.py cells with its
caption above; all share one colour scale (one meaning, one ``vmax``) and
one legend beneath. Panels that do not fit the width wrap to a new line.

    svg = panels(
        "maps-qkv", "q, K and V of example 2", "q = [...], K = [...], V = [...]",
        [Panel("q", [q], ["a"], ["1", "2", "3"]), Panel("K", K, tokens), Panel("V", V, tokens)],
    )

``heatmaps`` builds the panels of matrices that share their rows and columns
(the row labels left of the first, the column labels above each).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from common.palette import ACCENT, INK_SOFT, MUTED

from .cells import cells, legend, number, top
from .draw import MIN_TEXT, Drawing, natural_size, text_width

# a little narrower than the slide's content box (1176 px), so a full-width
# figure is drawn at one px per unit and its text stays at 18 px
WIDE = 1100
COS40, SIN40 = 0.766, 0.643  # a rotated column label's run across and up
LONG = 1.4  # text_width's estimate times this: room for the widest rotated labels as drawn


@dataclass
class Panel:
    caption: str
    values: list  # a list of rows (a vector is one row); a None cell is blocked
    row_labels: list | None = None
    col_labels: list | None = None
    outline_rows: tuple = ()  # rows outlined in the accent colour
    after: str | None = None  # a symbol drawn between this panel and the next
    cells: dict = field(default_factory=dict)  # extra arguments of kit.cells.cells (fmt, blocked)


def _head(p: Panel, rotate: bool) -> float:
    """The height of a panel's column labels."""
    if not p.col_labels:
        return 0.0
    if rotate:
        return max(text_width(c, MIN_TEXT) for c in p.col_labels) * LONG * SIN40 + 22
    return 34.0


def _size(p: Panel, cell_w: float, cell_h: float, rotate: bool) -> tuple[float, float, float]:
    """(label width, panel width, panel height) of a panel."""
    label_w = max((text_width(lab, MIN_TEXT) for lab in p.row_labels or []), default=-16) + 16
    cols = max(len(r) for r in p.values)
    body = cols * cell_w
    if rotate and p.col_labels:  # the last label runs right of the cells
        body += max(0.0, text_width(p.col_labels[-1], MIN_TEXT) * LONG * COS40 - cell_w / 2)
    width = max(label_w + body, text_width(p.caption, MIN_TEXT, bold=True))
    return label_w, width, _head(p, rotate) + (30 if p.caption else 0) + cell_h * len(p.values)


def panels(
    ident: str,
    title: str,
    desc: str,
    items: list[Panel],
    meaning: str = "signed",
    digits: int = 2,
    width: float = WIDE,
    vmax: float | None = None,
    name: str | None = None,
    cell_h: float = 38,
    cell_w: float | None = None,
    gap: float = 56,
    note: str | None = None,
    rotate_cols: bool = False,
    legend_digits: int | None = None,
    natural: bool = True,
) -> str:
    """One figure of matrices side by side, centred on each line, with a
    legend (``legend_digits``: its ends' decimals, else ``digits``). Cells are
    as wide as their values need, or ``cell_w``. ``natural``: never shown above its own size
    (``natural_size``); else it scales to the slide's width as other figures."""
    everything = [v for p in items for row in p.values for v in row if isinstance(v, (int, float))]
    vmax = vmax or top([everything], meaning)
    texts = [number(v, digits) for v in everything] + ["−∞"]
    cell_w = cell_w or max(48.0, max(text_width(t, MIN_TEXT) for t in texts) + 16)
    sizes = [_size(p, cell_w, cell_h, rotate_cols) for p in items]
    lines, line, used = [], [], 0.0
    for k, size in enumerate(sizes):
        need = size[1] + (gap if line else 0)
        if line and used + need > width - 20:
            lines.append(line)
            line, used, need = [], 0.0, size[1]
        line.append(k)
        used += need
    lines.append(line)
    widest = max(sum(sizes[k][1] for k in ln) + gap * (len(ln) - 1) for ln in lines)
    width = min(width, max(widest + 40, 420.0))  # as wide as the panels (and the legend) need
    heights = [max(sizes[k][2] for k in ln) for ln in lines]
    height = sum(heights) + 24 * (len(lines) - 1) + 84 + (34 if note else 0)
    d = Drawing(width, height, ident, title, desc)
    y = 10.0
    first_x = None
    for ln, h in zip(lines, heights):
        total = sum(sizes[k][1] for k in ln) + gap * (len(ln) - 1)
        x = (width - total) / 2
        head = max(_head(items[k], rotate_cols) for k in ln)
        head += 30 if any(items[k].caption for k in ln) else 0  # the captions' line
        for k in ln:
            p, (label_w, w, _) = items[k], sizes[k]
            first_x = x if first_x is None else min(first_x, x)
            d.text(x + label_w, y + 20, p.caption, size=MIN_TEXT, anchor="start", weight="600", fill=INK_SOFT)
            top_y = y + head
            box = cells(
                d,
                x + label_w,
                top_y,
                [list(r) for r in p.values],
                meaning,
                vmax=vmax,
                digits=digits,
                cell_w=cell_w,
                cell_h=cell_h,
                row_labels=p.row_labels,
                col_labels=p.col_labels,
                rotate_cols=rotate_cols,
                **p.cells,
            )
            for r in p.outline_rows:
                d.rect(box.x - 2, box.y + r * cell_h - 2, box.w + 4, cell_h + 4, fill="none", stroke=ACCENT, width=3.5)
            if p.after and k != ln[-1]:
                d.text(x + w + gap / 2, top_y + box.h / 2 + 9, p.after, size=28, weight="600", fill=MUTED)
            x += w + gap
        y += h + 24
    y -= 24
    key_digits = digits if legend_digits is None else legend_digits
    legend(d, max(first_x, 20.0), y + 18, meaning, vmax, digits=key_digits, width=240, name=name)
    if note:
        d.text(width / 2, y + 92, note, size=MIN_TEXT, fill=MUTED)
    return natural_size(d) if natural else d.render()


def heatmaps(
    ident: str,
    title: str,
    desc: str,
    matrices: list[tuple[str, list]],
    row_labels: list[str],
    col_labels: list[str],
    meaning: str = "weight",
    legend_name: str | None = None,
    **options,
) -> str:
    """``panels`` of matrices [(caption, matrix)] that share their rows and
    columns: the row labels left of the first, the column labels above each;
    shown at the slide's width as the deck's other figures (``options``: those
    of ``panels``)."""
    items = [Panel(cap, m, row_labels if i == 0 else None, col_labels) for i, (cap, m) in enumerate(matrices)]
    if not options.get("cell_w"):  # as wide as the values and (upright) the column labels
        digits = options.get("digits", 2)
        texts = [number(v, digits) for _, m in matrices for row in m for v in row if v is not None]
        upright = [] if options.get("rotate_cols") else col_labels
        options["cell_w"] = max(
            [44.0]
            + [text_width(t, MIN_TEXT) * 1.2 + 14 for t in texts]
            + [text_width(c, MIN_TEXT) * LONG + 12 for c in upright]
        )
    options.setdefault("natural", False)
    options.setdefault("cell_h", 34)
    return panels(ident, title, desc, items, meaning=meaning, name=legend_name, **options)
