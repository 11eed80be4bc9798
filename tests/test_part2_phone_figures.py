"""Part II figures that re-flow on a phone (issue 35 item 5): one attention
step at “bank” (part2_figures.phases), its stages top to bottom; the life of
q, k and v (part2_figures.qkv_lifetime), one word a row with the cache lines
running down; the video search (part2_pictures.search), each video's title
over its key row with its score and bar; each phone arrangement drawn by the same builder from the same
numbers as its wide figure, with the same title, texts and colours, at most
PHONE units wide.

Reads build/tables."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import combinations

import pytest

from common.palette import ACCENT
from export.tables.kit.cells import number
from export.tables.kit.draw import PHONE, PHONE_KEY
from support.phone_drawings import assert_same_figure

SVG = "{http://www.w3.org/2000/svg}"
FIGURES = {"part2_figures": ["phases", "qkv_lifetime"], "part2_pictures": ["search"]}


@pytest.mark.parametrize("name,key", [(t, k) for t, keys in FIGURES.items() for k in keys])
def test_the_phone_arrangement_is_the_same_figure_at_a_phones_width(table, name, key):
    t = table(name)
    wide, phone = t[key], t[key + PHONE_KEY]
    assert float(ET.fromstring(wide).get("viewBox").split()[2]) > PHONE
    assert_same_figure(wide, phone)


def _boxes(svg: str) -> dict[str, list[tuple[float, float, float, float]]]:
    """Each one-line box's label -> the rects it labels (x, y, w, h)."""
    root = ET.fromstring(svg)
    rects = [tuple(float(r.get(a)) for a in ("x", "y", "width", "height")) for r in root.iter(SVG + "rect")]
    out: dict[str, list] = {}
    for t in root.iter(SVG + "text"):
        x, y = float(t.get("x")), float(t.get("y"))
        for r in rects:
            if r[0] < x < r[0] + r[2] and r[1] < y < r[1] + r[3]:
                out.setdefault("".join(t.itertext()), []).append(r)
    return out


def _lines(svg: str, colour: str) -> list[list[tuple[float, float]]]:
    """The points of every path drawn in ``colour``."""
    return [
        [(float(x), float(y)) for x, y in re.findall(r"[ML]([\d.-]+),([\d.-]+)", p.get("d"))]
        for p in ET.fromstring(svg).iter(SVG + "path")
        if p.get("stroke") == colour
    ]


def _cross(a, b) -> bool:
    """Whether two axis-parallel segments cross (touching ends aside)."""
    (ax0, ay0), (ax1, ay1) = a
    (bx0, by0), (bx1, by1) = b
    if ay0 == ay1 and bx0 == bx1:  # a across, b down
        return min(ax0, ax1) < bx0 < max(ax0, ax1) and min(by0, by1) < ay0 < max(by0, by1)
    if ax0 == ax1 and by0 == by1:
        return _cross(b, a)
    return False


def test_qkv_lifetime_on_a_phone_has_one_word_a_row_and_its_cache_lines_run_down_without_crossing(table):
    model = table("part2_model")
    words = [f"{j + 1} {t}" for j, t in enumerate(model["sentences"]["river"][:5])]
    phone = table("part2_figures")["qkv_lifetime" + PHONE_KEY]
    boxes = _boxes(phone)
    rows = [boxes[w][0] for w in words]
    assert len({r[0] for r in rows}) == 1  # one column of words
    ys = [r[1] for r in rows]
    assert ys == sorted(ys) and len(set(ys)) == len(words)  # one word a row, in order
    # each row's q, k and v sit beside its word, on its line
    for label in ("q", "k", "v"):
        assert sorted(r[1] for r in boxes[label]) == ys
        assert all(r[0] > rows[0][0] + rows[0][2] for r in boxes[label])
    last_q = next(r for r in boxes["q"] if r[1] == ys[-1])
    keys = sorted(boxes["k"], key=lambda r: r[1])
    lines = _lines(phone, ACCENT)
    assert len(lines) == len(words) - 1  # one from each earlier word's key
    for line, key in zip(sorted(lines, key=lambda pts: pts[0][1]), keys):
        (x0, y0), (x1, y1) = line[0], line[-1]
        assert key[0] < x0 < key[0] + key[2] and y0 == key[1] + key[3]  # out of the key's foot
        assert last_q[0] < x1 < last_q[0] + last_q[2] and y1 > last_q[1] + last_q[3]  # up into the last query
    segments = [list(zip(pts, pts[1:])) for pts in lines]
    for a, b in combinations(segments, 2):
        assert not any(_cross(s, t) for s in a for t in b)


def test_phases_on_a_phone_runs_top_to_bottom_with_the_residual_from_the_row_into_the_new_row(table):
    phone = table("part2_figures")["phases" + PHONE_KEY]
    root = ET.fromstring(phone)
    at = {"".join(t.itertext()): (float(t.get("x")), float(t.get("y"))) for t in root.iter(SVG + "text")}
    # match, then mix, then W_O's update, then the new row: each stage under the one it feeds
    order = ["row e₇ (bank)", "query q₇", "phase A: α", "phase B: m₇ = Σ α v", "update Δe₇", "new row e′₇"]
    ys = [at[label][1] for label in order]
    assert ys == sorted(ys) and len(set(ys)) == len(ys), list(zip(order, ys))
    assert at["keys k₁…k₇"][1] < at["phase A: α"][1] < at["values v₁…v₇"][1]
    # phase A's softmax is written inside it, between its name and its top weight
    cheque = table("part2_bank")["cheque"]
    softmax = f"softmax(q·k/√{table('part2_model')['d_k']})"
    top = f"top: {cheque['top_source']} {max(cheque['weights']):.2f}"
    assert at["phase A: α"][1] < at[softmax][1] < at[top][1]
    assert abs(at[softmax][0] - at["phase A: α"][0]) < 1
    # the residual: one dashed line in ACCENT from under e₇ to the new row's foot, with its sum beside it
    (residual,) = [p for p in root.iter(SVG + "path") if p.get("stroke-dasharray")]
    assert residual.get("stroke") == ACCENT
    pts = [(float(x), float(y)) for x, y in re.findall(r"[ML]([\d.-]+),([\d.-]+)", residual.get("d"))]
    assert pts[0][1] < at["query q₇"][1] and pts[-1][1] > at["new row e′₇"][1]
    assert at["residual: e′₇ = e₇ + Δe₇"][1] > at["new row e′₇"][1]


def test_search_on_a_phone_puts_each_title_over_its_key_row_with_its_score_and_bar(table):
    video = table("part2_video")
    lk = video["longer_key"]
    qi = video["queries"].index(lk["query"]) if lk.get("found") else video["query_index"]
    scores, titles = video["scores"][qi], video["titles"]
    root = ET.fromstring(table("part2_pictures")["search" + PHONE_KEY])
    texts = [("".join(t.itertext()), float(t.get("x")), float(t.get("y"))) for t in root.iter(SVG + "text")]
    bars = sorted(
        (float(r.get("y")), float(r.get("width"))) for r in root.iter(SVG + "rect") if r.get("fill") == ACCENT
    )
    assert len(bars) == len(titles)
    cells = [float(r.get("y")) for g in root.iter(SVG + "g") if g.get("class") == "cells" for r in g.iter(SVG + "rect")]
    track, top = max(w for _, w in bars), max(scores)  # the top score's bar fills its track
    ys = []
    for title, score, (bar_y, bar_w) in zip(titles, scores, bars):
        (y,) = [ty for text, _, ty in texts if text == title]
        # the score at the right end of the title's line, the bar and the key row right under it
        assert any(text == number(score, 2) and ty == y and tx > PHONE / 2 for text, tx, ty in texts)
        assert y < bar_y < y + 30 and any(y < cy < y + 30 for cy in cells)
        assert abs(bar_w - max(score / top * track, 1.5)) < 0.1  # as long as its score
        ys.append(y)
    assert ys == sorted(ys)  # one video a row, in the table's order
