"""Part I "The attention model’s data flow" drawn as the idea (issue 35 item
2; export/tables/maps/attention_flow_idea.py): every tensor a grid of its own
shape, read back from the drawing and held to the maps_attention table, in
the wide arrangement and the phone one."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from common.palette import FILLS, ROLES
from common.settings import TABLES_DIR
from export.tables.kit.draw import PHONE, text_width

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def flow():
    from export.tables.maps.attention_flow_idea import attention_flow_figure

    att = json.loads((TABLES_DIR / "maps_attention.json").read_text(encoding="utf-8"))
    dims = json.loads((TABLES_DIR / "maps_batch.json").read_text(encoding="utf-8"))["dims"]
    return dims, att, attention_flow_figure(dims, att)


def _tensors(root):
    return {g.get("data-name"): g for g in root.iter(SVG + "g") if g.get("class") == "tensor"}


def _outline(g):
    """A tensor grid's outline: the last rect of its group (drawn over its cells)."""
    return list(g.iter(SVG + "rect"))[-1]


def _boxes(root):
    out = []
    for t in root.iter(SVG + "text"):
        if t.get("x") is None or t.get("transform"):
            continue
        s = "".join(t.itertext())
        w = text_width(s, 18, bold=t.get("font-weight") in ("600", "bold"))
        x, y = float(t.get("x")), float(t.get("y"))
        a = t.get("text-anchor") or "start"
        x0 = x - w if a == "end" else x - w / 2 if a == "middle" else x
        out.append((s, x0, y - 13, x0 + w, y + 3))
    return out


@pytest.mark.parametrize("arrangement", ["wide", "phone"])
def test_each_tensor_is_a_grid_of_its_shape_in_its_role_colour(flow, arrangement):
    dims, att, svg = flow
    root = ET.fromstring(svg if arrangement == "wide" else svg.phone)
    t = _tensors(root)
    w = dims["w"]
    expected = {  # name -> (rows, columns), from the table's shapes (batch dimension dropped: one example drawn)
        "E": att["E_shape"][1:],
        "K": att["K_shape"][1:],
        "V": att["V_shape"][1:],
        "q": att["q_shape"][1:],
        "scores": [att["scores_shape"][2], att["scores_shape"][1]],  # one score per key: a column beside the keys
        "weights": [att["weights_shape"][2], att["weights_shape"][1]],
        "message": att["message_shape"][1:],
        "update": [1, att["update_shape"][1]],
        "updated row": [1, att["update_shape"][1]],
        "hidden": [1, att["hidden_shape"][1]],
        "logits": [1, att["logits_shape"][1]],
    }
    assert set(t) == set(expected)
    for name, (rows, cols) in expected.items():
        assert (int(t[name].get("data-rows")), int(t[name].get("data-cols"))) == (rows, cols), name
        cells = [e for e in t[name].iter(SVG + "rect")][:-1]
        assert len(cells) == rows * cols, name
    # q, k, v and the message in their role colours; the logits in the output fill
    for name, role in (("q", "query"), ("K", "key"), ("V", "value"), ("message", "message")):
        assert _outline(t[name]).get("stroke") == ROLES[role], name
    assert {e.get("fill") for e in list(t["logits"].iter(SVG + "rect"))[:-1]} == {FILLS["out"]}
    # the slots' rows line up across E, K, the scores, the weights and V
    tops = {n: float(_outline(t[n]).get("y")) for n in ("E", "K", "scores", "weights", "V")}
    heights = {n: float(_outline(t[n]).get("height")) for n in tops}
    assert len(set(tops.values())) == 1 and len(set(heights.values())) == 1
    # the printed scores and weights are the first example's, PAD masked
    shown = {n: ["".join(e.itertext()) for e in t[n].iter(SVG + "text")] for n in ("scores", "weights")}
    scores = att["masked_scores"][0][0]
    assert shown["scores"] == [v if isinstance(v, str) else f"{v:.2f}".replace("-", "−") for v in scores]
    assert shown["weights"] == [f"{v:.2f}" for v in att["weights"][0][0]]
    assert sum(float(v) for v in shown["weights"]) == pytest.approx(1.0, abs=0.02)
    slots = ["".join(e.itertext()) for e in root.iter(SVG + "text") if e.get("class") == "slot"]
    assert slots == att["context_tokens"][0] and len(slots) == w
    # every shape of the table is written
    words = " ".join("".join(e.itertext()) for e in root.iter(SVG + "text") if e.get("class") == "shape")
    for key in ("E", "q", "K", "V", "scores", "weights", "message", "update", "hidden", "logits"):
        shape = "[" + ", ".join(str(v) for v in att[f"{key}_shape"]) + "]"
        assert shape in words, key
    if arrangement == "phone":
        assert float(root.get("viewBox").split()[2]) <= PHONE
    boxes = _boxes(root)
    bad = [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]
    assert not bad, bad


def test_the_query_comes_from_the_final_row_alone(flow):
    """The arrow into q leaves E at its final row's height (the other rows make keys and values only)."""
    import re

    dims, att, svg = flow
    for arrangement in (svg, svg.phone):
        root = ET.fromstring(arrangement)
        t = _tensors(root)
        E, Q = _outline(t["E"]), _outline(t["q"])
        final_mid = float(E.get("y")) + float(E.get("height")) * (dims["w"] - 0.5) / dims["w"]
        q_mid = float(Q.get("y")) + float(Q.get("height")) / 2
        paths = [e.get("d") for e in root.iter(SVG + "path") if e.get("marker-end")]
        into_q = []
        for d in paths:
            xy = [float(v) for v in re.findall(r"[-\d.]+", d)]
            if abs(xy[-1] - q_mid) < 1 and abs(xy[-2] - float(Q.get("x"))) < 6:
                into_q.append(xy)
        assert len(into_q) == 1
        assert into_q[0][1] == pytest.approx(final_mid, abs=1)
