"""Bars drawn from the tables (issue 20), where the shape of a distribution
is the point: probabilities of candidate tokens, counts per split or model,
mixing weights over a sentence. The one place the kit draws bars:

- ``bars``: horizontal bars, one row per label, each bar as long as its
  value with the value printed at its end, on one scale per figure (0 to
  ``vmax``, by default the largest value drawn). Several series are drawn
  either side by side, one panel each under its caption, sharing the labels
  on the left (the default: shapes compare at a glance), or ``grouped``:
  one bar per series in each label's group, a key of the series above.
  Options: a colour per series or per label (``colours``), rows
  ``highlight``-ed (the target, the choice: bold, the accent colour),
  rows ``blocked`` (a token set to −∞ before the softmax: grey), and an
  ``axis`` beneath (0 and the scale's top, optionally named);
- ``column_rows``: small multiples: one row of vertical bars per rule over
  the same labels (a sentence's words), the value above each bar; a value
  that is not a number is drawn as a mark (a slot that is read, or not).

Colours come from common/palette.py (probability bars in ACCENT_MID, as the
site's HTML bars); the markup is kit/draw.py's.

    svg = bars("p3-temperature", "Temperature reshapes the distribution", "a: 0.87 at T = 0.5, ...",
               ["a", "max", "the"], [("T = 0.5", [0.87, 0.06, 0.03]), ("T = 1", [0.46, 0.12, 0.08])])
"""

from __future__ import annotations

from common.palette import (
    ACCENT,
    ACCENT_MID,
    BLOCKED,
    GRID,
    GRIDLINE,
    INK,
    INK_SOFT,
    MUTED,
    SURFACE,
)

from .cells import number
from .draw import MIN_TEXT, PHONE, SLIDE, Drawing, arranged, stack, text_width, wrap_words

PROBABILITY = ACCENT_MID  # a bar's colour unless a series or a label has its own
BLOCKED_TEXT = "blocked: −∞ before the softmax"


def bars(
    ident: str,
    title: str,
    desc: str | None,
    labels: list[str],
    series: list[tuple],
    grouped: bool = False,
    digits: int = 3,
    fmt=None,
    vmax: float | None = None,
    width: float = SLIDE - 40,
    bar_h: float = 36,
    gap: float = 40,
    colours: list[str] | None = None,
    highlight=(),
    blocked=(),
    axis: bool | str = False,
) -> str:
    """``series`` = [(name, values)] or [(name, values, colour)], values in
    the order of ``labels``; a name is a panel's caption (or the key's entry
    when ``grouped``; "" for none). ``colours`` gives each label's bar its
    colour (else the series', else PROBABILITY). A value of 0 draws no bar, a
    tiny one a sliver. ``desc`` None: every label's values, written out.

    A figure wider than a phone is drawn a second time for one (kit/draw.py
    ``arranged``): the panels one under the other, each PHONE units wide,
    on the same scale, with the same labels, values and colours."""
    fmt = fmt or (lambda v: number(v, digits))
    series = [(s[0], list(s[1]), s[2] if len(s) > 2 else None) for s in series]
    vmax = vmax or max(max(vs) for _, vs, _ in series) or 1.0
    if desc is None:
        desc = (
            "; ".join(
                f"{lab}: " + ", ".join(f"{name} {fmt(vs[i])}".strip() for name, vs, _ in series)
                for i, lab in enumerate(labels)
            )
            + "."
        )
    same = dict(fmt=fmt, vmax=vmax, bar_h=bar_h, gap=gap, colours=colours, highlight=highlight, blocked=blocked)
    wide = _bars(ident, title, desc, labels, series, grouped, width=width, axis=axis, **same).render()
    if width <= PHONE:
        return wide
    parts = [series] if grouped else [[s] for s in series]
    drawn = [
        _bars(f"{ident}-phone-{k}", title, desc, labels, part, grouped, width=PHONE, axis=axis, **same)
        for k, part in enumerate(parts)
    ]
    phone = stack(f"{ident}-phone", title, desc, drawn)
    phone.cramped = any(p.cramped for p in drawn)  # labels or values that leave a bar no room
    return wide if phone.cramped else arranged(wide, phone)


def _bars(ident, title, desc, labels, series, grouped, fmt, vmax, width, bar_h, gap, colours, highlight, blocked, axis):
    """``bars``'s drawing of ``series`` (each (name, values, colour)) at ``width``."""
    label_w = max(text_width(lab, MIN_TEXT, bold=True) for lab in labels) * 1.15 + 20
    value_w = max(text_width(fmt(v), MIN_TEXT) for _, vs, _ in series for v in vs) * 1.2 + 12
    panels = [series] if grouped else [[s] for s in series]
    n = len(panels)
    panel_w = (width - label_w - 10 - (n - 1) * gap) / n
    plot_w = panel_w - value_w
    # on a phone, a label too long to leave the bars room stands above its bar
    # (the others keep to a column as wide as the longest of them needs)
    widths = [text_width(lab, MIN_TEXT, bold=True) * 1.15 + 20 for lab in labels]
    over = set()
    if width <= PHONE and plot_w < 110:
        short = [w for w in widths if width - w - 10 - value_w >= 180]
        label_w = max(short, default=12.0)
        over = {g for g, w in enumerate(widths) if w > label_w}
        panel_w = (width - label_w - 10 - (n - 1) * gap) / n
        plot_w = panel_w - value_w
    above = bool(over)
    lift = MIN_TEXT + 8
    per_row = len(panels[0])
    row_h = bar_h * per_row + (14 if per_row > 1 else 0)
    keyed = grouped and len(series) > 1
    head = 44 if keyed else 34 if any(name for name, _, _ in series) else 8
    # a phone's key: one series a line (side by side they would run off the width)
    key_down = keyed and width <= PHONE
    if key_down:
        head = 8 + 26 * len(series) + 10
    tops = [head + g * row_h + lift * sum(k in over for k in range(g + 1)) for g in range(len(labels))]
    rows_h = row_h * len(labels) + lift * len(over)
    height = head + rows_h + (MIN_TEXT + 18 if axis else 8)
    d = Drawing(round(width), round(height), ident, title, desc)
    d.cramped = plot_w < 100 or (above and text_width(BLOCKED_TEXT, MIN_TEXT) + 20 > plot_w and bool(blocked))
    if keyed:
        for s, (name, _, colour) in enumerate(series):
            kx, ky = (12.0, 8 + 26 * s) if key_down else (label_w + s * plot_w / len(series), 8)
            d.rect(kx, ky, 22, 18, fill=colour or PROBABILITY, stroke="none", radius=2)
            d.text(kx + 30, ky + 9 + MIN_TEXT * 0.35, name, size=MIN_TEXT, anchor="start", fill=INK_SOFT)
    for p, panel in enumerate(panels):
        x0 = label_w + p * (panel_w + gap)
        if panel[0][0] and not grouped:
            d.text(x0 + plot_w / 2, 24, panel[0][0], size=MIN_TEXT, weight="600")
        if not above:  # the bars' base line, right of the labels
            d.rect(x0 - 1, head - 2, 1.5, rows_h, fill=GRID, stroke="none", radius=0)
        for g, lab in enumerate(labels):
            top = tops[g]
            chosen, off = g in highlight, g in blocked
            weight = "700" if chosen else "normal"
            ink = MUTED if off else INK
            if g in over:
                d.text(12, top - 8, lab, size=MIN_TEXT, anchor="start", weight=weight, fill=ink)
            elif p == 0:
                mid = top + bar_h * per_row / 2 + MIN_TEXT * 0.35
                d.text(label_w - 10, mid, lab, size=MIN_TEXT, anchor="end", weight=weight, fill=ink)
            for s, (_, values, colour) in enumerate(panel):
                v, y = values[g], top + s * bar_h + bar_h * 0.1
                thick, mid = bar_h * 0.8, top + s * bar_h + bar_h / 2 + MIN_TEXT * 0.35
                d.rect(x0, y, plot_w, thick, fill=SURFACE, stroke="none", radius=2)
                w = plot_w * max(0.0, v) / vmax
                if off:
                    d.rect(x0, y, plot_w, thick, fill=BLOCKED, stroke="none", radius=2)
                    d.text(x0 + 10, mid, BLOCKED_TEXT, size=MIN_TEXT, anchor="start", fill=INK)
                    w = plot_w
                elif v > 0:
                    fill = colours[g] if colours else colour or PROBABILITY
                    fill = ACCENT if chosen and fill == PROBABILITY else fill
                    d.rect(x0, y, max(w, 1.0), thick, fill=fill, stroke=GRID, width=1, radius=2)
                d.text(x0 + w + 6, mid, fmt(v), size=MIN_TEXT, anchor="start", fill=INK, weight=weight)
        if axis:
            base = head + rows_h
            d.rect(x0, base, plot_w, 0.5, fill=GRID, stroke=GRID, width=1, radius=0)
            for x, text in ((x0, "0"), (x0 + plot_w, fmt(vmax)), (x0 + plot_w / 2, axis if axis is not True else "")):
                if text:
                    d.text(x, base + MIN_TEXT + 6, text, size=MIN_TEXT, fill=MUTED)
    return d


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
    ``colours`` gives each row its own colour.

    A figure wider than a phone is drawn a second time for one (kit/draw.py
    ``arranged``): the labels split into runs as long as PHONE units hold
    (the widest label sets a column's width), each run with every row, one
    run under the other, on the same scale."""
    numbers = [v for _, vs in rows for v in vs if isinstance(v, (int, float))]
    vmax = vmax or max(numbers, default=1.0) or 1.0
    lines = [lab if isinstance(lab, tuple) else (lab,) for lab in labels]
    desc = desc or "; ".join(
        f"{name}: "
        + ", ".join(
            f"{'/'.join(lab)} {number(v, digits) if isinstance(v, (int, float)) else v}" for lab, v in zip(lines, vs)
        )
        for name, vs in rows
    )
    same = dict(digits=digits, vmax=vmax, row_h=row_h, colour=colour, colours=colours, mark=mark, desc=desc)
    wide = _column_rows(ident, title, labels, rows, width=width, **same)
    if width <= PHONE:
        return wide.render()
    widest = max(text_width(line, MIN_TEXT) for lab in lines for line in lab)
    per = max(1, int((PHONE - 20) // widest))
    runs = -(-len(labels) // per)  # as few runs as fit, as even as they can be
    per = -(-len(labels) // runs)
    drawn = [
        _column_rows(
            f"{ident}-phone-{k}",
            title,
            labels[k * per : (k + 1) * per],
            [(name, vs[k * per : (k + 1) * per]) for name, vs in rows],
            width=PHONE,
            **same,
        )
        for k in range(runs)
    ]
    return arranged(wide.render(), stack(f"{ident}-phone", title, desc + ".", drawn, gap=28))


def _column_rows(ident, title, labels, rows, digits, vmax, width, row_h, colour, colours, mark, desc) -> Drawing:
    """``column_rows``'s drawing of ``rows`` over ``labels`` at ``width``."""
    n = len(labels)
    col_w = (width - 20) / n
    top = 10
    lines = [lab if isinstance(lab, tuple) else (lab,) for lab in labels]
    # a row's name on as many lines as the width needs (bold: wrapped at the plain width it takes)
    names = [wrap_words(name, (width - 20) * 0.46 / 0.5) for name, _ in rows]
    tops = [top + r * row_h + (MIN_TEXT + 6) * sum(len(x) - 1 for x in names[:r]) for r in range(len(rows))]
    rows_h = len(rows) * row_h + (MIN_TEXT + 6) * sum(len(x) - 1 for x in names)
    height = top + rows_h + (MIN_TEXT + 6) * max(len(x) for x in lines) + 20
    d = Drawing(width, height, ident, title, desc + ".")
    for r, (_, vs) in enumerate(rows):
        y0 = tops[r]
        for k, line in enumerate(names[r]):
            d.text(10, y0 + MIN_TEXT + k * (MIN_TEXT + 6), line, size=MIN_TEXT, anchor="start", weight="600")
        y0 += (MIN_TEXT + 6) * (len(names[r]) - 1)
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
            y = top + rows_h + MIN_TEXT + 8 + k * (MIN_TEXT + 6)
            d.text(10 + c * col_w + col_w / 2, y, line, size=MIN_TEXT, fill=INK_SOFT if k else INK)
    return d
