"""The measured experiment's charts (table ``results_charts``): validation
loss of every run (colour = model, dash = seed) and test perplexity per model
with ±1 SD whiskers, each beside the data table the deck shows with it. Drawn
with kit/charts.py and kit/draw.py."""

from __future__ import annotations

from common.palette import INK, INK_SOFT, MODELS, MUTED, PAPER
from models.nets import KINDS, LABELS

from ..kit.charts import DASHES, Frame, label, legend, loss_axes, nice_ticks, phone_top, points
from ..kit.draw import FIGURE_FONT, PHONE, arranged, chart, element, group, title, wrap_words
from ..kit.registry import table
from ..kit.sources import Sources, file_absent
from .measured import NOT_YET, finished

SHORT = {"mlp": "fixed-window MLP", "attn1": "one head", "attn4": "four heads"}
# a phone's panel is too narrow for three such names side by side: the MLP is named as in the lab's views
PHONE_SHORT = {**SHORT, "mlp": "MLP"}


@table("results_charts", needs=["sources", "results_summary"])
def charts_table(sources: Sources, results_summary: dict) -> dict:
    results = finished(sources)
    return file_absent(sources.folder.results) if results is None else charts(results, results_summary)


def charts(results: dict, summary_table: dict) -> dict:
    runs = sorted(results["runs"], key=lambda r: (KINDS.index(r["kind"]), r["seed"]))
    if not runs:
        return {"available": False, "reason": "models/results.json has no finished run yet."}
    steps = sorted({p["step"] for r in runs for p in r["val_trace"]})
    first_shown = steps[1] if len(steps) > 1 else steps[0]
    hidden_start = [
        [LABELS[r["kind"]], r["seed"], p["step"], f"{p['val_loss']:.3f}"]
        for r in runs
        for p in r["val_trace"]
        if p["step"] < first_shown
    ]
    curve_header = ["model", "seed"] + steps  # numbers: the site writes them as it writes every number (1,500)
    curve_rows = []
    for r in runs:
        by_step = {p["step"]: p["val_loss"] for p in r["val_trace"]}
        curve_rows.append(
            [LABELS[r["kind"]], r["seed"]] + [f"{by_step[s]:.3f}" if s in by_step else "—" for s in steps]
        )
    kinds = [e for e in summary_table["kinds"] if e["available"]]
    return {
        "available": True,
        "n_curves": len(runs),
        "first_shown_step": first_shown,
        "hidden_start": hidden_start,
        "start_step": steps[0] if first_shown != steps[0] else None,
        "start_values": ", ".join(row[3] for row in hidden_start),
        "val_curves_svg": validation_curves(runs, LABELS, first_shown),
        "val_curves_table": {"header": curve_header, "rows": curve_rows},
        "ppl_svg": perplexity_dots(kinds, runs),
        "ppl_table": {
            "header": ["model", "runs"] + ["seed " + str(s) for s in summary_table["seeds"]] + ["mean", "SD"],
            "rows": [
                [e["label"], e["n_runs"]]
                + [
                    next(
                        (f"{r['test_perplexity']:.2f}" for r in runs if r["kind"] == e["kind"] and r["seed"] == s),
                        NOT_YET,
                    )
                    for s in summary_table["seeds"]
                ]
                + [f"{e['ppl_mean']:.2f}", "—" if e["ppl_sd"] is None else f"{e['ppl_sd']:.2f}"]
                for e in kinds
            ],
        },
        "n_bars": len(kinds),
    }


def validation_curves(runs: list[dict], labels: dict[str, str], first_shown: int) -> str:
    """One polyline per run (colour = model, dash = seed), from the trace point
    at step ``first_shown`` on; a ring marks each run's selected step. For a
    phone (kit/draw.py ``arranged``) the same lines PHONE units wide, the legend above."""
    wide = _validation_curves(runs, labels, first_shown, phone=False)
    return arranged(wide, _validation_curves(runs, labels, first_shown, phone=True))


def _validation_curves(runs: list[dict], labels: dict[str, str], first_shown: int, phone: bool) -> str:
    seeds = sorted({r["seed"] for r in runs})
    kinds = [k for k in MODELS if any(r["kind"] == k for r in runs)]
    if phone:
        top = phone_top(len(kinds) + len(seeds) + 1)
        frame, body, traces = loss_axes(runs, first_shown, height=480 + top, right=30, width=PHONE, top=top)
    else:
        frame, body, traces = loss_axes(runs, first_shown, height=480, right=220)
    for r, trace in zip(runs, traces):
        kind, colour = r["kind"], MODELS[r["kind"]]
        name = f"{labels[kind]}, seed {r['seed']}"
        body.append(
            element(
                "polyline",
                children=title(name),
                cls="run",
                data_kind=kind,
                data_seed=r["seed"],
                fill="none",
                stroke=colour,
                stroke_width=2,
                stroke_dasharray=DASHES.get(seeds.index(r["seed"]) % 3, ""),
                points=points(frame, trace),
            )
        )
        for p in (p for p in trace if p["step"] == r["selected_step"]):
            tip = title(f"{name}: selected step {p['step']:,}")
            body.append(
                element(
                    "circle",
                    children=tip,
                    cls="selected",
                    cx=frame.x(p["step"]),
                    cy=frame.y(p["val_loss"]),
                    r=5,
                    fill=PAPER,
                    stroke=colour,
                    stroke_width=2,
                )
            )

    def seed_marks(x, y):
        y += 8
        out = []
        for i, s in enumerate(seeds):
            dash = DASHES.get(i % 3, "")
            out.append(
                element("line", x1=x, x2=x + 26, y1=y, y2=y, stroke=INK_SOFT, stroke_width=2, stroke_dasharray=dash)
            )
            out.append(element("text", f"seed {s}", x=x + 34, y=y + 4))
            y += 22
        out.append(element("circle", cx=x + 13, cy=y + 6, r=5, fill=PAPER, stroke=INK_SOFT, stroke_width=2))
        out.append(element("text", "selected step", x=x + 34, y=y + 10))
        return out

    body.append(legend(frame, kinds, labels, seed_marks, at=(frame.left, 20) if phone else None))
    desc = (
        "Validation loss against optimizer step for each of the runs. "
        + "; ".join(
            f"{labels[r['kind']]} seed {r['seed']}: selected step {r['selected_step']:,}, "
            f"best validation loss {r['val_loss']:.3f}"
            for r in runs
        )
        + "."
    )
    ident = "chart-val-curves" + ("-phone" if phone else "")
    return chart(ident, frame.width, frame.height, "Validation loss of every training run", desc, body)


def _panel_ticks(values: list[float], pad: float = 0.08) -> list[float]:
    """Round ticks around the values, not from zero, with a little room."""
    lo, hi = min(values), max(values)
    span = max(hi - lo, 1e-9)
    return nice_ticks(lo - pad * span, hi + pad * span, 4)


def _bold(x, y, s, size) -> str:
    return element(
        "text", s, font_family=FIGURE_FONT, font_size=size, font_weight="600", fill=INK, x=x, y=y, text_anchor="middle"
    )


def _model_marks(frame: Frame, x: float, s: dict, runs: list[dict]) -> list[str]:
    """One model in a panel: its ±1 SD whisker, the mean as a diamond with its
    value above, and a dot per run."""
    out = []
    colour = MODELS[s["kind"]]
    sd_text = f" ± {s['ppl_sd']:.2f}" if s["ppl_sd"] is not None else ""
    if s["ppl_sd"] is not None:
        lo, hi = frame.y(s["ppl_mean"] - s["ppl_sd"]), frame.y(s["ppl_mean"] + s["ppl_sd"])
        whisker = [
            element("line", x1=x, x2=x, y1=lo, y2=hi),
            element("line", x1=x - 10, x2=x + 10, y1=lo, y2=lo),
            element("line", x1=x - 10, x2=x + 10, y1=hi, y2=hi),
        ]
        out.append(
            group(whisker, cls="sd", data_kind=s["kind"], data_length=round(lo - hi, 2), stroke=INK, stroke_width=2)
        )
    ym = frame.y(s["ppl_mean"])
    runs_text = f"{s['n_runs']} {'run' if s['n_runs'] == 1 else 'runs'}"
    tip = title(f"{s['label']}: mean {s['ppl_mean']:.2f}{sd_text} (1 SD) over {runs_text}")
    diamond = f"M{x},{ym - 9} L{x + 9},{ym} L{x},{ym + 9} L{x - 9},{ym} z"
    out.append(element("path", children=tip, cls="mean", data_kind=s["kind"], d=diamond, fill=colour, stroke=INK))
    out.append(_bold(x, frame.y(s["ppl_mean"] + (s["ppl_sd"] or 0)) - 12, f"{s['ppl_mean']:.2f}{sd_text}", 14))
    for j, r in enumerate(r for r in runs if r["kind"] == s["kind"]):
        out.append(
            element(
                "circle",
                children=title(f"seed {r['seed']}: {r['test_perplexity']:.2f}"),
                cls="run-dot",
                data_kind=s["kind"],
                cx=round(x + 24 + 12 * j, 2),
                cy=frame.y(r["test_perplexity"]),
                r=4.5,
                fill=colour,
                stroke=INK,
            )
        )
    return out


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
    note = "Neither axis starts at 0. Diamond: mean over seeds; whisker: ±1 sample SD; dots: single runs."
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
    heading = "Test perplexity by model, mean ± 1 SD over seeds"
    # a phone's: the panels one under the other, each PHONE units wide, the note wrapped beneath
    lines = wrap_words(note)
    tall = height - 20
    phone: list[str] = []
    for k, (name, items, _, _) in enumerate(panels):
        phone.append(_ppl_panel(name, items, runs, extent, PHONE, tall, f"translate(0 {k * tall})", PHONE_SHORT))
    for k, line in enumerate(lines):
        y = len(panels) * tall + 16 + k * 22
        phone.append(label(PHONE / 2, y, line, size=13, fill=MUTED, text_anchor="middle"))
    phone_h = len(panels) * tall + 16 + 22 * len(lines)
    phone_svg = chart("chart-test-ppl-phone", PHONE, phone_h, heading, desc, phone)
    body: list[str] = []
    for name, items, x0, x1 in panels:
        body.append(_ppl_panel(name, items, runs, extent, x1 - x0 + 64 + 10, height, f"translate({x0 - 64} 0)"))
    body.append(label(width / 2, height - 8, note, size=13, fill=MUTED, text_anchor="middle"))
    return arranged(chart("chart-test-ppl", width, height, heading, desc, body), phone_svg)


def _ppl_panel(name, items, runs, extent, width, height, transform, names=SHORT) -> str:
    """One panel of ``perplexity_dots``: its models' marks on their own axis."""
    frame = Frame(
        [0, 1],
        _panel_ticks(extent(items)),
        width=width,
        height=height,
        left=64,
        right=10,
        top=44,
        bottom=66,
    )
    centres = [(i + 0.5) / len(items) for i in range(len(items))]
    ticks = [(c, names.get(s["kind"], s["label"])) for c, s in zip(centres, items)]
    panel = frame.axes("", "test perplexity (lower is better)", xtick_labels=ticks)
    panel.append(_bold((frame.left + frame.width - frame.right) / 2, 24, name, 15))
    for c, s in zip(centres, items):
        panel += _model_marks(frame, frame.x(c), s, runs)
    return group(panel, cls="panel", data_panel=name, transform=transform)
