"""The Part III charts: validation loss of the seed-11 runs (best step versus
last) and how alike two learned position rows are, by distance. Drawn with
kit/charts.py and kit/draw.py."""

from __future__ import annotations

from common.palette import INK, INK_SOFT, MODELS, PAPER

from ..kit.charts import Frame, label, nice_ticks, points
from ..kit.draw import PHONE, arranged, chart, element, group, text_width, title


def seed_curves_chart(runs: list[dict], labels: dict[str, str], first_shown: int, seed: int, plateau: float) -> str:
    """Validation loss of one seed's runs drawn as small multiples, one panel per
    model on one shared loss axis: the model's curve, a dot at its selected
    (lowest-validation) step labelled with its loss, a square at the last step,
    and a bracket at the last step from the best level up to the last loss,
    labelled with the rise in nats (under ``plateau`` nats: called a plateau).
    For a phone (kit/draw.py ``arranged``) the same panels one per row."""
    wide = _seed_curves(runs, labels, first_shown, seed, plateau, phone=False)
    return arranged(wide, _seed_curves(runs, labels, first_shown, seed, plateau, phone=True))


SEED_PANEL_W, SEED_PANEL_H = 393, 360  # a wide panel (three make 1,179 units); a phone's is PHONE wide
SEED_RIGHT = 128  # right of the plot: the bracket and its label (on a phone, set in narrower lines)
SEED_RIGHT_PHONE = 104


def _seed_curves(
    runs: list[dict], labels: dict[str, str], first_shown: int, seed: int, plateau: float, phone: bool
) -> str:
    traces = [[p for p in r["val_trace"] if p["step"] >= first_shown] for r in runs]
    xs = [p["step"] for t in traces for p in t]
    ys = [p["val_loss"] for t in traces for p in t]
    # one loss axis for every panel, with room under the lowest curve for its best label
    yticks = nice_ticks(min(ys) - 0.12 * (max(ys) - min(ys)) - 0.1, max(ys), 6)
    xticks = nice_ticks(0, max(xs), 3)
    pw = PHONE if phone else SEED_PANEL_W
    ph = 262 if phone else SEED_PANEL_H
    body: list[str] = []
    for i, (r, trace) in enumerate(zip(runs, traces)):
        kind, colour = r["kind"], MODELS[r["kind"]]
        left, right = (70, SEED_RIGHT_PHONE) if phone else (70 if i == 0 else 48, SEED_RIGHT)
        frame = Frame(xticks, yticks, width=pw, height=ph, left=left, right=right, top=44, bottom=48)
        parts = frame.axes("optimizer step", "validation loss (nats)")
        if i and not phone:  # one loss axis: its title on the first panel only
            parts.pop()
        parts.append(label(frame.left, 24, labels[kind], size=18, fill=colour, font_weight="bold"))
        parts.append(
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
        best = next(p for p in trace if p["step"] == r["selected_step"])
        last = trace[-1]
        bx, by = frame.x(best["step"]), frame.y(best["val_loss"])
        lx, ly = frame.x(last["step"]), frame.y(last["val_loss"])
        rise = last["val_loss"] - best["val_loss"]
        # the best level carried to the last step, then the bracket from it to the last loss
        kx = lx + 14
        parts.append(
            element(
                "line",
                cls="best-level",
                x1=bx,
                x2=kx,
                y1=by,
                y2=by,
                stroke=colour,
                stroke_width=1.5,
                stroke_dasharray="5 4",
            )
        )
        parts.append(
            element(
                "path",
                children=title(f"last minus best: {rise:.3f} nats"),
                cls="gap",
                data_kind=kind,
                data_rise=f"{rise:.6f}",
                d=f"M{kx - 5},{by} H{kx} V{ly} H{kx - 5}",
                fill="none",
                stroke=INK,
                stroke_width=2,
            )
        )
        gap = ([f"+{rise:.3f}", "nats"] if phone else [f"+{rise:.3f} nats"]) + (["a plateau"] if rise < plateau else [])
        top = (by + ly) / 2 + 6 - 11 * (len(gap) - 1) if phone else (by + ly) / 2 + 6
        for k, line in enumerate(gap):
            parts.append(label(kx + 8, top + 22 * k, line, size=18, fill=INK, cls="gap-label"))
        parts.append(
            element(
                "rect",
                children=title(f"last step {last['step']:,}: {last['val_loss']:.3f}"),
                cls="last",
                data_kind=kind,
                data_step=last["step"],
                data_loss=f"{last['val_loss']:.6f}",
                x=lx - 6,
                y=ly - 6,
                width=12,
                height=12,
                fill=colour,
            )
        )
        parts.append(label(lx + 4, ly - 14, f"last {last['val_loss']:.3f}", size=18, fill=colour, text_anchor="end"))
        parts.append(
            element(
                "circle",
                children=title(f"selected step {best['step']:,}: {best['val_loss']:.3f}"),
                cls="selected",
                data_kind=kind,
                data_step=best["step"],
                data_loss=f"{best['val_loss']:.6f}",
                cx=bx,
                cy=by,
                r=7,
                fill=colour,
                stroke=PAPER,
                stroke_width=2,
            )
        )
        # the best's label under its dot (no curve runs below its lowest point)
        lines = [f"best {best['val_loss']:.3f}", f"at step {best['step']:,}"]
        if phone:  # one line: a phone's panel is short
            lines = [" ".join(lines)]
        half = max(text_width(t, 18) for t in lines) / 2
        if bx - frame.left > half and lx - bx > half:
            anchor, at = "middle", bx
        else:
            anchor, at = ("end", bx + 10) if lx - bx <= half else ("start", bx - 10)
        for k, line in enumerate(lines):
            parts.append(label(at, by + 28 + 22 * k, line, size=18, fill=colour, text_anchor=anchor, cls="best-label"))
        dx, dy = (0, i * ph) if phone else (i * pw, 0)
        body.append(group(parts, cls="panel", data_kind=kind, transform=f"translate({dx} {dy})"))
    width, height = (pw, ph * len(runs)) if phone else (pw * len(runs), ph)
    desc = (
        f"Validation loss against optimizer step for the seed-{seed} run of each model, one panel per model "
        "on one loss axis. "
        + "; ".join(
            f"{labels[r['kind']]}: best {r['val_loss']:.3f} at step {r['selected_step']:,}, "
            f"last {r['val_trace'][-1]['val_loss']:.3f} at step {r['val_trace'][-1]['step']:,}, "
            f"{r['val_trace'][-1]['val_loss'] - r['val_loss']:.3f} nats higher"
            for r in runs
        )
        + "."
    )
    heading = f"Validation loss of the seed-{seed} runs: best step versus last step"
    return chart(f"chart-seed-{seed}" + ("-phone" if phone else ""), width, height, heading, desc, body)


def similarity_by_gap(by_gap: list[float], far: int, min_pairs: int) -> str:
    """Mean cosine similarity of two learned position rows against how many
    slots apart they are (1 .. the last distance with at least min_pairs pairs).
    For a phone (kit/draw.py ``arranged``) the same line PHONE units wide, its
    distance axis with fewer ticks."""
    wide = _similarity(by_gap, far, min_pairs, phone=False)
    return arranged(wide, _similarity(by_gap, far, min_pairs, phone=True))


SIMILARITY_PHONE_H = 300  # a phone's plot: as tall as the wide one, on a third of its width


def _similarity(by_gap: list[float], far: int, min_pairs: int, phone: bool) -> str:
    gaps = list(range(1, len(by_gap) + 1))
    frame = Frame(
        nice_ticks(0, gaps[-1], 3 if phone else 8),
        nice_ticks(min(by_gap + [0.0]), max(by_gap), 4),
        width=PHONE if phone else 1000,
        height=SIMILARITY_PHONE_H if phone else 300,
        right=20 if phone else 30,
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
    return chart(
        "chart-position-similarity" + ("-phone" if phone else ""), frame.width, frame.height, heading, desc, body
    )
