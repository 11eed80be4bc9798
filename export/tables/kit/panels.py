"""Small matrices as heatmaps: one panel of coloured cells with their values
per matrix, side by side, under one legend (issue 20). Two heads' weight
matrices, W_Q beside W_K, validation losses by run and step. The cells and
their colour scales (named, one per run of figures) are kit/scales.py's; the markup is
kit/draw.py's.

    svg = heatmaps(
        "p3-weights", "Every query token's weights", "Head 1: ...",
        [("head 1", A1), ("head 2", A2)], row_labels=words, col_labels=slots, scale_name="weight",
    )
"""

from __future__ import annotations

from .cells import MEANINGS, cells, legend, number
from .draw import MIN_TEXT, PHONE, Drawing, arranged, stack, text_width
from .scales import scale

COS40, SIN40 = 0.766, 0.643  # a rotated column label's run across and up
WIDE = 1.4  # text_width's estimate times this: room for the widest labels as drawn


def heatmaps(
    ident: str,
    title: str,
    desc: str,
    panels: list[tuple[str, list]],
    row_labels: list[str],
    col_labels: list[str],
    scale_name: str = "weight",
    digits: int = 2,
    rotate_cols: bool = False,
    cell_h: float = 34,
    cell_w: float | None = None,
    gap: float = 56,
    legend_name: str | None = None,
) -> str:
    """``panels`` = [(caption, matrix)], each matrix a list of rows (a None
    cell is blocked); every panel has the same rows and columns. Row labels
    stand left of the first panel, column labels above each panel, one
    legend of the shared (named) scale beneath. Several panels wider than a
    phone are drawn a second time for one (kit/draw.py ``arranged``): one
    panel per row, each with its row labels, the legend under the last."""
    args = dict(
        row_labels=row_labels,
        col_labels=col_labels,
        scale_name=scale_name,
        digits=digits,
        rotate_cols=rotate_cols,
        cell_h=cell_h,
        cell_w=cell_w,
        gap=gap,
        legend_name=legend_name,
    )
    wide = _heatmaps(ident, title, desc, panels, **args)
    if wide.width <= PHONE:
        return wide.render()

    def one_per_row(parts, **how) -> Drawing:
        rows = [
            _heatmaps(f"{ident}-phone-{k}", title, desc, [p], keyed=k == len(parts) - 1, narrow=True, **how)
            for k, p in enumerate(parts)
        ]
        return stack(f"{ident}-phone", title, desc, rows, gap=8)

    phone = one_per_row(panels, **args)
    if phone.width > PHONE and len(row_labels) < len(col_labels):
        # a wide, short matrix (a weight row per head) stands on its side: heads across, tokens down
        upright = [(cap, [list(c) for c in zip(*m)]) for cap, m in panels]
        flipped = dict(args, row_labels=col_labels, col_labels=row_labels, rotate_cols=True, cell_w=None)
        phone = one_per_row(upright, **flipped)
    if len(panels) < 2 and phone.width > PHONE:
        return wide.render()
    return arranged(wide.render(), phone)


def _heatmaps(
    ident,
    title,
    desc,
    panels,
    row_labels,
    col_labels,
    scale_name,
    digits,
    rotate_cols,
    cell_h,
    cell_w,
    gap,
    legend_name,
    keyed=True,
    narrow=False,
) -> Drawing:
    """``heatmaps``'s drawing of ``panels`` (``keyed``: with the legend)."""
    mats = [m for _, m in panels]
    meaning = scale(scale_name).meaning
    n_rows, n_cols = len(mats[0]), len(mats[0][0])
    widest = max(text_width(number(v, digits), MIN_TEXT) for m in mats for row in m for v in row if v is not None)
    room = 1.25 if narrow else WIDE  # a phone's arrangement: the estimate with less to spare
    col_w = max(text_width(c, MIN_TEXT) for c in col_labels) * room
    cell_w = cell_w or max(44.0, widest * 1.2 + 14, 0 if rotate_cols else col_w + 12)
    label_w = max(text_width(lab, MIN_TEXT) for lab in row_labels) * room + 18
    caption_h = 30 if any(cap for cap, _ in panels) else 0
    cols_h = col_w * SIN40 + 22 if rotate_cols else 30
    right = col_w * COS40 if rotate_cols else 10
    panel_w = cell_w * n_cols
    top_y = caption_h + cols_h
    key_w = max(200.0, min(240.0, panel_w))
    name_w = text_width(legend_name or MEANINGS[meaning].name, MIN_TEXT) * room + 14
    if narrow:  # a phone's: the legend as wide as the width left beside its name
        key_w = max(110.0, min(key_w, PHONE - 20 - label_w - name_w))
    width = max(label_w + len(panels) * panel_w + (len(panels) - 1) * gap + right, label_w + key_w + name_w) + 10
    height = top_y + cell_h * n_rows + (18 + 14 + MIN_TEXT + 14 if keyed else 4)
    if not keyed:  # a panel of a stack: only as wide as its cells need
        width = label_w + len(panels) * panel_w + (len(panels) - 1) * gap + right + 10
    d = Drawing(round(width), round(height), ident, title, desc)
    for i, (caption, m) in enumerate(panels):
        x = label_w + i * (panel_w + gap)
        if caption:
            d.text(x + panel_w / 2, 22, caption, size=MIN_TEXT, weight="600")
        cells(
            d,
            x,
            top_y,
            m,
            scale_name,
            digits=digits,
            cell_w=cell_w,
            cell_h=cell_h,
            row_labels=row_labels if i == 0 else None,
            col_labels=col_labels,
            rotate_cols=rotate_cols,
        )
    if keyed:
        legend(d, label_w, top_y + cell_h * n_rows + 18, scale_name, width=key_w, name=legend_name)
    return d
