"""The Part II slides' vectors, matrices and distributions as pictures
(issue 20), each drawn from the table the slide used to show (that table now
sits in the slide's notes, so the reading view and print keep it): token
rows, queries, keys, values and scores as coloured cells (kit/table_cells.py),
probabilities and mixing weights as bars (kit/bars.py), the attention matrix
A as a heatmap. Table: ``part2_pictures``; the position pictures are
position_pictures.py's, the video search search_picture.py's."""

from __future__ import annotations

from common.palette import ACCENT, ACCENT_MID, GRID, GRIDLINE, INK, INK_SOFT, LINE, MUTED, ROLES, SENTENCES

from ..kit.bars import bars
from ..kit.cells import cells, legend, number
from ..kit.draw import MIN_TEXT, PHONE, SLIDE, Drawing, arranged, text_width, wrap_words
from ..kit.histograms import Column, histograms
from ..kit.registry import table
from ..kit.ribbons import weighted_arrow
from ..kit.table_cells import Group, describe, table_figure
from .position_pictures import rope_rotation, sinusoid_heatmap
from .search_picture import video_search

SENTENCE_ORDER = ("river", "cheque")
VECTORS = "part2-vectors"  # the colour scale of the bank model's vectors and matrices (kit/scales.py)


def phone_table(ident: str, title: str, table: dict, group: Group, labels: list[int]) -> Drawing:
    """A transposed table's phone arrangement: the table the way it is stored,
    a row per table row (eight coordinates l, ten positions down the side) and
    a column per numeric column, its name over it; the group's title is left
    out as the transposed figure leaves it out. No narrower than most of a
    phone's width, so that a slim table is not blown up to fill it."""
    names = [" ".join(str(r[i]) for i in labels) for r in table["rows"]]
    cols = [str(table["header"][c]) for c in group.columns]
    values = [[r[c] for c in group.columns] for r in table["rows"]]
    texts = [number(v, group.digits) for row in values for v in row] + cols
    cell_w = max(44.0, max(text_width(x, MIN_TEXT) for x in texts) + 14)
    label_w = max(text_width(n, MIN_TEXT) for n in names) + 16
    block_w = label_w + cell_w * len(cols)
    width = max(block_w + 16, 0.85 * PHONE)
    x, y = (width - block_w) / 2 + label_w, 44.0
    d = Drawing(width, y + 36 * len(names) + 70, ident, title, describe(table, [group], labels))
    for c, col in enumerate(cols):  # the names in the wide figure's ink (it sets them as row labels)
        d.text(x + (c + 0.5) * cell_w, y - 10, col, size=MIN_TEXT)
    box = cells(d, x, y, values, group.scale, digits=group.digits, cell_w=cell_w, row_labels=names)
    legend(d, 14, box.y + box.h + 18, group.scale, width=150)
    return d


def standing(d: Drawing, x: float, y: float, cell_w: float, names: list[str]) -> None:
    """Column names standing up over cells whose top left is (x, y) (a phone's
    matrix: its columns too narrow for their names lying down)."""
    for c, name in enumerate(names):
        cx, cy = x + c * cell_w + cell_w / 2 + MIN_TEXT * 0.35, y - 8
        d.text(cx, cy, name, size=MIN_TEXT, anchor="start", fill=INK_SOFT, transform=f"rotate(-90 {cx:.1f} {cy:.1f})")


def standing_h(names: list[str]) -> float:
    """The height the standing names of ``standing`` take above the cells."""
    return max(text_width(n, MIN_TEXT) for n in names) + 16


def token_rows(model: dict) -> str:
    t = model["e_tables"]["river"]
    names = {2: "water", 3: "finance", 4: "noun", 5: "grammar", 6: "noun"}
    return table_figure(
        "part2-token-rows",
        "Each token's row in the river sentence: word features plus a position offset",
        t,
        [
            Group([2, 3, 4, 5], VECTORS, "word features"),
            Group([6], VECTORS, "+ position"),
            Group([7, 8, 9, 10], VECTORS, "= the row"),
        ],
        labels=[0, 1],
        col_names=names,
    )


def last_rows(predict: dict) -> str:
    return table_figure(
        "part2-last-rows",
        "The last row handed to the vocabulary head is the same in both sentences",
        predict["last_rows_table"],
        [Group([3, 4, 5, 6], VECTORS, "row e at the last position")],
        labels=[0, 2],
    )


def pooled(pooled_table: dict) -> str:
    return table_figure(
        "part2-pooled",
        "Pooling at “bank” (river sentence): two sets of weights over the same rows",
        pooled_table["river"]["table"],
        [
            Group([2, 3], "weight", "weights", blocked=""),
            Group([4, 5, 6, 7], VECTORS, "rows, and the two summaries ē₇"),
        ],
        labels=[1],
        col_names={2: "mean", 3: "chosen"},
    )


ROLE_OF = {"queries": "query", "keys": "key", "values": "value"}


def video_rows(video: dict, name: str, what: str) -> str:
    t = video[f"{name}_table"]
    title = f"The {what} of the video search on named topics"
    group = Group(list(range(1, len(t["header"]))), "part2-topics", what, digits=1, role=ROLE_OF[name])
    wide = table_figure(f"part2-video-{name}", title, t, [group], labels=[0])
    return arranged(wide, _video_rows_phone(f"part2-video-{name}-phone", title, t, group))


def _video_rows_phone(ident: str, title: str, t: dict, group: Group) -> Drawing:
    """``video_rows`` for a phone: the topics' names standing up over their
    columns, and each row's label (a query, a listing, a video) on its own line
    above its cells, framed in its role's colour as on the slide."""
    cols = [str(t["header"][c]) for c in group.columns]
    cell_w, cell_h = 44.0, 34.0
    x = (PHONE - cell_w * len(cols)) / 2
    lines = [wrap_words(str(r[0]), cell_w * len(cols)) for r in t["rows"]]
    d = Drawing(PHONE, 10, ident, title, describe(t, [group], [0]))
    d.text(x, 24, group.title, size=MIN_TEXT, anchor="start", weight="600", fill=ROLES[group.role])
    y = 34 + standing_h(cols)
    standing(d, x, y, cell_w, cols)
    for row, label in zip(t["rows"], lines):
        for k, line in enumerate(label):
            d.text(x, y + 18 + k * 24, line, size=MIN_TEXT, anchor="start")
        y += 8 + 24 * len(label)
        box = cells(
            d, x, y, [row[c] for c in group.columns], group.scale, digits=group.digits, cell_w=cell_w, cell_h=cell_h
        )
        d.rect(box.x - 3, box.y - 3, box.w + 6, box.h + 6, fill="none", stroke=ROLES[group.role], width=3, radius=3)
        y += cell_h + 12
    legend(d, 14, y + 8, group.scale, width=150)
    d.height = y + 8 + 46
    return d


def phase_b(bank: dict) -> str:
    return table_figure(
        "part2-phase-b",
        "Phase B at “bank” (cheque sentence): each value row scaled by its weight",
        bank["cheque"]["phase_b"],
        [
            Group([2], "weight", "weight α"),
            Group([3, 4], VECTORS, "value v", role="value"),
            Group([5, 6], VECTORS, "α·v"),
        ],
        labels=[1],
        col_names={3: "water", 4: "finance", 5: "water", 6: "finance"},
    )


def residual(bank: dict, model: dict) -> str:
    """Project and add at “bank” (cheque sentence): the message times W_O is
    the update, added to the row; one signed scale for every cell."""
    c, W, t = bank["cheque"], model["W_O"], bank["cheque"]["residual"]
    v_axes, coords = model["v_axes"], model["coords"]
    rows = [r[1:] for r in t["rows"]]
    desc = (
        f"Message m = {[round(v, 3) for v in c['message']]} on the axes {', '.join(v_axes)}; W_O rows "
        f"{[[round(x, 2) for x in r] for r in W]}; "
        + "; ".join(f"{r[0]}: {[round(v, 3) for v in r[1:]]}" for r in t["rows"])
        + "."
    )
    d = Drawing(1100, 300, "part2-residual", "Project the message with W_O, then add it to bank's row", desc)
    y0 = 92
    d.text(20, 34, "message m₇", size=MIN_TEXT, anchor="start", weight="600")
    m = cells(d, 20, y0, c["message"], VECTORS, digits=3, cell_w=78, col_labels=v_axes)
    d.text(m.x + m.w + 18, y0 + 24, "×", size=MIN_TEXT, weight="600")
    wx = m.x + m.w + 116
    d.text(wx, 34, "W_O", size=MIN_TEXT, anchor="start", weight="600")
    w = cells(d, wx, y0, W, VECTORS, digits=1, cell_w=74, col_labels=coords, row_labels=v_axes)
    rx = w.x + w.w + 170
    d.text(rx, 34, "the row of “bank”", size=MIN_TEXT, anchor="start", weight="600")
    r = cells(d, rx, y0, rows, VECTORS, digits=3, cell_w=74, col_labels=coords, row_labels=["e₇", "+ Δe₇", "= e′₇"])
    d.arrow((w.x + w.w + 8, y0 + 18), (r.x - 70, y0 + 54), label="= Δe₇", label_size=MIN_TEXT, label_offset=-10)
    legend(d, 20, r.y + r.h + 30, VECTORS, name="coordinate value")
    d.width = r.x + r.w + 20
    return arranged(d.render(), _residual_phone(c["message"], W, rows, v_axes, coords, d.title, desc))


def _residual_phone(message, W, rows, v_axes, coords, title, desc) -> Drawing:
    """``residual`` for a phone: the line “m × W_O = Δe₇, added to the row”
    turned downwards, one vector or matrix a row with the operator between."""
    d = Drawing(PHONE, 10, "part2-residual-phone", title, desc)
    x, cw = 96.0, 74.0
    d.text(10, 26, "message m₇", size=MIN_TEXT, anchor="start", weight="600")
    m = cells(d, x, 66, message, VECTORS, digits=3, cell_w=78, col_labels=v_axes)
    d.text(x + m.w / 2, m.y + m.h + 30, "×", size=MIN_TEXT, weight="600")
    d.text(10, m.y + m.h + 60, "W_O", size=MIN_TEXT, anchor="start", weight="600")
    w = cells(d, x, m.y + m.h + 100, W, VECTORS, digits=1, cell_w=cw, col_labels=coords, row_labels=v_axes)
    top = w.y + w.h + 8
    d.arrow((x + w.w / 2, top), (x + w.w / 2, top + 44))
    d.text(x + w.w / 2 + 14, top + 28, "= Δe₇", size=MIN_TEXT, anchor="start", fill=MUTED)
    d.text(10, top + 76, "the row of “bank”", size=MIN_TEXT, anchor="start", weight="600")
    r = cells(
        d, x, top + 116, rows, VECTORS, digits=3, cell_w=cw, col_labels=coords, row_labels=["e₇", "+ Δe₇", "= e′₇"]
    )
    legend(d, 10, r.y + r.h + 24, VECTORS, width=150, name="coordinate value")
    d.height = r.y + r.h + 24 + 46
    return d


def projections(model: dict) -> str:
    """W_Q, W_K and W_V side by side as cells (one signed scale)."""
    tables = [model["W_Q_table"], model["W_K_table"], model["W_V_table"]]
    desc = "; ".join(
        f"{t['header'][0]}: " + ", ".join(f"{r[0]} row {[round(v, 2) for v in r[1:]]}" for r in t["rows"])
        for t in tables
    )
    label_w = max(text_width(r[0], MIN_TEXT) for r in tables[0]["rows"]) * 1.2 + 24
    d = Drawing(860, 300, "part2-projections", "W_Q, W_K and W_V: three fixed matrices shared by every token", desc)
    x = label_w
    for t in tables:
        d.text(x, 26, t["header"][0], size=MIN_TEXT, anchor="start", weight="600")
        cw = max(text_width(c, MIN_TEXT) + 12 for c in t["header"][1:])
        box = cells(
            d,
            x,
            76,
            [r[1:] for r in t["rows"]],
            VECTORS,
            digits=1,
            cell_w=cw,
            row_labels=[r[0] for r in t["rows"]] if x == label_w else None,
            col_labels=t["header"][1:],
        )
        x = box.x + box.w + 60
    legend(d, label_w, 76 + 4 * 36 + 24, VECTORS, name="matrix entry")
    d.width = x - 40
    return arranged(d.render(), _projections_phone(tables, label_w, d.title, desc))


def _projections_phone(tables: list[dict], label_w: float, title: str, desc: str) -> Drawing:
    """``projections`` for a phone: the three matrices one under the other,
    each with its row names."""
    d = Drawing(PHONE, 10, "part2-projections-phone", title, desc)
    y = 0.0
    for t in tables:
        d.text(10, y + 26, t["header"][0], size=MIN_TEXT, anchor="start", weight="600")
        cw = max(text_width(c, MIN_TEXT) + 12 for c in t["header"][1:])
        box = cells(
            d,
            label_w,
            y + 70,
            [r[1:] for r in t["rows"]],
            VECTORS,
            digits=1,
            cell_w=cw,
            row_labels=[r[0] for r in t["rows"]],
            col_labels=t["header"][1:],
        )
        d.width = max(d.width, box.x + box.w + 10)
        y = box.y + box.h + 10
    legend(d, 10, y + 14, VECTORS, width=150, name="matrix entry")
    d.height = y + 14 + 46
    return d


def every_qkv(projections_table: dict) -> str:
    t = projections_table["river"]["table"]
    names = {2: "setting", 3: "thing", 4: "link", 5: "setting", 6: "thing", 7: "link", 8: "water", 9: "finance"}
    return table_figure(
        "part2-every-qkv",
        "Every token's query, key and value in the river sentence",
        t,
        [
            Group([2, 3, 4], VECTORS, "query q", role="query"),
            Group([5, 6, 7], VECTORS, "key k", role="key"),
            Group([8, 9], VECTORS, "value v", role="value"),
        ],
        labels=[1],
        col_names=names,
        cell_h=32,
    )


def random_pair(scaling: dict) -> str:
    t = scaling["example_table"]
    title = "One random query and key: coordinate by coordinate, and their products"
    group = Group([1, 2, 3], "part2-random", "coordinate l")
    wide = table_figure("part2-random-pair", title, t, [group], labels=[0], transpose=True)
    return arranged(wide, phone_table("part2-random-pair-phone", title, t, group, labels=[0]))


def spread(scaling: dict) -> str:
    """The simulated scores of three widths as histograms: q·k on the left,
    q·k/√d_k on the right, each column on one axis; each panel prints the
    variance of its scores as the slide's table has it."""
    spread = scaling["spread"]
    rows = {r[0]: r for r in scaling["simulation_table"]["rows"]}
    dims = spread["d_k"]
    n = f"{scaling['n_pairs']:,}"
    columns = [
        Column(
            heading,
            axis,
            spread[key]["edges"],
            spread[key]["ticks"],
            spread[key]["counts"],
            [f"variance {number(rows[dk][at], 2)}" for dk in dims],
            colour,
        )
        for key, heading, axis, at, colour in (
            ("unscaled", "q·k, unscaled", "q·k", 2, ACCENT),
            ("scaled", "q·k/√d_k, scaled", "q·k/√d_k", 4, ACCENT_MID),
        )
    ]
    desc = (
        f"Histograms of {n} simulated dot products q·k per width, unscaled and divided by √d_k, "
        "each column on one axis: "
        + "; ".join(
            f"d_k = {dk}: variance {number(rows[dk][2], 2)} unscaled, {number(rows[dk][4], 2)} scaled" for dk in dims
        )
        + ". Unscaled, the spread widens with d_k; divided by √d_k, it stays the same."
    )
    return histograms(
        "part2-spread",
        "The spread of q·k grows with d_k; divided by √d_k it stays put",
        desc,
        [f"d_k = {dk}" for dk in dims],
        columns,
    )


def bank_scaling(scaling: dict) -> str:
    return table_figure(
        "part2-bank-scaling",
        "Scores and weights at “bank”, without and with the division by √d_k",
        scaling["bank_table"],
        [
            Group([2], "part2-scores", "q·k"),
            Group([3], "weight", "α without", digits=3),
            Group([4], "part2-scores", "q·k/√d_k"),
            Group([5], "weight", "α with", digits=3),
        ],
        labels=[1],
        col_names={2: "score", 3: "weight", 4: "score", 5: "weight"},
        scale_names={"part2-scores": "score"},
    )


def final_weights(predict: dict) -> str:
    """The final “the”'s weights in each sentence: a row of weight cells per sentence."""
    d = Drawing(SLIDE - 40, 330, "part2-final-weights", "Where the final “the” reads in each sentence", "-")
    desc = []
    x0 = 190
    for s, name in enumerate(("river", "cheque")):
        rows = predict["contexts"][name]["weights_table"]["rows"]
        y = 50 + s * 130
        d.text(x0 - 12, y + 24, f"{name} sentence", size=MIN_TEXT, anchor="end", weight="600", fill=SENTENCES[name])
        cells(d, x0, y, [r[2] for r in rows], "weight", digits=2, cell_w=92, col_labels=[r[1] for r in rows])
        desc.append(f"{name} sentence: " + ", ".join(f"{r[1]} {r[2]:.2f}" for r in rows))
    legend(d, x0, 280, "weight", width=200)
    d.desc = "Attention weights of the final “the”: " + "; ".join(desc) + "."
    return arranged(d.render(), _final_weights_phone(predict, d.title, d.desc))


def _final_weights_phone(predict: dict, title: str, desc: str) -> Drawing:
    """``final_weights`` for a phone: the two rows of weights turned on their
    side, a column per sentence with its words beside it (river's at the left,
    cheque's at the right), so one position reads across both sentences."""
    rows = {name: predict["contexts"][name]["weights_table"]["rows"] for name in SENTENCE_ORDER}
    n = max(len(r) for r in rows.values())
    cell_w, x, y = 74.0, 142.0, 50.0
    d = Drawing(PHONE, y + 36 * n + 70, "part2-final-weights-phone", title, desc)
    for s, name in enumerate(SENTENCE_ORDER):
        cx = x + s * (cell_w + 8)
        anchor, hx = ("end", cx + cell_w) if s == 0 else ("start", cx)
        d.text(hx, y - 16, f"{name} sentence", size=MIN_TEXT, anchor=anchor, weight="600", fill=SENTENCES[name])
        cells(d, cx, y, [[r[2]] for r in rows[name]], "weight", digits=2, cell_w=cell_w)
        wx = cx - 8 if s == 0 else cx + cell_w + 8
        for k, r in enumerate(rows[name]):  # the words in the wide figure's ink for column names
            d.text(wx, y + 36 * k + 18 + MIN_TEXT * 0.35, r[1], size=MIN_TEXT, anchor=anchor, fill=INK_SOFT)
    legend(d, 10, y + 36 * n + 18, "weight", width=200)
    return d


def last_row_update(predict: dict) -> str:
    return table_figure(
        "part2-last-row-update",
        "The last row before and after its attention update, in each sentence",
        predict["final_table"],
        [Group([1, 2, 3, 4], VECTORS, "coordinate value", digits=3)],
        labels=[0],
    )


def hidden(predict: dict) -> str:
    return table_figure(
        "part2-hidden",
        "The hidden units' outputs after the ReLU",
        predict["hidden_table"],
        [Group([1, 2, 3], VECTORS, "unit output", digits=3)],
        labels=[0],
    )


def probabilities(predict: dict, n: int = 4) -> str:
    t = predict["compare_table"]
    rows = sorted(t["rows"], key=lambda r: -max(r[1], r[2]))[:n]
    return bars(
        "part2-probabilities",
        f"Next-word probabilities of the {n} candidates most likely in either sentence (all of them in the notes)",
        None,
        [r[0] for r in rows],
        [
            ("river sentence", [r[1] for r in rows], SENTENCES["river"]),
            ("cheque sentence", [r[2] for r in rows], SENTENCES["cheque"]),
            ("attention bypassed", [r[3] for r in rows], MUTED),
        ],
        grouped=True,
        bar_h=20,
    )


def attention_matrix(matrix: dict) -> str:
    A, toks, labels = matrix["A"], matrix["tokens"], matrix["row_labels"]
    n = len(toks)
    x0 = max(text_width(lab, MIN_TEXT) for lab in labels) * 1.2 + 24
    y0 = 110
    d = Drawing(
        SLIDE * 0.62,
        y0 + n * 40 + 80,
        "part2-attention-matrix",
        "The attention matrix A: row i holds query i's weights over the sources",
        "; ".join(f"row {lab}: " + ", ".join(f"{A[r][c]:.3f}" for c in range(r + 1)) for r, lab in enumerate(labels))
        + ". Cells right of the diagonal are masked (weight 0).",
    )
    grid = [[A[r][c] if c <= r else None for c in range(n)] for r in range(n)]
    box = cells(
        d, x0, y0, grid, "weight", digits=3, cell_w=72, cell_h=40, row_labels=labels, col_labels=toks, rotate_cols=True
    )
    legend(d, x0, box.y + box.h + 16, "weight", width=200)
    return d.render()


def before_after(matrix: dict, model: dict) -> str:
    E, E_new, labels, coords = matrix["E"], matrix["E_new"], matrix["row_labels"], model["coords"]
    x0 = max(text_width(lab, MIN_TEXT) for lab in labels) * 1.2 + 24
    desc = "; ".join(
        f"{lab}: E {[round(v, 2) for v in E[r]]}, E′ {[round(v, 3) for v in E_new[r]]}" for r, lab in enumerate(labels)
    )
    d = Drawing(
        SLIDE - 40, 110 + len(E) * 36 + 70, "part2-before-after", "Every row before (E) and after (E′) attention", desc
    )
    x = x0
    for M, name, digits in ((E, "E: before", 2), (E_new, "E′ = E + ΔE: after", 3)):
        d.text(x, 30, name, size=MIN_TEXT, anchor="start", weight="600")
        box = cells(
            d, x, 90, M, VECTORS, digits=digits, cell_w=90, row_labels=labels if x == x0 else None, col_labels=coords
        )
        x = box.x + box.w + 60
    legend(d, x0, 90 + len(E) * 36 + 18, VECTORS, name="coordinate value")
    d.width = x - 40
    return arranged(d.render(), _before_after_phone(E, E_new, labels, coords, d.title, desc))


def _before_after_phone(E, E_new, labels, coords, title, desc) -> Drawing:
    """``before_after`` for a phone: E, then E′ under it, each with its row names."""
    x = max(text_width(lab, MIN_TEXT) for lab in labels) + 18
    cell_w = (PHONE - 6 - x) / len(coords)
    d = Drawing(PHONE, 10, "part2-before-after-phone", title, desc)
    y = 0.0
    for M, name, digits in ((E, "E: before", 2), (E_new, "E′ = E + ΔE: after", 3)):
        d.text(10, y + 26, name, size=MIN_TEXT, anchor="start", weight="600")
        box = cells(d, x, y + 70, M, VECTORS, digits=digits, cell_w=cell_w, row_labels=labels, col_labels=coords)
        y = box.y + box.h + 14
    legend(d, 10, y + 10, VECTORS, width=150, name="coordinate value")
    d.height = y + 10 + 46
    return d


LABELLED = 0.1  # a mixing weight at least this large prints its number under its word


def four_ways(compare: dict) -> str:
    """How much each word feeds the blank under each of the four rules: the
    two sentences' words in a row, and for each rule an arrow from every word
    into the blank as thick as its weight (kit/ribbons.py), weights of at
    least LABELLED printed under their words. The fixed window, the mean and
    the distance weights are one band each in grey (the same in both
    sentences); attention is a band per sentence, in the sentence's colour.
    A slide's arrangement names each band at its left; a phone's (PHONE units)
    names it above the band and turns the words on their side."""
    return arranged(_four_ways(compare, phone=False).render(), _four_ways(compare, phone=True))


def _four_ways(compare: dict, phone: bool) -> Drawing:
    river, cheque = compare["river"], compare["cheque"]
    n = len(river["tokens"])
    window = [w > 0 for w in river["weights"][0]]
    mean, distance = river["weights"][1], river["weights"][2]
    w_size = sum(window)
    bands = [
        (("fixed window", f"w = {w_size}, reads the ✓ rows"), None, LINE),
        (("plain mean", f"{number(mean[0], 2)} each"), mean, LINE),
        (("distance", "nearer words weigh more"), distance, LINE),
        (("attention", "river sentence"), river["weights"][3], SENTENCES["river"]),
        (("attention", "cheque sentence"), cheque["weights"][3], SENTENCES["cheque"]),
    ]
    sentences = [river["tokens"]] * 4 + [cheque["tokens"]]
    desc = (
        f"The weights with which each of the {n} words feeds the blank after the final “the”. "
        f"Fixed window: reads the last {w_size} rows whole (no weights). "
        + "; ".join(
            f"{name[0]} ({name[1]}): " + ", ".join(f"{t} {w:.2f}" for t, w in zip(toks, ws))
            for (name, ws, _), toks in zip(bands[1:], sentences[1:])
        )
        + ". Only attention moves its weight to “river” or to “cheque” and “deposited”."
    )
    title = "Four ways to mix, at the blank: how much each word feeds it"
    ident = "part2-four-ways" + ("-phone" if phone else "")
    if phone:  # the words on their side above the bands: river's, and cheque's above its attention band
        x0, slot, lift0, lift1, title_h, label_h = 6.0, (PHONE - 12) / (n + 1), 4.0, 3.4, 26.0, 44.0
        width = PHONE
        head_h = max(text_width(t, MIN_TEXT) for t in river["tokens"] + cheque["tokens"] + ["blank"]) + 16
        headers = {0: ("river",), 4: ("cheque",)}
    else:  # both sentences' words over the bands, river's over cheque's; each band named at its left
        x0, slot, lift0, lift1, title_h, label_h = 190.0, 86.0, 6.0, 4.2, 0.0, 32.0
        width = x0 + slot * (n + 1) + 10
        head_h = 58.0
        headers = {0: SENTENCE_ORDER}
    top_lift = lift0 + lift1 * n
    band_h = title_h + top_lift + 10 + label_h
    d = Drawing(width, len(headers) * head_h + len(bands) * band_h + 4, ident, title, desc)
    xs = [x0 + (j + 0.5) * slot for j in range(n + 1)]
    tokens = {"river": river["tokens"], "cheque": cheque["tokens"]}
    y = 0.0
    for b, ((name, second), weights, colour) in enumerate(bands):
        if b in headers:  # the words, then the blank
            for k, which in enumerate(headers[b]):
                for j, x in enumerate(xs):
                    word = tokens[which][j] if j < n else ("blank" if k == 0 else "")
                    fill = SENTENCES[which] if j < n else INK
                    if not word:
                        continue
                    if phone:
                        bx, by = x + 6, y + head_h - 8
                        d.text(
                            bx,
                            by,
                            word,
                            size=MIN_TEXT,
                            anchor="start",
                            fill=fill,
                            transform=f"rotate(-90 {bx:.1f} {by:.1f})",
                        )
                    else:
                        d.text(x, y + 20 + k * 24, word, size=MIN_TEXT, fill=fill, weight="600" if j == n else "normal")
            y += head_h
        base = y + title_h + top_lift + 10
        for x in xs[:n]:
            d.polyline([(x, y), (x, base)], colour=GRIDLINE, width=1, arrow=False)
        ink = colour if colour != LINE else INK
        if phone:
            d.text(x0, y + 20, f"{name} · {second}", size=MIN_TEXT, anchor="start", weight="600", fill=ink)
        else:
            for k, line in enumerate((name, second)):
                d.text(
                    10,
                    base - 24 + k * 24,
                    line,
                    size=MIN_TEXT,
                    anchor="start",
                    weight="600" if not k else "normal",
                    fill=ink,
                )
        blank = d.box(xs[n] - slot / 2 + 4, base - 6, slot - 8, 30, "?", kind="plain")
        ends = [(blank.x + blank.w - 4 - (j / max(1, n - 1)) * (blank.w - 8), blank.y) for j in range(n)]
        last_labelled = -2
        for j in range(n):
            lift = lift0 + lift1 * (n - j)
            if weights is None:
                if window[j]:
                    d.arrow((xs[j], base), ends[j], width=3, colour=LINE, dash="6 4", bend=2 * lift)
                    d.text(xs[j], base + 24, "✓", size=MIN_TEXT, fill=INK)
                continue
            weighted_arrow(d, (xs[j], base), ends[j], weights[j], colour, lift=lift)
            d.dot(xs[j], base, 2.5, colour)
            if weights[j] >= LABELLED and weights is not mean:
                low = phone and last_labelled == j - 1  # a phone's slot is narrower than a number
                d.text(xs[j], base + 22 + (20 if low else 0), number(weights[j], 2), size=MIN_TEXT, fill=INK)
                last_labelled = -2 if low else j
        y += band_h
    return d


def position_rows(model: dict) -> str:
    t = model["positions_table"]
    title, group = "The position row Pᵢ added to each slot's row", Group([1, 2, 3, 4], VECTORS, "Pᵢ")
    wide = table_figure("part2-position-rows", title, t, [group], labels=[0], transpose=True)
    return arranged(wide, phone_table("part2-position-rows-phone", title, t, group, labels=[0]))


def swap_bars(positions: dict) -> str:
    t = positions["swap_table"]
    colours = [SENTENCES["river"], ACCENT_MID, MUTED, GRID]
    return bars(
        "part2-swap-bars",
        "Water-word probabilities, original and swapped order, with and without positions",
        None,
        [r[0] for r in t["rows"]],
        [(t["header"][c], [r[c] for r in t["rows"]], colours[c - 1]) for c in range(1, 5)],
        grouped=True,
        bar_h=20,
    )


def swap2d(table2d: dict) -> str:
    t, (first, second, query) = table2d["table"], table2d["order"]
    named = dict(t, rows=[[r[0], "with positions" if r[1] == "yes" else "no positions", *r[2:]] for r in t["rows"]])
    return table_figure(
        "part2-swap2d",
        f"Two orders of “{first}” and “{second}”, with and without positions: weights and the message",
        named,
        [
            Group([2, 3, 4], "weight", "weights α", digits=3),
            Group([5, 6], VECTORS, "message", digits=3, role="message"),
        ],
        labels=[0, 1],
        col_names={2: "slot 1", 3: "slot 2", 4: f"slot 3 ({query})", 5: "x", 6: "y"},
    )


@table(
    "part2_pictures",
    needs=[
        "part2_model",
        "part2_predict",
        "part2_pooled",
        "part2_video",
        "part2_bank",
        "part2_projections",
        "part2_scaling",
        "part2_matrix",
        "part2_compare",
        "part2_positions",
        "part2_swap2d",
    ],
)
def pictures(
    part2_model: dict,
    part2_predict: dict,
    part2_pooled: dict,
    part2_video: dict,
    part2_bank: dict,
    part2_projections: dict,
    part2_scaling: dict,
    part2_matrix: dict,
    part2_compare: dict,
    part2_positions: dict,
    part2_swap2d: dict,
) -> dict:
    return {
        "token_rows": token_rows(part2_model),
        "last_rows": last_rows(part2_predict),
        "pooled": pooled(part2_pooled),
        "queries": video_rows(part2_video, "queries", "queries"),
        "keys": video_rows(part2_video, "keys", "keys"),
        "values": video_rows(part2_video, "values", "values"),
        "search": video_search(part2_video),
        "phase_b": phase_b(part2_bank),
        "residual": residual(part2_bank, part2_model),
        "projections": projections(part2_model),
        "every_qkv": every_qkv(part2_projections),
        "random_pair": random_pair(part2_scaling),
        "spread": spread(part2_scaling),
        "bank_scaling": bank_scaling(part2_scaling),
        "final_weights": final_weights(part2_predict),
        "last_row_update": last_row_update(part2_predict),
        "hidden": hidden(part2_predict),
        "probabilities": probabilities(part2_predict),
        "attention_matrix": attention_matrix(part2_matrix),
        "before_after": before_after(part2_matrix, part2_model),
        "four_ways": four_ways(part2_compare),
        "position_rows": position_rows(part2_model),
        "swap_bars": swap_bars(part2_positions),
        "sinusoid": sinusoid_heatmap(part2_positions),
        "rope": rope_rotation(part2_positions),
        "swap2d": swap2d(part2_swap2d),
    }
