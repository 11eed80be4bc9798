"""The Part III and results decks' cell and bar figures (issue 20): every
cell's printed value and colour follow its table on the fixed colour scale,
blocked cells are the causal mask, and every bar's length and label follow
its value. Drawn by export/tables/kit/panels.py and kit/bars.py from
the committed checkpoints and measurement files (the tables read from
build/tables, which `make site` wrote)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from common.palette import BLOCKED, GRID, MODELS
from export.tables.kit import bars as kit_bars
from export.tables.kit.cells import colour, number
from export.tables.kit.charts import tick_text
from export.tables.kit.dots import dot_rows, lanes
from export.tables.kit.draw import MIN_TEXT, PHONE, SLIDE, text_width
from export.tables.kit.panels import heatmaps
from export.tables.kit.scales import scale

NS = "{http://www.w3.org/2000/svg}"


def drawn_cells(svg: str) -> list[tuple[str, str]]:
    """(fill, text) of every cell in drawing order: a rect with the grid's
    stroke followed by its value."""
    items = list(ET.fromstring(svg).iter())
    out = []
    for a, b in zip(items, items[1:]):
        if a.tag == f"{NS}rect" and a.get("stroke") == GRID and a.get("fill") != "none" and b.tag == f"{NS}text":
            out.append((a.get("fill"), b.text))
    return out


def drawn_bars(svg: str) -> list[tuple[float, str]]:
    """(width, label) of every bar in drawing order."""
    items = list(ET.fromstring(svg).iter())
    return [
        (float(a.get("width")), b.text)
        for a, b in zip(items, items[1:])
        if a.tag == f"{NS}rect" and a.get("stroke") == GRID and b.tag == f"{NS}text" and b.get("text-anchor") == "start"
    ]


def expected_cells(matrices, meaning, vmax, digits):
    return [
        (BLOCKED, "×") if v is None else (colour(v, meaning, vmax), number(v, digits))
        for m in matrices
        for row in m
        for v in row
    ]


def test_heatmap_cells_follow_their_values_on_the_fixed_scale():
    a = [[1.0, None, None], [0.25, 0.75, None]]
    b = [[-0.5, 0.5, 2.0], [0.0, -2.0, 1.0]]
    svg = heatmaps("t1", "weights", "two rows", [("one", a), ("two", a)], ["r1", "r2"], ["x", "y", "z"])
    assert drawn_cells(svg) == expected_cells([a, a], "weight", 1.0, 2)
    root = ET.fromstring(svg)
    assert root.get("role") == "img" and root.find(f"{NS}title").text == "weights"
    # a signed matrix is coloured symmetrically about 0, up to its named scale's limit (part3-worksheet: ±2)
    svg = heatmaps("t2", "signed", "values", [("", b)], ["r1", "r2"], ["x", "y", "z"], "part3-worksheet", digits=1)
    assert drawn_cells(svg) == expected_cells([b], "signed", 2.0, 1)
    assert colour(-2.0, "signed", 2.0) != colour(2.0, "signed", 2.0)


def test_bars_are_as_long_as_their_values():
    values = [0.5, 0.25, 0.0, 0.125]
    bars = drawn_bars(kit_bars.bars("t3", "bars", "four", list("abcd"), [("", values)], vmax=1.0))
    assert [label for _, label in bars] == [number(v, 3) for v in values if v > 0]
    widths = [w for w, _ in bars]
    # coordinates are written to 0.1 unit (a doubled width may be off by 0.1)
    assert widths[0] == pytest.approx(2 * widths[1], abs=0.15) and widths[1] == pytest.approx(2 * widths[2], abs=0.15)


@pytest.fixture(scope="module")
def tables(table):
    """The decks' tables as `make site` wrote them to build/tables."""
    names = [
        "part3_pictures",
        "part3_fisherman",
        "part3_two_source",
        "part3_decoding",
        "part3_comparison",
        "results_worked",
        "results_pictures",
        "results_attention",
        "results_per_step",
        "results_runs",
        "results_head_cost",
        "results_summary",
    ]
    return {name: table(name) for name in names}


def test_head_cost_bars_are_the_tables_changes(tables):
    """What each head is worth: a bar per ablation, labelled with the table's
    change in cross-entropy, as long as that change."""
    hc = tables["results_head_cost"]
    assert hc["available"], hc
    deltas = [row[4] for row in hc["rows"] if row[4] != "—"]
    bars = drawn_bars(hc["bars"])
    assert [label for _, label in bars] == deltas
    one, four = hc["by_kind"]["attn1"], hc["by_kind"]["attn4"]
    values = [one["all_off"]["delta"], *(h["delta"] for h in four["heads"]), four["all_off"]["delta"]]
    for (w, _), v in zip(bars, values):
        assert w == pytest.approx(bars[0][0] * v / values[0], rel=1e-3, abs=0.15)


def test_part3_worksheet_cells_are_the_worksheet_numbers(tables):
    pic, f, two = tables["part3_pictures"], tables["part3_fisherman"], tables["part3_two_source"]
    sheet = scale("part3-worksheet").limit  # one scale for the worksheet's E, W_Q, W_K and messages
    assert drawn_cells(pic["E"]) == expected_cells([f["E"]], "signed", sheet, 1)
    assert drawn_cells(pic["W_QK"]) == expected_cells([f["W_Q"], f["W_K"]], "signed", sheet, 1)
    # every query token's weights: the cells above the diagonal are the causal mask
    masked = [
        [[v if j <= i else None for j, v in enumerate(row)] for i, row in enumerate(h["weights_all"])]
        for h in f["heads"]
    ]
    assert drawn_cells(pic["weights_all"]) == expected_cells(masked, "weight", 1.0, 2)
    # the joined messages: head 1's cells, head 2's, then the concatenation, the update, E, the new row
    texts = [t for _, t in drawn_cells(pic["messages"])]
    rows = [f["heads"][0]["message"], f["heads"][1]["message"], f["concat_last"], f["update_last"], f["E_last"]]
    assert texts == [number(v, 2) for row in rows + [f["out_last"]] for v in row]
    toy = [two["values"][0], two["values"][1], two["one_head_message"], two["two_head_message"]]
    assert [t for _, t in drawn_cells(pic["two_source"])] == [number(v, 1) for row in toy for v in row]


def test_part3_distributions_are_bars_of_the_decoding_tables(tables):
    pic, dec = tables["part3_pictures"], tables["part3_decoding"]
    if not dec.get("available"):
        assert "temperature" not in pic
        return
    for name, tbl in (("temperature", dec["temperature_table"]), ("filters", dec["filter_table"])):
        bars = drawn_bars(pic[name])
        columns = [[row[c] for row in tbl["rows"]] for c in range(1, len(tbl["header"]))]
        assert [label for _, label in bars] == [number(v, 3) for col in columns for v in col if v > 0]
        # one scale, 0 to 1, in every panel: the top token's bar at T = 0.5 against the other tokens'
        drawn = [v for col in columns for v in col if v > 0]
        for (w, _), v in zip(bars, drawn):
            assert w == pytest.approx(max(1.0, bars[0][0] * v / drawn[0]), rel=1e-3, abs=0.06)
    cmp = tables["part3_comparison"]
    if cmp.get("available"):
        counts = [row[1] for row in cmp["rows"]]  # the table's order: MLP, one head, four heads
        bars = drawn_bars(pic["parameters"])
        assert [label for _, label in bars] == [f"{n:,}" for n in counts]
        assert bars[1][0] == bars[2][0] and bars[0][0] / bars[1][0] == pytest.approx(cmp["mlp_ratio"], rel=1e-3)
    sd = tables["results_worked"]
    if sd.get("available"):
        for key in ("seeds", "seeds_phone"):
            root = ET.fromstring(pic[key])
            desc = root.find(f"{NS}desc").text
            assert f"mean {sd['mean']:.2f}, sample SD {sd['sd']:.2f}" in desc
            assert all(f"{v:.2f}" in desc for v in sd["values"])
            texts = [t.text for t in root.iter(f"{NS}text")]
            assert all(f"seed {s}: {number(v, 2)}" in texts for s, v in zip(sd["seeds"], sd["values"]))
        # the phone's arrangement fits a phone, its text no smaller and no two of its texts on one another
        root = ET.fromstring(pic["seeds_phone"])
        width = float(root.get("viewBox").split()[2])
        assert width <= PHONE
        boxes = []
        for t in root.iter(f"{NS}text"):
            size, x, w = float(t.get("font-size")), float(t.get("x")), text_width(t.text, float(t.get("font-size")))
            assert size >= MIN_TEXT
            left = {"start": x, "end": x - w, "middle": x - w / 2}[t.get("text-anchor")]
            assert 0 <= left and left + w <= width, t.text
            boxes.append((left, float(t.get("y")) - size * 0.8, left + w, float(t.get("y"))))
        assert not overlapping(boxes)


def test_results_cells_and_bars_follow_the_measured_tables(tables):
    pic, att, ps, runs = (
        tables[k] for k in ("results_pictures", "results_attention", "results_per_step", "results_runs")
    )
    if att.get("available"):
        assert drawn_cells(pic["final_rows"]) == expected_cells([[r[1:] for r in att["rows"]]], "weight", 1.0, 3)
    if ps.get("available"):
        hd = ps["kinds"]["attn4"]["heads"][0]
        masked = [
            [[v if j <= i else None for j, v in enumerate(row)] for i, row in enumerate(m)]
            for m in (hd["one_pass"], hd["per_step"])
        ]
        assert drawn_cells(pic["per_step"]) == expected_cells(masked, "weight", 1.0, 2)
    if runs.get("available"):
        steps = tables["results_summary"]["steps"]
        kinds = {k["label"]: k["kind"] for k in tables["results_summary"]["kinds"]}
        expected = [(f"seed {r[1]}", r[2], MODELS[kinds[r[0]]]) for r in runs["rows"] if isinstance(r[2], int)]
        for svg, most in ((pic["selected_steps"], SLIDE), (pic["selected_steps_phone"], PHONE)):
            assert_dot_plot(svg, expected, steps, most)
        assert all(
            f"step {r[2]:,}" in ET.fromstring(pic["selected_steps"]).find(f"{NS}desc").text for r in runs["rows"]
        )


def drawn_dots(svg: str) -> list[dict]:
    """Every dot of a kit/dots.py dot plot in drawing order, with the label
    drawn after it: its centre, radius, colour, value and label's box (its
    width estimated as kit/draw.py text_width does)."""
    items = list(ET.fromstring(svg).iter())
    out = []
    for a, b in zip(items, items[1:]):
        if a.tag == f"{NS}circle" and a.get("class") == "dot":
            assert b.tag == f"{NS}text", "a dot without its label"
            x, w = float(b.get("x")), text_width(b.text, float(b.get("font-size")))
            left = {"start": x, "end": x - w, "middle": x - w / 2}[b.get("text-anchor")]
            cy, size = float(a.get("cy")), float(b.get("font-size"))
            out.append(
                dict(
                    cx=float(a.get("cx")),
                    cy=cy,
                    r=float(a.get("r")),
                    fill=a.get("fill"),
                    value=float(a.get("data-value")),
                    label=b.text,
                    box=(left, float(b.get("y")) - size * 0.8, left + w, float(b.get("y"))),
                )
            )
    return out


def assert_dot_plot(svg: str, expected: list[tuple[str, float, str]], top: float, most: float) -> None:
    """One dot per (label, value, colour), in that colour, at its value on the
    axis its round ticks draw (0 to ``top``, the ceiling marked last), each
    dot's label beside it and inside the figure, no label over another label
    or another dot, the whole at most ``most`` units wide and its text at least MIN_TEXT."""
    root = ET.fromstring(svg)
    assert float(root.get("viewBox").split()[2]) <= most
    assert all(float(t.get("font-size") or MIN_TEXT) >= MIN_TEXT for t in root.iter(f"{NS}text"))
    ticks = [(float(t.get("data-value")), float(t.get("x"))) for t in root.find(f"{NS}g[@class='ticks']")]
    assert ticks[0][0] == 0 and ticks[-1][0] == top and len(ticks) >= 3
    assert all(tick_text(v) == t.text for (v, _), t in zip(ticks, root.find(f"{NS}g[@class='ticks']")))
    (v0, x0), (v1, x1) = ticks[0], ticks[-1]
    dots = drawn_dots(svg)
    assert [(d["label"], d["value"], d["fill"]) for d in dots] == [(lab, float(v), c) for lab, v, c in expected]
    for d in dots:
        # the dot's centre maps its value on the tick axis (coordinates written to 0.1 unit)
        assert d["cx"] == pytest.approx(x0 + (d["value"] - v0) / (v1 - v0) * (x1 - x0), abs=0.15), d
        left, upper, right, lower = d["box"]
        assert upper <= d["cy"] <= lower + d["r"] and min(abs(left - d["cx"]), abs(right - d["cx"])) <= 2 * d["r"], d
    assert not overlapping([d["box"] for d in dots] + [dot_box(d) for d in dots])
    width = float(root.get("viewBox").split()[2])
    assert all(0 <= d["box"][0] and d["box"][2] <= width for d in dots), "a label runs off the figure"


def dot_box(d: dict) -> tuple[float, float, float, float]:
    return (d["cx"] - d["r"], d["cy"] - d["r"], d["cx"] + d["r"], d["cy"] + d["r"])


def overlapping(boxes: list[tuple[float, float, float, float]]) -> list:
    """The pairs of (left, top, right, bottom) boxes that overlap."""
    return [
        (a, b)
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
    ]


def test_lanes_stack_only_what_would_collide():
    # two far apart share lane 0; one that touches the first goes to lane 1; a span held from the start pushes one down
    assert lanes([(0, 50), (100, 150), (40, 90)], gap=0) == [0, 0, 1]
    assert lanes([(0, 10), (12, 20)], gap=4) == [0, 1]
    assert lanes([(0, 10)], taken=[[(5, 8)], [(30, 40)]]) == [1]


def test_a_dot_plot_puts_every_dot_at_its_value_and_stacks_colliding_ones():
    rows = [("a", MODELS["mlp"], [("seed 1", 100), ("seed 2", 100), ("seed 3", 990)]), ("b", MODELS["attn1"], [])]
    for phone in (False, True):
        d = dot_rows("t-dots", "dots", "three runs", rows, 1000, "step", "ceiling", phone=phone)
        expected = [(lab, v, MODELS["mlp"]) for lab, v in rows[0][2]]
        assert_dot_plot(d.render(), expected, 1000, PHONE if phone else SLIDE)
        same = [x for x in drawn_dots(d.render()) if x["value"] == 100]
        assert same[0]["cx"] == same[1]["cx"] and same[0]["cy"] != same[1]["cy"]  # stacked, not hidden
