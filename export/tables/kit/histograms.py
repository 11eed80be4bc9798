"""Histograms drawn from the tables (issue 35 item 2: draw the idea, not a
table in colour), where how far a quantity spreads is the point:

- ``histograms``: small multiples, one row per case (a width d_k) and one
  column per quantity (a score unscaled, the same score scaled). Every panel
  of a column stands on that column's one x axis (the same bins, the same
  round ticks, drawn once beneath the column, their gridlines through every
  panel), so a spread that widens from row to row shows as one, and one
  that stays put shows as one too. A panel's bars are scaled to its own
  tallest bin (the shape is the point; the counts are the table's) and the
  panel prints its note (its variance, from the table) in its top corner.

A figure wider than a phone is drawn a second time for one (kit/draw.py
``arranged``): the columns one under the other, each PHONE units wide, with
the same rows, ticks, notes and colours.

    svg = histograms("part2-spread", "The spread of q·k", "…", ["d_k = 1", "d_k = 64"],
                     [Column("q·k", "q·k", edges, ticks, counts, ["variance 1.02", "variance 64.49"], ACCENT)])
"""

from __future__ import annotations

from dataclasses import dataclass

from common.palette import GRID, GRIDLINE, INK, INK_SOFT, MUTED

from .charts import tick_text
from .draw import MIN_TEXT, PHONE, SLIDE, Drawing, _n, arranged, element, stack, text_width


@dataclass
class Column:
    """One quantity's histograms: ``counts`` one list per row, on the bins
    between consecutive ``edges``; ``ticks`` the round values marked on the
    column's axis (within the edges); ``notes`` a text per row."""

    heading: str  # above the column
    axis: str  # the axis' name, beneath its ticks
    edges: list[float]
    ticks: list[float]
    counts: list[list[int]]
    notes: list[str]
    colour: str


def histograms(
    ident: str,
    title: str,
    desc: str,
    rows: list[str],
    columns: list[Column],
    width: float = SLIDE - 40,
    panel_h: float = 78,
) -> str:
    """The grid of ``columns`` by ``rows`` (each row's label on the left) at
    ``width``, with its phone arrangement: one column under the other."""
    wide = _grid(ident, title, desc, rows, columns, width, panel_h)
    if width <= PHONE:
        return wide.render()
    parts = [_grid(f"{ident}-phone-{c}", title, desc, rows, [col], PHONE, panel_h) for c, col in enumerate(columns)]
    return arranged(wide.render(), stack(f"{ident}-phone", title, desc, parts, gap=24))


ROW_GAP = 12  # between a column's panels
COLUMN_GAP = 48  # between columns
HEAD = 34  # the columns' headings
PAD = 22  # right of the last column: half an end tick's label


def _grid(ident, title, desc, rows, columns, width, panel_h) -> Drawing:
    label_w = max(text_width(lab, MIN_TEXT) for lab in rows) + 16
    n = len(columns)
    plot_w = (width - label_w - PAD - (n - 1) * COLUMN_GAP) / n
    note_h = MIN_TEXT + 8  # a panel's top strip, for its note: no bar reaches it
    axis_y = HEAD + len(rows) * panel_h + (len(rows) - 1) * ROW_GAP
    height = axis_y + 2 * MIN_TEXT + 26
    d = Drawing(round(width), round(height), ident, title, desc)
    for r, lab in enumerate(rows):
        base = HEAD + r * (panel_h + ROW_GAP) + panel_h
        d.text(label_w - 10, base - (panel_h - note_h) / 2 + MIN_TEXT * 0.35, lab, size=MIN_TEXT, anchor="end")
    for c, col in enumerate(columns):
        x0 = label_w + c * (plot_w + COLUMN_GAP)
        lo, hi = col.edges[0], col.edges[-1]

        def x(v: float, x0=x0, lo=lo, hi=hi) -> float:
            return x0 + (v - lo) / (hi - lo) * plot_w

        d.text(x0 + plot_w / 2, HEAD - 12, col.heading, size=MIN_TEXT, weight="600")
        for t in col.ticks:  # gridlines through every panel, the tick and its value beneath
            d.rect(x(t) - 0.5, HEAD, 1, axis_y - HEAD, fill=GRIDLINE, stroke="none", radius=0)
            d.rect(x(t) - 0.5, axis_y, 1, 6, fill=GRID, stroke="none", radius=0)
            d.text(x(t), axis_y + MIN_TEXT + 8, tick_text(t).replace("-", "−"), size=MIN_TEXT, fill=INK_SOFT)
        d.text(x0 + plot_w / 2, axis_y + 2 * MIN_TEXT + 16, col.axis, size=MIN_TEXT, fill=MUTED)
        for r, (counts, note) in enumerate(zip(col.counts, col.notes)):
            base = HEAD + r * (panel_h + ROW_GAP) + panel_h
            tall = max(counts) or 1
            steps = [f"M{_n(x(lo))},{_n(base)}"]
            for k, count in enumerate(counts):
                y = base - count / tall * (panel_h - note_h)
                steps.append(f"L{_n(x(col.edges[k]))},{_n(y)} L{_n(x(col.edges[k + 1]))},{_n(y)}")
            steps.append(f"L{_n(x(hi))},{_n(base)} Z")
            counted = " ".join(map(str, counts))  # the counts drawn, for a reader's (a test's) check
            d.parts.append(element("path", d=" ".join(steps), fill=col.colour, stroke="none", data_counts=counted))
            d.rect(x0, base, plot_w, 1, fill=GRID, stroke="none", radius=0)  # the panel's base line
            d.text(x0 + plot_w - 4, base - panel_h + MIN_TEXT, note, size=MIN_TEXT, anchor="end", fill=INK)
    return d
