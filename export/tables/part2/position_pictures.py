"""The position pictures of Part II (issue 20), from ``part2_positions``: the
sinusoidal encoding as a heatmap over slots and coordinates, and RoPE as a
rotation of the first coordinate pair of q and k (the same gap, the same
angle between them, the same score)."""

from __future__ import annotations

import math

from common.palette import GRID, MUTED, ROLES

from ..kit.cells import cells, legend, number
from ..kit.draw import MIN_TEXT, SLIDE, Drawing, element, text_width


def sinusoid_heatmap(positions: dict) -> str:
    g = positions["sinusoidal"]["grid"]
    rows = [list(col) for col in zip(*g["values"])]  # one row per coordinate, one column per slot
    coords, slots = g["coordinates"], g["slots"]
    x0 = max(text_width(c, MIN_TEXT) for c in coords) * 1.2 + 24
    cell_w = (SLIDE - 40 - x0 - 10) / len(slots)
    y0 = 64
    desc = "; ".join(f"{c}: " + ", ".join(f"{v:.2f}" for v in r) for c, r in zip(coords, rows))
    d = Drawing(
        SLIDE - 40,
        y0 + len(rows) * 32 + 74,
        "part2-sinusoid",
        f"The sinusoidal encoding for i = {slots[0]}–{slots[-1]} (the formula counts from 0): "
        "fast pairs on top, slow pairs below",
        f"Rows are the {len(coords)} coordinates, columns the slots; each cell is the coordinate's value. " + desc,
    )
    d.text(x0, 24, "slot i", size=MIN_TEXT, anchor="start", fill=MUTED)
    box = cells(
        d,
        x0,
        y0,
        rows,
        "part2-sinusoid",
        digits=2,
        cell_w=cell_w,
        cell_h=32,
        row_labels=coords,
        col_labels=[str(s) for s in slots],
    )
    legend(d, x0, box.y + box.h + 16, "part2-sinusoid", width=220, name="coordinate value")
    return d.render()


def rope_rotation(positions: dict) -> str:
    r = positions["rope"]
    panels = r["rotated_first_pair"]
    radius, gap = 110, 60
    pw = 2 * radius + gap
    width = len(panels) * pw + 40
    longest = max(math.hypot(*p[key]) for p in panels for key in ("q", "k"))
    scale = radius / longest
    desc = "; ".join(
        f"i {p['i']}, j {p['j']}: first pair of Rᵢq {[round(v, 2) for v in p['q']]}, of Rⱼk "
        f"{[round(v, 2) for v in p['k']]}, score {number(s, 3)}"
        for p, s in zip(panels, r["scores"])
    )
    d = Drawing(
        max(width, 900),
        2 * radius + 150,
        "part2-rope",
        "RoPE turns q by i and k by j: the same gap leaves the same angle between them",
        "The first coordinate pair of the query and the key after rotation; " + desc + ".",
    )
    left = (d.width - len(panels) * pw) / 2 + gap / 2
    for n, (p, s) in enumerate(zip(panels, r["scores"])):
        cx, cy = left + n * pw + radius, 40 + radius
        d.parts.append(element("circle", cx=f"{cx:.1f}", cy=f"{cy:.1f}", r=radius, fill="none", stroke=GRID))
        for key, role in (("q", "query"), ("k", "key")):
            x, y = p[key]
            end = (cx + x * scale, cy - y * scale)
            d.arrow((cx, cy), end, colour=ROLES[role], width=3)
            label = f"R{p['i']}q" if key == "q" else f"R{p['j']}k"
            d.text(
                end[0] + (14 if x >= 0 else -14),
                end[1] - 6,
                label,
                size=MIN_TEXT,
                fill=ROLES[role],
                anchor="start" if x >= 0 else "end",
                weight="600",
            )
        d.text(cx, cy + radius + 36, f"i = {p['i']}, j = {p['j']}", size=MIN_TEXT, weight="600")
        d.text(cx, cy + radius + 62, f"score {number(s, 3)}", size=MIN_TEXT, fill=MUTED)
    return d.render()
