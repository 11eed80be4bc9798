"""Chart scaffolding for the build-time charts (Part III, results): round tick
values, a frame that maps data to canvas coordinates with axes and gridlines,
validation-loss axes and the model legend. The markup is written by
kit/draw.py; model colours come from common/palette.py."""

from __future__ import annotations

import math

from common.palette import GRID, GRIDLINE, INK, INK_SOFT, MODELS

from .draw import FIGURE_FONT, PHONE, element, group

DASHES = {0: "", 1: "6 4", 2: "2 3"}  # by seed order: solid, dashed, dotted


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About n round tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 10))
        t += step
    if ticks[-1] < hi:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def tick_text(x: float) -> str:
    """A tick label written as the course writes numbers: digits grouped from
    1,000 on (content/notation.toml), no trailing ".0", two significant digits
    below 1."""
    if x == int(x):
        return f"{int(x):,}"
    return f"{x:,g}" if abs(x) >= 1 else f"{x:.2g}"


def label(x, y, s, size=14, fill=INK, **attributes) -> str:
    """Chart text with its font set on the element."""
    return element("text", s, font_family=FIGURE_FONT, font_size=size, fill=fill, x=x, y=y, **attributes)


class Frame:
    """Maps data coordinates to a W x H canvas with margins for the axes."""

    def __init__(self, xticks, yticks, width=760, height=400, left=64, right=200, top=40, bottom=56):
        self.xticks, self.yticks = xticks, yticks
        self.x0, self.x1 = xticks[0], xticks[-1]
        self.y0, self.y1 = yticks[0], yticks[-1]
        self.width, self.height = width, height
        self.left, self.right, self.top, self.bottom = left, right, top, bottom

    def x(self, v: float) -> float:
        span = self.width - self.left - self.right
        return round(self.left + (v - self.x0) / (self.x1 - self.x0) * span, 2)

    def y(self, v: float) -> float:
        span = self.height - self.top - self.bottom
        return round(self.height - self.bottom - (v - self.y0) / (self.y1 - self.y0) * span, 2)

    def axes(self, xlabel: str, ylabel: str, xtick_labels=None) -> list[str]:
        """Gridlines, the two axes, tick labels and axis titles."""
        right, base = self.width - self.right, self.height - self.bottom
        lines = [
            element("line", x1=self.left, x2=right, y1=self.y(t), y2=self.y(t), stroke=GRIDLINE) for t in self.yticks
        ]
        lines.append(element("line", x1=self.left, x2=self.left, y1=self.top, y2=base))
        lines.append(element("line", x1=self.left, x2=right, y1=base, y2=base))
        ticks = [
            element("text", tick_text(t), x=self.left - 8, y=self.y(t) + 4, text_anchor="end") for t in self.yticks
        ]
        for t, text in xtick_labels or [(t, tick_text(t)) for t in self.xticks]:
            ticks.append(element("text", text, x=self.x(t), y=base + 20, text_anchor="middle"))
        mid_x, mid_y = (self.left + right) / 2, (self.top + base) / 2
        return [
            group(lines, cls="axes", stroke=GRID, stroke_width=1),
            group(ticks, cls="ticks", font_family=FIGURE_FONT, font_size=13, fill=INK_SOFT),
            label(mid_x, self.height - 10, xlabel, text_anchor="middle"),
            element(
                "text",
                ylabel,
                font_family=FIGURE_FONT,
                font_size=14,
                fill=INK,
                transform=f"translate(16 {mid_y}) rotate(-90)",
                text_anchor="middle",
            ),
        ]


def loss_axes(runs: list[dict], first_shown: int, height: int, right: int, width: int = 1000, top: int = 40):
    """Axes for validation loss against step, fitted to every run's trace from
    step ``first_shown`` on; returns the frame, the axes' SVG parts and the
    traces. A phone's (``width`` PHONE, the legend above: ``top``) has fewer
    step ticks and its y title says nats only."""
    traces = [[p for p in r["val_trace"] if p["step"] >= first_shown] for r in runs]
    xs = [p["step"] for t in traces for p in t]
    ys = [p["val_loss"] for t in traces for p in t]
    narrow = width <= PHONE
    frame = Frame(
        nice_ticks(0, max(xs), 3 if narrow else 6),
        nice_ticks(min(ys), max(ys), 5),
        width=width,
        height=height,
        right=right,
        top=top,
        left=70 if narrow else 64,
    )
    ylabel = "validation loss (nats)" if narrow else "validation loss (nats per token)"
    return frame, frame.axes("optimizer step", ylabel), traces


PHONE_KEY_LINE = 22  # a legend's line, from a model's line to the next


def phone_top(n_lines: int) -> int:
    """The top margin of a phone's chart whose legend of ``n_lines`` lines stands above the plot."""
    return 18 + n_lines * PHONE_KEY_LINE + 24


def points(frame: Frame, trace: list[dict]) -> str:
    """A polyline's points: validation loss at each step of a trace."""
    return " ".join(f"{frame.x(p['step'])},{frame.y(p['val_loss'])}" for p in trace)


def legend(frame: Frame, kinds, labels, more=None, at: tuple[float, float] | None = None) -> str:
    """One coloured line per model right of the plot (or from ``at``: a
    phone's, above it), then what ``more(x, y)`` adds below them (x: the
    legend's left edge, y: its next free line)."""
    x, y = at or (frame.width - frame.right + 18, frame.top + 6)
    items = []
    for k in kinds:
        items.append(element("line", x1=x, x2=x + 26, y1=y, y2=y, stroke=MODELS[k], stroke_width=4))
        items.append(element("text", labels[k], x=x + 34, y=y + 4))
        y += 22
    items += more(x, y) if more else []
    return group(items, cls="legend", font_family=FIGURE_FONT, font_size=13, fill=INK)
