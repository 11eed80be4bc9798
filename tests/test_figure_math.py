"""Math in the figures is set as math (issue 35 item 6): no figure writes
"W_O" or "√d_k" as plain text; an index is a subscript (dₖ, αⱼ in Unicode's
subscript letters, like the figures' e₇; the capitals of W_Q, W_K, W_V, W_O,
W_E a lowered <tspan> after a larger symbol, never under 18 px). Read from
every SVG in build/tables, which `make site` wrote; a word with an
underscore (a code name) is left as written."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from common.settings import TABLES_DIR
from common.typeface import SLIDE_MIN_PX
from export.tables.kit.draw import SUBSCRIPT, Drawing, math_markup
from support.figures import svgs_in

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def figures() -> dict[str, ET.Element]:
    if not TABLES_DIR.is_dir():
        pytest.fail(f"{TABLES_DIR} is missing: run `make site` first")
    out = {}
    for path in sorted(TABLES_DIR.glob("*.json")):
        for svg in svgs_in(json.loads(path.read_text(encoding="utf-8"))):
            root = ET.fromstring(svg)
            out[root.get("id")] = root
    return out


def _texts(root):
    return [t for t in root.iter(f"{NS}text")]


def test_no_figure_writes_an_index_as_plain_text(figures):
    plain = [
        (ident, "".join(t.itertext()))
        for ident, root in figures.items()
        for t in _texts(root)
        if SUBSCRIPT.search("".join(t.itertext()))
    ]
    assert not plain, f"math written as plain text: {plain[:10]}"


def test_the_projection_matrices_and_the_divisor_are_set_with_subscripts(figures):
    def lowered(ident: str) -> list[str]:
        """(symbol, index) pairs drawn as a larger symbol and a lowered index."""
        out = []
        for t in _texts(figures[ident]):
            spans = list(t)
            for a, b in zip(spans, spans[1:]):
                if b.get("baseline-shift") and float(b.get("baseline-shift")) < 0:  # a lowered index
                    assert float(a.get("font-size")) > float(t.get("font-size")) >= SLIDE_MIN_PX
                    out.append(a.text + b.text)
        return out

    assert "WO" in lowered("maps-update")  # Δe = m·W_O
    assert {"WQ", "WK", "WV", "WO"} <= set(lowered("part2-phases"))  # the arrows' labels
    assert "WE" in lowered("maps-embedding")
    titles = ["".join(t.itertext()) for t in _texts(figures["part2-bank-scaling"])]
    assert "q·k/√dₖ" in titles  # d_k: Unicode's subscript k
    assert "αⱼ · vⱼ" in ["".join(t.itertext()) for t in _texts(figures["maps-message"])]


def test_math_markup_sets_indices_and_leaves_code_names():
    assert math_markup("forward_details: every query row") is None
    assert math_markup("padding_idx") is None and math_markup("plain text") is None
    assert math_markup("q·k/√d_k") == "q·k/√dₖ"
    assert math_markup("x_{ij} & y") == "xᵢⱼ &amp; y"  # escaped
    assert (
        math_markup("Δe = m·W_O", 18) == 'Δe = m·<tspan font-size="21.6">W</tspan><tspan baseline-shift="-4">O</tspan>'
    )
    d = Drawing(300, 60, "t-math", "t", "d")
    d.text(10, 30, "W_Q, W_K", size=18)
    svg = d.render()
    assert svg.count('baseline-shift="-4"') == 2 and "W_" not in svg
