"""A figure's phone arrangement (issue 35 item 5; export/tables/kit/draw.py
``Arranged``): the same figure builder draws it from the same numbers as the
wide one, so it holds the same numbers, labels and colours, and it fits a
phone's width (PHONE units: 362 px at 0.9 px per unit). The registry writes
it beside the wide one under KEY_phone; a deck's m.figure inserts both, each
with the class that site.css shows on a projector or on a phone."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from common.settings import TABLES_DIR
from export.tables.kit.bars import bars
from export.tables.kit.cell_panels import Panel, panels
from export.tables.kit.draw import PHONE, PHONE_KEY, Arranged, flow
from export.tables.kit.heads import attention_arrows, head_split
from export.tables.kit.panels import heatmaps
from export.tables.kit.registry import with_phone
from site_builder.values import figure_parts
from support.phone_drawings import SVG, assert_same_figure, drawn, width


def test_bars_stack_their_panels_on_a_phone_with_the_same_labels_values_and_colours():
    labels = ["a", "the", "ball", "all other 3,989 tokens"]
    svg = bars(
        "t-bars",
        "Three temperatures",
        None,
        labels,
        [("T = 0.5", [0.7, 0.2, 0.05, 0.05]), ("T = 1", [0.5, 0.3, 0.1, 0.1]), ("T = 2", [0.3, 0.3, 0.2, 0.2])],
        vmax=1.0,
        highlight=[0],
    )
    assert isinstance(svg, Arranged) and width(svg) > PHONE
    assert_same_figure(svg, svg.phone)
    # one panel per row: the three captions one under the other
    root = ET.fromstring(svg.phone)
    caps = [e for e in root.iter(SVG + "text") if e.text and e.text.startswith("T = ")]
    assert len(caps) == 3
    assert len({float(e.get("x")) for e in caps}) == 1


def test_a_chain_turns_downwards_on_a_phone():
    stages = [("story text", "1 sentence", "data"), ("tokens", "6 pieces", "data"), ("model → loss", None, "op")]
    svg = flow("t-flow", "A chain", "Left to right.", stages, ["tokenize", "forward"])
    assert_same_figure(svg, svg.phone)
    rects = [e for e in ET.fromstring(svg.phone).iter(SVG + "rect")]
    assert len({e.get("x") for e in rects}) == 1  # one column of boxes
    assert len({e.get("y") for e in rects}) == len(stages)


def test_heads_one_per_row_on_a_phone():
    words = ["The", "river", "bank", "was", "quiet"]
    rows = [[0.1, 0.6, 0.1, 0.1, 0.1], [0.5, 0.1, 0.2, 0.1, 0.1], [0.2] * 5, [0.0, 0.0, 0.9, 0.1, 0.0]]
    svg = attention_arrows("t-heads", words, rows, "quiet", "Four heads")
    assert_same_figure(svg, svg.phone)
    titles = [e for e in ET.fromstring(svg.phone).iter(SVG + "text") if (e.text or "").startswith("head ")]
    assert [t.text for t in titles] == ["head 1", "head 2", "head 3", "head 4"]
    assert len({t.get("x") for t in titles}) == 1 and len({t.get("y") for t in titles}) == 4
    split = head_split("t-split", 12, 64, 4, 16, "Split and join")
    # its lines are broken differently for the narrow width: the same numbers and colours
    assert_same_figure(split, split.phone, same_texts=False)


def test_a_matrix_wider_than_a_phone_wraps_and_its_rows_stay_rows():
    tokens = ["<PAD>", "<BOS>", "<EOS>", "<UNK>", ".", "a", "ball", "found", "lily", "red"]
    z = [[0.1 * k - 0.4 for k in range(10)], [0.05 * k - 0.3 for k in range(10)]]
    svg = panels("t-logits", "Logits", "-", [Panel("logits z", z, ["example 1", "example 2"], tokens)], "part1-scores")
    assert_same_figure(svg, svg.phone)
    root = ET.fromstring(svg.phone)
    at = {}
    for e in root.iter(SVG + "text"):
        at.setdefault(e.text, []).append((float(e.get("x")), float(e.get("y"))))
    assert len(at["example 1"]) == 2  # two blocks, each with the example rows
    assert at["<PAD>"][0][1] < at["a"][0][1]  # the row goes on under itself
    assert at["<PAD>"][0][1] == at["<UNK>"][0][1]  # tokens stay across, as in the wide figure


def test_a_wide_short_heatmap_stands_on_its_side_on_a_phone():
    words = ["<BOS>", "a", "little", "dog", "found", "a", "red", "hat"]
    rows = [[0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.1]] * 4
    svg = heatmaps("t-rows", "Four rows", "-", [("", rows)], ["head 1", "head 2", "head 3", "head 4"], words, digits=3)
    assert_same_figure(svg, svg.phone)


def test_heatmaps_stack_one_panel_per_row_under_one_legend():
    m = [[0.1, 0.9, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.25] * 4]
    svg = heatmaps(
        "t-heat", "Two heads", "-", [("head 1", m), ("head 2", m), ("head 3", m)], ["a", "b", "c"], ["1", "2", "3", "4"]
    )
    assert_same_figure(svg, svg.phone)
    assert svg.phone.count('class="scale-legend"') == 1


def test_a_figure_that_fits_a_phone_is_drawn_once():
    svg = bars("t-small", "Small", None, ["a", "b"], [("", [0.5, 0.25])], width=380)
    assert not isinstance(svg, Arranged)


def test_the_registry_writes_the_phone_arrangement_beside_the_wide_one_and_the_deck_inserts_both():
    svg = bars("t-two", "Two", None, ["a", "b"], [("x", [0.5, 0.25]), ("y", [0.1, 0.2])])
    written = with_phone({"fig": svg, "n": 3, "more": [{"inner": svg}]})
    assert set(written) == {"fig", "fig" + PHONE_KEY, "n", "more"}
    assert type(written["fig"]) is str and written["fig" + PHONE_KEY] == svg.phone
    assert set(written["more"][0]) == {"inner", "inner" + PHONE_KEY}
    shown = str(figure_parts({"t": written}, "t.fig")["svg"])
    assert shown.count("<svg") == 2
    assert shown.index('class="diagram"') < shown.index('class="figure-phone diagram"')  # the wide one first
    # a figure drawn once is inserted as it is
    assert (
        str(figure_parts({"t": {"fig": "<svg><title>a</title><desc>b</desc></svg>"}}, "t.fig")["svg"]).count("<svg")
        == 1
    )


def test_every_phone_arrangement_in_the_tables_fits_a_phone_and_matches_its_wide_figure():
    import json

    found = 0

    def walk(value):
        nonlocal found
        if isinstance(value, dict):
            for key, v in value.items():
                if key.endswith(PHONE_KEY):
                    wide = value[key[: -len(PHONE_KEY)]]
                    found += 1
                    a, b = drawn(wide), drawn(v)
                    assert width(v) <= PHONE + 0.5, key
                    if 'class="figure-phone chart"' in v:  # a chart's axis has fewer ticks on a phone
                        assert set(b["numbers"] + b["ticks"]) <= set(a["numbers"] + a["ticks"]), key
                    else:  # every number the same; an axis (a dot plot's) may have fewer ticks
                        assert b["numbers"] == a["numbers"] and set(b["ticks"]) <= set(a["ticks"]), key
                    assert b["colours"] <= a["colours"], key
                else:
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in sorted(TABLES_DIR.glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    assert found >= 40, found


def _tick_rows(svg: str):
    """The x-axis tick labels of every axis of a figure: rows of (centre, text, size)
    of middle-anchored labels on one baseline."""
    for ticks in ET.fromstring(svg).iter(SVG + "g"):
        if "ticks" not in (ticks.get("class") or "").split():
            continue
        size = float(ticks.get("font-size") or 18)
        rows: dict[str, list] = {}
        for t in ticks.iter(SVG + "text"):
            if t.get("text-anchor") == "middle":
                rows.setdefault(t.get("y"), []).append((float(t.get("x")), "".join(t.itertext()), size))
        yield from (sorted(r) for r in rows.values() if len(r) > 1)


def test_no_axis_of_a_built_figure_sets_its_tick_labels_into_each_other():
    """Part III's test-perplexity chart on a phone set "fixed-window MLP" against "one head".
    Widths are text_width's estimate at 0.52 em a character, which the rendered labels reached."""
    checked, crowded = 0, []
    for path in sorted(TABLES_DIR.glob("*.json")):
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            if not (isinstance(value, str) and value.startswith("<svg")):
                continue
            for row in _tick_rows(value):
                checked += 1
                for (x0, a, s), (x1, b, _) in zip(row, row[1:]):
                    if x1 - x0 < (len(a) + len(b)) / 2 * s * 0.52 + 4:
                        crowded.append(f"{path.stem}.{key}: {a!r} | {b!r}")
    assert checked > 10 and not crowded, crowded
