"""A table of the tables (``{"header": [...], "rows": [[...]]}``) drawn as
coloured cells with their values (issue 20): the rows' label columns on the
left, each group of numeric columns on a named colour scale (kit/scales.py:
``"weight"`` 0 to 1, a run's signed scale about 0), a legend per scale.

The slide shows the cells; the deck keeps the table itself in the speaker
notes, so the reading view and print still carry every number.

    svg = table_figure(
        "p2-pooled", "Pooling at bank", pooled["table"],
        groups=[Group([2, 3], "weight", "weights"), Group([4, 5, 6, 7], "part2-vectors", "rows")],
        labels=[1],
    )

``transpose=True`` draws each table row as a column (a token per column, as
in a sentence) and each numeric column as a row of cells.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.palette import ROLES

from .cells import MEANINGS, cells, legend, number
from .draw import MIN_TEXT, PHONE, SLIDE, Box, Drawing, arranged, text_width
from .scales import scale


@dataclass(frozen=True)
class Group:
    columns: list[int]  # indices into the table's header
    scale: str  # the named colour scale of its cells (kit/scales.py)
    title: str | None = None  # drawn above the group's cells
    digits: int = 2
    blocked: str = "×"  # printed in a cell that holds no number
    role: str | None = None  # "query", "key", "value", "message": its title and frame in the role's colour


def _label(row, labels) -> str:
    return " ".join(str(row[i]) for i in labels)


def describe(table: dict, groups, labels, digits: int = 2) -> str:
    """Every number of the figure, row by row, for the SVG's <desc>."""
    head = table["header"]
    parts = []
    for row in table["rows"]:
        values = [
            f"{head[c]} {number(row[c], g.digits)}" if isinstance(row[c], (int, float)) else f"{head[c]} {row[c]}"
            for g in groups
            for c in g.columns
        ]
        parts.append(f"{_label(row, labels)}: " + ", ".join(values))
    return "; ".join(parts) + "."


def _values(table, group, transpose):
    """The group's cells as rows of numbers (a non-number is a blocked cell)."""
    rows = [[r[c] if isinstance(r[c], (int, float)) else None for c in group.columns] for r in table["rows"]]
    return [list(col) for col in zip(*rows)] if transpose else rows


def scales(groups: list[Group]) -> list[str]:
    """The named scales of the groups, each once, in order: one legend each."""
    return list(dict.fromkeys(g.scale for g in groups))


def table_block(
    d: Drawing,
    x: float,
    y: float,
    table: dict,
    groups: list[Group],
    labels: list[int],
    transpose: bool = False,
    col_names=None,
    cell_h: float = 36,
    gap: float = 36,
    scale_names=None,
    stacked: bool = False,
) -> Box:
    """The groups side by side (stacked when ``transpose``), starting at
    (x, y) = the top left of the first cells; labels stand left of ``x``;
    one legend per named scale beneath. ``col_names`` replaces the header's names
    of the numeric columns; ``scale_names`` (scale name -> text) names the legends.
    ``stacked`` (a phone's arrangement): each group under the one before, with
    its own row labels, and the legends one under the other."""
    head = table["header"]
    names = dict(col_names or {})
    row_names = [_label(r, labels) for r in table["rows"]]
    names_used = scales(groups)
    right, bottom = x, y
    cx, cy = x, y
    for n, g in enumerate(groups):
        values = _values(table, g, transpose)
        cols = [names.get(c, str(head[c])) for c in g.columns]
        title_w = 0.0
        if g.title and not transpose:  # a transposed group is named by its row labels
            extra = {"fill": ROLES[g.role]} if g.role else {}
            tx = 14.0 if stacked else cx  # a phone's: from the left edge, over the row labels too
            d.text(tx, cy - 54, g.title, size=MIN_TEXT, anchor="start", weight="600", **extra)
            title_w = text_width(g.title, MIN_TEXT, bold=True) + tx - cx
        if transpose:
            box = cells(
                d,
                cx,
                cy,
                values,
                g.scale,
                digits=g.digits,
                row_labels=cols,
                col_labels=row_names if n == 0 else None,
                rotate_cols=True,
                blocked=g.blocked,
            )
        else:
            texts = [number(v, g.digits) for row in values for v in row if v is not None]
            cw = max(
                [44.0] + [text_width(t, MIN_TEXT) + 14 for t in texts] + [text_width(c, MIN_TEXT) + 10 for c in cols]
            )
            box = cells(
                d,
                cx,
                cy,
                values,
                g.scale,
                digits=g.digits,
                col_labels=cols,
                cell_w=cw,
                cell_h=cell_h,
                blocked=g.blocked,
            )
            if n == 0 or stacked:
                for r, name in enumerate(row_names):
                    d.text(x - 10, cy + r * cell_h + cell_h / 2 + MIN_TEXT * 0.35, name, size=MIN_TEXT, anchor="end")
        if g.role:  # the cells of a query, key, value or message framed in its colour (common/palette.py ROLES)
            d.rect(box.x - 3, box.y - 3, box.w + 6, box.h + 6, fill="none", stroke=ROLES[g.role], width=3, radius=3)
        right, bottom = max(right, box.x + box.w, cx + title_w), max(bottom, box.y + box.h)
        if transpose:
            cy = box.y + box.h + 44
        elif stacked:  # room for the next group's column labels, and its title
            after = groups[n + 1] if n + 1 < len(groups) else None
            cy = box.y + box.h + 16 + (80 if after and after.title else 36)
        else:
            cx = max(box.x + box.w, cx + title_w) + gap
    lx, ly = x, bottom + 18
    key_w = 150 if stacked else 200
    for scale_name in names_used:
        name = (scale_names or {}).get(scale_name)
        if stacked:  # a phone's legends start at the left edge, under the row labels
            lx = 14.0
        box = legend(d, lx, ly, scale_name, width=key_w, name=name)
        label = name or MEANINGS[scale(scale_name).meaning].name
        right = max(right, lx + key_w + 14 + text_width(label, MIN_TEXT))
        if stacked:
            ly += box.h + 18
        else:
            lx += 200 + 14 + text_width(label, MIN_TEXT) + 40
    if stacked:
        return Box(x, y, right - x, ly - 18 - y)
    return Box(x, y, max(right, lx) - x, bottom + 18 + box.h - y)


def table_figure(
    ident: str,
    title: str,
    table: dict,
    groups: list[Group],
    labels: list[int],
    transpose: bool = False,
    col_names=None,
    desc: str | None = None,
    width: float | None = None,
    scale_names=None,
    cell_h: float = 36,
) -> str:
    """A whole figure of ``table_block``, sized to its cells (at most SLIDE
    units wide) and centred in ``width`` when given. Several groups wider
    than a phone are drawn a second time for one (kit/draw.py ``arranged``):
    the groups one under the other, where that fits PHONE units."""
    args = dict(transpose=transpose, col_names=col_names, desc=desc, scale_names=scale_names, cell_h=cell_h)
    wide = _table_figure(ident, title, table, groups, labels, width=width, **args)
    if wide.width <= PHONE or transpose:
        return wide.render()
    # a group with more columns than a phone's width holds goes on in a block under it
    most = max(len(g.columns) for g in groups)
    for per in range(most, 0, -1):
        parts = [
            Group(g.columns[k : k + per], g.scale, g.title if k == 0 else None, g.digits, g.blocked, g.role)
            for g in groups
            for k in range(0, len(g.columns), per)
        ]
        phone = _table_figure(f"{ident}-phone", title, table, parts, labels, stacked=True, **args)
        if phone.width <= PHONE:
            break
        if per == 2 or per == 1:  # one column a block reads as a list, not a table: no phone arrangement
            return wide.render()
    return arranged(wide.render(), phone)


def _table_figure(
    ident, title, table, groups, labels, transpose, col_names, desc, scale_names, cell_h, width=None, stacked=False
) -> Drawing:
    """``table_figure``'s drawing (``stacked``: the groups one under the other)."""
    names = [_label(r, labels) for r in table["rows"]]
    head = table["header"]
    label_w = max(text_width(n, MIN_TEXT) for n in names) * (1.1 if stacked else 1.2) + 24
    top_y = 54 + (30 if any(g.title for g in groups) else 0)
    if transpose:
        label_w = max(
            text_width(str(dict(col_names or {}).get(c, head[c])), MIN_TEXT) for g in groups for c in g.columns
        )
        label_w = label_w * 1.2 + 24
        top_y = 30 + max(text_width(n, MIN_TEXT) for n in names) * 0.7

    def block(drawing: Drawing, x: float):
        return table_block(
            drawing,
            x,
            top_y,
            table,
            groups,
            labels,
            transpose,
            col_names,
            cell_h,
            scale_names=scale_names,
            stacked=stacked,
        )

    # a dry run on a scratch drawing measures the block
    box = block(Drawing(SLIDE, 10, ident, title, "-"), label_w)
    margin = 8 if stacked else 110
    w = max(width or 0, box.x + box.w + margin)
    shift = max(0.0, (w - (box.x + box.w + margin)) / 2)
    h = box.y + box.h + 12
    d = Drawing(w, h, ident, title, desc or describe(table, groups, labels))
    block(d, label_w + shift)
    return d
