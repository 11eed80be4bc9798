"""What a reader can check between a figure's two arrangements (issue 35 item
5): every text, every number and every colour of the wide drawing is in the
phone one, an axis's tick labels (a <g class="ticks">) may be fewer there,
and the phone drawing fits PHONE units. Used by the phone-arrangement tests
(test_phone_arrangements.py and the per-deck picture tests)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from export.tables.kit.draw import PHONE, text_width

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


# labels read back from a drawing: (text, x0, y0, x1, y1) boxes and the pairs that overlap
def text_of(e: ET.Element) -> str:
    return "".join(e.itertext())


def translate_of(e: ET.Element) -> tuple[float, float]:
    m = re.match(r"translate\(([-\d.]+)[ ,]([-\d.]+)\)", e.get("transform") or "")
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def label_boxes(parent: ET.Element, dx: float = 0.0, dy: float = 0.0) -> list[tuple[str, float, float, float, float]]:
    """(text, x0, y0, x1, y1) of every unrotated <text> under ``parent``, in the
    drawing's frame (a <g>'s translate added), its width estimated as kit/draw.py's
    ``text_width``."""
    out = []
    for e in parent:
        if e.tag == SVG + "g":
            tx, ty = translate_of(e)
            out += label_boxes(e, dx + tx, dy + ty)
        elif e.tag == SVG + "text" and not e.get("transform") and e.get("x") is not None:
            s, size = text_of(e), float(e.get("font-size") or parent.get("font-size") or 18)
            w = text_width(s, size, bold=e.get("font-weight") in ("bold", "600"))
            x, y = float(e.get("x")) + dx, float(e.get("y")) + dy
            anchor = e.get("text-anchor") or parent.get("text-anchor") or "start"
            x0 = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
            out.append((s, x0, y - 0.75 * size, x0 + w, y + 0.2 * size))
    return out


def overlapping(boxes) -> list[tuple[str, str]]:
    bad = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]:
                bad.append((a[0], b[0]))
    return bad
