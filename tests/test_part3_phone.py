"""Part III figures' phone arrangements (issue 35 item 5; kit/draw.py
``Arranged``): each test reads both arrangements of a built figure back and
holds them to the table they were drawn from: every number in its place, the
phone's no wider than PHONE units and none of its labels over another."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from export.tables.kit.draw import PHONE, text_width

SVG = "{http://www.w3.org/2000/svg}"
ARRANGEMENTS = ["", "_phone"]


def _text(e: ET.Element) -> str:
    return "".join(e.itertext())


def _width(root: ET.Element) -> float:
    return float(root.get("viewBox").split()[2])


def _translate(e: ET.Element) -> tuple[float, float]:
    m = re.match(r"translate\(([-\d.]+)[ ,]([-\d.]+)\)", e.get("transform") or "")
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def _boxes(parent: ET.Element, dx: float = 0.0, dy: float = 0.0) -> list[tuple[str, float, float, float, float]]:
    """(text, x0, y0, x1, y1) of every unrotated <text> under ``parent``, in the
    drawing's frame (a <g>'s translate added), its width estimated as kit/draw.py's
    ``text_width``."""
    out = []
    for e in parent:
        if e.tag == SVG + "g":
            tx, ty = _translate(e)
            out += _boxes(e, dx + tx, dy + ty)
        elif e.tag == SVG + "text" and not e.get("transform") and e.get("x") is not None:
            s, size = _text(e), float(e.get("font-size") or parent.get("font-size") or 18)
            w = text_width(s, size, bold=e.get("font-weight") in ("bold", "600"))
            x, y = float(e.get("x")) + dx, float(e.get("y")) + dy
            anchor = e.get("text-anchor") or parent.get("text-anchor") or "start"
            x0 = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
            out.append((s, x0, y - 0.75 * size, x0 + w, y + 0.2 * size))
    return out


def _overlaps(boxes) -> list[tuple[str, str]]:
    bad = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]:
                bad.append((a[0], b[0]))
    return bad


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
