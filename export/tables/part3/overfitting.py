"""Overfitting, shown from models/results.json (``part3_overfitting``): the
training and validation loss the seed-11 runs recorded at every evaluation,
one model per panel, with the checkpoint that validation selected."""

from __future__ import annotations

from common.palette import INK_SOFT, MODELS, PAPER
from models.nets import KINDS, LABELS
from models.train import CHECKPOINT_SEED

from ..kit.charts import Frame, label, nice_ticks
from ..kit.draw import PHONE, arranged, chart, element, group, title, wrap_words
from ..kit.registry import table
from ..kit.sources import Sources, unavailable


def panel(frame: Frame, run: dict, trace: list[dict]) -> list[str]:
    """One model: validation loss (solid), training loss (dashed), a ring at
    the selected step."""
    kind, colour = run["kind"], MODELS[run["kind"]]
    out = []
    for key, dash, name in (("val_loss", "", "validation"), ("train_loss", "6 4", "training")):
        pts = " ".join(f"{frame.x(p['step'])},{frame.y(p[key])}" for p in trace)
        out.append(
            element(
                "polyline",
                children=title(f"{LABELS[kind]}: {name} loss"),
                cls=f"{name} run",
                data_kind=kind,
                fill="none",
                stroke=colour,
                stroke_width=2.5,
                stroke_dasharray=dash or None,
                points=pts,
            )
        )
    best = next(p for p in trace if p["step"] == run["selected_step"])
    x, y = frame.x(best["step"]), frame.y(best["val_loss"])
    tip = title(f"selected checkpoint, step {best['step']:,}: validation {best['val_loss']:.3f}")
    out.append(
        element("circle", children=tip, cls="selected", cx=x, cy=y, r=8, fill=PAPER, stroke=colour, stroke_width=3)
    )
    out.append(label(x, y - 14, "best", size=14, fill=colour, text_anchor="middle"))
    out.append(label(frame.left + 8, frame.top - 10, LABELS[kind], size=15, text_anchor="start", font_weight="600"))
    return out


def overfitting_chart(runs: list[dict], traces: list[list[dict]]) -> str:
    ys = [p[k] for t in traces for p in t for k in ("val_loss", "train_loss")]
    steps = [p["step"] for t in traces for p in t]
    yticks = nice_ticks(min(ys), max(ys), 4)
    width, n = 1000, len(runs)
    panels = []
    for i, (run, trace) in enumerate(zip(runs, traces)):
        frame = Frame(nice_ticks(0, max(steps), 3), yticks, width=width // n, height=340, left=58, right=14, top=34)
        body = frame.axes("optimizer step", "loss (nats per token)" if i == 0 else "") + panel(frame, run, trace)
        panels.append(group(body, cls="panel", transform=f"translate({i * (width // n)} 0)"))
    key = group(
        [
            element("line", x1=20, x2=50, y1=356, y2=356, stroke=INK_SOFT, stroke_width=2.5),
            label(58, 361, "validation loss", size=14),
            element("line", x1=220, x2=250, y1=356, y2=356, stroke=INK_SOFT, stroke_width=2.5, stroke_dasharray="6 4"),
            label(258, 361, "training loss (mean of the batches since the previous evaluation)", size=14),
        ],
        cls="key",
    )
    desc = "Training and validation loss of the seed-{} runs, one panel per model. ".format(
        runs[0]["seed"]
    ) + "; ".join(
        f"{LABELS[r['kind']]}: best validation {r['val_loss']:.3f} at step {r['selected_step']:,}, "
        f"last step training {t[-1]['train_loss']:.3f} and validation {t[-1]['val_loss']:.3f}"
        for r, t in zip(runs, traces)
    )
    heading = "Training loss falls; validation loss turns"
    wide = chart("chart-overfitting", width, 372, heading, desc + ".", [*panels, key])
    # a phone's: one model a row, each panel PHONE units wide, the key beneath, its words wrapped
    tall = 340
    rows = []
    for i, (run, trace) in enumerate(zip(runs, traces)):
        frame = Frame(nice_ticks(0, max(steps), 3), yticks, width=PHONE, height=tall, left=58, right=24, top=34)
        body = frame.axes("optimizer step", "loss (nats per token)") + panel(frame, run, trace)
        rows.append(group(body, cls="panel", transform=f"translate(0 {i * tall})"))
    y = n * tall + 20
    parts = [
        element("line", x1=20, x2=50, y1=y, y2=y, stroke=INK_SOFT, stroke_width=2.5),
        label(58, y + 5, "validation loss", size=14),
    ]
    train = wrap_words("training loss (mean of the batches since the previous evaluation)", PHONE - 70)
    y += 26
    parts.append(element("line", x1=20, x2=50, y1=y, y2=y, stroke=INK_SOFT, stroke_width=2.5, stroke_dasharray="6 4"))
    for k, line in enumerate(train):
        parts.append(label(58, y + 5 + 22 * k, line, size=14))
    key_phone = group(parts, cls="key")
    phone = chart("chart-overfitting-phone", PHONE, y + 22 * len(train) + 6, heading, desc + ".", [*rows, key_phone])
    return arranged(wide, phone)


def overfitting(results: dict | None, seed: int = CHECKPOINT_SEED) -> dict:
    if results is None or not results.get("runs"):
        return unavailable("models/results.json has no finished run yet.")
    runs = sorted((r for r in results["runs"] if r["seed"] == seed), key=lambda r: KINDS.index(r["kind"]))
    if not runs:
        return unavailable(f"models/results.json has no seed-{seed} run yet.")
    steps = sorted({p["step"] for r in runs for p in r["val_trace"]})
    first = steps[1] if len(steps) > 1 else steps[0]  # step 1's untrained loss would flatten the chart
    traces = [[p for p in r["val_trace"] if p["step"] >= first] for r in runs]
    by_kind = {}
    for r in runs:
        best = next(p for p in r["val_trace"] if p["step"] == r["selected_step"])
        last = r["val_trace"][-1]
        by_kind[r["kind"]] = {
            "label": LABELS[r["kind"]],
            "selected_step": r["selected_step"],
            "last_step": last["step"],
            "best_train": best["train_loss"],
            "best_val": best["val_loss"],
            "last_train": last["train_loss"],
            "last_val": last["val_loss"],
            "last_gap": last["val_loss"] - last["train_loss"],
            "val_rise": last["val_loss"] - best["val_loss"],
        }
    return {
        "available": True,
        "seed": seed,
        "first_shown_step": first,
        "by_kind": by_kind,
        "svg": overfitting_chart(runs, traces),
        "header": [
            "model",
            "selected step",
            "training loss there",
            "validation loss there",
            "last step",
            "training loss",
            "validation loss",
        ],
        "rows": [
            [
                v["label"],
                v["selected_step"],
                v["best_train"],
                v["best_val"],
                v["last_step"],
                v["last_train"],
                v["last_val"],
            ]
            for v in by_kind.values()
        ],
    }


@table("part3_overfitting", needs=["sources"])
def overfitting_table(sources: Sources) -> dict:
    return overfitting(sources.results())
