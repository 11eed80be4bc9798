"""What a reader can check between a figure's two arrangements (issue 35 item
5): every text, every number and every colour of the wide drawing is in the
phone one, an axis's tick labels (a <g class="ticks">) may be fewer there,
and the phone drawing fits PHONE units. Used by the phone-arrangement tests
(test_phone_arrangements.py and the per-deck picture tests)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from export.tables.kit.draw import PHONE

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?")


def width(svg: str) -> float:
    return float(ET.fromstring(svg).get("viewBox").split()[2])


def drawn(svg: str) -> dict:
    """What a reader can check between two arrangements: every text, every
    number in them, every colour."""
    root = ET.fromstring(svg)
    words = ["".join(e.itertext()) for e in root.iter(SVG + "text")]
    # an axis's tick labels (a <g class="ticks">, kit/charts.py and kit/dots.py): a phone's axis may have fewer
    axis = [
        "".join(e.itertext())
        for g in root.iter(SVG + "g")
        if "ticks" in (g.get("class") or "").split()
        for e in g.iter(SVG + "text")
    ]
    colours = {e.get(a) for e in root.iter() for a in ("fill", "stroke") if (e.get(a) or "").startswith("#")}
    rest = list(words)
    for w in axis:
        rest.remove(w)
    return {
        "texts": set(words),
        "numbers": sorted(set(n for w in rest for n in NUMBER.findall(w))),
        "ticks": sorted(set(n for w in axis for n in NUMBER.findall(w))),
        "colours": colours,
    }


def assert_same_figure(wide: str, phone: str, same_texts: bool = True) -> None:
    a, b = drawn(wide), drawn(phone)
    assert b["numbers"] == a["numbers"] and b["ticks"] == a["ticks"]
    assert b["colours"] <= a["colours"], b["colours"] - a["colours"]  # no colour a wide figure lacks
    if same_texts:
        assert b["texts"] == a["texts"], a["texts"] ^ b["texts"]
    assert width(phone) <= PHONE + 0.5
    root = ET.fromstring(phone)
    assert root.get("id").endswith("-phone")
    assert root.find(SVG + "title").text == ET.fromstring(wide).find(SVG + "title").text
