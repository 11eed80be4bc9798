"""Training replayed from the training trace (models/training_trace.json,
models/trace.py) for Part III (``part3_replay``): how the final query of the
river "bank" sentence spreads its attention over the sentence's tokens at a
few steps of training, in the one-head model and in each of the four heads,
and how the three models' top predictions for the next token change.

Every value is read from the trace: the weights and probabilities the seed-11
runs recorded at those steps (the point at each run's selected step is what
the committed checkpoint computes, tests/test_trace.py)."""

from __future__ import annotations

import torch

from common.palette import MUTED
from models.nets import KINDS, LABELS
from models.tokenizer import BOS_ID

from ..kit.cells import MEANINGS, cells, legend
from ..kit.draw import MIN_TEXT, PHONE, Drawing, arranged, text_width
from ..kit.heads import head_colour
from ..kit.registry import table
from ..kit.scales import scale
from ..kit.sources import Sources, file_absent
from .habits import habits_figure

PROBE = "river"  # models/probes.py: "The children sat on the river bank and watched the"
STEPS = (0, 10, 50, 100, 400, 1500)  # shown besides each run's selected step
HEAD_STEPS = (0, 400)  # the four-head panels: fewer rows, besides the selected step
TOP = 3  # predictions listed per model and step


def token_text(vocab, i: int) -> str:
    return "BOS" if i == BOS_ID else vocab.itos[i]


def rows_at(points: list[dict], steps) -> list[dict]:
    return [p for p in points if p["step"] in steps]


def weight_figure(
    ident: str, heading: str, words: list[str], panels: list[tuple[str, list[str], list]], numbers: bool = True
) -> str:
    """Panels of cells, two to a line: a row per step (the final query's
    weights over the sentence's tokens), the tokens above, one panel per
    head. Without ``numbers`` the cells are narrower and carry only their
    colour (the values are in the description); such a figure is drawn a
    second time for a phone (kit/draw.py ``arranged``): one head per row,
    its cells as narrow as PHONE units need."""
    wide = _weight_figure(ident, heading, words, panels, numbers)
    if numbers and len(panels) == 1:  # a phone gets the panel on its side: a row per token, a column per step
        return arranged(wide.render(), _on_its_side(f"{ident}-phone", heading, words, panels[0], wide.desc))
    if numbers:
        return wide.render()
    return arranged(wide.render(), _weight_figure(f"{ident}-phone", heading, words, panels, numbers, phone=True))


def _on_its_side(ident, heading, words, panel, desc) -> Drawing:
    """One panel of ``weight_figure`` turned for a phone: the same cells and
    values, a row per token and a column per step (its labels slanted)."""
    name, labels, rows = panel
    columns = [[row[j] for row in rows] for j in range(len(words))]
    cell_w, cell_h = 40, 30
    label_w = max(text_width(w, MIN_TEXT) for w in words) + 16
    top = 30 + max(text_width(lab, MIN_TEXT) for lab in labels) * 0.65 + 16
    width = label_w + cell_w * len(labels) + 36  # the last step's slanted label reaches right
    height = top + cell_h * len(words) + 60
    d = Drawing(width, height, ident, heading, desc)
    d.text(label_w, 22, name, size=MIN_TEXT, anchor="start", weight="600", fill=head_colour(0))
    d.text(label_w - 8, top - 10, "step", size=MIN_TEXT, anchor="end", fill=MUTED)
    cells(
        d,
        label_w,
        top,
        columns,
        "weight",
        cell_w=cell_w,
        cell_h=cell_h,
        row_labels=words,
        col_labels=labels,
        rotate_cols=True,
    )
    legend(d, label_w, height - 38, "weight", width=min(240, width - label_w - 150))
    return d


def _weight_figure(ident, heading, words, panels, numbers, phone=False) -> Drawing:
    cell_w, cell_h = (50, 34) if numbers else (36, 30)
    label_w = max(text_width(lab, MIN_TEXT) for _, labels, _ in panels for lab in [*labels, "step"]) + 40
    columns = 1 if len(panels) == 1 or phone else 2
    if phone:
        cell_w = min(cell_w, max(22.0, (PHONE - label_w - 24) // len(words)))
    panel_w = label_w + cell_w * len(words) + 24
    n_rows = max(len(rows) for _, _, rows in panels)
    top = 30 + max(text_width(w, MIN_TEXT) for w in words) * 0.65 + 16  # the name, then the slanted tokens
    panel_h = top + cell_h * n_rows + 14
    n_lines = -(-len(panels) // columns)
    width, height = panel_w * columns, panel_h * n_lines + 50
    parts = []
    for name, labels, rows in panels:
        parts.append(
            f"{name}: "
            + "; ".join(
                f"step {lab}: " + ", ".join(f"{w} {v:.2f}" for w, v in zip(words, row))
                for lab, row in zip(labels, rows)
            )
        )
    d = Drawing(width, height, ident, heading, ". ".join(parts) + ".")
    for k, (name, labels, rows) in enumerate(panels):
        px, py = (k % columns) * panel_w, (k // columns) * panel_h
        d.text(px + label_w, py + 22, name, size=MIN_TEXT, anchor="start", weight="600", fill=head_colour(k))
        d.text(px + label_w - 8, py + top - 10, "step", size=MIN_TEXT, anchor="end", fill=MUTED)
        cells(
            d,
            px + label_w,
            py + top,
            rows,
            "weight",
            fmt=None if numbers else (lambda v: ""),
            cell_w=cell_w,
            cell_h=cell_h,
            row_labels=labels,
            col_labels=words,
            rotate_cols=True,
        )
    named = text_width(MEANINGS[scale("weight").meaning].name, MIN_TEXT) * 1.2  # the name right of the legend
    legend(d, label_w, height - 38, "weight", width=min(240, PHONE - label_w - 24 - named) if phone else 240)
    return d


def replay(trace: dict, vocab) -> dict:
    probes = [p["name"] for p in trace["probes"]]
    i = probes.index(PROBE)
    ids = trace["probes"][i]["ids"]
    n = len(ids)  # the window's last n slots hold the sentence (BOS first); the rest is PAD
    words = [token_text(vocab, t) for t in ids]
    runs = trace["runs"]
    selected = {k: runs[k]["selected_step"] for k in KINDS}

    def attention(kind: str, steps) -> tuple[list[str], list[list[list[float]]]]:
        pts = rows_at(runs[kind]["points"], set(steps) | {selected[kind]})
        labels = [f"{p['step']:,}" + (" ★" if p["step"] == selected[kind] else "") for p in pts]
        return labels, [[head[-n:] for head in p["attention"][i]] for p in pts], [p["step"] for p in pts]

    one_labels, one, one_steps = attention("attn1", STEPS)
    four_labels, four, four_steps = attention("attn4", HEAD_STEPS)
    one_rows = [row[0] for row in one]
    heads = len(four[0])

    def largest(row: list[float]) -> dict:
        j = max(range(n), key=lambda k: row[k])
        return {"token": words[j], "weight": row[j]}

    one_largest = [dict(step=s, **largest(r)) for s, r in zip(one_steps, one_rows)]
    # every recorded step up to the kept one (the figure shows only a few): each
    # head's favourite source, run-length coded, so a slide can say when it changed
    all_pts = [p for p in runs["attn4"]["points"] if p["step"] <= selected["attn4"]]
    trails, strips = [], []
    for h in range(len(all_pts[0]["attention"][i])):
        trail: list[dict] = []
        rows_h = [(p["step"], p["attention"][i][h][-n:]) for p in all_pts]
        strips.append([dict(step=st, slot=max(range(n), key=lambda k: r[k]), **largest(r)) for st, r in rows_h])
        for p in all_pts:
            fav = largest(p["attention"][i][h][-n:])["token"]
            if trail and trail[-1]["token"] == fav:
                trail[-1]["last"] = p["step"]
            else:
                trail.append({"token": fav, "first": p["step"], "last": p["step"]})
        trails.append({"head": h + 1, "trail": trail, "changes": len(trail) - 1, "last_change": trail[-1]["first"]})
    head_largest = [[dict(step=s, **largest(r[h])) for s, r in zip(four_steps, four)] for h in range(heads)]

    def top(p: dict) -> str:
        return ", ".join(f"“{token_text(vocab, t)}” {q * 100:.1f}%" for t, q in p["top10"][i][:TOP])

    steps = sorted(set(STEPS) | set(selected.values()))
    by_step = {k: {p["step"]: p for p in runs[k]["points"]} for k in KINDS}
    pred_rows = [[s] + [top(by_step[k][s]) + (" ★" if selected[k] == s else "") for k in KINDS] for s in steps]
    first = {k: by_step[k][0]["top10"][i][0] for k in KINDS}
    best = {k: by_step[k][selected[k]]["top10"][i][0] for k in KINDS}
    return {
        "available": True,
        "probe": PROBE,
        "text": trace["probes"][i]["text"],
        "tokens": words,
        "query": words[-1],
        "points_per_model": len(runs["attn1"]["points"]),
        "steps": steps,
        "selected": selected,
        "one_head": {"steps": one_steps, "rows": one_rows, "largest": one_largest},
        "four_heads": {
            "steps": four_steps,
            "largest": head_largest,
            "recorded_steps": [p["step"] for p in all_pts],
            "favourites": trails,
            "strips": strips,
        },
        "heads_selected": [dict(head=h + 1, **largest[-1]) for h, largest in enumerate(head_largest)],
        "one_first": one_largest[0],
        "one_selected": one_largest[-1],
        "uniform": 1 / n,
        "top_first": {k: {"token": token_text(vocab, t), "p": q, "percent": q * 100} for k, (t, q) in first.items()},
        "top_selected": {k: {"token": token_text(vocab, t), "p": q, "percent": q * 100} for k, (t, q) in best.items()},
        "svg_one": weight_figure(
            "part3-replay-one",
            f"One head: the final {words[-1]!r} attends across training",
            words,
            [(LABELS["attn1"], one_labels, one_rows)],
        ),
        "svg_four": habits_figure(
            "part3-replay-four",
            f"Four heads: the final {words[-1]!r} across training",
            words,
            [p["step"] for p in all_pts],
            strips,
            [largest[-1] for largest in head_largest],
            1 / n,
        ),
        "header": ["step", *(LABELS[k] for k in KINDS)],
        "rows": pred_rows,
    }


@table("part3_replay", needs=["sources"])
def replay_table(sources: Sources) -> dict:
    trace, vocab = sources.trace(), sources.vocab()
    if trace is None:
        return file_absent(sources.folder.trace)
    if vocab is None:
        return file_absent(sources.folder.vocab)
    out = replay(trace, vocab)
    out["entropy"] = checkpoint_entropy(sources, out["text"])
    return out


def checkpoint_entropy(sources: Sources, text: str) -> dict:
    """How spread out each kept checkpoint's next-token distribution is after
    the probe text: entropy in nats (ln C for a uniform guess), from the
    committed seed-11 checkpoints (the trace's point at the kept step)."""
    out = {}
    for kind in KINDS:
        ctx, missing = sources.prompt_context(kind, text)
        if ctx is None:
            return missing
        with torch.inference_mode():
            p = torch.softmax(ctx["model"](ctx["X"]).double()[0], -1)
        out[kind] = float(-(p * p.clamp_min(1e-300).log()).sum())
    out["available"] = True
    return out
