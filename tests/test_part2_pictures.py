"""The Part II pictures (issue 20) draw the numbers of their tables: every
coloured cell prints its table's value and takes its colour from the fixed
scale of its meaning, bars are as long as their values, the video search
scores the query the slide talks about, RoPE's panels hold the rotated pairs,
and every slide that shows a picture keeps its table in the notes (the
reading view and print).

The figure tests read their tables from build/tables and the slide test reads
build/site (both written by `make site`)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from html import unescape

import numpy as np
import pytest

from common.palette import BLOCKED, SENTENCES, SIGNED_SCALE, WEIGHT_SCALE, scale_colour
from export.tables.kit.cells import number
from export.tables.kit.draw import PHONE, PHONE_KEY
from export.tables.kit.scales import scale
from export.tables.part2 import pictures, scaling, toy

CELL = re.compile(r'<rect [^>]*?width="([\d.]+)" [^>]*?fill="(#[0-9a-f]{6})"[^>]*/><text [^>]*>([^<]*)</text>')


NAMES = [
    "part2_pictures",
    "part2_model",
    "part2_matrix",
    "part2_predict",
    "part2_compare",
    "part2_video",
    "part2_positions",
    "part2_bank",
    "part2_swap2d",
    "part2_scaling",
]


@pytest.fixture(scope="module")
def t(table):
    return {name: table(name) for name in NAMES}


def cells_of(svg: str) -> list[tuple[str, str]]:
    """(fill, printed text) of every coloured cell, in drawing order."""
    return [(fill, unescape(text)) for _, fill, text in CELL.findall(svg)]


def signed(v: float, vmax: float) -> str:
    return scale_colour((v / vmax + 1) / 2, SIGNED_SCALE)


def weight(v: float) -> str:
    return scale_colour(v, WEIGHT_SCALE)


def test_token_rows_print_each_value_in_its_scale_colour(t):
    table = t["part2_model"]["e_tables"]["river"]
    svg = t["part2_pictures"]["token_rows"]
    vmax = scale("part2-vectors").limit  # one scale for the bank model's vectors, on every slide
    expected = [
        (signed(r[c], vmax), number(r[c], 2))
        for group in ([2, 3, 4, 5], [6], [7, 8, 9, 10])
        for r in table["rows"]
        for c in group
    ]
    assert cells_of(svg)[: len(expected)] == expected


def test_attention_matrix_is_the_table_and_masks_the_future(t):
    A = t["part2_matrix"]["A"]
    drawn = cells_of(t["part2_pictures"]["attention_matrix"])
    n = len(A)
    grid = drawn[: n * n]
    for r in range(n):
        for c in range(n):
            fill, text = grid[r * n + c]
            if c <= r:
                assert (fill, text) == (weight(A[r][c]), number(A[r][c], 3))
            else:
                assert (fill, text) == (BLOCKED, "×") and A[r][c] == 0.0
    assert all(sum(row) == pytest.approx(1.0) for row in A)


def test_changing_a_weight_changes_its_cell(t):
    m = dict(t["part2_matrix"])
    A = [list(r) for r in m["A"]]
    A[-1][0], A[-1][-2] = A[-1][-2], A[-1][0]
    svg = pictures.attention_matrix(dict(m, A=A))
    n = len(A)
    assert cells_of(svg)[(n - 1) * n] == (weight(A[-1][0]), number(A[-1][0], 3))


def test_probability_bars_are_as_long_as_their_values(t):
    svg = t["part2_pictures"]["probabilities"]
    rows = sorted(t["part2_predict"]["compare_table"]["rows"], key=lambda r: -max(r[1], r[2]))[:4]
    printed = [unescape(x) for x in re.findall(r'text-anchor="start"[^>]*>([0-9.]+)</text>', svg)]
    assert printed == [number(r[k], 3) for r in rows for k in (1, 2, 3)]
    # the river bars: the drawn widths keep the ratio of the probabilities
    widths = [
        float(w) for w in re.findall(rf'<rect [^>]*width="([\d.]+)" [^>]*rx="2" fill="{SENTENCES["river"]}"', svg)
    ]
    river = [r[1] for r in rows]
    assert len(widths) == len(river) + 1  # the key's swatch first
    for w, v in zip(widths[1:], river):
        assert w == pytest.approx(widths[1] * v / river[0], abs=0.15)


PATH = re.compile(r'<path d="([^"]+)" fill="(#[0-9a-f]{6})" stroke="none" data-counts="([0-9 ]+)"')


def test_the_spread_histograms_are_the_tables_simulated_scores(t):
    """ "The spread grows with d_k": each panel is a histogram of the very scores
    whose variance the slide's table prints (the same generator and seed); its
    bins hold every pair, its bars are as tall as their counts (to the panel's
    tallest), it prints the table's variance, and each column's panels stand
    on one x range."""
    sc = t["part2_scaling"]
    spread, rows = sc["spread"], {r["d_k"]: r for r in sc["simulation"]}
    _, _, raws = scaling.simulation()
    assert set(spread["d_k"]) <= set(rows) and spread["d_k"][0] == 1 and spread["d_k"][-1] == 64
    for key, var in (("unscaled", "var_raw"), ("scaled", "var_scaled")):
        h = spread[key]
        for dk, counts, v in zip(spread["d_k"], h["counts"], h["variance"]):
            samples = raws[dk] if key == "unscaled" else raws[dk] / math.sqrt(dk)
            assert sum(counts) == sc["n_pairs"] == len(samples)
            assert np.histogram(samples, bins=h["edges"])[0].tolist() == counts
            assert float(samples.var()) == pytest.approx(rows[dk][var], rel=1e-12) == v
            # the variance read back from the bins alone agrees, up to what binning adds (a
            # bin's width w: about w²/12, Sheppard's correction; at most w²/4 here)
            edges = np.array(h["edges"])
            mids, w = (edges[1:] + edges[:-1]) / 2, edges[1] - edges[0]
            binned = float(np.average(mids**2, weights=counts) - np.average(mids, weights=counts) ** 2)
            assert abs(binned - v) <= w**2 / 4 + 0.02 * v
        lo, hi = h["edges"][0], h["edges"][-1]
        assert lo == -hi and lo <= min(h["ticks"]) <= max(h["ticks"]) <= hi
    svg = t["part2_pictures"]["spread"]
    paths = PATH.findall(svg)
    drawn = [" ".join(map(str, c)) for key in ("unscaled", "scaled") for c in spread[key]["counts"]]
    assert [c for _, _, c in paths] == drawn
    n = len(spread["d_k"])
    for column in (paths[:n], paths[n:]):
        xs = [[float(v) for v in re.findall(r"[ML]([-\d.]+),", d)] for d, _, _ in column]
        assert len({(min(x), max(x)) for x in xs}) == 1  # one x range per column
        assert len({f for _, f, _ in column}) == 1
        for d, _, counts in column:  # each bin's bar as tall as its count, to the panel's tallest
            ys = [float(v) for v in re.findall(r"L[-\d.]+,([-\d.]+) L", d)]
            base, counts = float(re.match(r"M[-\d.]+,([-\d.]+)", d).group(1)), [int(c) for c in counts.split()]
            heights = [base - y for y in ys]
            for h_, c in zip(heights, counts):
                assert h_ == pytest.approx(max(heights) * c / max(counts), abs=0.1)
    printed = re.findall(r">variance ([0-9.,]+)</text>", svg)
    assert printed == [number(rows[dk][v], 2) for v in ("var_raw", "var_scaled") for dk in spread["d_k"]]
    assert all(f"d_k = {dk}: variance {number(rows[dk]['var_raw'], 2)} unscaled" in svg for dk in spread["d_k"])
    phone = t["part2_pictures"]["spread" + PHONE_KEY]
    assert float(re.search(r'viewBox="0 0 ([\d.]+) ', phone).group(1)) <= PHONE
    assert PATH.findall(phone) and [c for _, _, c in PATH.findall(phone)] == [c for _, _, c in paths]


def _weighted(svg: str) -> list[tuple[float, float, str, float]]:
    """(weight, stroke width, colour, start x) of every weighted arrow (kit/ribbons.py)."""
    out = []
    for p in re.findall(r"<path [^>]*>", svg):
        if 'class="weighted"' in p:
            start = float(re.search(r' d="M([\d.-]+),', p).group(1))
            width = float(re.search(r'stroke-width="([\d.]+)"', p).group(1))
            weight = float(re.search(r'data-weight="([\d.]+)"', p).group(1))
            out.append((weight, width, re.search(r'stroke="(#[0-9a-f]{6})"', p).group(1), start))
    return out


@pytest.mark.parametrize("key", ["four_ways", "four_ways" + PHONE_KEY])
def test_four_ways_feed_the_blank_with_arrows_as_thick_as_the_weights(t, key):
    """Every word feeds the blank under the mean, the distance weights and
    attention (a band per sentence) with an arrow as thick as its weight; the
    three rules that ignore the words in grey, attention in each sentence's
    colour; the fixed window's ✓ rows as dashed arrows, no weights."""
    from common.palette import LINE
    from export.tables.kit.ribbons import MIN_WIDTH, WIDTH

    svg, cmp = t["part2_pictures"][key], t["part2_compare"]
    river, cheque = cmp["river"], cmp["cheque"]
    n = len(river["tokens"])
    rows = [river["weights"][1], river["weights"][2], river["weights"][3], cheque["weights"][3]]
    colours = [LINE, LINE, SENTENCES["river"], SENTENCES["cheque"]]
    arrows = _weighted(svg)
    assert len(arrows) == 4 * n
    for b, (row, colour) in enumerate(zip(rows, colours)):
        band = arrows[b * n : (b + 1) * n]
        assert [a[0] for a in band] == pytest.approx(row, abs=1e-4)
        assert {a[2] for a in band} == {colour}
        for weight, width, _, _ in band:
            assert width == pytest.approx(max(MIN_WIDTH, WIDTH * weight), abs=0.06)
        # the arrows start under their words, in order, one slot apart
        starts = [a[3] for a in band]
        assert starts == sorted(starts) and len(set(round(x) for x in starts)) == n
    # only attention's thickest arrow moves: from “river” in one sentence, from “cheque” in the other
    thickest = [max(range(n), key=lambda j: arrows[b * n + j][1]) for b in range(4)]
    assert thickest[1] == max(range(n), key=lambda j: rows[1][j])  # distance: the nearest word, whatever it is
    assert len({a[1] for a in arrows[:n]}) == 1  # the mean: one width for every word
    assert river["tokens"][thickest[2]] == "river" and cheque["tokens"][thickest[3]] == "cheque"
    assert thickest[2] != thickest[3]
    # the numbers printed: every weight of at least pictures.LABELLED, the mean's once
    printed = sorted(re.findall(r">([0-9]\.[0-9]{2})</text>", svg))
    wanted = [number(v, 2) for row in rows[1:] for v in row if v >= pictures.LABELLED]
    assert printed == sorted(wanted)
    assert ">plain mean" in svg and f"{number(rows[0][0], 2)} each" in svg
    # the fixed window: a ✓ and a dashed arrow for each row it reads
    read = sum(w > 0 for w in river["weights"][0])
    assert svg.count(">✓</text>") == read == len(re.findall(r'<path [^>]*stroke-dasharray="6 4"', svg))
    if key.endswith(PHONE_KEY):
        assert float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1)) <= PHONE


def test_four_ways_words_sit_over_their_arrows(t):
    """On a slide each word (river's over cheque's) is printed over the foot of its arrows."""
    svg, cmp = t["part2_pictures"]["four_ways"], t["part2_compare"]
    n = len(cmp["river"]["tokens"])
    starts = [a[3] for a in _weighted(svg)[:n]]
    for name in ("river", "cheque"):
        colour = SENTENCES[name]
        words = re.findall(rf'<text x="([\d.]+)" [^>]*fill="{colour}"[^>]*>([^<]+)</text>', svg)
        at = [(float(x), w) for x, w in words if w in cmp[name]["tokens"]][:n]
        assert [w for _, w in at] == cmp[name]["tokens"]
        assert [x for x, _ in at] == pytest.approx(starts, abs=0.1)


def test_the_search_scores_the_longer_key_query(t):
    video = t["part2_video"]
    lk = video["longer_key"]
    qi = video["queries"].index(lk["query"]) if lk["found"] else video["query_index"]
    svg = t["part2_pictures"]["search"]
    scores = [float(x) for x in re.findall(r'text-anchor="start"[^>]*>([0-9.]+)</text>', svg)]
    assert scores == [round(s, 2) for s in video["scores"][qi]]
    assert scores == [round(sum(a * b for a, b in zip(video["query_vectors"][qi], k)), 2) for k in video["keys"]]
    if lk["found"]:
        assert max(scores) == pytest.approx(lk["dot"][0]) and lk["query"] in svg


def test_sinusoid_heatmap_is_the_encoding(t):
    pos = t["part2_positions"]["sinusoidal"]
    g = pos["grid"]
    for slot, row in zip(g["slots"], g["values"]):
        assert row == pytest.approx(list(toy.sinusoidal(slot, pos["d"], pos["base"])))
    drawn = cells_of(t["part2_pictures"]["sinusoid"])
    by_coordinate = [v for coord in zip(*g["values"]) for v in coord]
    assert drawn[: len(by_coordinate)] == [(signed(v, 1.0), number(v, 2)) for v in by_coordinate]


def test_rope_panels_keep_the_angle_between_q_and_k(t):
    rope = t["part2_positions"]["rope"]
    angles = []
    for p in rope["rotated_first_pair"]:
        q = toy.rope_matrix(p["i"], rope["d"]) @ np.array(rope["q"])
        k = toy.rope_matrix(p["j"], rope["d"]) @ np.array(rope["k"])
        assert p["q"] == pytest.approx(list(q[:2])) and p["k"] == pytest.approx(list(k[:2]))
        angles.append(math.atan2(p["k"][1], p["k"][0]) - math.atan2(p["q"][1], p["q"][0]))
    gaps = {p["j"] - p["i"] for p in rope["rotated_first_pair"]}
    if len(gaps) == 1:  # the slide's claim: the same gap, the same angle
        assert max(angles) - min(angles) == pytest.approx(0.0, abs=1e-9) or all(
            math.isclose(math.cos(a), math.cos(angles[0]), abs_tol=1e-9) for a in angles
        )
    svg = t["part2_pictures"]["rope"]
    for s in rope["scores"]:
        assert f"score {number(s, 3)}" in svg


def test_every_picture_has_a_title_a_description_and_no_small_text(t):
    for name, svg in t["part2_pictures"].items():
        assert "<title" in svg and "<desc" in svg, name
        sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]
        assert sizes and min(sizes) >= 18, name


def test_each_picture_slide_keeps_its_table_in_the_notes(site_dir):
    html = (site_dir / "decks" / "part2.html").read_text(encoding="utf-8")
    checked = 0
    for body in re.findall(r'<section data-slide="\d+"[^>]*>(.*?)</section>', html, flags=re.S):
        main, _, notes = body.partition('<aside class="notes">')
        if 'data-figure="part2_pictures.' not in main:
            continue
        checked += 1
        assert re.search(r'<table class="(data|matrix)[^"]*" data-source="part2_', notes), main[:200]
    assert checked >= 20


def test_residual_draws_the_message_w_o_and_the_rows(t):
    c, W = t["part2_bank"]["cheque"], t["part2_model"]["W_O"]
    rows = [r[1:] for r in c["residual"]["rows"]]
    printed = [text for _, text in cells_of(t["part2_pictures"]["residual"])]
    expected = [number(v, 3) for v in c["message"]] + [number(v, 1) for r in W for v in r]
    assert printed == expected + [number(v, 3) for r in rows for v in r]
    # the drawn rows are the sum the slide states: e + Δe = e′, and Δe = m W_O
    assert rows[2] == pytest.approx([a + b for a, b in zip(rows[0], rows[1])])
    assert rows[1] == pytest.approx(list(np.array(c["message"]) @ np.array(W)))


def test_swap2d_cells_are_the_table_and_only_positions_move_the_message(t):
    rows = t["part2_swap2d"]["table"]["rows"]
    drawn = cells_of(t["part2_pictures"]["swap2d"])
    alphas = [(weight(v), number(v, 3)) for r in rows for v in r[2:5]]
    assert drawn[: len(alphas)] == alphas
    vmax = scale("part2-vectors").limit
    assert drawn[len(alphas) :] == [(signed(v, vmax), number(v, 3)) for r in rows for v in r[5:7]]
    by = {(r[0], r[1]): r[5:7] for r in rows}
    first, second, query = t["part2_swap2d"]["order"]
    forward, backward = f"{first} {second} {query}", f"{second} {first} {query}"
    assert by[(forward, "no")] == pytest.approx(by[(backward, "no")])
    assert by[(forward, "yes")] != pytest.approx(by[(backward, "yes")])


# the Part II pictures drawn a second time for a phone (issue 35 item 5): their keys in part2_pictures
REDRAWN = [
    "random_pair",
    "residual",
    "position_rows",
    "projections",
    "final_weights",
    "before_after",
    "queries",
    "keys",
    "values",
]


@pytest.mark.parametrize("key", REDRAWN)
def test_a_redrawn_picture_fits_a_phone_with_the_same_title_texts_numbers_and_colours(t, key):
    from support.phone_drawings import assert_same_figure

    pictures_ = t["part2_pictures"]
    assert key + PHONE_KEY in pictures_, f"{key} has no phone arrangement"
    assert_same_figure(pictures_[key], pictures_[key + PHONE_KEY])
    # every coloured cell of the wide figure is on the phone, with its value and colour
    assert sorted(cells_of(pictures_[key + PHONE_KEY])) == sorted(cells_of(pictures_[key]))


@pytest.mark.parametrize(
    ("key", "stored_as", "digits"), [("random_pair", "example_table", 2), ("position_rows", None, 2)]
)
def test_a_table_drawn_on_its_side_is_the_stored_table_on_a_phone(t, key, stored_as, digits):
    """The wide figure turns the table (a coordinate per column) on its side;
    a phone keeps it as stored: a row per coordinate l or position, read down."""
    stored = t["part2_scaling"][stored_as] if stored_as else t["part2_model"]["positions_table"]
    vmax = scale("part2-random" if stored_as else "part2-vectors").limit
    expected = [(signed(v, vmax), number(v, digits)) for r in stored["rows"] for v in r[1:]]
    assert cells_of(t["part2_pictures"][key + PHONE_KEY]) == expected
    assert cells_of(t["part2_pictures"][key]) != expected  # the wide one reads across


def _headings(svg: str, names: list[str]) -> list[tuple[float, float]]:
    """(x, y) of the bold headings ``names``, in that order (W_O is drawn as W with a lowered O)."""
    root = ET.fromstring(svg)
    at = {
        "".join(e.itertext()): (float(e.get("x")), float(e.get("y")))
        for e in root.iter("{http://www.w3.org/2000/svg}text")
        if e.get("font-weight") == "600"
    }
    return [at[n.replace("_", "")] for n in names]


def test_a_phone_turns_the_residual_line_downwards(t):
    """m × W_O = Δe₇ added to the row: on a slide one line left to right, on a
    phone one column, each vector or matrix under the one before."""
    names = ["message m₇", "W_O", "the row of “bank”"]
    wide = _headings(t["part2_pictures"]["residual"], names)
    phone = _headings(t["part2_pictures"]["residual" + PHONE_KEY], names)
    assert len({y for _, y in wide}) == 1 and [x for x, _ in wide] == sorted(x for x, _ in wide)
    assert len({x for x, _ in phone}) == 1 and [y for _, y in phone] == sorted(y for _, y in phone)


def test_a_phone_stacks_the_three_projections_each_with_its_row_names(t):
    phone = t["part2_pictures"]["projections" + PHONE_KEY]
    names = [t["part2_model"][f"W_{m}_table"]["header"][0] for m in "QKV"]
    at = _headings(phone, names)
    assert len({x for x, _ in at}) == 1 and [y for _, y in at] == sorted(y for _, y in at)
    for row in t["part2_model"]["W_Q_table"]["rows"]:
        assert phone.count(f">{row[0]}</text>") >= 3


def test_a_phone_turns_the_final_weights_on_their_side_a_column_per_sentence(t):
    svg = t["part2_pictures"]["final_weights" + PHONE_KEY]
    drawn = cells_of(svg)
    expected = [
        (weight(r[2]), number(r[2], 2))
        for name in pictures.SENTENCE_ORDER
        for r in t["part2_predict"]["contexts"][name]["weights_table"]["rows"]
    ]
    assert drawn == expected
    xs = [float(x) for x in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="74"', svg)]
    n = len(expected) // 2
    assert len(set(xs[:n])) == 1 and len(set(xs[n:])) == 1 and xs[0] < xs[n]  # one column each, river's first


def test_a_phone_stacks_before_over_after(t):
    (x0, y0), (x1, y1) = _headings(t["part2_pictures"]["before_after" + PHONE_KEY], ["E: before", "E′ = E + ΔE: after"])
    assert x0 == x1 and y0 < y1


@pytest.mark.parametrize("name", ["queries", "keys", "values"])
def test_a_phone_puts_each_video_rows_label_on_its_own_line_above_its_cells(t, name):
    """The long labels beside eight topic columns: on a phone each label stands
    on a line of its own over its row of cells, the topics' names standing up."""
    table = t["part2_video"][f"{name}_table"]
    svg = t["part2_pictures"][name + PHONE_KEY]
    assert cells_of(svg) == cells_of(t["part2_pictures"][name])  # the same cells, row by row
    root = ET.fromstring(svg)
    texts = {"".join(e.itertext()): e for e in root.iter("{http://www.w3.org/2000/svg}text")}
    for topic in table["header"][1:]:
        assert (texts[topic].get("transform") or "").startswith("rotate(-90")
    rows = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="44"', svg)
    tops = sorted({float(y) for _, y in rows})
    assert len(tops) == len(table["rows"])
    for row, top in zip(table["rows"], tops):
        label = texts[row[0]]
        assert float(label.get("y")) < top and float(label.get("x")) == float(rows[0][0])
