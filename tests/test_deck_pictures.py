"""The Part III and results decks' cell and bar figures (issue 20): every
cell's printed value and colour follow its table on the fixed colour scale,
blocked cells are the causal mask, and every bar's length and label follow
its value. Drawn by export/tables/kit/panels.py and kit/bars.py from
the committed checkpoints and measurement files (the tables read from
build/tables, which `make site` wrote)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from common.palette import BLOCKED, GRID
from export.tables.kit import bars as kit_bars
from export.tables.kit.cells import colour, number
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
        desc = ET.fromstring(pic["seeds"]).find(f"{NS}desc").text
        assert f"mean {sd['mean']:.2f}, sample SD {sd['sd']:.2f}" in desc
        assert all(f"{v:.2f}" in desc for v in sd["values"])


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
        bars = drawn_bars(pic["selected_steps"])
        assert [label for _, label in bars] == [f"step {r[2]:,}" for r in runs["rows"]]
