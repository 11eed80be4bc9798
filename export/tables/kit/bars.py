"""Bars drawn from the tables (issue 20), where the shape of a distribution is
the point: probabilities of candidate words, mixing weights over a sentence.

- ``hbars``: one horizontal bar per label and series (grouped), the value
  printed at the end of each bar, a key of the series above;
- ``column_rows``: small multiples: one row of vertical bars per rule over
  the same labels (a sentence's words), the value above each bar; a row of
  ``None`` values is drawn as marks (a slot that is read, or not).

Lengths are proportional to the value on one scale per figure (0 to ``vmax``,
by default the largest value drawn); colours come from common/palette.py.
"""

from __future__ import annotations

from common.palette import ACCENT, GRID, GRIDLINE, INK, INK_SOFT, MUTED, SURFACE

from .cells import number
from .draw import MIN_TEXT, SLIDE, Drawing, text_width


def hbars(
    ident: str,
    title: str,
    labels: list[str],
    series: list[tuple[str, list[float], str]],
    digits: int = 3,
    vmax: float | None = None,
    width: float = SLIDE - 40,
    bar_h: float = 24,
    desc: str | None = None,
) -> str:
    """``series`` = [(name, values, colour)], values in the order of ``labels``."""
    vmax = vmax or max(v for _, vs, _ in series for v in vs) or 1.0
    label_w = max(text_width(lab, MIN_TEXT) for lab in labels) * 1.2 + 24
    value_w = text_width(number(vmax, digits), MIN_TEXT) + 16
    track = width - label_w - value_w - 10
    group_h = bar_h * len(series) + 14
    key_h = 44 if len(series) > 1 else 10
    height = key_h + group_h * len(labels) + 6
    desc = desc or "; ".join(
        f"{lab}: " + ", ".join(f"{name} {number(vs[i], digits)}" for name, vs, _ in series)
        for i, lab in enumerate(labels)
    )
    d = Drawing(width, height, ident, title, desc + ".")
    x = label_w
    for s, (name, _, colour) in enumerate(series):  # the key
        kx = x + s * (track / max(1, len(series)))
        d.rect(kx, 8, 22, 18, fill=colour, stroke="none", radius=2)
        d.text(kx + 30, 8 + 18 * 0.5 + MIN_TEXT * 0.35, name, size=MIN_TEXT, anchor="start", fill=INK_SOFT)
    d.rect(x, key_h - 4, 0.01, group_h * len(labels), fill=GRID, stroke=GRID, width=1, radius=0)
    for i, lab in enumerate(labels):
        gy = key_h + i * group_h
        d.text(x - 12, gy + group_h / 2 + MIN_TEXT * 0.35 - 7, lab, size=MIN_TEXT, anchor="end")
        for s, (_, vs, colour) in enumerate(series):
            y = gy + s * bar_h
            w = max(0.0, vs[i]) / vmax * track
            d.rect(x, y + 2, track, bar_h - 4, fill=SURFACE, stroke="none", radius=2)
            d.rect(x, y + 2, max(w, 1.5), bar_h - 4, fill=colour, stroke="none", radius=2)
            d.text(x + w + 6, y + bar_h / 2 + MIN_TEXT * 0.35, number(vs[i], digits), size=MIN_TEXT, anchor="start")
    return d.render()


def column_rows(
    ident: str,
    title: str,
    labels: list[str],
    rows: list[tuple[str, list]],
    digits: int = 2,
    vmax: float | None = None,
    width: float = SLIDE - 40,
    row_h: float = 118,
    colour: str = ACCENT,
    colours: list[str] | None = None,
    mark: str = "✓",
    desc: str | None = None,
) -> str:
    """``rows`` = [(name, values)]: the name on a line of its own above the
    row's bars; a value that is not a number is printed as it is (``mark``
    gets a full-height grey column, anything else none). A label may be a
    tuple: one line each (say the word of each sentence at that position);
    ``colours`` gives each row its own colour."""
    numbers = [v for _, vs in rows for v in vs if isinstance(v, (int, float))]
    vmax = vmax or max(numbers, default=1.0) or 1.0
    n = len(labels)
    col_w = (width - 20) / n
    top = 10
    lines = [lab if isinstance(lab, tuple) else (lab,) for lab in labels]
    height = top + len(rows) * row_h + (MIN_TEXT + 6) * max(len(x) for x in lines) + 20
    desc = desc or "; ".join(
        f"{name}: "
        + ", ".join(
            f"{'/'.join(lab)} {number(v, digits) if isinstance(v, (int, float)) else v}" for lab, v in zip(lines, vs)
        )
        for name, vs in rows
    )
    d = Drawing(width, height, ident, title, desc + ".")
    for r, (name, vs) in enumerate(rows):
        y0 = top + r * row_h
        d.text(10, y0 + MIN_TEXT, name, size=MIN_TEXT, anchor="start", weight="600")
        base = y0 + row_h - 4
        bar_top = y0 + MIN_TEXT + 6
        d.rect(10, base, width - 20, 0.01, fill=GRIDLINE, stroke=GRID, width=1, radius=0)
        for c, v in enumerate(vs):
            cx = 10 + c * col_w
            if isinstance(v, (int, float)):
                h = max(0.0, v) / vmax * (base - bar_top - MIN_TEXT - 8)
                fill = colours[r] if colours else colour
                d.rect(cx + col_w * 0.2, base - h, col_w * 0.6, max(h, 1.5), fill=fill, stroke="none", radius=2)
                d.text(cx + col_w / 2, base - h - 6, number(v, digits), size=MIN_TEXT)
            else:
                if v == mark:
                    d.rect(cx + col_w * 0.2, bar_top, col_w * 0.6, base - bar_top, fill=SURFACE, stroke=GRID, radius=2)
                d.text(cx + col_w / 2, (bar_top + base) / 2 + MIN_TEXT * 0.35, str(v), size=MIN_TEXT, fill=MUTED)
    for c, lab in enumerate(lines):
        for k, line in enumerate(lab):
            y = top + len(rows) * row_h + MIN_TEXT + 8 + k * (MIN_TEXT + 6)
            d.text(10 + c * col_w + col_w / 2, y, line, size=MIN_TEXT, fill=INK_SOFT if k else INK)
    return d.render()
