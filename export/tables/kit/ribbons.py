"""Weighted arrows: one source's share of a mix drawn as a curved arrow whose
stroke is as thick as its weight (``WIDTH`` units for a weight of 1, never
under ``MIN_WIDTH`` so a small weight still shows where it comes from), with
an arrowhead that grows with the stroke. Each arrow's path carries its weight
(``data-weight``) and the arrowhead is a polygon of its own, so a test can
read the weight a width stands for. Drawn through a kit/draw.py ``Drawing``.

    d = Drawing(600, 200, "mix", "Where the blank reads", "...")
    weighted_arrow(d, (40, 150), (500, 150), 0.7, colour, lift=60)
"""

from __future__ import annotations

import math

from .draw import Drawing, _n, element

WIDTH = 16.0  # stroke units of a weight of 1
MIN_WIDTH = 1.0


def stroke(weight: float, scale: float = WIDTH, floor: float = MIN_WIDTH) -> float:
    """The stroke width of ``weight``: ``scale`` × weight, at least ``floor``."""
    return max(floor, scale * max(0.0, weight))


def weighted_arrow(
    d: Drawing,
    start: tuple[float, float],
    end: tuple[float, float],
    weight: float,
    colour: str,
    lift: float = 0.0,
    side: tuple[float, float] = (0.0, -1.0),
    scale: float = WIDTH,
    opacity: float = 0.85,
    dash: str | None = None,
) -> float:
    """A curved arrow from ``start`` to ``end``, bulging ``lift`` units towards
    ``side`` (a unit vector; up by default), as thick as ``weight`` (``stroke``).
    Returns the stroke width drawn."""
    (x1, y1), (x2, y2) = start, end
    w = stroke(weight, scale)
    cx, cy = (x1 + x2) / 2 + 2 * lift * side[0], (y1 + y2) / 2 + 2 * lift * side[1]
    dx, dy = x2 - cx, y2 - cy
    n = math.hypot(dx, dy) or 1.0
    ux, uy = dx / n, dy / n
    head, half = 7 + 0.9 * w, 3.5 + 0.7 * w
    bx, by = x2 - ux * head * 0.8, y2 - uy * head * 0.8  # the stroke stops inside the head
    d.parts.append(
        element(
            "path",
            d=f"M{_n(x1)},{_n(y1)} Q{_n(cx)},{_n(cy)} {_n(bx)},{_n(by)}",
            fill="none",
            stroke=colour,
            stroke_width=_n(w),
            stroke_opacity=f"{opacity:.2f}",
            stroke_dasharray=dash,
            data_weight=f"{weight:.4f}",
            cls="weighted",
        )
    )
    hx, hy = x2 - ux * head, y2 - uy * head
    points = [(x2, y2), (hx - uy * half, hy + ux * half), (hx + uy * half, hy - ux * half)]
    d.parts.append(
        element(
            "polygon",
            points=" ".join(f"{_n(x)},{_n(y)}" for x, y in points),
            fill=colour,
            fill_opacity=f"{opacity:.2f}",
        )
    )
    return w
