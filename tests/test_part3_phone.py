"""Part III figures' phone arrangements (issue 35 item 5; kit/draw.py
``Arranged``): each test reads both arrangements of a built figure back and
holds them to the table they were drawn from: every number in its place, the
phone's no wider than PHONE units and none of its labels over another."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from export.tables.kit.draw import PHONE, text_width
from support.phone_drawings import label_boxes as _boxes
from support.phone_drawings import overlapping as _overlaps
from support.phone_drawings import text_of as _text

SVG = "{http://www.w3.org/2000/svg}"
ARRANGEMENTS = ["", "_phone"]


def _width(root: ET.Element) -> float:
    return float(root.get("viewBox").split()[2])


def _same_title(wide: ET.Element, phone: ET.Element) -> None:
    assert phone.get("id") == wide.get("id") + "-phone"
    assert _text(phone.find(SVG + "title")) == _text(wide.find(SVG + "title"))
    assert _width(phone) <= PHONE + 0.5 < _width(wide)


# ---------------------------------------------------------------- the position similarity chart


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_position_similarity_draws_every_distance_at_its_table_value(table, arrangement):
    emb = table("part3_embeddings")
    if not emb.get("available", True) or "position_svg" not in emb:
        pytest.skip("no trained position table")
    by_gap = emb["position_cos_by_gap"]
    root = ET.fromstring(emb["position_svg" + arrangement])
    if arrangement:
        _same_title(ET.fromstring(emb["position_svg"]), root)
    ticks = next(g for g in root.iter(SVG + "g") if g.get("class") == "ticks")
    ys = [(float(_text(t)), float(t.get("y")) - 4) for t in ticks if t.get("text-anchor") == "end"]
    xs = [(float(_text(t)), float(t.get("x"))) for t in ticks if t.get("text-anchor") == "middle"]
    (v0, y0), (v1, y1) = ys[0], ys[-1]
    (g0, x0), (g1, x1) = xs[0], xs[-1]
    line = next(e for e in root.iter(SVG + "polyline") if e.get("class") == "similarity")
    drawn = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
    # one point per distance shown, from 1 slot apart on, each at its table value
    assert len(drawn) == len(by_gap) + 1 - emb["position_min_pairs"]
    for gap, (x, y) in enumerate(drawn, start=1):
        assert g0 + (x - x0) / (x1 - x0) * (g1 - g0) == pytest.approx(gap, abs=0.05)
        assert v0 + (y - y0) / (y1 - y0) * (v1 - v0) == pytest.approx(by_gap[gap - 1], abs=0.002)
    assert not _overlaps(_boxes(root)), _overlaps(_boxes(root))


# ---------------------------------------------------------------- the worksheet's messages


def _cell_rows(root: ET.Element) -> list[list[tuple[float, float, str]]]:
    """Each <g class="cells"> of a drawing as (x, y, text) of its cells, in the order drawn."""
    out = []
    for g in root.iter(SVG + "g"):
        if g.get("class") == "cells":
            rects = [(float(r.get("x")), float(r.get("y"))) for r in g.iter(SVG + "rect")]
            out.append([(x, y, _text(t)) for (x, y), t in zip(rects, g.iter(SVG + "text"))])
    return out


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_messages_keep_every_row_its_numbers_its_columns_and_its_label(table, arrangement):
    from export.tables.kit.cells import number

    f, pics = table("part3_fisherman"), table("part3_pictures")
    wide, root = ET.fromstring(pics["messages"]), ET.fromstring(pics["messages" + arrangement])
    if arrangement:
        _same_title(wide, root)
        # the same sentences, the same notes, the same column names
        assert sorted(_text(t) for t in root.iter(SVG + "text")) == sorted(_text(t) for t in wide.iter(SVG + "text"))
    expected = [f["heads"][0]["message"], f["heads"][1]["message"], f["concat_last"]]
    expected += [f["update_last"], f["E_last"], f["out_last"]]
    rows = _cell_rows(root)
    assert [[c[2] for c in row] for row in rows] == [[number(v, 2) for v in vals] for vals in expected]
    # head 1 fills the join's first two columns, head 2 its last two; every later row spans all four
    columns = [c[0] for c in rows[2]]
    assert [c[0] for c in rows[0]] == columns[:2] and [c[0] for c in rows[1]] == columns[2:]
    assert all([c[0] for c in row] == columns for row in rows[3:])
    # each row's label beside it (wide) or on the line above it (phone), never inside another row
    labels = ["head 1 message", "head 2 message", "concatenated", "Δe = concat · WO", "+ E (its own row)", "= new row"]
    at = {_text(t): (float(t.get("x")), float(t.get("y"))) for t in root.iter(SVG + "text")}
    tops = [row[0][1] for row in rows]
    for k, label in enumerate(labels):
        x, y = at[label]
        if arrangement:
            assert (tops[k - 1] + 36 if k else 0) < y - 18 and y < tops[k] and x <= columns[0]
        else:
            assert tops[k] < y < tops[k] + 36 and x < columns[0]
    # the new row is framed in the message colour
    frame = [r for r in root.iter(SVG + "rect") if r.get("fill") == "none" and r.get("stroke-width") == "2.5"]
    assert len(frame) == 1 and abs(float(frame[0].get("y")) - tops[5]) <= 4
    assert not _overlaps(_boxes(root)), _overlaps(_boxes(root))


# ---------------------------------------------------------------- the two-source toy and the worksheet's rows


def _matrix(root: ET.Element) -> tuple[list[float], list[list[tuple[float, str]]], float, float]:
    """Every cell of a drawing's <g class="cells"> read back as a matrix: the
    rows' tops, each row's (x, text) left to right, a cell's width and height."""
    by_y: dict[float, list[tuple[float, str]]] = {}
    size = (0.0, 0.0)
    for g in root.iter(SVG + "g"):
        if g.get("class") == "cells":
            for r, t in zip(g.iter(SVG + "rect"), g.iter(SVG + "text")):
                by_y.setdefault(float(r.get("y")), []).append((float(r.get("x")), _text(t)))
                size = (float(r.get("width")), float(r.get("height")))
    tops = sorted(by_y)
    return tops, [sorted(by_y[y]) for y in tops], *size


def _check_matrix(root, values, row_labels, col_labels, digits, labels_above):
    from export.tables.kit.cells import number

    tops, rows, cw, ch = _matrix(root)
    assert [[t for _, t in row] for row in rows] == [[number(v, digits) for v in vals] for vals in values]
    columns = [x for x, _ in rows[0]]
    assert all([x for x, _ in row] == columns for row in rows)
    texts = {_text(t): t for t in root.iter(SVG + "text")}
    for k, label in enumerate(row_labels):
        x, y = float(texts[label].get("x")), float(texts[label].get("y"))
        if labels_above:  # on the line above its cells, under the row before
            assert (tops[k - 1] + ch if k else 0) < y - 18 and y < tops[k] and x <= columns[0]
        else:  # left of its cells, within the row
            assert tops[k] < y < tops[k] + ch and x < columns[0]
    for c, name in enumerate(col_labels):  # each name over its own column, above the first row
        x, y = float(texts[name].get("x")), float(texts[name].get("y"))
        assert abs(x - (columns[c] + cw / 2)) < cw / 2 and y < tops[0]
        if texts[name].get("transform"):  # standing up: all of it inside the drawing
            assert y - text_width(name, 18) * 1.3 >= 0, name
    assert not _overlaps(_boxes(root)), _overlaps(_boxes(root))


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_two_source_rows_keep_their_numbers_and_labels(table, arrangement):
    two, pics = table("part3_two_source"), table("part3_pictures")
    wide, root = ET.fromstring(pics["two_source"]), ET.fromstring(pics["two_source" + arrangement])
    if arrangement:
        _same_title(wide, root)
        assert sorted(_text(t) for t in root.iter(SVG + "text")) == sorted(_text(t) for t in wide.iter(SVG + "text"))
    values = [two["values"][0], two["values"][1], two["one_head_message"], two["two_head_message"]]
    labels = [f"value row of {two['sources'][0]}", f"value row of {two['sources'][1]}", "one head's message"]
    labels.append("two heads' messages")
    _check_matrix(root, values, labels, ["coordinate 1", "coordinate 2"], 1, labels_above=bool(arrangement))


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_worksheet_rows_keep_every_token_and_feature_in_place(table, arrangement):
    f, pics = table("part3_fisherman"), table("part3_pictures")
    wide, root = ET.fromstring(pics["E"]), ET.fromstring(pics["E" + arrangement])
    if arrangement:
        _same_title(wide, root)
        assert sorted(_text(t) for t in root.iter(SVG + "text")) == sorted(_text(t) for t in wide.iter(SVG + "text"))
        # the feature names stand up over the columns
        assert all(
            t.get("transform", "").startswith("rotate(-90")
            for t in root.iter(SVG + "text")
            if _text(t) in f["features"]
        )
    _check_matrix(root, f["E"], f["token_labels"], f["features"], 1, labels_above=False)
