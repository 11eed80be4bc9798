"""The named colour scales of the heatmaps (issue 35): one fixed, rounded
scale per run of related heatmaps, so the same colour means the same number
on every slide of the run (Part I's forward pass no longer restarts at
±2.892, ±1.780, ..., ±0.462: every vector of it is on ±3).

A scale names its meaning (kit/cells.py MEANINGS: the colour ramp) and its
limit: 0 to 1 for every attention weight; ±``limit`` for a signed number.
A data-chosen limit is the run's largest |value| rounded up to a nice number
(``nice``: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 10 times a power of ten); a fixed
one is set by what the numbers are (a weight, a sine), whatever the data.
The figures name their scale (``cells(d, x, y, values, "part1-vectors")``);
a value beyond its scale's limit stops the build with a message that names
the figure and the limit to set here. tests/test_heatmap_scales.py reads the
built figures: every heatmap on a named scale, one pair of limits per scale
name, weights on [0, 1], every legend end a rounded number, every cell's
colour its printed value's on that scale, and each data-chosen limit the
nice round-up of its run's largest value.

Every cell group and legend a scale draws carries ``data-scale`` (and the
legend ``data-low``/``data-high``), so the test reads the runs from the
built SVGs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from common.numbers import written

NICE = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 10.0)  # a rounded limit: one of these times 10^k


@dataclass(frozen=True)
class Scale:
    name: str
    meaning: str  # kit/cells.py MEANINGS: "weight", "signed", "surprisal"
    limit: float  # the top; a signed scale runs from -limit to +limit
    run: str  # the figures it serves
    fixed: bool = False  # the limit is what the numbers are (weights 0..1, sin/cos ±1), not chosen from the data

    @property
    def low(self) -> float:
        return -self.limit if self.meaning == "signed" else 0.0

    @property
    def high(self) -> float:
        return self.limit


def nice(x: float) -> float:
    """The smallest rounded limit (NICE times a power of ten) at or above |x|."""
    x = abs(float(x))
    if x == 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(x))
    for m in NICE:
        if m * power >= x * (1 - 1e-9):
            return float(f"{m * power:.6g}")
    return float(f"{10 * power:.6g}")


def rounded(x: float) -> bool:
    """Whether ``x`` is a rounded limit (0, or NICE times a power of ten)."""
    return x == 0 or nice(x) == abs(float(x))


def end_text(x: float) -> str:
    """A legend end as printed: the fewest decimals, a true minus sign (3 -> "3", -1.5 -> "−1.5")."""
    text = f"{x:.6g}"
    return written(float(x), len(text.split(".")[1]) if "." in text else 0)


SCALES = {
    s.name: s
    for s in (
        Scale("weight", "weight", 1.0, "every attention weight, in all decks", fixed=True),
        Scale(
            "part1-vectors",
            "signed",
            3.0,
            "Part I's forward pass: the embedding table, E, the flattened rows, the hidden layer, "
            "token plus position rows, q, K and V, the message and the update",
        ),
        Scale("part1-scores", "signed", 1.0, "Part I's scores (raw and masked) and both models' logits"),
        Scale(
            "part2-vectors",
            "signed",
            3.0,
            "Part II's bank model: token rows, pooled rows, q, k and v, W_Q, W_K, W_V and W_O, the phases, "
            "messages and updates, the last rows, the hidden units, E before and after, positions, the swap",
        ),
        Scale("part2-topics", "signed", 1.0, "Part II's video search: the queries, keys and values on named topics"),
        Scale("part2-scores", "signed", 6.0, "Part II's scores at bank, without and with the division by √d_k"),
        Scale("part2-random", "signed", 4.0, "Part II's random query and key, coordinate by coordinate"),
        Scale("part2-sinusoid", "signed", 1.0, "Part II's sinusoidal encoding (a sine or cosine)", fixed=True),
        Scale("part3-worksheet", "signed", 2.0, "Part III's worksheet: E, W_Q and W_K, the messages joined"),
        Scale("part3-two-source", "signed", 10.0, "Part III's two-source toy: value rows and messages"),
    )
}


def scale(name: str) -> Scale:
    """The scale called ``name``; an unknown name is a clear error."""
    try:
        return SCALES[name]
    except KeyError:
        known = ", ".join(SCALES)
        raise ValueError(f"no colour scale {name!r} in export/tables/kit/scales.py (known: {known})") from None


def check(s: Scale, values, where: str) -> None:
    """Stop when a value lies beyond the scale (its colour would clip)."""
    flat = [v for row in values for v in (row if isinstance(row, list) else [row]) if isinstance(v, (int, float))]
    if not flat:
        return
    lo, hi = min(flat), max(flat)
    if lo < s.low - 1e-9 or hi > s.high + 1e-9:
        worst = max(abs(lo), abs(hi))
        raise ValueError(
            f"{where}: a value of {worst:g} lies outside the colour scale {s.name!r} "
            f"[{end_text(s.low)}, {end_text(s.high)}]; set its limit in export/tables/kit/scales.py to {nice(worst):g}"
        )
