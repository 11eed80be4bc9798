"""Part III figures drawn as the idea instead of a table in colour (issue 35
item 2): each test reads the drawing back (positions on its own axes, its
labels) and holds it to the table it was drawn from, in both arrangements
(the wide one and the phone one, kit/draw.py ``Arranged``)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from common.palette import MODELS
from common.settings import ROOT
from export.tables.kit.draw import PHONE
from support.phone_drawings import label_boxes as _boxes
from support.phone_drawings import overlapping as _overlaps
from support.phone_drawings import text_of as _text
from support.phone_drawings import translate_of as _translate

SVG = "{http://www.w3.org/2000/svg}"


def _root(svg: str) -> ET.Element:
    return ET.fromstring(svg)


@pytest.fixture(scope="module")
def seed_curves():
    from export.tables.part3.comparison import seed_curves

    results = json.loads((ROOT / "models" / "results.json").read_text(encoding="utf-8"))
    return seed_curves(results, 11)


def _y_axis(panel: ET.Element):
    """A panel's loss axis read from its tick labels: loss -> y."""
    ticks = next(g for g in panel.iter(SVG + "g") if g.get("class") == "ticks")
    ys = [(float(_text(t)), float(t.get("y")) - 4) for t in ticks.iter(SVG + "text") if t.get("text-anchor") == "end"]
    (v0, y0), (v1, y1) = ys[0], ys[-1]
    return lambda v: y0 + (v - v0) / (v1 - v0) * (y1 - y0)


def _x_axis(panel: ET.Element):
    ticks = next(g for g in panel.iter(SVG + "g") if g.get("class") == "ticks")
    xs = [
        (float(_text(t).replace(",", "")), float(t.get("x")))
        for t in ticks.iter(SVG + "text")
        if t.get("text-anchor") == "middle"
    ]
    (v0, x0), (v1, x1) = xs[0], xs[-1]
    return lambda v: x0 + (v - v0) / (v1 - v0) * (x1 - x0)


@pytest.mark.parametrize("arrangement", ["wide", "phone"])
def test_seed_curves_mark_each_models_best_and_last_step_and_draw_the_gap(seed_curves, arrangement):
    t = seed_curves
    svg = t["svg"] if arrangement == "wide" else t["svg"].phone
    root = _root(svg)
    panels = [g for g in root.iter(SVG + "g") if g.get("class") == "panel"]
    assert [p.get("data-kind") for p in panels] == [x["kind"] for x in t["runs"]]
    for panel, x in zip(panels, t["runs"]):
        y_of, x_of = _y_axis(panel), _x_axis(panel)
        colour = MODELS[x["kind"]]
        dot = panel.find(f"{SVG}circle[@class='selected']")
        # the dot sits at the table's selected step and best loss, on the panel's own axes
        assert float(dot.get("cx")) == pytest.approx(x_of(x["selected_step"]), abs=0.6)
        assert float(dot.get("cy")) == pytest.approx(y_of(x["best_val"]), abs=0.6)
        assert dot.get("fill") == colour
        last = panel.find(f"{SVG}rect[@class='last']")
        assert float(last.get("x")) + float(last.get("width")) / 2 == pytest.approx(x_of(x["last_step"]), abs=0.6)
        assert float(last.get("y")) + float(last.get("height")) / 2 == pytest.approx(y_of(x["last_val"]), abs=0.6)
        # the bracket runs from the best level to the last loss, and its label is the table's rise
        gap = panel.find(f"{SVG}path[@class='gap']")
        m = re.fullmatch(r"M([-\d.]+),([-\d.]+) H([-\d.]+) V([-\d.]+) H([-\d.]+)", gap.get("d"))
        top, bottom = float(m.group(2)), float(m.group(4))
        assert top == pytest.approx(y_of(x["best_val"]), abs=0.6)
        assert bottom == pytest.approx(y_of(x["last_val"]), abs=0.6)
        words = " ".join(_text(e) for e in panel.iter(SVG + "text") if e.get("class") == "gap-label")
        assert words.startswith(f"+{x['rise']:.3f}") and "nats" in words
        assert ("a plateau" in words) == x["plateau"]
        best = " ".join(_text(e) for e in panel.iter(SVG + "text") if e.get("class") == "best-label")
        assert best == f"best {x['best_val']:.3f} at step {x['selected_step']:,}"
        # no two labels of a panel overlap
        assert not _overlaps(_boxes(panel)), _overlaps(_boxes(panel))
    if arrangement == "phone":
        assert float(root.get("viewBox").split()[2]) <= PHONE
        ys = [_translate(p)[1] for p in panels]
        assert ys == sorted(ys) and len(set(ys)) == len(panels)  # one panel per row
    else:
        xs = [_translate(p)[0] for p in panels]
        assert xs == sorted(xs) and len(set(xs)) == len(panels)  # side by side on one loss axis


def test_seed_curves_panels_share_one_loss_axis(seed_curves):
    for svg in (seed_curves["svg"], seed_curves["svg"].phone):
        panels = [g for g in _root(svg).iter(SVG + "g") if g.get("class") == "panel"]
        scales = {(round(_y_axis(p)(3.0), 2), round(_y_axis(p)(4.0), 2)) for p in panels}
        assert len(scales) == 1, scales  # a rise drawn in one panel is as tall in another


@pytest.fixture(scope="module")
def replay_table():
    return json.loads((ROOT / "build" / "tables" / "part3_replay.json").read_text(encoding="utf-8"))


def _expanded(trail: list[dict], steps: list[int]) -> list[str]:
    """A favourites trail (run-length coded by token) as one token per recorded step."""
    out = []
    for s in steps:
        out.append(next(t["token"] for t in trail if t["first"] <= s <= t["last"]))
    return out


@pytest.mark.parametrize("key", ["svg_four", "svg_four_phone"])
def test_four_habits_strips_hold_each_heads_favourite_at_every_recorded_step(replay_table, key):
    from common.palette import HEADS
    from export.tables.part3.habits import word_names

    t = replay_table
    fh = t["four_heads"]
    steps, names = fh["recorded_steps"], word_names(t["tokens"])
    root = _root(t[key])
    segments = [e for e in root.iter(SVG + "rect") if e.get("class") == "favourite"]
    for h, (trail, strip) in enumerate(zip(fh["favourites"], fh["strips"])):
        mine = [e for e in segments if e.get("data-head") == str(h + 1)]
        assert {e.get("stroke") for e in mine} == {HEADS[h]}
        drawn: dict[int, str] = {}
        for e in mine:
            for s in e.get("data-steps").split():
                assert int(s) not in drawn, f"head {h + 1}: step {s} drawn twice"
                drawn[int(s)] = e.get("data-token")
        # every recorded step once, in order, with the trail's favourite; the segments tile the strip
        assert list(drawn) == steps or sorted(drawn) == steps
        # the word drawn is the favourite of the slides' trail at that step (a repeated word named by its slot)
        assert [c["token"] for c in strip] == _expanded(trail["trail"], steps)
        assert all(t["tokens"][c["slot"]] == c["token"] for c in strip)
        assert [drawn[s] for s in steps] == [names[c["slot"]] for c in strip]
        # the kept step's bar: the takeaway's favourite and weight, drawn on its 0..1 track
        rects = list(root.iter(SVG + "rect"))
        bar = next(e for e in rects if e.get("class") == "kept-weight" and e.get("data-head") == str(h + 1))
        at = (float(bar.get("x")), float(bar.get("y")))
        track = next(e for e in rects if (float(e.get("x")), float(e.get("y"))) == at and e is not bar)
        kept = t["heads_selected"][h]
        assert float(bar.get("data-weight")) == pytest.approx(kept["weight"], abs=1e-6)
        assert float(bar.get("width")) == pytest.approx(kept["weight"] * float(track.get("width")), abs=0.1)
        assert strip[-1]["token"] == kept["token"] and strip[-1]["step"] == steps[-1] == t["selected"]["attn4"]
        label = [_text(e) for e in root.iter(SVG + "text") if e.get("class") == "kept-label"][h]
        assert label == f"{names[strip[-1]['slot']]} {kept['weight']:.2f}"
    if key.endswith("phone"):
        assert float(root.get("viewBox").split()[2]) <= PHONE
        # heads side by side as columns, steps down: each head's segments share one x
        for h in range(4):
            assert len({e.get("x") for e in segments if e.get("data-head") == str(h + 1)}) == 1
    else:
        for h in range(4):  # one row per head
            assert len({e.get("y") for e in segments if e.get("data-head") == str(h + 1)}) == 1
    # a segment's word fits inside it, and no two texts overlap
    boxes = _boxes(root)
    assert not _overlaps(boxes), _overlaps(boxes)


def test_four_habits_segments_each_hold_their_word(replay_table):
    root = _root(replay_table["svg_four"])
    texts = _boxes(root)
    for e in root.iter(SVG + "rect"):
        if e.get("class") != "favourite":
            continue
        x, y, w, h = (float(e.get(a)) for a in ("x", "y", "width", "height"))
        inside = [b for b in texts if x <= b[1] and b[3] <= x + w and y <= b[2] and b[4] <= y + h]
        assert len(inside) == 1 and inside[0][0] == e.get("data-token"), (e.get("data-token"), inside)


@pytest.fixture(scope="module")
def pipeline_svg():
    from common.layout import MODELS as MODELS_FOLDER
    from export.tables.part3.pipeline_idea import pipeline_figure

    audit = json.loads(MODELS_FOLDER.audit.read_text(encoding="utf-8"))
    return audit, pipeline_figure(audit, 512, 6000, 64)


def _arrows(root):
    """(x1, y1, x2, y2) of every arrow (a path with an arrowhead) of a drawing."""
    out = []
    for e in root.iter(SVG + "path"):
        if not e.get("marker-end"):
            continue
        xy = [float(v) for v in re.findall(r"[-\d.]+", e.get("d"))]
        out.append((xy[0], xy[1], xy[-2], xy[-1]))
    return out


@pytest.mark.parametrize("arrangement", ["wide", "phone"])
def test_pipeline_draws_the_split_to_scale_and_fits_the_vocabulary_from_training_alone(pipeline_svg, arrangement):
    audit, svg = pipeline_svg
    root = _root(svg if arrangement == "wide" else svg.phone)
    splits = audit["splits"]
    bars = {e.get("data-split"): e for e in root.iter(SVG + "rect") if e.get("class") == "split"}
    assert list(bars) == ["train", "validation", "test"]
    widths = {k: float(b.get("width")) for k, b in bars.items()}
    for k, b in bars.items():  # each bar as long as its story count, against the training bar
        assert int(b.get("data-stories")) == splits[k]["documents"]
        assert widths[k] / widths["train"] == pytest.approx(
            splits[k]["documents"] / splits["train"]["documents"], abs=0.01
        )
    labels = [_text(e) for e in root.iter(SVG + "text") if e.get("class") == "split-label"]
    assert labels == [f"{k} {splits[k]['documents']:,}" for k in bars]
    words = [_text(e) for e in root.iter(SVG + "text")]
    for number in (audit["selected_stories"], audit["pool_stories"], audit["vocab_size"], splits["train"]["windows"]):
        assert any(f"{number:,}" in w for w in words), number
    assert any(w.startswith(f"C = {audit['vocab_size']:,}") for w in words)
    stages = [_text(e) for e in root.iter(SVG + "text") if e.get("class") == "stage"]
    assert (
        stages[1].startswith("split") and stages[2] == "vocabulary" and stages[3] == f"{audit['context']}-token windows"
    )
    # one arrow leaves the training bar (to the vocabulary); none leaves validation or test
    ends = {k: float(b.get("x")) + float(b.get("width")) for k, b in bars.items()}
    mids = {k: float(b.get("y")) + float(b.get("height")) / 2 for k, b in bars.items()}
    paths = [e for e in root.iter(SVG + "path") if e.get("marker-end")]
    leaving = {k: [e for e in paths if _starts_at(e, ends[k], mids[k])] for k in bars}
    assert len(leaving["train"]) == 1 and not leaving["validation"] and not leaving["test"]
    # every story reaches a split: the wide figure fans one arrow to each bar
    if arrangement == "wide":
        into = [
            a for a in _arrows(root) if any(abs(a[3] - mids[k]) < 1 and a[2] < float(bars[k].get("x")) for k in bars)
        ]
        assert len(into) == 3
    else:
        assert float(root.get("viewBox").split()[2]) <= PHONE
    assert not _overlaps(_boxes(root)), _overlaps(_boxes(root))


def _starts_at(path: ET.Element, x: float, y: float) -> bool:
    xy = [float(v) for v in re.findall(r"[-\d.]+", path.get("d"))]
    return abs(xy[0] - x) <= 8 and abs(xy[1] - y) <= 1


def test_replay_one_on_its_side_for_a_phone_holds_the_same_cells(replay_table):
    """The one-head replay (part3-replay-one) turned for a phone: a row per token,
    a column per step, every value of the wide figure in the transposed place."""
    t = replay_table
    wide, phone = _root(t["svg_one"]), _root(t["svg_one_phone"])
    assert float(phone.get("viewBox").split()[2]) <= PHONE < float(wide.get("viewBox").split()[2])

    def grid(root):
        g = next(e for e in root.iter(SVG + "g") if e.get("class") == "cells")
        return [_text(e) for e in g.iter(SVG + "text")]

    rows = t["one_head"]["rows"]
    assert grid(wide) == [f"{v:.2f}" for row in rows for v in row]
    assert grid(phone) == [f"{rows[s][j]:.2f}" for j in range(len(t["tokens"])) for s in range(len(rows))]
