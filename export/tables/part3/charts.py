"""The Part III charts: validation loss of the seed-11 runs (best step versus
last) and how alike two learned position rows are, by distance. Drawn with
kit/charts.py and kit/draw.py."""

from __future__ import annotations

from common.palette import INK_SOFT, MODELS, PAPER

from ..kit.charts import Frame, label, legend, loss_axes, nice_ticks, phone_top, points
from ..kit.draw import PHONE, arranged, chart, element, title


def seed_curves_chart(runs: list[dict], labels: dict[str, str], first_shown: int, seed: int) -> str:
    """Validation loss of one seed's runs (one line per model): a ring at the
    selected (best) step and a square at the last step. For a phone
    (kit/draw.py ``arranged``) the same lines PHONE units wide, the legend above."""
    wide = _seed_curves(runs, labels, first_shown, seed, phone=False)
    return arranged(wide, _seed_curves(runs, labels, first_shown, seed, phone=True))


def _seed_curves(runs: list[dict], labels: dict[str, str], first_shown: int, seed: int, phone: bool) -> str:
    if phone:
        top = phone_top(len(runs) + 2)
        frame, body, traces = loss_axes(runs, first_shown, height=420 + top, right=30, width=PHONE, top=top)
    else:
        frame, body, traces = loss_axes(runs, first_shown, height=420, right=230)
    for r, trace in zip(runs, traces):
        kind, colour = r["kind"], MODELS[r["kind"]]
        body.append(
            element(
                "polyline",
                children=title(f"{labels[kind]}, seed {seed}"),
                cls="run",
                data_kind=kind,
                fill="none",
                stroke=colour,
                stroke_width=2.5,
                points=points(frame, trace),
            )
        )
        last = trace[-1]
        body.append(
            element(
                "rect",
                children=title(f"last step {last['step']:,}: {last['val_loss']:.3f}"),
                cls="last",
                data_kind=kind,
                x=frame.x(last["step"]) - 5,
                y=frame.y(last["val_loss"]) - 5,
                width=10,
                height=10,
                fill=colour,
            )
        )
        for p in trace:
            if p["step"] == r["selected_step"]:
                x, y = frame.x(p["step"]), frame.y(p["val_loss"])
                tip = title(f"selected step {p['step']:,}: {p['val_loss']:.3f}")
                body.append(
                    element(
                        "circle",
                        children=tip,
                        cls="selected",
                        data_kind=kind,
                        cx=x,
                        cy=y,
                        r=8,
                        fill=PAPER,
                        fill_opacity=0,
                        stroke=colour,
                        stroke_width=3,
                    )
                )
                best = f"best, step {p['step']:,}"
                if phone:  # beside its ring, on its left: two rings a step apart keep their labels apart
                    body.append(label(x - 12, y + 6, best, size=13, fill=colour, text_anchor="end"))
                else:
                    body.append(label(x, y - 13, best, size=13, fill=colour, text_anchor="middle"))

    def marks(x, y):
        return [
            element("circle", cx=x + 13, cy=y + 8, r=7, fill=PAPER, stroke=INK_SOFT, stroke_width=3),
            element("text", "selected (best) step", x=x + 34, y=y + 12),
            element("rect", x=x + 8, y=y + 28, width=10, height=10, fill=INK_SOFT),
            element("text", "last step", x=x + 34, y=y + 38),
        ]

    body.append(legend(frame, [r["kind"] for r in runs], labels, marks, at=(frame.left, 20) if phone else None))
    desc = (
        f"Validation loss against optimizer step for the seed-{seed} run of each model. "
        + "; ".join(
            f"{labels[r['kind']]}: best {r['val_loss']:.3f} at step {r['selected_step']:,}, "
            f"last {r['val_trace'][-1]['val_loss']:.3f} at step {r['val_trace'][-1]['step']:,}"
            for r in runs
        )
        + "."
    )
    heading = f"Validation loss of the seed-{seed} runs: best step versus last step"
    return chart(f"chart-seed-{seed}" + ("-phone" if phone else ""), frame.width, frame.height, heading, desc, body)


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
    colour = MODELS["attn4"]  # the four-head model's position table
    body = frame.axes("slots apart", "mean cosine similarity")
    zero = frame.y(0)
    body.append(
        element(
            "line",
            x1=frame.left,
            x2=frame.width - frame.right,
            y1=zero,
            y2=zero,
            stroke=INK_SOFT,
            stroke_width=1,
            stroke_dasharray="4 3",
        )
    )
    pts = " ".join(f"{frame.x(g)},{frame.y(v)}" for g, v in zip(gaps, by_gap))
    body.append(element("polyline", cls="similarity", fill="none", stroke=colour, stroke_width=2.5, points=pts))
    tip = title(f"neighbouring slots: {by_gap[0]:.3f}")
    body.append(element("circle", children=tip, cx=frame.x(1), cy=frame.y(by_gap[0]), r=5, fill=colour))
    desc = (
        f"Mean cosine similarity between the learned position rows of two slots, by how many slots apart "
        f"they are. Neighbouring slots: {by_gap[0]:.3f}; {far} slots apart: {by_gap[far - 1]:.3f}; "
        f"{gaps[-1]} slots apart: {by_gap[-1]:.3f}. Distances with fewer than {min_pairs} pairs of slots "
        f"are left out."
    )
    heading = "How alike two learned position rows are, by distance"
    return chart("chart-position-similarity", frame.width, frame.height, heading, desc, body)
