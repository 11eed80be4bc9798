"""Part III's toy vectors and matrices drawn as coloured cells, and its
probability tables drawn as bars (issue 20), each from the numbers of its
own table (table ``part3_pictures``): the worksheet's input rows, W_Q beside
W_K, the two heads' messages joined and projected, every query token's
weights in both heads, the two-source toy, the next-token distribution
before and after temperature, top-k and top-p, and the worked mean ± SD.
The tables stay on the slides' notes, so the reading view and print keep
every number."""

from __future__ import annotations

from common.palette import (
    ACCENT,
    BLOCKED,
    FILLS,
    GRID,
    INK,
    INK_SOFT,
    MODELS,
    MUTED,
    ROLES,
    SURFACE,
    SURPRISAL_SCALE,
    scale_colour,
)
from models.nets import KINDS

from ..kit.bars import bars
from ..kit.cells import cells, legend, number
from ..kit.dots import lanes
from ..kit.draw import MIN_TEXT, PHONE, Drawing, arranged, text_width
from ..kit.numbers import shape_text
from ..kit.panels import heatmaps
from ..kit.registry import table

HEAD_COLS = ["(1)·1", "(1)·2", "(2)·1", "(2)·2"]  # head (g), coordinate
WORKSHEET = "part3-worksheet"  # the colour scale of the worksheet's E, W_Q, W_K and messages (kit/scales.py)


def masked(weights: list[list[float]]) -> list[list[float | None]]:
    """A causal weight matrix with the cells above the diagonal blocked."""
    return [[v if j <= i else None for j, v in enumerate(row)] for i, row in enumerate(weights)]


def _row(d, x, y, label, values, cell_w, col0=0):
    cells(d, x + col0 * cell_w, y, values, WORKSHEET, digits=2, cell_w=cell_w, cell_h=36)
    d.text(x - 12, y + 18 + MIN_TEXT * 0.35, label, size=MIN_TEXT, anchor="end")


def _vec(values, digits: int) -> str:
    """[0.748, 0.210] with fixed decimals and a true minus sign, as the decks print lists."""
    return "[" + ", ".join(number(v, digits) for v in values) + "]"


def messages(fish: dict) -> str:
    """The query token's two head messages, side by side in the concatenation,
    then the update concat · W_O, the query's own row E and the new row. Drawn
    a second time PHONE units wide for a phone (kit/draw.py ``arranged``)."""
    return arranged(_messages(fish, phone=False).render(), _messages(fish, phone=True))


MESSAGE_CELL_PHONE = 88  # a phone's cell: four make 352 of its 400 units
ABOVE = 30  # a phone's row: its label's line above its cells


def _messages(fish: dict, phone: bool) -> Drawing:
    """``messages``'s drawing at a slide's width (row labels left of the cells,
    the notes right of them), or at PHONE units: each row's label on a line
    above its cells, each note under the rows it is about, in the same lines."""
    h1, h2 = fish["heads"][0]["message"], fish["heads"][1]["message"]
    labels = ["head 1 message", "head 2 message", "concatenated", "Δe = concat · W_O", "+ E (its own row)"]
    labels.append("= new row")
    heading = "The query token's messages, joined and projected"
    desc = (
        f"Head 1's message {_vec(h1, 3)} fills the first two coordinates of the concatenation, "
        f"head 2's {_vec(h2, 3)} the last two: {_vec(fish['concat_last'], 3)}. "
        f"Multiplied by W_O it gives the update Δe = {_vec(fish['update_last'], 3)}; added to the "
        f"query's row {_vec(fish['E_last'], 1)} it gives the new row {_vec(fish['out_last'], 3)}."
    )
    joined = ["each head fills its own", "coordinates of the join"]
    projected = ["W_O maps the join back", f"to width {fish['width']}; the residual", "adds the token's own row"]
    if phone:
        return _messages_phone(fish, labels, heading, desc, joined, projected)
    x = max(text_width(lab, MIN_TEXT) for lab in labels) * 1.25 + 24
    cw = 84
    d = Drawing(round(x + 4 * cw + 300), 420, "fig-p3-messages", heading, desc)
    for c, name in enumerate(HEAD_COLS):
        d.text(x + c * cw + cw / 2, 24, name, size=MIN_TEXT, fill=MUTED)
    _row(d, x, 36, labels[0], h1, cw)
    _row(d, x, 80, labels[1], h2, cw, col0=2)
    _row(d, x, 124, labels[2], fish["concat_last"], cw)
    for c, name in enumerate(fish["features"]):
        d.text(x + c * cw + cw / 2, 200, name, size=MIN_TEXT, fill=MUTED)
    _row(d, x, 212, labels[3], fish["update_last"], cw)
    _row(d, x, 256, labels[4], fish["E_last"], cw)
    _row(d, x, 300, labels[5], fish["out_last"], cw)
    d.rect(x - 2, 296, 4 * cw + 4, 44, fill="none", stroke=ROLES["message"], width=2.5, radius=3)
    note_x = x + 4 * cw + 40
    for k, line in enumerate(joined):
        d.text(note_x, 66 + 24 * k, line, size=MIN_TEXT, anchor="start", fill=MUTED)
    for k, line in enumerate(projected):
        d.text(note_x, 236 + 24 * k, line, size=MIN_TEXT, anchor="start", fill=MUTED)
    legend(d, x, 372, WORKSHEET)
    return d


def _messages_phone(fish: dict, labels, heading: str, desc: str, joined, projected) -> Drawing:
    """``_messages``'s phone drawing: the heads' part (column names, three rows,
    its note), then W_O's part, the new row framed as on the slide."""
    cw = MESSAGE_CELL_PHONE
    x = (PHONE - 4 * cw) / 2
    values = [fish["heads"][0]["message"], fish["heads"][1]["message"], fish["concat_last"]]
    values += [fish["update_last"], fish["E_last"], fish["out_last"]]
    col0 = [0, 2, 0, 0, 0, 0]  # head 2's message fills the last two coordinates
    line, row_h = 24, ABOVE + 36 + 6  # a note's line; a row: its label's line, its cells, a gap
    parts = [(HEAD_COLS, range(0, 3), joined), (fish["features"], range(3, 6), projected)]
    height = sum(30 + len(r) * row_h + len(n) * line + 26 for _, r, n in parts) + 40
    d = Drawing(PHONE, height, "fig-p3-messages-phone", heading, desc)
    y = 0.0
    for names, part, notes in parts:
        for c, name in enumerate(names):
            d.text(x + c * cw + cw / 2, y + 24, name, size=MIN_TEXT, fill=MUTED)
        y += 30
        for k in part:
            d.text(x, y + ABOVE - 8, labels[k], size=MIN_TEXT, anchor="start")
            cells(d, x + col0[k] * cw, y + ABOVE, values[k], WORKSHEET, digits=2, cell_w=cw, cell_h=36)
            if k == len(values) - 1:  # the new row, framed in the message colour as on the slide
                d.rect(x - 2, y + ABOVE - 4, 4 * cw + 4, 44, fill="none", stroke=ROLES["message"], width=2.5, radius=3)
            y += row_h
        for k, text in enumerate(notes):
            d.text(x, y + 22 + line * k, text, size=MIN_TEXT, anchor="start", fill=MUTED)
        y += len(notes) * line + 26
    legend(d, x, y, WORKSHEET)
    return d


def labels_above(
    ident: str, title: str, desc: str, rows: list[list[float]], row_labels, col_labels, scale_name: str, digits: int
) -> Drawing:
    """A matrix with long row labels for a phone: the column names over the
    cells as on the slide, each row's label on a line above its cells, the
    legend under the last row."""
    cw = max(text_width(c, MIN_TEXT) for c in col_labels) * 1.25 + 24
    x = (PHONE - cw * len(col_labels)) / 2
    row_h = ABOVE + 40 + 6
    d = Drawing(PHONE, 30 + len(rows) * row_h + 12 + 14 + MIN_TEXT + 14, f"{ident}-phone", title, desc)
    for c, name in enumerate(col_labels):
        d.text(x + c * cw + cw / 2, 24, name, size=MIN_TEXT, fill=INK_SOFT)
    y = 30.0
    for label, values in zip(row_labels, rows):
        d.text(x, y + ABOVE - 8, label, size=MIN_TEXT, anchor="start")
        cells(d, x, y + ABOVE, values, scale_name, digits=digits, cell_w=cw, cell_h=40)
        y += row_h
    legend(d, x, y + 12, scale_name)
    return d


def names_standing(
    ident: str, title: str, desc: str, rows: list[list[float]], row_labels, col_labels, scale_name: str, digits: int
) -> Drawing:
    """A matrix with short row labels and more columns than a phone has room
    for lying down: the row labels left of the cells as on the slide, the
    column names standing up over narrower cells, the legend under them."""
    cw, cell_h = 64.0, 30
    label_w = max(text_width(lab, MIN_TEXT) for lab in row_labels) + 16
    names_h = max(text_width(c, MIN_TEXT) for c in col_labels) * 1.5 + 16  # room for a wider face
    x = (PHONE - label_w - cw * len(col_labels)) / 2 + label_w
    d = Drawing(PHONE, names_h + len(rows) * cell_h + 18 + 14 + MIN_TEXT + 14, f"{ident}-phone", title, desc)
    for c, name in enumerate(col_labels):
        cx, cy = x + c * cw + cw / 2 + MIN_TEXT * 0.35, names_h - 8
        d.text(cx, cy, name, size=MIN_TEXT, anchor="start", fill=INK_SOFT, transform=f"rotate(-90 {cx:.1f} {cy:.1f})")
    box = cells(d, x, names_h, rows, scale_name, digits=digits, cell_w=cw, cell_h=cell_h, row_labels=row_labels)
    legend(d, x, box.y + box.h + 18, scale_name, width=min(240.0, PHONE - x - 70))
    return d


def seed_dots(worked: dict) -> str:
    """The runs' test perplexities as dots on one axis, the mean as a line and
    ±1 SD as a band: what the worked mean ± SD summarises. Drawn a second
    time PHONE units wide for a phone (kit/draw.py ``arranged``)."""
    return arranged(_seed_dots(worked, phone=False).render(), _seed_dots(worked, phone=True))


def _seed_dots(worked: dict, phone: bool) -> Drawing:
    """``seed_dots``'s drawing at a slide's width, or at PHONE units with the
    SD's label above the band and the seeds' labels on lanes (kit/dots.py
    ``lanes``) so that none runs into another or into the axis's ends."""
    values, seeds, mean, sd = worked["values"], worked["seeds"], worked["mean"], worked["sd"]
    lo, hi = min(values + [mean - sd]), max(values + [mean + sd])
    pad = (hi - lo) * 0.25
    lo, hi = lo - pad, hi + pad
    ends = [number(lo, 2), number(hi, 2)]
    if phone:
        # the axis's end values stand under its ends, inside the drawing
        width, top = PHONE, 24
        x0 = text_width(ends[0], MIN_TEXT) / 2 + 8
        x1 = width - text_width(ends[1], MIN_TEXT) / 2 - 8
    else:
        width, top, x0, x1 = 1000, 0, 90, 910
    axis_y = 104 + top
    texts = [f"seed {s}: {number(v, 2)}" for s, v in zip(seeds, values)]

    def px(v):
        return x0 + (v - lo) / (hi - lo) * (x1 - x0)

    def span(x, text):
        w = text_width(text, MIN_TEXT)
        left = min(max(x - w / 2, 2), width - 2 - w)  # kept inside the drawing
        return left, left + w

    if phone:
        not0 = x0 - text_width(ends[0], MIN_TEXT) / 2
        taken = [[span(x0, ends[0]), span(x1, ends[1])], [(not0, not0 + text_width("(not 0)", MIN_TEXT))]]
        spans = [span(px(v), t) for v, t in zip(values, texts)]
        lane_of = lanes(spans, gap=12, taken=taken)
    else:
        lane_of = [k % 2 for k in range(len(values))]
    d = Drawing(
        width,
        axis_y + 40 + 26 * max(max(lane_of), 1),
        f"fig-p3-seeds{'-phone' if phone else ''}",
        f"{worked['label']}: test perplexity of each seed, the mean and ±1 SD",
        f"Seeds {', '.join(str(s) for s in seeds)} give test perplexities "
        + ", ".join(f"{v:.2f}" for v in values)
        + f"; mean {mean:.2f}, sample SD {sd:.2f}. The axis runs from {lo:.2f} to {hi:.2f}, not from zero.",
    )
    # the ±1 SD band in a neutral: it is no attention weight, so not the weight ramp's blue
    d.rect(
        px(mean - sd), 40 + top, px(mean + sd) - px(mean - sd), axis_y - 40 - top, fill=SURFACE, stroke="none", radius=0
    )
    d.rect(px(mean) - 1.5, 32 + top, 3, axis_y - 32 - top, fill=ACCENT, stroke="none", radius=0)
    mean_text, sd_text = f"mean {number(mean, 2)}", f"± 1 SD = {number(sd, 2)}"
    if phone:
        # the SD's label on the top line, the mean's under it: each centred on the mean's line, kept inside
        d.text(
            span(px(mean), mean_text)[0], 24 + top, mean_text, size=MIN_TEXT, fill=ACCENT, weight="600", anchor="start"
        )
        d.text(span(px(mean), sd_text)[0], 24, sd_text, size=MIN_TEXT, fill=MUTED, anchor="start")
    else:
        d.text(px(mean), 24, mean_text, size=MIN_TEXT, fill=ACCENT, weight="600")
        d.text(px(mean + sd) + 8, 60, sd_text, size=MIN_TEXT, anchor="start", fill=MUTED)
    d.rect(x0, axis_y, x1 - x0, 1.5, fill=GRID, stroke="none", radius=0)
    for k, (v, text) in enumerate(zip(values, texts)):
        d.dot(px(v), axis_y - 14, 10, INK)
        if phone:
            d.text(span(px(v), text)[0], axis_y + 28 + lane_of[k] * 26, text, size=MIN_TEXT, fill=INK, anchor="start")
        else:
            d.text(px(v), axis_y + 28 + lane_of[k] * 26, text, size=MIN_TEXT, fill=INK)
    if phone:
        d.text(x0, axis_y + 28, ends[0], size=MIN_TEXT, fill=MUTED)
        d.text(x1, axis_y + 28, ends[1], size=MIN_TEXT, fill=MUTED)
        d.text(not0, axis_y + 54, "(not 0)", size=MIN_TEXT, fill=MUTED, anchor="start")
    else:
        d.text(x0, axis_y + 28, ends[0], size=MIN_TEXT, fill=MUTED, anchor="end")
        d.text(x1, axis_y + 28, ends[1], size=MIN_TEXT, fill=MUTED, anchor="start")
        d.text(x0 - 4, axis_y + 54, "(not 0)", size=MIN_TEXT, fill=MUTED, anchor="end")
    return d


def final_query(mod: dict) -> str:
    """A schematic of one head's weights: every query row (what forward_details
    computes, causal) beside the final query's row alone (what forward uses)."""
    n, c = 8, 30  # cells drawn per side, and their size: a picture of the pattern, not of the values
    full, fast = shape_text(mod["shapes"]["weights"]), shape_text(mod["fast_weights_shape"])
    d = Drawing(
        1000,
        n * c + 120,
        "fig-p3-final-query",
        "Every query row beside the final query's row",
        f"Left: forward_details computes every query row of each head's causal weight grid, weights {full}. "
        f"Right: forward computes only the final query's row, weights {fast}; it equals the last row on the left.",
    )
    x0, y0 = 150, 60
    d.text(x0 + n * c / 2, 26, "forward_details: every query row", size=MIN_TEXT, weight="600")
    for i in range(n):
        for j in range(n):
            fill = BLOCKED if j > i else (ROLES["query"] if i == n - 1 else FILLS["data"])
            d.rect(x0 + j * c, y0 + i * c, c, c, fill=fill, stroke=GRID, width=1, radius=0)
    d.text(x0 + n * c / 2, y0 + n * c + 34, f"weights {full}", size=MIN_TEXT, fill=MUTED)
    x1 = 640
    d.text(x1 + n * c / 2, 26, "forward: the final query only", size=MIN_TEXT, weight="600")
    for j in range(n):
        d.rect(x1 + j * c, y0 + (n - 1) * c, c, c, fill=ROLES["query"], stroke=GRID, width=1, radius=0)
    d.text(x1 + n * c / 2, y0 + n * c + 34, f"weights {fast}", size=MIN_TEXT, fill=MUTED)
    d.arrow((x0 + n * c + 20, y0 + (n - 0.5) * c), (x1 - 20, y0 + (n - 0.5) * c), label="same row", label_size=18)
    d.rect(x1, y0, n * c, (n - 1) * c, fill="none", stroke=GRID, width=1.5, radius=0, dash="6 5")
    d.text(x1 + n * c / 2, y0 + 3.6 * c, "rows not computed", size=MIN_TEXT, fill=MUTED)
    return d.render()


def worksheet_rows(f: dict) -> str:
    """The worksheet's input rows E, one row per token and one column per
    feature; on a phone the feature names stand up over narrower cells."""
    args = dict(
        ident="fig-p3-E",
        title="The worksheet's input rows E",
        desc="One row per token, one column per hand-set feature: "
        + "; ".join(f"{t}: {row}" for t, row in zip(f["token_labels"], f["E"])),
    )
    wide = heatmaps(
        **args,
        panels=[("", f["E"])],
        row_labels=f["token_labels"],
        col_labels=f["features"],
        scale_name=WORKSHEET,
        digits=1,
        cell_h=28,
    )
    return arranged(
        wide,
        names_standing(
            **args, rows=f["E"], row_labels=f["token_labels"], col_labels=f["features"], scale_name=WORKSHEET, digits=1
        ),
    )


def two_sources(two: dict) -> str:
    """The two-source toy's value rows and the messages one head and two
    heads make of them; on a phone each row's label on a line above it."""
    args = dict(
        ident="fig-p3-two-source",
        title="Two value rows, and the messages one head and two heads can make of them",
        desc=f"Value rows: river {two['values'][0]}, fisherman {two['values'][1]}. One head with weights "
        f"{two['one_head_weights']} returns {[round(v, 1) for v in two['one_head_message']]}; two heads, each "
        f"with its own weights, return {[round(v, 1) for v in two['two_head_message']]}.",
    )
    rows = [two["values"][0], two["values"][1], two["one_head_message"], two["two_head_message"]]
    labels = [f"value row of {two['sources'][0]}", f"value row of {two['sources'][1]}", "one head's message"]
    labels.append("two heads' messages")
    how = dict(row_labels=labels, col_labels=["coordinate 1", "coordinate 2"], scale_name="part3-two-source", digits=1)
    wide = heatmaps(**args, panels=[("", rows)], **how, cell_h=40)
    return arranged(wide, labels_above(**args, rows=rows, **how))


def batch_bars(batch: dict) -> dict:
    """The two targets' probabilities before the loss, and the batch's loss
    before and after one optimizer step."""
    mod = batch["model"]
    targets = [row[2] for row in batch["rows"]]
    probs = mod["target_probabilities"]
    return {
        "final_query": final_query(mod),
        "targets": bars(
            "fig-p3-targets",
            "The probability the model gives each true next token",
            "Probabilities of the targets: " + ", ".join(f"{t} {p:.4f}" for t, p in zip(targets, probs)) + ".",
            [f"p({t})" for t in targets],
            [("", probs)],
            digits=4,
            vmax=1.0,
            width=900,
            bar_h=44,
        ),
        "loss_step": bars(
            "fig-p3-loss-step",
            "The batch's loss before and after one optimizer step",
            f"Mean cross-entropy of the batch: {mod['loss']:.4f} nats before the step, "
            f"{mod['loss_after_step']:.4f} after it.",
            ["before the step", "after one step"],
            [("", [mod["loss"], mod["loss_after_step"]])],
            fmt=lambda v: f"{v:.4f} nats",
            colours=[scale_colour(0.75, SURPRISAL_SCALE), scale_colour(0.45, SURPRISAL_SCALE)],  # loss = surprise
            width=900,
            bar_h=44,
        ),
    }


def distribution(ident: str, heading: str, tbl: dict, what: str) -> str:
    """A probability table (token rows, one column per setting) as one bar
    panel per setting, the last row (every other token) included."""
    labels = [row[0] for row in tbl["rows"]]
    panels = [(name, [row[c + 1] for row in tbl["rows"]]) for c, name in enumerate(tbl["header"][1:])]
    desc = f"{what} " + "; ".join(
        f"{name}: " + ", ".join(f"{lab} {v:.3f}" for lab, v in zip(labels, vals)) for name, vals in panels
    )
    return bars(ident, heading, desc + ".", labels, panels, digits=3, vmax=1.0, width=1100, bar_h=33)


@table(
    "part3_pictures",
    needs=[
        "part3_fisherman",
        "part3_two_source",
        "part3_decoding",
        "part3_generation",
        "results_worked",
        "part3_batch",
        "part3_corpus",
        "part3_comparison",
    ],
)
def pictures(
    part3_fisherman,
    part3_two_source,
    part3_decoding,
    part3_generation,
    results_worked,
    part3_batch,
    part3_corpus,
    part3_comparison,
) -> dict:
    """The deck's cell figures and bar figures, each from its own table."""
    f, two = part3_fisherman, part3_two_source
    heads = f["heads"]
    out = {
        "E": worksheet_rows(f),
        "W_QK": heatmaps(
            "fig-p3-wqk",
            "W_Q and W_K, the first two columns for head 1, the last two for head 2",
            f"W_Q rows (by feature): {'; '.join(_vec(r, 1) for r in f['W_Q'])}. "
            f"W_K rows: {'; '.join(_vec(r, 1) for r in f['W_K'])}.",
            [("W_Q", f["W_Q"]), ("W_K", f["W_K"])],
            f["features"],
            HEAD_COLS,
            scale_name=WORKSHEET,
            digits=1,
            cell_h=40,
        ),
        "messages": messages(f),
        "weights_all": heatmaps(
            "fig-p3-weights-all",
            "Every query token's weights in both heads",
            "Row = query token, column = source slot; cells above the diagonal are blocked by the causal mask. "
            + " ".join(
                f"Head {h['head']}: "
                + "; ".join(f"{t}: {[round(v, 2) for v in r]}" for t, r in zip(f["token_labels"], h["weights_all"]))
                for h in heads
            ),
            [(f"head {h['head']}", masked(h["weights_all"])) for h in heads],
            f["token_labels"],
            [str(s) for s in f["slots"]],
            scale_name="weight",
            digits=2,
            cell_h=28,
            cell_w=47,
            gap=30,
        ),
        "two_source": two_sources(two),
    }
    dec, gen = part3_decoding, part3_generation
    if dec.get("available"):
        out["temperature"] = distribution(
            "fig-p3-temperature",
            f"Next-token probabilities after “{dec['prompt']}” at three temperatures",
            dec["temperature_table"],
            "Probabilities of the most likely tokens and of all other tokens together.",
        )
        out["filters"] = distribution(
            "fig-p3-filters",
            f"Next-token probabilities after “{dec['prompt']}”, then with top-k and with top-p",
            dec["filter_table"],
            "Probabilities before filtering and renormalised after top-k and after top-p.",
        )
    if gen.get("available"):
        labels, values = gen["top"]["labels"], gen["top"]["values"]
        out["generation"] = bars(
            "fig-p3-generation",
            "The four-head model's five most likely next tokens (specials excluded)",
            "Next-token probabilities after excluding the special tokens: "
            + ", ".join(f"{t} {v:.3f}" for t, v in zip(labels, values))
            + ".",
            labels,
            [("", values)],
            digits=3,
            vmax=1.0,
            highlight=[0],
            width=900,
        )
    if results_worked.get("available"):
        out["seeds"] = seed_dots(results_worked)
    if part3_batch.get("available") and part3_batch["model"].get("available"):
        out.update(batch_bars(part3_batch))
    cmp = part3_comparison
    if cmp.get("available"):
        kinds = [k for k in KINDS if k in cmp["parameters"]]
        out["parameters"] = bars(
            "fig-p3-parameters",
            "Parameters per model",
            "Parameters: " + "; ".join(f"{cmp['labels'][k]} {cmp['parameters'][k]:,}" for k in kinds) + ".",
            [cmp["labels"][k] for k in kinds],
            [("", [cmp["parameters"][k] for k in kinds])],
            fmt=lambda v: f"{v:,}",
            colours=[MODELS[k] for k in kinds],
            width=1000,
            bar_h=40,
        )
    audit = part3_corpus.get("audit", {})
    if audit.get("available"):
        splits = [row[0] for row in audit["rows"]]
        windows = [row[3] for row in audit["rows"]]
        out["windows"] = bars(
            "fig-p3-windows",
            "Windows (next-token targets) per split",
            "Windows per split: " + ", ".join(f"{s} {w:,}" for s, w in zip(splits, windows)) + ".",
            splits,
            [("", windows)],
            fmt=lambda v: f"{v:,}",
            width=900,
            bar_h=44,
        )
    return dict(out, available=True)
