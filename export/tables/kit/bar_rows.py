"""A distribution drawn as horizontal bars, one row per label, each bar as
long as its value with the value printed beside it (issue 20: probability
tables become bars where the shape is the point). Bars start at 0 and share
one scale, 0 to ``vmax`` (by default the largest value), marked beneath.
A highlighted row (the target, the choice) is drawn in the accent colour; a
blocked row (a token set to −∞ before the softmax) is grey, labelled
``blocked``.

    svg = bar_rows("maps-probs", "Probabilities of example 2", "...", tokens, p, highlight=[9])
"""

from __future__ import annotations

from common.palette import ACCENT, ACCENT_MID, BLOCKED, GRID, INK, MUTED, SURFACE

from .cells import number
from .draw import COLUMN, MIN_TEXT, Drawing, text_width


def bar_rows(
    ident: str,
    title: str,
    desc: str,
    labels,
    values,
    digits: int = 3,
    highlight=(),
    blocked=(),
    width: float = COLUMN,
    vmax: float | None = None,
    row_h: float = 36,
    axis: str | None = None,
) -> str:
    """The figure: labels right-aligned on the left, bars, values at the bars' ends."""
    vmax = vmax or max(values) or 1.0
    label_w = max(text_width(lab, MIN_TEXT, bold=True) for lab in labels) + 26
    value_w = max(text_width(number(v, digits), MIN_TEXT) for v in values) + 12
    track = width - label_w - value_w - 16
    top_y = 8.0
    height = top_y + row_h * len(labels) + 34
    d = Drawing(width, height, ident, title, desc)
    for i, (lab, v) in enumerate(zip(labels, values)):
        y = top_y + i * row_h
        mid = y + row_h / 2 + MIN_TEXT * 0.35
        chosen, off = i in highlight, i in blocked
        d.text(
            label_w - 10,
            mid,
            lab,
            size=MIN_TEXT,
            anchor="end",
            weight="600" if chosen else "normal",
            fill=MUTED if off else INK,
        )
        d.rect(label_w, y + 5, track, row_h - 10, fill=SURFACE, stroke="none", radius=3)
        if off:
            d.rect(label_w, y + 5, track, row_h - 10, fill=BLOCKED, stroke="none", radius=3)
            d.text(label_w + 10, mid, "blocked: −∞ before the softmax", size=MIN_TEXT, anchor="start", fill=INK)
        else:
            length = track * max(0.0, v) / vmax
            d.rect(
                label_w,
                y + 5,
                max(length, 1.5),
                row_h - 10,
                fill=ACCENT if chosen else ACCENT_MID,
                stroke="none",
                radius=3,
            )
        d.text(
            label_w + track + 8,
            mid,
            number(v, digits),
            size=MIN_TEXT,
            anchor="start",
            fill=INK,
            weight="600" if chosen else "normal",
        )
    base = top_y + row_h * len(labels) + 2
    d.rect(label_w, base, track, 0.5, fill=GRID, stroke=GRID, width=1, radius=0)
    d.text(label_w, base + MIN_TEXT + 4, "0", size=MIN_TEXT, anchor="middle", fill=MUTED)
    d.text(label_w + track, base + MIN_TEXT + 4, number(vmax, digits), size=MIN_TEXT, anchor="middle", fill=MUTED)
    if axis:
        d.text(label_w + track / 2, base + MIN_TEXT + 4, axis, size=MIN_TEXT, fill=MUTED)
    return d.render()
