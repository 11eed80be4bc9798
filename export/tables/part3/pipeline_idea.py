"""Part III "TinyStories: from stories to batches" drawn as the idea (issue 35
item 2): the stories, their split by a hash of the text into three bars as
long as their story counts, the vocabulary fitted from the training bar
alone, a story's token IDs with the windows that end at its tokens, and a
batch of windows drawn at random for each step. Every count comes from the
corpus audit (models/corpus_audit.json) and the run settings.

Wide: the five stages left to right, each a picture with its counts under
it. Phone (kit/draw.py ``arranged``): the stages one under the other, each
picture with its counts beside it."""

from __future__ import annotations

from dataclasses import dataclass, field

from common.palette import FILLS, GRID, INK, LINE, MUTED, PAPER, SURFACE

from ..kit.draw import MIN_TEXT, PHONE, Drawing, arranged, element, text_width, title

SPLITS = ("train", "validation", "test")
LINE_H = 22  # one line of text


@dataclass
class Stage:
    name: str
    width: float  # the picture's
    height: float
    lines: list[tuple[str, str]] = field(default_factory=list)  # (text, "bold" | "muted" | "")


def _stages(audit: dict, batch_size: int, steps: int, T: int) -> list[Stage]:
    s = audit["splits"]
    return [
        Stage(
            "stories",
            124,
            84,
            [
                (f"{audit['selected_stories']:,} stories", "bold"),
                ("picked by hash", ""),
                (f"from {audit['pool_stories']:,}", ""),
            ],
        ),
        Stage(
            "split by a hash of the text",
            250,
            150,
            [("kept out of the vocabulary", "muted"), ("and out of training", "muted")],
        ),
        Stage(
            "vocabulary",
            150,
            58,
            [(f"C = {audit['vocab_size']:,} items", "bold"), ("fitted on training", ""), ("stories only", "")],
        ),
        Stage(
            f"{T}-token windows",
            12 * 18,
            72,
            [
                (f"{s['train']['windows']:,} windows:", "bold"),
                (f"the ≤ {T} IDs before each", ""),
                ("ID to predict (shaded)", ""),
            ],
        ),
        Stage(
            "random batches",
            150,
            96,
            [
                (f"{batch_size} windows a step,", "bold"),
                ("drawn with replacement,", ""),
                (f"for {steps:,} steps", ""),
            ],
        ),
    ]


def _text(d: Drawing, x, y, s: str, style: str = "", anchor: str = "start", cls: str | None = None) -> None:
    weight = "600" if style == "bold" else "normal"
    d.text(x, y, s, size=MIN_TEXT, anchor=anchor, weight=weight, fill=MUTED if style == "muted" else INK, cls=cls)


def _stories(d: Drawing, x, y) -> dict:
    for k in range(3):
        cx, cy = x + 16 - 8 * k, y + 16 - 8 * k
        d.rect(cx, cy, 100, 64, fill=PAPER, stroke=LINE, width=1.5, radius=4)
    for k in range(4):  # the top card's lines of text
        d.parts.append(
            element(
                "line", x1=x + 12, x2=x + (88 if k < 3 else 60), y1=y + 14 + 12 * k, y2=y + 14 + 12 * k, stroke=GRID
            )
        )
    return {"out": (x + 100, y + 32)}


def _split(d: Drawing, x, y, audit: dict) -> dict:
    s = audit["splits"]
    most = max(s[k]["documents"] for k in SPLITS)
    out = {}
    for k, name in enumerate(SPLITS):
        n = s[name]["documents"]
        by = y + k * 44
        length = round(250 * n / most, 1)
        d.parts.append(
            element(
                "rect",
                children=title(f"{name}: {n:,} stories"),
                cls="split",
                data_split=name,
                data_stories=n,
                x=x,
                y=by,
                width=length,
                height=28,
                rx=3,
                fill=FILLS["data"],
                stroke=LINE,
                stroke_width=1.5,
            )
        )
        label = f"{name} {n:,}"
        if text_width(label, MIN_TEXT) + 16 < length:
            _text(d, x + 8, by + 20, label, cls="split-label")
        else:
            _text(d, x + length + 8, by + 20, label, cls="split-label")
        out[name] = (x, by + 14, x + length, by + 14)
    return out


def _vocab(d: Drawing, x, y) -> dict:
    d.rect(x, y, 150, 58, fill=SURFACE, stroke=LINE, width=1.5, radius=6)
    for k in range(3):  # a few entries of the list
        for j in range(4):
            d.rect(x + 12 + 33 * j, y + 10 + 14 * k, 27, 9, fill=FILLS["muted"], stroke=GRID, width=1, radius=2)
    return {"in": (x, y + 29), "out": (x + 150, y + 29), "bottom": (x + 75, y + 58), "top": (x + 75, y)}


def _windows(d: Drawing, x, y, T: int) -> dict:
    """A story's token IDs (a strip of cells at ``y``) and, under it, three of
    its windows: each the IDs before an ID to predict (shaded), at most T of
    them and never from another story (this short story's windows start at its
    first ID)."""
    cells, cw, ends = 12, 18, (3, 7, 10)
    for k in range(cells):
        target = k - 1 in ends  # an ID a window predicts
        d.rect(x + k * cw, y, cw, 24, fill=FILLS["out" if target else "data"], stroke=GRID, width=1, radius=0)
    for j, end in enumerate(ends):
        by = y + 36 + 16 * j
        x1, x2 = x + 2, x + (end + 1) * cw - 2
        d.parts.append(
            element(
                "path",
                cls="window",
                d=f"M{x1},{by - 6} V{by} H{x2} V{by - 6}",
                fill="none",
                stroke=INK,
                stroke_width=2,
            )
        )
    return {"in": (x, y + 12), "out": (x + cells * cw, y + 12), "top": (x + cells * cw / 2, y)}


def _batch(d: Drawing, x, y) -> dict:
    d.rect(x, y, 150, 96, fill=SURFACE, stroke=LINE, width=1.5, radius=6)
    lengths = (54, 40, 60, 30, 48, 58, 36, 52)  # windows of differing lengths, up to T IDs
    for k, length in enumerate(lengths):
        cx, cy = x + 10 + (k % 2) * 68, y + 10 + (k // 2) * 20
        d.rect(cx, cy, length, 12, fill=FILLS["data"], stroke=GRID, width=1, radius=2)
    return {"in": (x, y + 48), "top": (x + 75, y)}


def _draw(d: Drawing, stage: int, x, y, audit, T) -> dict:
    if stage == 0:
        return _stories(d, x, y)
    if stage == 1:
        return _split(d, x, y, audit)
    if stage == 2:
        return _vocab(d, x, y)
    if stage == 3:
        return _windows(d, x, y, T)
    return _batch(d, x, y)


def _description(audit: dict, stages: list[Stage]) -> str:
    s = audit["splits"]
    return (
        "The data pipeline with our corpus counts: "
        + f"{audit['selected_stories']:,} stories picked by hash from {audit['pool_stories']:,}; "
        + "split by a hash of the text into "
        + ", ".join(f"{k} {s[k]['documents']:,}" for k in SPLITS)
        + " stories; "
        + "; ".join(f"{st.name}: {' '.join(t for t, _ in st.lines)}" for st in stages[2:])
        + "."
    )


def pipeline_figure(audit: dict, batch_size: int, steps: int, T: int) -> str:
    stages = _stages(audit, batch_size, steps, T)
    desc = _description(audit, stages)
    heading = "From stories to training batches"
    return arranged(_wide(audit, stages, T, heading, desc).render(), _phone(audit, stages, T, heading, desc))


XS = (0, 186, 494, 704, 970)  # each stage's left edge, wide
TOP = 52  # the pictures' top, wide
FLOW = TOP + 14  # the line the arrows run along: the training bar's middle
PICTURE_Y = (TOP - 4, TOP, FLOW - 29, FLOW - 12, FLOW - 26)  # each picture's top, wide


def _wide(audit, stages, T, heading, desc) -> Drawing:
    held = TOP + 2 * 44 + 28 + 26  # the split's note, under its bars
    height = held + LINE_H * (len(stages[1].lines) - 1) + 8
    d = Drawing(1170, height, "fig-pipeline", heading, desc)
    at = []
    for k, st in enumerate(stages):
        x = XS[k]
        _text(d, x, 22, st.name, "bold", cls="stage")
        at.append(_draw(d, k, x, PICTURE_Y[k], audit, T))
        ty = held if k == 1 else PICTURE_Y[k] + st.height + 26
        for j, (line, style) in enumerate(st.lines):
            _text(d, x, ty + LINE_H * j, line, style)
    stories, split, vocab, windows, batch = at
    for name in SPLITS:  # every story to one split
        d.arrow(stories["out"], (split[name][0] - 4, split[name][1]), width=1.5)
    tx = split["train"][2]
    d.arrow((tx + 4, FLOW), (vocab["in"][0] - 4, FLOW), label="fit")
    d.arrow((vocab["out"][0] + 4, FLOW), (windows["in"][0] - 6, FLOW), label="IDs")
    d.arrow((windows["out"][0] + 6, FLOW), (batch["in"][0] - 4, FLOW), label="draw")
    return d


def _beside(st: Stage) -> bool:
    """Whether a phone sets a stage's lines beside its picture (else under it)."""
    widest = max(text_width(t, MIN_TEXT, bold=style == "bold") for t, style in st.lines)
    return st.name != "vocabulary" and 8 + st.width + 18 + widest <= PHONE - 4 and not st.name.startswith("split")


def _phone(audit, stages, T, heading, desc) -> Drawing:
    gap = 34  # between stages: the arrow down
    rows = []
    for st in stages:
        text_h = LINE_H * len(st.lines)
        rows.append(max(st.height, text_h) if _beside(st) else st.height + 12 + text_h)
    rows[1] = 2 * 44 + 28 + 12 + LINE_H * len(stages[1].lines)  # the split: its bars, then its note
    height = sum(28 + r for r in rows) + gap * (len(rows) - 1) + 6
    d = Drawing(PHONE, height, "fig-pipeline-phone", heading, desc)
    y = 0.0
    at = []
    for k, (st, row) in enumerate(zip(stages, rows)):
        _text(d, 0, y + 20, st.name, "bold", cls="stage")
        py = y + 28
        x = 24 if k == 1 else 8
        at.append(_draw(d, k, x, py, audit, T))
        if _beside(st):
            tx, ty = x + st.width + 18, py + 16
        else:
            tx, ty = x, py + (2 * 44 + 28 if k == 1 else st.height) + 12 + 16
        for j, (line, style) in enumerate(st.lines):
            _text(d, tx, ty + LINE_H * j, line, style)
        if k < len(stages) - 1 and k != 1:
            d.arrow((70, py + row + 4), (70, py + row + gap - 4))
        y = py + row + gap
    # the vocabulary is fitted from the training bar alone: an arrow from its end into the vocabulary's side
    split, vocab = at[1], at[2]
    tx, ty = split["train"][2], split["train"][3]
    right = PHONE - 14
    mid = vocab["out"][1]
    d.polyline([(tx + 4, ty), (right, ty), (right, mid), (vocab["out"][0] + 4, mid)])
    _text(d, right - 8, mid - 8, "fit", "muted", anchor="end")
    return d
