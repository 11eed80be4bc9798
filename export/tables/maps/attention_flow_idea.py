"""Part I "The attention model’s data flow" drawn as the idea (issue 35 item
2): every tensor of the toy's first example drawn as a grid of its own shape
(one row per context slot, one column per coordinate), the rows of E, K, the
scores, the weights and V side by side so a slot reads across; the query made
from the final row only, scored against every key; the weights (their values
printed) scaling the value rows, summed into the message; W_O, the residual
add of the final row, the hidden layer and the logits. Query, key, value and
message grids are outlined in their role colours (common/palette.py ROLES).
Shapes are the batch's ([B, ...]) from the maps_attention table.

Wide: the slot-aligned block left, the message's way to the logits right.
Phone (kit/draw.py ``arranged``): the same block with smaller cells, the rest
one row under the other."""

from __future__ import annotations

from common.palette import ACCENT, FILLS, GRID, INK, LINE, MUTED, ROLES

from ..kit.cells import number
from ..kit.draw import MIN_TEXT, PHONE, Drawing, arranged, text_width


def _shape(s) -> str:
    return "[" + ", ".join(str(x) for x in s) + "]"


def _num(v) -> str:
    return v if isinstance(v, str) else number(v, 2)


def _label(d: Drawing, x, y, s, anchor="middle", fill=INK, bold=False, cls=None) -> None:
    d.text(x, y, s, size=MIN_TEXT, anchor=anchor, weight="600" if bold else "normal", fill=fill, cls=cls)


def _grid(d: Drawing, name: str, x, y, rows: int, cols: int, cw, ch, stroke=LINE, fill=None, texts=None) -> dict:
    """A tensor as ``rows`` x ``cols`` cells (``texts``: one per row, a
    one-column grid's printed values); returns its box and row middles."""
    start = len(d.parts)
    for r in range(rows):
        for c in range(cols):
            d.rect(x + c * cw, y + r * ch, cw, ch, fill=fill or FILLS["data"], stroke=GRID, width=1, radius=0)
        if texts is not None:
            _label(d, x + cw / 2, y + r * ch + ch / 2 + 6, texts[r], cls="value")
    d.rect(x, y, cols * cw, rows * ch, fill="none", stroke=stroke, width=2.5, radius=2)
    d.wrap(start, cls="tensor", data_name=name, data_rows=rows, data_cols=cols)
    w, h = cols * cw, rows * ch
    return {"x": x, "y": y, "w": w, "h": h, "right": x + w, "bottom": y + h, "mid": y + h / 2, "cx": x + w / 2}


def _data(dims: dict, att: dict) -> dict:
    b = 0  # the first example of the toy batch
    return {
        "tokens": att["context_tokens"][b],
        "w": dims["w"],
        "d": dims["d"],
        "d_k": dims["d_k"],
        "d_v": dims["d_v"],
        "hidden": att["hidden_shape"][-1],
        "C": att["logits_shape"][-1],
        "scores": [_num(v) for v in att["masked_scores"][b][0]],
        "weights": [_num(v) for v in att["weights"][b][0]],
        "shapes": {k: _shape(att[f"{k}_shape"]) for k in ("E", "q", "K", "V", "scores", "weights", "message")}
        | {"update": _shape(att["update_shape"]), "hidden": _shape(att["hidden_shape"])}
        | {"logits": _shape(att["logits_shape"])},
    }


def _description(x: dict) -> str:
    s = x["shapes"]
    return (
        "The one-head attention model on the toy's first example, each tensor drawn as a grid of its shape. "
        f"Context slots {', '.join(x['tokens'])}: token rows plus position rows give E {s['E']}; "
        f"every row gives a key (K {s['K']}) and a value (V {s['V']}); the final row alone gives the query "
        f"q {s['q']}. Scores q·k/√{x['d_k']} against every key {s['scores']}: {', '.join(x['scores'])} "
        f"(PAD masked); softmax weights {s['weights']}: {', '.join(x['weights'])}. The weights scale the value "
        f"rows and their sum is the message {s['message']}; W_O maps it to width {x['d']} {s['update']}, the "
        f"final row of E is added back (the residual), a hidden layer {s['hidden']} and the vocabulary head "
        f"give logits {s['logits']}."
    )


def attention_flow_figure(dims: dict, att: dict) -> str:
    x = _data(dims, att)
    desc = _description(x)
    heading = "Data flow of the one-head attention model, with tensor shapes"
    return arranged(_wide(x, heading, desc).render(), _phone(x, heading, desc))


def _block(d: Drawing, x: dict, left, top, c, col_w, gap, wide: bool, ch=None) -> dict:
    """The slot-aligned block: tokens, E, K, scores, weights, V in columns, q
    under K, the message under V. A phone's (not ``wide``) writes no labels
    in the narrow gaps (each grid's name says what it is) and staggers the
    shapes under the two one-column grids."""
    w, s = x["w"], x["shapes"]
    ch = ch or c  # a cell's height (a phone's cells are narrower than tall)
    tok_w = max(text_width(t, MIN_TEXT) for t in x["tokens"]) + 16
    for r, t in enumerate(x["tokens"]):
        _label(d, left + tok_w - 8, top + r * ch + ch / 2 + 6, t, anchor="end", fill=MUTED, cls="slot")
    E = _grid(d, "E", left + tok_w, top, w, x["d"], c, ch)
    K = _grid(d, "K", E["right"] + gap, top, w, x["d_k"], c, ch, stroke=ROLES["key"])
    S = _grid(d, "scores", K["right"] + gap, top, w, 1, col_w, ch, fill=FILLS["muted"], texts=x["scores"])
    A = _grid(d, "weights", S["right"] + gap, top, w, 1, col_w, ch, fill=FILLS["op"], texts=x["weights"])
    V = _grid(d, "V", A["right"] + gap, top, w, x["d_v"], c, ch, stroke=ROLES["value"])
    below = top + w * ch + (70 if wide else 84)
    Q = _grid(d, "q", K["x"], below, 1, x["d_k"], c, ch, stroke=ROLES["query"])
    M = _grid(d, "message", V["x"], below, 1, x["d_v"], c, ch, stroke=ROLES["message"])
    names = [
        (E, "E", s["E"]),
        (K, "K", s["K"]),
        (S, f"q·k/√{x['d_k']}", s["scores"]),
        (A, "weights", s["weights"]),
        (V, "V", s["V"]),
    ]
    for k, (g, name, shape) in enumerate(names):
        _label(d, g["cx"], top - (30 if k == 2 and not wide else 10), name, bold=True, cls="name")
        if wide:  # a phone's columns are too narrow: their shapes are listed under the block (_phone)
            _label(d, g["cx"], g["bottom"] + 22, shape, fill=MUTED, cls="shape")
    _label(d, Q["right"] + 8, Q["mid"] + 6, "q", anchor="start", bold=True, cls="name")
    _label(d, M["x"] - 8, M["mid"] + 6, "m", anchor="end", bold=True, cls="name")
    for g, shape in ((Q, s["q"]), (M, s["message"])):
        _label(d, g["cx"], g["bottom"] + 22, shape, fill=MUTED, cls="shape")
    row = top + (w - 1) * ch + ch / 2  # the final row's middle
    # E -> K (every row, W_K); E's final row -> q (W_Q); q against every key -> scores; softmax; α·V; sum
    d.arrow((E["right"] + 3, E["mid"]), (K["x"] - 3, K["mid"]), label="W_K" if wide else None, label_size=18)
    mid_x = (E["right"] + K["x"]) / 2
    d.polyline([(E["right"] + 3, row), (mid_x, row), (mid_x, Q["mid"]), (Q["x"] - 3, Q["mid"])])
    _label(d, mid_x - 6, Q["mid"] - 10, "W_Q", anchor="end", fill=MUTED)
    d.arrow((K["right"] + 3, K["mid"]), (S["x"] - 3, S["mid"]))
    d.polyline([(Q["right"] + 26, Q["mid"]), (S["cx"], Q["mid"]), (S["cx"], S["bottom"] + (30 if wide else 52))])
    d.arrow((S["right"] + 3, S["mid"]), (A["x"] - 3, A["mid"]))
    d.arrow((A["right"] + 3, A["mid"]), (V["x"] - 3, V["mid"]), label="×" if wide else None, label_size=18)
    d.arrow((V["cx"], V["bottom"] + 30), (V["cx"], M["y"] - 3))
    sigma = (V["cx"] + 8, "start") if wide else (V["cx"] - 8, "end")
    _label(d, sigma[0], (V["bottom"] + 30 + M["y"]) / 2 + 8, "Σ rows", anchor=sigma[1], fill=MUTED)
    # E -> V over the top (every row, W_V)
    over = top - 50
    d.polyline([(E["cx"], top - 32), (E["cx"], over), (V["cx"], over), (V["cx"], top - 30)])
    _label(d, (E["cx"] + V["cx"]) / 2, over - 8, "W_V, every row", fill=MUTED)
    return {"E": E, "K": K, "S": S, "A": A, "V": V, "Q": Q, "M": M, "row": row}


def _row_name(d: Drawing, g: dict, name: str, shape: str) -> None:
    _label(d, g["x"], g["y"] - 10, name, anchor="start", bold=True, cls="name")
    _label(
        d,
        g["x"] + text_width(name, MIN_TEXT, bold=True) + 10,
        g["y"] - 10,
        shape,
        anchor="start",
        fill=MUTED,
        cls="shape",
    )


def _wide(x, heading, desc) -> Drawing:
    c, top, rc = 34, 92, 24
    s = x["shapes"]
    b = _block(d := Drawing(1170, 420, "maps-attention-flow", heading, desc), x, 0, top, c, 70, 62, wide=True)
    E, M = b["E"], b["M"]
    F = _grid(d, "updated row", 1166 - x["d"] * rc, M["y"], 1, x["d"], rc, c)
    U = _grid(d, "update", F["x"] - 56 - x["d"] * rc, M["y"], 1, x["d"], rc, c)
    d.arrow((M["right"] + 3, M["mid"]), (U["x"] - 3, U["mid"]), label="W_O", label_size=18)
    d.text(U["right"] + 31, U["mid"] + 8, "+", size=26, weight="600")
    d.arrow((U["right"] + 38, U["mid"]), (F["x"] - 3, F["mid"]))
    _label(d, U["cx"], U["bottom"] + 22, s["update"], fill=MUTED, cls="shape")
    _label(d, U["cx"], U["y"] - 10, "m·W_O", bold=True, cls="name")
    _label(d, F["cx"], F["bottom"] + 22, s["update"], fill=MUTED, cls="shape")
    _label(d, F["right"], F["y"] - 10, "updated row", anchor="end", bold=True, cls="name")
    res_y = F["bottom"] + 52
    d.polyline(
        [
            (E["x"] + 12, E["bottom"] + 30),
            (E["x"] + 12, res_y),
            (U["right"] + 30, res_y),
            (U["right"] + 30, U["bottom"] + 4),
        ],
        colour=ACCENT,
        dash="5 4",
    )
    _label(d, (E["x"] + U["right"]) / 2, res_y - 8, "residual: the final row of E is added back", fill=ACCENT)
    L = _grid(d, "logits", 1166 - x["C"] * rc, top - 40, 1, x["C"], rc, c, fill=FILLS["out"])
    H = _grid(d, "hidden", 1166 - x["hidden"] * rc, top + 70, 1, x["hidden"], rc, c)
    _row_name(d, L, "logits z", s["logits"])
    _row_name(d, H, "hidden h", s["hidden"])
    d.arrow((F["cx"], F["y"] - 30), (F["cx"], H["bottom"] + 3))
    _label(d, F["cx"] - 8, (F["y"] - 30 + H["bottom"]) / 2 + 6, "ReLU layer", anchor="end", fill=MUTED)
    d.arrow((F["cx"], H["y"] - 30), (F["cx"], L["bottom"] + 3))
    _label(d, F["cx"] - 8, (H["y"] - 30 + L["bottom"]) / 2 + 8, "W₂", anchor="end", fill=MUTED)
    return d


def _phone(x, heading, desc) -> Drawing:
    top, rc = 80, 20
    s = x["shapes"]
    d = Drawing(PHONE, 800, "maps-attention-flow-phone", heading, desc)
    b = _block(d, x, 0, top, 16, 50, 14, wide=False, ch=26)
    E, M = b["E"], b["M"]
    # the columns' shapes, listed
    listed = [f"E {s['E']}, K {s['K']}, V {s['V']};", f"scores {s['scores']}, weights {s['weights']}"]
    ly = M["bottom"] + 56
    for k, line in enumerate(listed):
        _label(d, 16, ly + 22 * k, line, anchor="start", fill=MUTED, cls="shape")
    # the message's way down to the logits: one row under the other at the left, arrows down
    lx, ax = 24, 64
    U = _grid(d, "update", lx, ly + 22 + 110, 1, x["d"], rc, 26)
    turn = ly + 22 + 20
    d.polyline([(M["cx"], M["bottom"] + 30), (M["cx"], turn), (ax, turn), (ax, U["y"] - 30)])
    _label(d, ax + 10, turn + 24, "W_O", anchor="start", fill=MUTED)
    _row_name(d, U, "m·W_O", s["update"])
    F = _grid(d, "updated row", lx, U["bottom"] + 110, 1, x["d"], rc, 26)
    _row_name(d, F, "updated row", s["update"])
    d.arrow((ax, U["bottom"] + 6), (ax, F["y"] - 30))
    plus_y = U["bottom"] + 38
    d.text(ax + 20, plus_y + 8, "+", size=26, weight="600", anchor="start")
    _label(d, ax + 44, plus_y + 6, "E’s final row (residual)", anchor="start", fill=ACCENT)
    d.polyline([(6, E["bottom"] + 8), (6, plus_y), (ax - 4, plus_y)], colour=ACCENT, dash="5 4")
    H = _grid(d, "hidden", lx, F["bottom"] + 84, 1, x["hidden"], rc, 26)
    _row_name(d, H, "hidden h", s["hidden"])
    d.arrow((ax, F["bottom"] + 6), (ax, H["y"] - 30))
    _label(d, ax + 10, F["bottom"] + 30, "ReLU layer", anchor="start", fill=MUTED)
    L = _grid(d, "logits", lx, H["bottom"] + 84, 1, x["C"], rc, 26, fill=FILLS["out"])
    _row_name(d, L, "logits z", s["logits"])
    d.arrow((ax, H["bottom"] + 6), (ax, L["y"] - 30))
    _label(d, ax + 10, H["bottom"] + 30, "W₂", anchor="start", fill=MUTED)
    d.height = L["bottom"] + 10
    return d
