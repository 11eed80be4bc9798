"""“Same “bank”, two contexts” (part2_figures.bank_arrows, issue 35 item 2)
draws the idea from the part2_bank table: in each sentence an arrow from every
earlier word into “bank”, in the sentence's colour, as thick as that word's
attention weight; and the update those weights make, an arrow per sentence
from the row “bank” starts with, pointing along the coordinate it moves
(water for the river sentence, finance for the cheque sentence) and as long
as the update. Both arrangements (a slide's and a phone's, at most PHONE units).

Reads build/tables."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from common.palette import SENTENCES
from export.tables.kit.draw import PHONE, PHONE_KEY
from export.tables.kit.ribbons import MIN_WIDTH, WIDTH
from export.tables.part2 import figures

SVG = "{http://www.w3.org/2000/svg}"
NAMES = ("river", "cheque")


@pytest.fixture(scope="module")
def bank(table):
    return table("part2_bank")


@pytest.fixture(scope="module", params=["wide", "phone"])
def svg(request, table):
    t = table("part2_figures")
    return t["bank_arrows"] if request.param == "wide" else t["bank_arrows" + PHONE_KEY]


def weighted(svg: str) -> list[dict]:
    root = ET.fromstring(svg)
    return [
        {"weight": float(p.get("data-weight")), "width": float(p.get("stroke-width")), "colour": p.get("stroke")}
        for p in root.iter(SVG + "path")
        if p.get("class") == "weighted"
    ]


def straight_arrows(svg: str, colour: str) -> list[tuple[float, float, float, float]]:
    """The straight arrows (kit/draw.py ``Drawing.arrow``: M x,y L x,y) of ``colour``."""
    out = []
    for p in ET.fromstring(svg).iter(SVG + "path"):
        m = re.fullmatch(r"M([\d.-]+),([\d.-]+) L([\d.-]+),([\d.-]+)", p.get("d") or "")
        if m and p.get("stroke") == colour and p.get("marker-end"):
            out.append(tuple(float(v) for v in m.groups()))
    return out


def test_each_earlier_word_has_an_arrow_into_bank_as_thick_as_its_weight(svg, bank):
    row = bank["position"] - 1
    arrows = weighted(svg)
    assert len(arrows) == 2 * row
    for s, name in enumerate(NAMES):
        mine = arrows[s * row : (s + 1) * row]
        assert [a["weight"] for a in mine] == pytest.approx(bank[name]["weights"][:row], abs=1e-4)
        assert {a["colour"] for a in mine} == {SENTENCES[name]}
        for a in mine:  # proportional to the weight, a hairline at least
            assert a["width"] == pytest.approx(max(MIN_WIDTH, WIDTH * a["weight"]), abs=0.06), a
    # the word “bank” reads most is the thickest arrow of its sentence
    for s, name in enumerate(NAMES):
        widths = [a["width"] for a in arrows[s * row : (s + 1) * row]]
        top = bank[name]["tokens"][widths.index(max(widths))]
        assert top == bank[name]["top_source"]


def test_the_update_arrows_point_along_the_coordinate_each_sentence_moves(svg, bank):
    lengths = {}
    for name in NAMES:
        (x1, y1, x2, y2), *rest = straight_arrows(svg, SENTENCES[name])
        assert not rest, f"one update arrow for the {name} sentence"
        delta = bank[name]["delta"]
        moved = [c for c, v in enumerate(delta) if abs(v) > 1e-9]
        assert len(moved) == 1, "the toy's update moves one coordinate per sentence"
        coord, value = bank["coords"][moved[0]], delta[moved[0]]
        across, up = x2 - x1, y1 - y2  # the plane: water across, finance up
        axis = {"water": (1.0, 0.0), "finance": (0.0, 1.0)}[coord]
        cos = (across * axis[0] + up * axis[1]) / math.hypot(across, up)
        assert cos == pytest.approx(math.copysign(1.0, value), abs=1e-3), (name, coord, across, up)
        lengths[name] = math.hypot(across, up) / abs(value)
        assert f"{name}: +{value:.2f} {coord}" in svg
    # one scale for both: each arrow's length is its update's size
    assert lengths["river"] == pytest.approx(lengths["cheque"], rel=0.01)
    # the two sentences push “bank” apart: river towards water, cheque towards finance
    coords = bank["coords"]
    assert bank["river"]["delta"][coords.index("water")] > 0 and bank["cheque"]["delta"][coords.index("finance")] > 0


def test_the_phone_arrangement_fits_a_phone(table):
    phone = table("part2_figures")["bank_arrows" + PHONE_KEY]
    assert float(ET.fromstring(phone).get("viewBox").split()[2]) <= PHONE + 0.5


def test_the_drawing_follows_the_table():
    """Moving the weights or the update in the table moves the drawing."""
    bank = {
        "position": 3,
        "coords": ["water", "finance", "noun", "grammar"],
        "river": {
            "tokens": ["a", "river", "bank"],
            "weights": [0.1, 0.6, 0.3],
            "e": [0.0, 0.0, 1.0, 0.0],
            "delta": [0.5, 0.0, 0.0, 0.0],
        },
        "cheque": {
            "tokens": ["a", "cheque", "bank"],
            "weights": [0.7, 0.2, 0.1],
            "e": [0.0, 0.0, 1.0, 0.0],
            "delta": [0.0, 0.25, 0.0, 0.0],
        },
    }
    svg = figures.bank_arrows(bank)
    assert [a["weight"] for a in weighted(svg)] == pytest.approx([0.1, 0.6, 0.7, 0.2])
    (rx1, _, rx2, _), (_, cy1, _, cy2) = (
        straight_arrows(svg, SENTENCES["river"])[0],
        straight_arrows(svg, SENTENCES["cheque"])[0],
    )
    assert (rx2 - rx1) == pytest.approx(2 * (cy1 - cy2), rel=0.01)  # 0.5 water is twice 0.25 finance
