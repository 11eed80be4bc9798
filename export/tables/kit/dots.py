"""Dot plots drawn from the tables (issue 35 item 2): where each run lands on
one shared axis is the point, so each run is a dot at its value, not a bar.

- ``lanes``: the line each of a row's labelled items goes on so that no two
  overlap (a label is never drawn over another label or dot): items that
  would collide stack one above the other, each keeping its own x;
- ``dot_rows``: one row per group (a model), one dot per item (a seed) at its
  value on a 0 to ``vmax`` axis with round ticks, each dot labelled, the
  axis's top (a ceiling) marked at its right end. Drawn at a slide's width
  with the row names on the left, or at PHONE units with each row's name
  above it (``phone``); the caller pairs the two with kit/draw.py
  ``arranged``.

Colours come from common/palette.py; the markup is kit/draw.py's.
"""

from __future__ import annotations

from common.palette import GRID, GRIDLINE, INK, INK_SOFT, LINE, MUTED, SURFACE

from .charts import nice_ticks, tick_text
from .draw import FONT, MIN_TEXT, PHONE, Drawing, element, group, text_width

DOT_R = 9  # a dot's radius
LANE = 26  # from one line of a row to the next: a dot and its label at MIN_TEXT
LABEL_GAP = 6  # between a dot and its label
LANE_GAP = 16  # the least room between two items on one lane (a label and the next dot)


def lanes(spans: list[tuple[float, float]], gap: float = 8, taken: list[list[tuple[float, float]]] = ()) -> list[int]:
    """The lane (0, 1, ...) of each (left, right) span, in the order given:
    the first lane where it stays ``gap`` clear of every span already placed
    there; ``taken[k]``: spans that hold lane k from the start (an axis's end
    labels)."""
    placed: list[list[tuple[float, float]]] = [list(t) for t in taken] or [[]]
    out = []
    for lo, hi in spans:
        k = 0
        while k < len(placed) and any(lo < b + gap and a < hi + gap for a, b in placed[k]):
            k += 1
        if k == len(placed):
            placed.append([])
        placed[k].append((lo, hi))
        out.append(k)
    return out


def labelled_dot(x: float, label: str, right_edge: float, size: float = MIN_TEXT) -> tuple[str, float, float]:
    """Where a dot at ``x`` puts its label: "start" (to its right) unless that
    would pass ``right_edge`` (the axis's end), then "end" (to its left); returns the anchor
    and the (left, right) span of the dot with its label."""
    w = text_width(label, size)
    if x + DOT_R + LABEL_GAP + w <= right_edge:
        return "start", x - DOT_R, x + DOT_R + LABEL_GAP + w
    return "end", x - DOT_R - LABEL_GAP - w, x + DOT_R


def dot_rows(
    ident: str,
    title: str,
    desc: str,
    rows: list[tuple[str, str, list[tuple[str, float]]]],
    vmax: float,
    axis_label: str,
    ceiling_label: str,
    phone: bool = False,
    width: float = 1000,
) -> Drawing:
    """``rows`` = [(name, colour, [(item label, value)])]: each row's dots in
    its colour at their values on a 0 to ``vmax`` axis; items whose dots or
    labels would collide stack on lanes (``lanes``). ``phone``: PHONE units
    wide, each row's name above its dots."""
    width = PHONE if phone else width
    # (the names set from the left edge, with a quarter of their width to spare: a face may set them wider)
    names_w = 0 if phone else max(text_width(name, MIN_TEXT, bold=True) for name, _, _ in rows) * 1.25 + 24
    ticks = nice_ticks(0, vmax, 3 if phone else 6)
    edge = text_width(tick_text(ticks[-1]), MIN_TEXT) / 2 + 12  # room for the last tick's label
    x0, x1 = names_w + (edge if phone else 12), width - edge
    top_v = ticks[-1]

    def px(v: float) -> float:
        return x0 + v / top_v * (x1 - x0)

    head = 2 * LANE  # the ceiling's label above the first row
    placed = []  # per row: (name, colour, [(x, anchor, lane, label, value)], row top, row height)
    y = head
    for name, colour, items in rows:
        name_h = LANE if phone else 0
        spots = [(px(v), *labelled_dot(px(v), lab, px(vmax)), lab, v) for lab, v in items]
        lane_of = lanes([(lo, hi) for _, _, lo, hi, _, _ in spots], gap=LANE_GAP)
        n_lanes = max(lane_of, default=0) + 1
        height = name_h + n_lanes * LANE + 10
        placed.append((name, colour, [(x, a, k, lab, v) for (x, a, _, _, lab, v), k in zip(spots, lane_of)], y, height))
        y += height + 8
    base = y
    d = Drawing(width, base + 60, ident, title, desc)

    # the axis: gridlines at the round ticks, the baseline, tick labels, its name
    for t in ticks:
        d.polyline([(px(t), head - 6), (px(t), base)], width=1, colour=GRIDLINE, arrow=False)
    d.rect(x0, base, x1 - x0, 1.5, fill=GRID, stroke="none", radius=0)
    d.parts.append(
        group(
            [element("text", tick_text(t), x=f"{px(t):.1f}", y=f"{base + 24:.1f}", data_value=t) for t in ticks],
            cls="ticks",
            font_size=MIN_TEXT,
            fill=INK_SOFT,
            text_anchor="middle",
            font_family=FONT,
        )
    )
    d.text((x0 + x1) / 2, base + 52, axis_label, size=MIN_TEXT, fill=MUTED)
    # the ceiling: the axis's top, marked at its right end
    d.polyline([(px(vmax), head - 10), (px(vmax), base)], width=2, colour=LINE, dash="6 4", arrow=False)
    d.text(px(vmax) + 4, head - 18, ceiling_label, size=MIN_TEXT, anchor="end", fill=MUTED)

    for name, colour, spots, top, height in placed:
        name_h = LANE if phone else 0
        d.rect(x0, top + name_h, x1 - x0, height - name_h, fill=SURFACE, stroke="none", radius=3)
        if phone:
            d.text(x0, top + MIN_TEXT, name, size=MIN_TEXT, anchor="start", weight="600", fill=INK)
        else:
            n_lanes = max(k for _, _, k, _, _ in spots) + 1 if spots else 1
            mid = top + 5 + n_lanes * LANE / 2
            d.text(12, mid + MIN_TEXT * 0.35, name, size=MIN_TEXT, anchor="start", weight="600", fill=INK)
        for x, anchor, k, lab, v in spots:
            cy = top + name_h + 5 + k * LANE + LANE / 2
            d.parts.append(
                element("circle", cx=f"{x:.1f}", cy=f"{cy:.1f}", r=DOT_R, fill=colour, data_value=v, cls="dot")
            )
            tx = x + DOT_R + LABEL_GAP if anchor == "start" else x - DOT_R - LABEL_GAP
            d.text(tx, cy + MIN_TEXT * 0.35, lab, size=MIN_TEXT, anchor=anchor, fill=INK)
    return d
