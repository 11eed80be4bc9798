"""Horizontal bars with their values printed at their ends (issue 20): one
panel per series, side by side, sharing the labels on the left and one
scale, so the shapes compare at a glance (next-token probabilities at three
temperatures, before and after top-k and top-p) while the numbers stay
exact. Colours come from common/palette.py; the markup is kit/draw.py's.

    svg = bar_panels(
        "p3-temperature", "Temperature reshapes the distribution", "a: 0.87 at T = 0.5, ...",
        ["a", "max", "the"], [("T = 0.5", [0.87, 0.06, 0.03]), ("T = 1", [0.46, 0.12, 0.08])],
    )
"""

from __future__ import annotations

from common.palette import ACCENT_MID, GRID, INK, WEIGHT_SCALE, scale_colour

from .cells import number
from .draw import MIN_TEXT, SLIDE, Drawing, text_width

PROBABILITY = ACCENT_MID  # the probability bars' colour (as the site's HTML bars)


def shade(t: float) -> str:
    """A colour of the probability scale (0 light to 1 dark)."""
    return scale_colour(t, WEIGHT_SCALE)


def bar_panels(
    ident: str,
    title: str,
    desc: str,
    labels: list[str],
    panels: list[tuple[str, list[float]]],
    digits: int = 3,
    width: float = SLIDE,
    vmax: float | None = None,
    fmt=None,
    colours: list[str] | None = None,
    bold: int | None = None,
    bar_h: float = 36,
    gap: float = 40,
) -> str:
    """``panels`` = [(caption, values)], one value per label; bars start at
    0 and share one scale up to ``vmax`` (by default the largest value).
    ``colours`` gives each label's bar its colour (else the probability
    colour); the label ``bold`` (an index) is set in bold."""
    fmt = fmt or (lambda v: number(v, digits))
    colours = colours or [PROBABILITY] * len(labels)
    vmax = vmax or max(max(v) for _, v in panels) or 1.0
    label_w = max(text_width(lab, MIN_TEXT, bold=True) for lab in labels) * 1.15 + 18
    value_w = max(text_width(fmt(v), MIN_TEXT) for _, vs in panels for v in vs) * 1.2 + 12
    n = len(panels)
    panel_w = (width - label_w - 10 - (n - 1) * gap) / n
    plot_w = panel_w - value_w
    caption_h = 34 if any(cap for cap, _ in panels) else 6
    height = caption_h + len(labels) * bar_h + 8
    d = Drawing(round(width), round(height), ident, title, desc)
    for g, label in enumerate(labels):
        y = caption_h + g * bar_h
        d.text(
            label_w - 10,
            y + bar_h / 2 + MIN_TEXT * 0.35,
            label,
            size=MIN_TEXT,
            anchor="end",
            weight="700" if bold == g else "normal",
        )
    for p, (caption, values) in enumerate(panels):
        x0 = label_w + p * (panel_w + gap)
        if caption:
            d.text(x0 + plot_w / 2, 24, caption, size=MIN_TEXT, weight="600")
        d.rect(x0 - 1, caption_h, 1.5, len(labels) * bar_h, fill=GRID, stroke="none", radius=0)
        for g, v in enumerate(values):
            y = caption_h + g * bar_h
            w = plot_w * max(0.0, v) / vmax
            if v > 0:  # a tiny value still shows a sliver; 0 draws no bar
                d.rect(x0, y + 4, max(w, 1.0), bar_h - 8, fill=colours[g], stroke=GRID, width=1, radius=2)
            d.text(x0 + w + 6, y + bar_h / 2 + MIN_TEXT * 0.35, fmt(v), size=MIN_TEXT, anchor="start", fill=INK)
    return d.render()
