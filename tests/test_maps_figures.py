"""The maps deck's drawn pictures (issue 20) come from its tables: every cell
prints its table value and is coloured on its meaning's fixed scale, ID cards
carry the IDs of the windows, bars are as long as their probabilities, and
every label is drawn at 18 units or more on a figure that fits the slide."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from common import palette
from common.typeface import SLIDE_MIN_PX
from export.tables.kit import cells as kit_cells
from export.tables.kit.scales import scale
from export.tables.maps import cell_figures, corpus_figures, token_figures

SVG = "{http://www.w3.org/2000/svg}"
CONTENT_PX = 1176  # the slide's content box at 1280x720: a figure no wider is drawn at one px per unit


@pytest.fixture(scope="module")
def t(table):
    names = [
        "tokenize",
        "vocab",
        "story",
        "windows",
        "batch",
        "mlp",
        "attention",
        "generation",
        "token_figures",
        "cell_figures",
    ]
    return {f"maps_{name}": table(f"maps_{name}") for name in names}


def drawn_cells(svg: str) -> list[tuple[str, str]]:
    """(fill, text) of every value cell, in drawing order: a square-cornered
    rect with the grid's border, followed by its text."""
    parts = list(ET.fromstring(svg).iter())
    out = []
    for a, b in zip(parts, parts[1:]):
        cell = a.tag == SVG + "rect" and a.get("stroke") == palette.GRID and a.get("rx") == "0"
        if cell and a.get("fill") != "none" and b.tag == SVG + "text":  # not the legend's frame
            out.append((a.get("fill"), b.text))
    return out


def texts(svg: str) -> list[str]:
    return [e.text for e in ET.fromstring(svg).iter(SVG + "text")]


def test_every_figure_has_a_title_readable_labels_and_fits_the_slide(t):
    figures = {**t["maps_token_figures"], **t["maps_cell_figures"]}
    assert len(figures) >= 20
    for name, svg in figures.items():
        root = ET.fromstring(svg)
        assert root.find(SVG + "title").text and len(root.find(SVG + "desc").text) > 40, name
        assert float(root.get("viewBox").split()[2]) <= CONTENT_PX, name
        sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]
        assert sizes and min(sizes) >= SLIDE_MIN_PX, name


def test_embedding_cells_print_the_table_on_the_signed_scale(t):
    table = t["maps_mlp"]["embedding_table"]
    vmax = scale("part1-vectors").limit  # Part I's forward pass: one scale on every slide
    got = drawn_cells(t["maps_cell_figures"]["embedding"])
    want = [(kit_cells.colour(v, "signed", vmax), kit_cells.number(v, 3)) for row in table for v in row]
    assert got == want
    # the row that ID found selects is outlined
    assert f'stroke="{palette.ACCENT}"' in t["maps_cell_figures"]["embedding"]


def test_weights_are_a_heatmap_on_the_fixed_weight_scale(t):
    A = [ex[0] for ex in t["maps_attention"]["weights"]]
    got = drawn_cells(t["maps_cell_figures"]["weights"])
    want = [(kit_cells.colour(w, "weight", 1.0), kit_cells.number(w, 3)) for row in A for w in row]
    assert got == want
    assert (palette.hex_colour(palette.WEIGHT_SCALE[0]), "0.000") in got  # PAD's weight is exactly 0
    # the drawing follows the data: other weights, another figure
    flipped = dict(t["maps_attention"], weights=[[row[0][::-1]] for row in t["maps_attention"]["weights"]])
    assert cell_figures.attention_figures(flipped)["weights"] != t["maps_cell_figures"]["weights"]


def test_masked_pad_score_is_a_blocked_cell(t):
    got = drawn_cells(t["maps_cell_figures"]["masked"])
    blocked = [c for c in got if c[1] == "−∞"]
    pads = sum(tok == "<PAD>" for row in t["maps_attention"]["context_tokens"] for tok in row)
    assert len(blocked) == pads >= 1 and all(fill == palette.BLOCKED for fill, _ in blocked)


def test_logits_and_flattened_rows_print_every_value(t):
    for key, model, name in (("logits", "maps_mlp", "logits"), ("attention_logits", "maps_attention", "logits")):
        values = [kit_cells.number(v, 2) for row in t[model][name] for v in row]
        assert [text for _, text in drawn_cells(t["maps_cell_figures"][key])] == values
    flat = [kit_cells.number(v, 2) for row in t["maps_mlp"]["flat"] for v in row]
    assert [text for _, text in drawn_cells(t["maps_cell_figures"]["flat"])] == flat


def test_pairs_figure_shows_every_window_and_target(t):
    svg = t["maps_token_figures"]["all_pairs"]
    w = t["maps_windows"]
    shown = [s for s in texts(svg) if s.isdigit()]
    want = [str(i) for ctx, y in zip(w["contexts"], w["targets"]) for i in [*ctx, y]]
    assert shown == want
    assert svg.count(f'fill="{palette.HIGHLIGHT}"') == w["N"]  # one target card per pair


def test_story_ids_figure_numbers_positions_and_ids(t):
    svg = t["maps_token_figures"]["story_ids"]
    ids = t["maps_story"]["ids"]
    numbers = [s for s in texts(svg) if s.isdigit()]
    assert numbers == [str(i) for i in ids] + [str(k + 1) for k in range(len(ids))]  # the cards, then positions


def test_probability_bars_are_as_long_as_the_probabilities(t):
    gen = t["maps_generation"]
    svg = t["maps_cell_figures"]["generation_probs"]
    root = ET.fromstring(svg)
    bars = [
        float(r.get("width")) for r in root.iter(SVG + "rect") if r.get("fill") in (palette.ACCENT_MID, palette.ACCENT)
    ]
    shown = [p for i, p in enumerate(gen["p"]) if i not in gen["blocked_ids"]]
    assert len(bars) == len(shown)
    top = max(shown)
    for length, p in zip(bars, shown):
        assert length == pytest.approx(bars[shown.index(top)] * p / top, abs=0.2)
    assert sum(r.get("fill") == palette.BLOCKED for r in root.iter(SVG + "rect")) == len(gen["blocked_ids"])
    assert texts(svg).count("blocked: −∞ before the softmax") == len(gen["blocked_ids"])


def test_corpus_figures_draw_the_audit_or_say_why_not():
    audit = {
        "available": True,
        "length_table": {"rows": [["train", 62, 173.0, 973], ["validation", 49, 171, 674], ["test", 89, 172, 800]]},
        "header": ["Split", "Stories", "Ordinary tokens"],
        "rows": [["train", 4760, 9], ["validation", 645, 9], ["test", 595, 9]],
    }
    figs = corpus_figures.corpus_figures(audit)
    for n in ("62", "173", "973", "49", "674", "800"):
        assert n in texts(figs["lengths"])
    assert texts(figs["stories"])[:2] == ["train", "4,760"]  # a count, grouped as the decks print it
    gone = corpus_figures.corpus_figures({"available": False, "reason": "no corpus yet"})
    assert gone == {"available": False, "reason": "no corpus yet"}


def test_token_figures_follow_the_batch(t):
    b = t["maps_batch"]
    svg = token_figures.batch(b, t["maps_vocab"])
    numbers = [s for s in texts(svg) if s.isdigit()]
    assert numbers == [str(i) for x, y in zip(b["X"], b["y"]) for i in [*x, y]]


def test_cuts_figure_lines_up_the_pieces_of_one_text(t):
    svg = t["maps_token_figures"]["cuts"]
    rows = t["maps_tokenize"]["choices"]["rows"]
    shown = texts(svg)
    for choice, pieces, count in rows:
        k = shown.index(choice)
        assert shown[k + 1 : k + 1 + len(pieces)] == pieces and shown[k + 1 + len(pieces)] == f"{count} tokens"
    # every row spans the same width: the pieces cut one text
    root = ET.fromstring(svg)
    boxes = [r for r in root.iter(SVG + "rect")]
    ends = {}
    for r in boxes:
        y = r.get("y")
        ends[y] = max(ends.get(y, 0.0), float(r.get("x")) + float(r.get("width")))
    assert len(ends) == len(rows) and len(set(ends.values())) == 1
