"""The maps deck's pictures of the real corpus (issue 20), drawn from the
corpus audit: story lengths per split (shortest, median, longest on one token
axis) and the stories of each split as bars. Unavailable, with the audit's
reason, until the corpus is prepared. Table: ``maps_corpus_figures``."""

from __future__ import annotations

from common.palette import ACCENT, GRID, INK, MUTED

from ..kit.bars import bars
from ..kit.charts import nice_ticks, tick_text
from ..kit.draw import COLUMN, MIN_TEXT, PHONE, Drawing, arranged, text_width
from ..kit.registry import table


def lengths(audit: dict) -> str:
    """One row per split: a line from the shortest story to the longest, a dot
    at the median, on one axis of tokens per story; on a phone (PHONE units)
    each split's name stands above its line, so the axis keeps the width."""
    rows = audit["length_table"]["rows"]  # [split, shortest, median, longest]
    desc = "Story lengths in ordinary tokens per split: " + "; ".join(
        f"{r[0]}: shortest {r[1]}, median {r[2]:g}, longest {r[3]}" for r in rows
    )
    ticks = nice_ticks(0, max(r[3] for r in rows), 5)

    def draw(phone: bool) -> Drawing:
        if phone:
            width, left, right, row_h, top = PHONE, 28, 28, 96, 34
        else:
            width, left, right = 1000, max(text_width(r[0], MIN_TEXT) for r in rows) + 30, 40
            row_h, top = 78, 34
        height = top + row_h * len(rows) + 60

        def x(v: float) -> float:
            return left + (v - ticks[0]) / (ticks[-1] - ticks[0]) * (width - left - right)

        ident = "maps-lengths" + ("-phone" if phone else "")
        d = Drawing(width, height, ident, "Story lengths per split, in tokens", desc + ".")
        base = top + row_h * len(rows)
        for t in ticks:
            d.rect(x(t), top - 10, 0.5, base - top + 10, fill=GRID, stroke=GRID, width=0.5, radius=0)
            d.text(x(t), base + 26, tick_text(t), size=MIN_TEXT, fill=MUTED)
        d.text((left + width - right) / 2, base + 54, "tokens per story", size=MIN_TEXT, fill=MUTED)
        d.text(x(rows[0][2]), top - 14, "median", size=MIN_TEXT, fill=ACCENT)
        for k, (split, lo, med, hi) in enumerate(rows):
            y = top + k * row_h + row_h / 2 + (12 if phone else 0)
            if phone:
                d.text(x(hi), y - 14, split, size=MIN_TEXT, anchor="end", weight="600")
            else:
                d.text(left - 16, y + 6, split, size=MIN_TEXT, anchor="end", weight="600")
            d.rect(x(lo), y - 4, x(hi) - x(lo), 8, fill=GRID, stroke="none", radius=4)
            d.dot(x(med), y, 9, ACCENT)
            d.text(x(lo), y + 30, f"{lo}", size=MIN_TEXT, fill=INK)
            d.text(x(hi), y + 30, f"{hi}", size=MIN_TEXT, fill=INK)
            d.text(x(med) + 12, y - 12, f"{med:g}", size=MIN_TEXT, anchor="start", fill=ACCENT)
        return d

    return arranged(draw(False).render(), draw(True))


def stories(audit: dict) -> str:
    header, rows = audit["header"], audit["rows"]
    col = header.index("Stories")
    return bars(
        "maps-split-stories",
        "Stories per split",
        "Whole stories in each split: " + ", ".join(f"{r[0]} {r[col]:,}" for r in rows) + ".",
        [r[0] for r in rows],
        [("", [r[col] for r in rows])],
        digits=0,
        width=COLUMN,
        axis="stories",
    )


@table("maps_corpus_figures", needs=["corpus_audit"])
def corpus_figures(corpus_audit: dict) -> dict:
    if not corpus_audit.get("available"):
        return {"available": False, "reason": corpus_audit.get("reason", "the corpus audit is not available")}
    return {"lengths": lengths(corpus_audit), "stories": stories(corpus_audit)}
