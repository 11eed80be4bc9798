"""Several small matrices side by side in one figure (issue 20): each panel is
a matrix of kit/cells.py cells with its caption above, all on one named
colour scale (kit/scales.py) and one legend beneath; a symbol (+, =, →)
may stand between two panels. Panels that do not fit the width wrap to a
new line.

    svg = panels(
        "maps-qkv", "q, K and V of example 2", "q = [...], K = [...], V = [...]",
        [Panel("q", [q], ["a"], ["1", "2", "3"]), Panel("K", K, tokens), Panel("V", V, tokens)],
        scale_name="part1-vectors",
    )
"""

from __future__ import annotations

from dataclasses import dataclass, field

from common.palette import ACCENT, INK_SOFT, MUTED, ROLES

from .cells import MEANINGS, cells, legend, number
from .draw import MIN_TEXT, PHONE, Drawing, arranged, document, text_width
from .scales import scale

# a little narrower than the slide's content box (1176 px), so a full-width
# figure is drawn at one px per unit and its text stays at 18 px
WIDE = 1100


def natural_size(d: Drawing) -> str:
    """The drawing's SVG, never shown larger than its viewBox (one unit, one
    px): a figure narrower than the slide stays at its size, centred, rather
    than growing to the slide's width; on a phone it keeps its readable scale."""
    width = f"{d.width:.1f}".rstrip("0").rstrip(".")
    height = f"{d.height:.1f}".rstrip("0").rstrip(".")
    body = "".join(d.parts)
    return document(d.ident, width, height, d.title, d.desc, body, style=f"max-width:{width}px")


@dataclass
class Panel:
    caption: str
    values: list  # a list of rows (a vector is one row)
    row_labels: list | None = None
    col_labels: list | None = None
    outline_rows: tuple = ()  # rows outlined in the accent colour
    after: str | None = None  # a symbol drawn between this panel and the next
    cells: dict = field(default_factory=dict)  # extra arguments of kit.cells.cells (fmt, blocked)
    role: str | None = None  # "query", "key", "value", "message": caption and frame in the role's colour


def _size(p: Panel, cell_w: float, cell_h: float) -> tuple[float, float, float]:
    """(label width, panel width, panel height) of a panel."""
    label_w = max((text_width(lab, MIN_TEXT) for lab in p.row_labels or []), default=-16) + 16
    cols = max(len(r) for r in p.values)
    body = cols * cell_w
    width = max(label_w + body, text_width(p.caption, MIN_TEXT, bold=True))
    return label_w, width, (34 if p.col_labels else 0) + 30 + cell_h * len(p.values)


def panels(
    ident: str,
    title: str,
    desc: str,
    items: list[Panel],
    scale_name: str,
    digits: int = 2,
    width: float = WIDE,
    name: str | None = None,
    cell_h: float = 38,
    gap: float = 56,
    note: str | None = None,
) -> str:
    """One figure of matrices side by side, centred on each line, on the named
    scale (kit/scales.py), with its legend. A figure wider than a phone is
    drawn a second time for one (kit/draw.py ``arranged``): the same panels
    wrapped to PHONE units, where each panel fits that width."""
    args = dict(scale_name=scale_name, digits=digits, name=name, cell_h=cell_h, gap=gap, note=note)
    wide = _panels(ident, title, desc, items, width=width, **args)
    if wide.width <= PHONE:
        return natural_size(wide)
    phone = _panels(f"{ident}-phone", title, desc, items, width=PHONE, **args)
    most = max(len(r) for p in items for r in p.values)
    for per in range(most - 1, 1, -1):
        if phone.fits:
            break
        # a matrix wider than a phone goes on under itself, as a line of text
        # wraps: its rows stay rows (a [2, 16] tensor keeps two rows)
        parts = [q for p in items for q in _wrapped(p, per)]
        phone = _panels(f"{ident}-phone", title, desc, parts, width=PHONE, **args)
    return arranged(natural_size(wide), natural_size(phone) if phone.fits else None)


def _wrapped(p: Panel, per: int) -> list[Panel]:
    """``p`` cut into panels of at most ``per`` columns, each with its row and
    column labels; the caption (and the symbol after it) on the first (last)."""
    cols = max(len(r) for r in p.values)
    if cols <= per:
        return [p]
    starts = list(range(0, cols, per))
    return [
        Panel(
            p.caption if k == 0 else "",
            [r[a : a + per] for r in p.values],
            p.row_labels,
            p.col_labels[a : a + per] if p.col_labels else None,
            outline_rows=p.outline_rows,
            after=p.after if k == len(starts) - 1 else None,
            cells=p.cells,
            role=p.role,
        )
        for k, a in enumerate(starts)
    ]


def _panels(ident, title, desc, items, scale_name, digits, width, name, cell_h, gap, note) -> Drawing:
    """``panels``'s drawing at ``width`` (``fits``: every panel, the legend and the note within it)."""
    everything = [v for p in items for row in p.values for v in row if isinstance(v, (int, float))]
    texts = [number(v, digits) for v in everything] + ["−∞"]
    cell_w = max(48.0, max(text_width(t, MIN_TEXT) for t in texts) + 16)
    if width <= PHONE:  # a phone's arrangement: column labels (a transposed panel's) never overlap
        cell_w = max([cell_w] + [text_width(c, MIN_TEXT) + 12 for p in items for c in p.col_labels or []])
    sizes = [_size(p, cell_w, cell_h) for p in items]
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
        for k in ln:
            p, (label_w, w, _) = items[k], sizes[k]
            first_x = x if first_x is None else min(first_x, x)
            ink = ROLES[p.role] if p.role else INK_SOFT
            if p.caption:  # a wrapped panel's later blocks have none
                d.text(x + label_w, y + 20, p.caption, size=MIN_TEXT, anchor="start", weight="600", fill=ink)
            top_y = y + 30 + (34 if p.col_labels else 0)
            box = cells(
                d,
                x + label_w,
                top_y,
                [list(r) for r in p.values],
                scale_name,
                digits=digits,
                cell_w=cell_w,
                cell_h=cell_h,
                row_labels=p.row_labels,
                col_labels=p.col_labels,
                **p.cells,
            )
            if p.role:  # a query, key, value or message framed in its colour (common/palette.py ROLES)
                d.rect(box.x - 3, box.y - 3, box.w + 6, box.h + 6, fill="none", stroke=ROLES[p.role], width=3, radius=3)
            for r in p.outline_rows:
                d.rect(box.x - 2, box.y + r * cell_h - 2, box.w + 4, cell_h + 4, fill="none", stroke=ACCENT, width=3.5)
            if p.after and k != ln[-1]:
                d.text(x + w + gap / 2, top_y + box.h / 2 + 9, p.after, size=28, weight="600", fill=MUTED)
            x += w + gap
        y += h + 24
    y -= 24
    key_x = max(first_x, 20.0) if width > PHONE else 20.0
    named = text_width(name or MEANINGS[scale(scale_name).meaning].name, MIN_TEXT) * 1.2
    key_w = 240.0 if width > PHONE else max(150.0, min(240.0, width - key_x - 14 - named - 6))
    legend(d, key_x, y + 18, scale_name, width=key_w, name=name)
    if note:
        d.text(width / 2, y + 92, note, size=MIN_TEXT, fill=MUTED)
    d.fits = widest + 20 <= width and key_x + key_w + 14 + named <= width and text_width(note or "", MIN_TEXT) <= width
    return d
