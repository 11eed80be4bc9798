"""Build-time SVG charts for the results deck: validation-loss curves of every
run and test perplexity with ±1 SD bars. Each chart carries <title> and
<desc>; the deck shows the same numbers as a data table beside it.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

COLOURS = {"mlp": "#b45309", "attn1": "#2563eb", "attn4": "#059669"}
DASHES = {0: "", 1: "6 4", 2: "2 3"}
SHORT = {"mlp": "fixed-window MLP", "attn1": "one head", "attn4": "four heads"}  # by seed order: solid, dashed, dotted
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
            out.append(
                f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{self.y(t)}" y2="{self.y(t)}" '
                f'stroke="#e2e8f0"/>'
            )
        out.append(f'<line x1="{self.left}" x2="{self.left}" y1="{self.top}" y2="{self.height - self.bottom}"/>')
        out.append(
            f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{self.height - self.bottom}" '
            f'y2="{self.height - self.bottom}"/>'
        )
        out.append("</g>")
        out.append(f'<g class="ticks" {FONT} font-size="13" fill="#334155">')
        for t in self.yticks:
            out.append(f'<text x="{self.left - 8}" y="{self.y(t) + 4}" text-anchor="end">{_fmt(t)}</text>')
        labels = xtick_labels or [(t, _fmt(t)) for t in self.xticks]
        for t, label in labels:
            out.append(
                f'<text x="{self.x(t)}" y="{self.height - self.bottom + 20}" text-anchor="middle">'
                f"{escape(label)}</text>"
            )
        out.append("</g>")
        mid_x = (self.left + self.width - self.right) / 2
        mid_y = (self.top + self.height - self.bottom) / 2
        out.append(
            f'<text {FONT} font-size="14" fill="#0f172a" x="{mid_x}" y="{self.height - 10}" '
            f'text-anchor="middle">{escape(xlabel)}</text>'
        )
        out.append(
            f'<text {FONT} font-size="14" fill="#0f172a" transform="translate(16 {mid_y}) rotate(-90)" '
            f'text-anchor="middle">{escape(ylabel)}</text>'
        )
        return out


def _svg(frame: Frame, ident: str, title: str, desc: str, body: list[str]) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{ident}" role="img" '
        f'viewBox="0 0 {frame.width} {frame.height}" width="100%" '
        f'style="max-width:{frame.width}px;max-height:{frame.height}px;height:auto;display:block" '
        f'aria-labelledby="{ident}-title {ident}-desc">'
        f'<title id="{ident}-title">{escape(title)}</title><desc id="{ident}-desc">{escape(desc)}</desc>'
    )
    return head + "".join(body) + "</svg>"


def _loss_axes(runs: list[dict], first_shown: int, height: int, right: int):
    """Axes for validation loss against step, fitted to every run's trace from
    step ``first_shown`` on; returns the frame, the axes' SVG parts and the traces."""
    traces = [[p for p in r["val_trace"] if p["step"] >= first_shown] for r in runs]
    xs = [p["step"] for t in traces for p in t]
    ys = [p["val_loss"] for t in traces for p in t]
    frame = Frame(nice_ticks(0, max(xs), 6), nice_ticks(min(ys), max(ys), 5), width=1000, height=height, right=right)
    return frame, frame.axes("optimizer step", "validation loss (nats per token)"), traces


def validation_curves(runs: list[dict], labels: dict[str, str], first_shown: int) -> str:
    """One polyline per run (colour = model, dash = seed), from the trace point
    at step ``first_shown`` on; a ring marks each run's selected step."""
    seeds = sorted({r["seed"] for r in runs})
    frame, body, traces = _loss_axes(runs, first_shown, height=480, right=220)
    for r, trace in zip(runs, traces):
        dash = DASHES.get(seeds.index(r["seed"]) % 3, "")
        pts = " ".join(f"{frame.x(p['step'])},{frame.y(p['val_loss'])}" for p in trace)
        name = f"{labels[r['kind']]}, seed {r['seed']}"
        body.append(
            f'<polyline class="run" data-kind="{r["kind"]}" data-seed="{r["seed"]}" fill="none" '
            f'stroke="{COLOURS[r["kind"]]}" stroke-width="2" stroke-dasharray="{dash}" points="{pts}">'
            f"<title>{escape(name)}</title></polyline>"
        )
        chosen = [p for p in trace if p["step"] == r["selected_step"]]
        for p in chosen:
            body.append(
                f'<circle class="selected" cx="{frame.x(p["step"])}" cy="{frame.y(p["val_loss"])}" r="5" '
                f'fill="white" stroke="{COLOURS[r["kind"]]}" stroke-width="2">'
                f"<title>{escape(name)}: selected step {p['step']}</title></circle>"
            )
    body += _legend(frame, [k for k in COLOURS if any(r["kind"] == k for r in runs)], labels, seeds)
    desc = (
        "Validation loss against optimizer step for each of the runs. "
        + "; ".join(
            f"{labels[r['kind']]} seed {r['seed']}: selected step {r['selected_step']}, "
            f"best validation loss {r['val_loss']:.3f}"
            for r in runs
        )
        + "."
    )
    return _svg(frame, "chart-val-curves", "Validation loss of every training run", desc, body)


def _model_legend(frame: Frame, kinds, labels) -> tuple[list[str], float, float]:
    """The legend's group opening and one coloured line per model, right of the
    plot; returns the lines and the legend's x and next free y."""
    x = frame.width - frame.right + 18
    y = frame.top + 6
    out = [f'<g class="legend" {FONT} font-size="13" fill="#0f172a">']
    for k in kinds:
        out.append(f'<line x1="{x}" x2="{x + 26}" y1="{y}" y2="{y}" stroke="{COLOURS[k]}" stroke-width="4"/>')
        out.append(f'<text x="{x + 34}" y="{y + 4}">{escape(labels[k])}</text>')
        y += 22
    return out, x, y


def _legend(frame: Frame, kinds, labels, seeds) -> list[str]:
    out, x, y = _model_legend(frame, kinds, labels)
    y += 8
    for i, s in enumerate(seeds):
        out.append(
            f'<line x1="{x}" x2="{x + 26}" y1="{y}" y2="{y}" stroke="#334155" stroke-width="2" '
            f'stroke-dasharray="{DASHES.get(i % 3, "")}"/>'
        )
        out.append(f'<text x="{x + 34}" y="{y + 4}">seed {s}</text>')
        y += 22
    out.append(f'<circle cx="{x + 13}" cy="{y + 6}" r="5" fill="white" stroke="#334155" stroke-width="2"/>')
    out.append(f'<text x="{x + 34}" y="{y + 10}">selected step</text>')
    out.append("</g>")
    return out


def _panel_ticks(values: list[float], pad: float = 0.08) -> list[float]:
    """Round ticks around the values, not from zero, with a little room."""
    lo, hi = min(values), max(values)
    span = max(hi - lo, 1e-9)
    return nice_ticks(lo - pad * span, hi + pad * span, 4)


def perplexity_dots(summary: list[dict], runs: list[dict], zoom_kinds=("attn1", "attn4")) -> str:
    """Mean test perplexity per model as a diamond with a ±1 SD whisker and a
    dot per run, on an axis that does not start at zero (so the whiskers stay
    visible). A second panel zooms in on the attention models, whose gap and
    spread are small next to the MLP's distance from them."""

    def extent(items):
        vals = []
        for s in items:
            sd = s["ppl_sd"] or 0
            vals += [s["ppl_mean"] - sd, s["ppl_mean"] + sd]
            vals += [r["test_perplexity"] for r in runs if r["kind"] == s["kind"]]
        return vals

    zoomed = [s for s in summary if s["kind"] in zoom_kinds]
    panels = [("all models", summary, 84, 470)]
    if len(zoomed) >= 2 and len(zoomed) < len(summary):
        panels.append(("attention models, zoomed in", zoomed, 594, 980))
    width, height = 1000, 430
    body: list[str] = []
    for name, items, x0, x1 in panels:
        frame = Frame(
            [0, 1],
            _panel_ticks(extent(items)),
            width=x1 - x0 + 64 + 10,
            height=height,
            left=64,
            right=10,
            top=44,
            bottom=66,
        )
        shift = x0 - 64
        body.append(f'<g class="panel" data-panel="{escape(name)}" transform="translate({shift} 0)">')
        n = len(items)
        centres = [(i + 0.5) / n for i in range(n)]
        body += frame.axes(
            "",
            "test perplexity (lower is better)",
            xtick_labels=[(c, SHORT.get(s["kind"], s["label"])) for c, s in zip(centres, items)],
        )
        body.append(
            f'<text {FONT} font-size="15" font-weight="600" fill="#0f172a" '
            f'x="{(frame.left + frame.width - frame.right) / 2}" y="24" text-anchor="middle">'
            f"{escape(name)}</text>"
        )
        for c, s in zip(centres, items):
            x = frame.x(c)
            colour = COLOURS[s["kind"]]
            sd_text = f" ± {s['ppl_sd']:.2f}" if s["ppl_sd"] is not None else ""
            label = f"{s['label']}: mean {s['ppl_mean']:.2f}{sd_text} (1 SD) over {s['n_runs']} run(s)"
            if s["ppl_sd"] is not None:
                lo, hi = frame.y(s["ppl_mean"] - s["ppl_sd"]), frame.y(s["ppl_mean"] + s["ppl_sd"])
                body.append(
                    f'<g class="sd" data-kind="{s["kind"]}" data-length="{round(lo - hi, 2)}" '
                    f'stroke="#0f172a" stroke-width="2">'
                    f'<line x1="{x}" x2="{x}" y1="{lo}" y2="{hi}"/>'
                    f'<line x1="{x - 10}" x2="{x + 10}" y1="{lo}" y2="{lo}"/>'
                    f'<line x1="{x - 10}" x2="{x + 10}" y1="{hi}" y2="{hi}"/></g>'
                )
            ym = frame.y(s["ppl_mean"])
            body.append(
                f'<path class="mean" data-kind="{s["kind"]}" d="M{x},{ym - 9} L{x + 9},{ym} L{x},{ym + 9} '
                f'L{x - 9},{ym} z" fill="{colour}" stroke="#0f172a"><title>{escape(label)}</title></path>'
            )
            top_y = frame.y(s["ppl_mean"] + (s["ppl_sd"] or 0)) - 12
            body.append(
                f'<text {FONT} font-size="14" font-weight="600" fill="#0f172a" x="{x}" y="{top_y}" '
                f'text-anchor="middle">{s["ppl_mean"]:.2f}{escape(sd_text)}</text>'
            )
            mine = [r for r in runs if r["kind"] == s["kind"]]
            for j, r in enumerate(mine):
                body.append(
                    f'<circle class="run-dot" data-kind="{s["kind"]}" cx="{round(x + 24 + 12 * j, 2)}" '
                    f'cy="{frame.y(r["test_perplexity"])}" r="4.5" fill="{colour}" stroke="#0f172a">'
                    f"<title>seed {r['seed']}: {r['test_perplexity']:.2f}</title></circle>"
                )
        body.append("</g>")
    body.append(
        f'<text {FONT} font-size="13" fill="#475569" x="{width / 2}" y="{height - 8}" text-anchor="middle">'
        "Neither axis starts at 0. Diamond: mean over seeds; whisker: ±1 sample SD; dots: single runs.</text>"
    )
    canvas = Frame([0, 1], [0, 1], width=width, height=height)
    desc = (
        "Mean test perplexity per model (diamond) with a ±1 sample-standard-deviation whisker over the "
        "seeds and one dot per run; the axes do not start at zero. "
        + "; ".join(
            f"{s['label']}: {s['ppl_mean']:.2f}"
            + (f" ± {s['ppl_sd']:.2f}" if s["ppl_sd"] is not None else "")
            + f" ({s['n_runs']} runs)"
            for s in summary
        )
        + "."
    )
    return _svg(canvas, "chart-test-ppl", "Test perplexity by model, mean ± 1 SD over seeds", desc, body)


def seed_curves(runs: list[dict], labels: dict[str, str], first_shown: int, seed: int) -> str:
    """Validation loss of one seed's runs (one line per model): a ring at the
    selected (best) step and a square at the last step."""
    frame, body, traces = _loss_axes(runs, first_shown, height=420, right=230)
    for r, trace in zip(runs, traces):
        colour = COLOURS[r["kind"]]
        pts = " ".join(f"{frame.x(p['step'])},{frame.y(p['val_loss'])}" for p in trace)
        body.append(
            f'<polyline class="run" data-kind="{r["kind"]}" fill="none" stroke="{colour}" stroke-width="2.5" '
            f'points="{pts}"><title>{escape(labels[r["kind"]])}, seed {seed}</title></polyline>'
        )
        last = trace[-1]
        body.append(
            f'<rect class="last" data-kind="{r["kind"]}" x="{frame.x(last["step"]) - 5}" '
            f'y="{frame.y(last["val_loss"]) - 5}" width="10" height="10" fill="{colour}">'
            f"<title>last step {last['step']}: {last['val_loss']:.3f}</title></rect>"
        )
        for p in trace:
            if p["step"] == r["selected_step"]:
                body.append(
                    f'<circle class="selected" data-kind="{r["kind"]}" cx="{frame.x(p["step"])}" '
                    f'cy="{frame.y(p["val_loss"])}" r="8" fill="white" fill-opacity="0" stroke="{colour}" '
                    f'stroke-width="3"><title>selected step {p["step"]}: {p["val_loss"]:.3f}</title></circle>'
                )
                body.append(
                    f'<text {FONT} font-size="13" fill="{colour}" x="{frame.x(p["step"])}" '
                    f'y="{frame.y(p["val_loss"]) - 13}" text-anchor="middle">best, step {p["step"]}</text>'
                )
    legend, x, y = _model_legend(frame, [r["kind"] for r in runs], labels)
    legend.append(f'<circle cx="{x + 13}" cy="{y + 8}" r="7" fill="white" stroke="#334155" stroke-width="3"/>')
    legend.append(f'<text x="{x + 34}" y="{y + 12}">selected (best) step</text>')
    legend.append(f'<rect x="{x + 8}" y="{y + 28}" width="10" height="10" fill="#334155"/>')
    legend.append(f'<text x="{x + 34}" y="{y + 38}">last step</text></g>')
    body += legend
    desc = (
        f"Validation loss against optimizer step for the seed-{seed} run of each model. "
        + "; ".join(
            f"{labels[r['kind']]}: best {r['val_loss']:.3f} at step {r['selected_step']}, "
            f"last {r['val_trace'][-1]['val_loss']:.3f} at step {r['val_trace'][-1]['step']}"
            for r in runs
        )
        + "."
    )
    return _svg(
        frame, f"chart-seed-{seed}", f"Validation loss of the seed-{seed} runs: best step versus last step", desc, body
    )


def similarity_by_gap(by_gap: list[float], far: int, min_pairs: int) -> str:
    """Mean cosine similarity of two learned position rows against how many
    slots apart they are (1 .. the last distance with at least min_pairs pairs)."""
    gaps = list(range(1, len(by_gap) + 1))
    frame = Frame(
        nice_ticks(0, gaps[-1], 8),
        nice_ticks(min(by_gap + [0.0]), max(by_gap), 4),
        width=1000,
        height=300,
        right=30,
        top=24,
        bottom=52,
    )
    body = frame.axes("slots apart", "mean cosine similarity")
    body.append(
        f'<line x1="{frame.left}" x2="{frame.width - frame.right}" y1="{frame.y(0)}" y2="{frame.y(0)}" '
        f'stroke="#334155" stroke-width="1" stroke-dasharray="4 3"/>'
    )
    pts = " ".join(f"{frame.x(g)},{frame.y(v)}" for g, v in zip(gaps, by_gap))
    body.append(
        f'<polyline class="similarity" fill="none" stroke="{COLOURS["attn4"]}" stroke-width="2.5" points="{pts}"/>'
    )
    body.append(
        f'<circle cx="{frame.x(1)}" cy="{frame.y(by_gap[0])}" r="5" fill="{COLOURS["attn4"]}">'
        f"<title>neighbouring slots: {by_gap[0]:.3f}</title></circle>"
    )
    desc = (
        f"Mean cosine similarity between the learned position rows of two slots, by how many slots apart "
        f"they are. Neighbouring slots: {by_gap[0]:.3f}; {far} slots apart: {by_gap[far - 1]:.3f}; "
        f"{gaps[-1]} slots apart: {by_gap[-1]:.3f}. Distances with fewer than {min_pairs} pairs of slots "
        f"are left out."
    )
    return _svg(frame, "chart-position-similarity", "How alike two learned position rows are, by distance", desc, body)
