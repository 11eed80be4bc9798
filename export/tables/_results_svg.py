"""Build-time SVG charts for the results deck: validation-loss curves of every
run and test perplexity with ±1 SD bars. Each chart carries <title> and
<desc>; the deck shows the same numbers as a data table beside it.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

COLOURS = {"mlp": "#b45309", "attn1": "#2563eb", "attn4": "#059669"}
DASHES = {0: "", 1: "6 4", 2: "2 3"}          # by seed order: solid, dashed, dotted
FONT = 'font-family="system-ui, sans-serif"'


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


def _fmt(x: float) -> str:
    return f"{x:g}" if abs(x) >= 1 or x == 0 else f"{x:.2g}"


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
        out = ['<g class="axes" stroke="#94a3b8" stroke-width="1">']
        for t in self.yticks:
            out.append(f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{self.y(t)}" y2="{self.y(t)}" '
                       f'stroke="#e2e8f0"/>')
        out.append(f'<line x1="{self.left}" x2="{self.left}" y1="{self.top}" y2="{self.height - self.bottom}"/>')
        out.append(f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{self.height - self.bottom}" '
                   f'y2="{self.height - self.bottom}"/>')
        out.append("</g>")
        out.append(f'<g class="ticks" {FONT} font-size="13" fill="#334155">')
        for t in self.yticks:
            out.append(f'<text x="{self.left - 8}" y="{self.y(t) + 4}" text-anchor="end">{_fmt(t)}</text>')
        labels = xtick_labels or [(t, _fmt(t)) for t in self.xticks]
        for t, label in labels:
            out.append(f'<text x="{self.x(t)}" y="{self.height - self.bottom + 20}" text-anchor="middle">'
                       f'{escape(label)}</text>')
        out.append("</g>")
        mid_x = (self.left + self.width - self.right) / 2
        mid_y = (self.top + self.height - self.bottom) / 2
        out.append(f'<text {FONT} font-size="14" fill="#0f172a" x="{mid_x}" y="{self.height - 10}" '
                   f'text-anchor="middle">{escape(xlabel)}</text>')
        out.append(f'<text {FONT} font-size="14" fill="#0f172a" transform="translate(16 {mid_y}) rotate(-90)" '
                   f'text-anchor="middle">{escape(ylabel)}</text>')
        return out


def _svg(frame: Frame, ident: str, title: str, desc: str, body: list[str]) -> str:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{ident}" role="img" '
            f'viewBox="0 0 {frame.width} {frame.height}" width="100%" '
            f'style="max-width:{frame.width}px;max-height:{frame.height}px;height:auto;display:block" '
            f'aria-labelledby="{ident}-title {ident}-desc">'
            f'<title id="{ident}-title">{escape(title)}</title><desc id="{ident}-desc">{escape(desc)}</desc>')
    return head + "".join(body) + "</svg>"


def validation_curves(runs: list[dict], labels: dict[str, str], first_shown: int) -> str:
    """One polyline per run (colour = model, dash = seed), from the trace point
    at step ``first_shown`` on; a ring marks each run's selected step."""
    seeds = sorted({r["seed"] for r in runs})
    points = [(p["step"], p["val_loss"]) for r in runs for p in r["val_trace"] if p["step"] >= first_shown]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    frame = Frame(nice_ticks(0, max(xs), 6), nice_ticks(min(ys), max(ys), 5), width=1000, height=480, right=220)
    body = frame.axes("optimizer step", "validation loss (nats per token)")
    for r in runs:
        trace = [p for p in r["val_trace"] if p["step"] >= first_shown]
        dash = DASHES.get(seeds.index(r["seed"]) % 3, "")
        pts = " ".join(f"{frame.x(p['step'])},{frame.y(p['val_loss'])}" for p in trace)
        name = f"{labels[r['kind']]}, seed {r['seed']}"
        body.append(f'<polyline class="run" data-kind="{r["kind"]}" data-seed="{r["seed"]}" fill="none" '
                    f'stroke="{COLOURS[r["kind"]]}" stroke-width="2" stroke-dasharray="{dash}" points="{pts}">'
                    f'<title>{escape(name)}</title></polyline>')
        chosen = [p for p in trace if p["step"] == r["selected_step"]]
        for p in chosen:
            body.append(f'<circle class="selected" cx="{frame.x(p["step"])}" cy="{frame.y(p["val_loss"])}" r="5" '
                        f'fill="white" stroke="{COLOURS[r["kind"]]}" stroke-width="2">'
                        f'<title>{escape(name)}: selected step {p["step"]}</title></circle>')
    body += _legend(frame, [k for k in COLOURS if any(r["kind"] == k for r in runs)], labels, seeds)
    desc = ("Validation loss against optimizer step for each of the runs. "
            + "; ".join(f"{labels[r['kind']]} seed {r['seed']}: selected step {r['selected_step']}, "
                        f"best validation loss {r['val_loss']:.3f}" for r in runs) + ".")
    return _svg(frame, "chart-val-curves", "Validation loss of every training run", desc, body)


def _legend(frame: Frame, kinds, labels, seeds) -> list[str]:
    x = frame.width - frame.right + 18
    y = frame.top + 6
    out = [f'<g class="legend" {FONT} font-size="13" fill="#0f172a">']
    for k in kinds:
        out.append(f'<line x1="{x}" x2="{x + 26}" y1="{y}" y2="{y}" stroke="{COLOURS[k]}" stroke-width="4"/>')
        out.append(f'<text x="{x + 34}" y="{y + 4}">{escape(labels[k])}</text>')
        y += 22
    y += 8
    for i, s in enumerate(seeds):
        out.append(f'<line x1="{x}" x2="{x + 26}" y1="{y}" y2="{y}" stroke="#334155" stroke-width="2" '
                   f'stroke-dasharray="{DASHES.get(i % 3, "")}"/>')
        out.append(f'<text x="{x + 34}" y="{y + 4}">seed {s}</text>')
        y += 22
    out.append(f'<circle cx="{x + 13}" cy="{y + 6}" r="5" fill="white" stroke="#334155" stroke-width="2"/>')
    out.append(f'<text x="{x + 34}" y="{y + 10}">selected step</text>')
    out.append("</g>")
    return out


def perplexity_bars(summary: list[dict], runs: list[dict]) -> str:
    """A bar per model at its mean test perplexity, a ±1 SD whisker, and a dot
    for each run."""
    tops = [s["ppl_mean"] + (s["ppl_sd"] or 0) for s in summary] + [r["test_perplexity"] for r in runs]
    frame = Frame([0, 1], nice_ticks(0, max(tops), 5), width=640, height=420, right=20)
    n = len(summary)
    slot = 1 / n
    centres = [slot * (i + 0.5) for i in range(n)]
    body = frame.axes("model", "test perplexity (lower is better)",
                      xtick_labels=[(c, s["label"]) for c, s in zip(centres, summary)])
    bar_w = (frame.x(slot) - frame.x(0)) * 0.5
    for c, s in zip(centres, summary):
        x = frame.x(c)
        colour = COLOURS[s["kind"]]
        sd_text = f" ± {s['ppl_sd']:.2f} (1 SD)" if s["ppl_sd"] is not None else ""
        name = f"{s['label']}: mean {s['ppl_mean']:.2f}{sd_text} over {s['n_runs']} run(s)"
        body.append(f'<rect class="bar" data-kind="{s["kind"]}" x="{round(x - bar_w / 2, 2)}" y="{frame.y(s["ppl_mean"])}" '
                    f'width="{round(bar_w, 2)}" height="{round(frame.y(0) - frame.y(s["ppl_mean"]), 2)}" '
                    f'fill="{colour}" fill-opacity="0.75"><title>{escape(name)}</title></rect>')
        if s["ppl_sd"] is not None:
            lo, hi = frame.y(s["ppl_mean"] - s["ppl_sd"]), frame.y(s["ppl_mean"] + s["ppl_sd"])
            body.append(f'<g class="sd" data-kind="{s["kind"]}" stroke="#0f172a" stroke-width="2">'
                        f'<line x1="{x}" x2="{x}" y1="{lo}" y2="{hi}"/>'
                        f'<line x1="{x - 10}" x2="{x + 10}" y1="{lo}" y2="{lo}"/>'
                        f'<line x1="{x - 10}" x2="{x + 10}" y1="{hi}" y2="{hi}"/></g>')
        label_y = (frame.y(s["ppl_mean"] + s["ppl_sd"]) if s["ppl_sd"] is not None else frame.y(s["ppl_mean"])) - 10
        body.append(f'<text {FONT} font-size="14" font-weight="600" fill="#0f172a" x="{x}" y="{label_y}" '
                    f'text-anchor="middle">{s["ppl_mean"]:.2f}{escape(sd_text.replace(" (1 SD)", ""))}</text>')
        mine = [r for r in runs if r["kind"] == s["kind"]]
        for j, r in enumerate(mine):
            dx = (j - (len(mine) - 1) / 2) * 14
            body.append(f'<circle class="run-dot" cx="{round(x + bar_w / 2 + 14 + dx + 14, 2)}" '
                        f'cy="{frame.y(r["test_perplexity"])}" r="4" fill="{colour}" stroke="#0f172a">'
                        f'<title>seed {r["seed"]}: {r["test_perplexity"]:.2f}</title></circle>')
    desc = ("Mean test perplexity per model with a ±1 sample-standard-deviation bar over the seeds, "
            "and one dot per run. " + "; ".join(
                f"{s['label']}: {s['ppl_mean']:.2f}"
                + (f" ± {s['ppl_sd']:.2f}" if s["ppl_sd"] is not None else "") + f" ({s['n_runs']} runs)"
                for s in summary) + ".")
    return _svg(frame, "chart-test-ppl", "Test perplexity by model, mean ± 1 SD over seeds", desc, body)
