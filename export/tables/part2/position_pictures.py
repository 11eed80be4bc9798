"""The position pictures of Part II (issue 20), from ``part2_positions``: the
sinusoidal encoding as a heatmap over slots and coordinates, and RoPE as a
rotation of the first coordinate pair of q and k (the same gap, the same
angle between them, the same score)."""

from __future__ import annotations

import math

from common.palette import GRID, MUTED, ROLES

from ..kit.cells import cells, legend, number
from ..kit.draw import MIN_TEXT, PHONE, SLIDE, Drawing, arranged, element, text_width


def sinusoid_heatmap(positions: dict) -> str:
    """Coordinates by slots at a slide's width; on a phone turned on its side
    (one row per slot, one column per coordinate), the same cells and scale."""
    g = positions["sinusoidal"]["grid"]
    rows = [list(col) for col in zip(*g["values"])]  # one row per coordinate, one column per slot
    coords, slots = g["coordinates"], g["slots"]
    desc = "; ".join(f"{c}: " + ", ".join(f"{v:.2f}" for v in r) for c, r in zip(coords, rows))
    heading = (
        f"The sinusoidal encoding for i = {slots[0]}–{slots[-1]} (the formula counts from 0): "
        "the fast pairs change from slot to slot, the slow pairs barely move"
    )
    about = f"Rows are the {len(coords)} coordinates, columns the slots; each cell is the coordinate's value. "
    x0 = max(text_width(c, MIN_TEXT) for c in coords) * 1.2 + 24
    cell_w = (SLIDE - 40 - x0 - 10) / len(slots)
    y0 = 64
    d = Drawing(SLIDE - 40, y0 + len(rows) * 32 + 74, "part2-sinusoid", heading, about + desc)
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
    # the phone: slots down the side, each coordinate's name standing up over its column
    px0, ph = 40, 30
    py0 = 16 + max(text_width(c, MIN_TEXT) for c in coords) + 12
    p_cell = (PHONE - px0 - 8) / len(coords)
    phone = Drawing(PHONE, py0 + len(slots) * ph + 74, "part2-sinusoid-phone", heading, about + desc)
    for n, (c, fill) in enumerate([("slot i", MUTED)] + [(c, None) for c in coords]):
        cx, cy = (px0 - 14 if n == 0 else px0 + (n - 0.5) * p_cell + 6), py0 - 10
        extra = {"fill": fill} if fill else {}
        phone.text(cx, cy, c, size=MIN_TEXT, anchor="start", transform=f"rotate(-90 {cx:.1f} {cy:.1f})", **extra)
    pbox = cells(
        phone,
        px0,
        py0,
        [list(r) for r in zip(*rows)],
        "part2-sinusoid",
        digits=2,
        cell_w=p_cell,
        cell_h=ph,
        row_labels=[str(s) for s in slots],
    )
    legend(phone, px0, pbox.y + pbox.h + 16, "part2-sinusoid", width=220, name="coordinate value")
    return arranged(d.render(), phone)


def rope_rotation(positions: dict) -> str:
    """The first pair of Rᵢq and Rⱼk on a circle per (i, j): side by side at a
    slide's width; on a phone one per row, its i, j and score beside it."""
    r = positions["rope"]
    panels = r["rotated_first_pair"]
    desc = "; ".join(
        f"i {p['i']}, j {p['j']}: first pair of Rᵢq {[round(v, 2) for v in p['q']]}, of Rⱼk "
        f"{[round(v, 2) for v in p['k']]}, score {number(s, 3)}"
        for p, s in zip(panels, r["scores"])
    )
    heading = "RoPE turns q by i and k by j: the same gap leaves the same angle between them"
    about = "The first coordinate pair of the query and the key after rotation; " + desc + "."
    longest = max(math.hypot(*p[key]) for p in panels for key in ("q", "k"))

    def circle(d: Drawing, cx: float, cy: float, radius: float, p: dict) -> None:
        scale = radius / longest
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

    radius, gap = 110, 60
    pw = 2 * radius + gap
    d = Drawing(max(len(panels) * pw + 40, 900), 2 * radius + 150, "part2-rope", heading, about)
    left = (d.width - len(panels) * pw) / 2 + gap / 2
    for n, (p, s) in enumerate(zip(panels, r["scores"])):
        cx, cy = left + n * pw + radius, 40 + radius
        circle(d, cx, cy, radius, p)
        d.text(cx, cy + radius + 36, f"i = {p['i']}, j = {p['j']}", size=MIN_TEXT, weight="600")
        d.text(cx, cy + radius + 62, f"score {number(s, 3)}", size=MIN_TEXT, fill=MUTED)
    # the phone: one circle a row, its i, j and score to its right
    pr, row = 80, 2 * 80 + 56
    phone = Drawing(PHONE, len(panels) * row + 10, "part2-rope-phone", heading, about)
    for n, (p, s) in enumerate(zip(panels, r["scores"])):
        cx, cy = 60 + pr, 38 + pr + n * row
        circle(phone, cx, cy, pr, p)
        phone.text(PHONE - 12, cy - 4, f"i = {p['i']}, j = {p['j']}", size=MIN_TEXT, weight="600", anchor="end")
        phone.text(PHONE - 12, cy + 22, f"score {number(s, 3)}", size=MIN_TEXT, fill=MUTED, anchor="end")
    return arranged(d.render(), phone)
