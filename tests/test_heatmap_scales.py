"""One fixed, rounded scale per run of related heatmaps (issue 35 item 2):
the same colour means the same number on every slide of a run.

Read from the built figures (every SVG in build/tables, which `make site`
wrote; export/tables/kit/scales.py names the runs): every heatmap's cells
name their scale (``data-scale``) and sit in a figure with that scale's
legend; every figure of one scale prints the same two limits; every
attention-weight heatmap (its cells on the weight ramp) runs from 0 to 1;
every legend end is a rounded number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 10 times
a power of ten) and is the limit the legend declares; every cell's colour is
its printed value's colour on its scale; and each data-chosen limit is its
run's largest printed |value| rounded up, not looser. A numeric cell in ramp
colours outside a named heatmap fails too. The checks are shown to fail on
doctored figures."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import pytest

from common import palette
from common.palette import BLOCKED, SIGNED_SCALE, WEIGHT_SCALE
from common.settings import TABLES_DIR
from export.tables.kit import scales
from export.tables.kit.cells import cells, colour, legend
from export.tables.kit.draw import Drawing
from export.tables.kit.panels import heatmaps
from support.colour import delta_e, lab, scale_colours
from support.figures import svgs_in

NS = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"^[−-]?(\d{1,3}(,\d{3})*|\d*)(\.\d+)?$")
WEIGHT_COLOURS = scale_colours(WEIGHT_SCALE)
SIGNED_COLOURS = scale_colours(SIGNED_SCALE)
PALE = 85.0  # L*: a scale's near-zero end, too close to paper to say which ramp it is


def value(text: str | None) -> float | None:
    """A cell's printed number (true minus, grouped thousands, ".85"), or None."""
    t = (text or "").strip()
    if not t or not NUMBER.match(t) or not any(c.isdigit() for c in t):
        return None
    return float(t.replace("−", "-").replace(",", ""))


def half_step(text: str) -> float:
    """Half the last printed decimal: how far the true value may lie from the printed one."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals


@dataclass
class Legend:
    scale: str | None
    low: str | None
    high: str | None
    ends: tuple[str, str]
    fills: list[str]


@dataclass
class Heatmap:
    scale: str | None
    cells: list[tuple[str, str]]  # (fill, printed text)


@dataclass
class Fig:
    ident: str
    heatmaps: list[Heatmap] = field(default_factory=list)
    legends: list[Legend] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)  # numeric cells in ramp colours outside a named heatmap


def _pairs(g):
    kids = list(g)
    return [
        (a.get("fill"), b.text or "")
        for a, b in zip(kids, kids[1:])
        if a.tag == f"{NS}rect" and b.tag == f"{NS}text" and a.get("fill") not in (None, "none")
    ]


def _stray(root, inside: set) -> list[str]:
    """Numeric texts drawn on a rect of a ramp colour (not pale) outside any heatmap or legend group."""
    rects = [
        e
        for e in root.iter(f"{NS}rect")
        if id(e) not in inside
        and e.get("fill", "").lower() in (WEIGHT_COLOURS | SIGNED_COLOURS)
        and lab(e.get("fill"))[0] < PALE
    ]
    out = []
    for t in root.iter(f"{NS}text"):
        if id(t) in inside or value(t.text) is None or t.get("x") is None or t.get("transform"):
            continue
        x, y = float(t.get("x")), float(t.get("y"))
        for r in rects:
            rx, ry, rw, rh = (float(r.get(k, 0)) for k in ("x", "y", "width", "height"))
            if rx <= x <= rx + rw and ry <= y <= ry + rh:
                out.append(f"{t.text!r} on {r.get('fill')}")
                break
    return out


def parse(svg: str) -> Fig:
    root = ET.fromstring(svg)
    fig = Fig(root.get("id"))
    inside: set = set()
    for g in root.iter(f"{NS}g"):
        cls = g.get("class", "")
        if cls == "cells":
            fig.heatmaps.append(Heatmap(g.get("data-scale"), _pairs(g)))
        elif cls == "scale-legend":
            texts = [t for t in g if t.tag == f"{NS}text"]
            start = next((t.text for t in texts if t.get("text-anchor") == "start"), "")
            end = next((t.text for t in texts if t.get("text-anchor") == "end"), "")
            fills = [r.get("fill") for r in g if r.tag == f"{NS}rect" and r.get("fill") != "none"]
            fig.legends.append(Legend(g.get("data-scale"), g.get("data-low"), g.get("data-high"), (start, end), fills))
        else:
            continue
        inside |= {id(e) for e in g.iter()}
    fig.stray = _stray(root, inside)
    return fig


def built_figures() -> list[Fig]:
    if not TABLES_DIR.is_dir():
        pytest.fail(f"{TABLES_DIR} is missing: run `make site` first")
    out = []
    for path in sorted(TABLES_DIR.glob("*.json")):
        out += [parse(svg) for svg in svgs_in(json.loads(path.read_text(encoding="utf-8")))]
    return out


def _ramp(fills) -> str | None:
    """ "weight" or "signed" when the (not pale) fills all lie on that ramp."""
    marks = [f.lower() for f in fills if f and f != BLOCKED and lab(f)[0] < PALE]
    if marks and all(f in WEIGHT_COLOURS for f in marks):
        return "weight"
    if marks and all(f in SIGNED_COLOURS for f in marks):
        return "signed"
    return None


def problems(figures: list[Fig], registry=None) -> list[str]:
    """Everything that breaks one fixed, rounded scale per run, one line each."""
    registry = scales.SCALES if registry is None else registry
    out: list[str] = []
    limits: dict[str, dict[tuple, list[str]]] = {}
    largest: dict[str, float] = {}
    for f in figures:
        out += [f"{f.ident}: a number in heatmap colours outside a named heatmap: {s}" for s in f.stray]
        legends = {lg.scale: lg for lg in f.legends}
        for lg in f.legends:
            if lg.scale not in registry:
                out.append(f"{f.ident}: a legend of no named scale ({lg.scale!r})")
                continue
            limits.setdefault(lg.scale, {}).setdefault((lg.low, lg.high), []).append(f.ident)
            for end in lg.ends:
                v = value(end)
                if v is None or not scales.rounded(v) or end != scales.end_text(v):
                    out.append(f"{f.ident}: legend end {end!r} of {lg.scale} is not a rounded number")
            if lg.ends != (lg.low, lg.high):
                out.append(f"{f.ident}: the legend of {lg.scale} prints {lg.ends}, declares ({lg.low}, {lg.high})")
            if _ramp(lg.fills) == "weight" and (lg.low, lg.high) != ("0", "1"):
                out.append(f"{f.ident}: an attention-weight legend runs {lg.low} to {lg.high}, not 0 to 1")
        for h in f.heatmaps:
            lg = legends.get(h.scale)
            if h.scale is None or lg is None or h.scale not in registry:
                out.append(f"{f.ident}: a heatmap without a named scale and its legend (scale {h.scale!r})")
                continue
            if _ramp([c for c, _ in h.cells]) == "weight" and (lg.low, lg.high) != ("0", "1"):
                out.append(f"{f.ident}: attention weights on {h.scale}, {lg.low} to {lg.high}, not 0 to 1")
            s = registry[h.scale]
            lo, hi = value(lg.low), value(lg.high)
            for fill, text in h.cells:
                v = value(text)
                if v is None:
                    continue
                largest[h.scale] = max(largest.get(h.scale, 0.0), abs(v))
                if not lo - 1e-9 <= v <= hi + 1e-9:
                    out.append(f"{f.ident}: {text} lies outside its scale {h.scale} [{lg.low}, {lg.high}]")
                    continue
                e = half_step(text)
                a, b = colour(max(lo, v - e), s.meaning, hi), colour(min(hi, v + e), s.meaning, hi)
                if delta_e(fill, colour(v, s.meaning, hi)) > delta_e(a, b) + 1.0:
                    want = colour(v, s.meaning, hi)
                    out.append(f"{f.ident}: the cell {text} is {fill}, on {h.scale} it is {want}")
    for name, seen in limits.items():
        if len(seen) > 1:
            out.append(f"scale {name} has two pairs of limits: " + "; ".join(f"{k} in {v}" for k, v in seen.items()))
    for name, biggest in largest.items():
        s = registry[name]
        if not s.fixed and scales.nice(biggest) != s.limit:
            out.append(
                f"scale {name}: limit {s.limit:g}, but its run's largest |value| {biggest:g} rounds up to "
                f"{scales.nice(biggest):g}"
            )
    return out


# ---------------------------------------------------------------- the built figures
@pytest.fixture(scope="module")
def figures():
    return built_figures()


def test_every_heatmap_run_uses_one_fixed_rounded_scale(figures):
    assert not problems(figures), "\n".join(problems(figures))


def test_the_runs_are_the_named_scales(figures):
    """Every heatmap of the decks is on a named scale, every named scale draws
    a figure, and the runs hold the figures the issue names."""
    used: dict[str, set] = {}
    for f in figures:
        for h in f.heatmaps:
            used.setdefault(h.scale, set()).add(f.ident)
    assert set(used) == set(scales.SCALES), f"scales never drawn: {set(scales.SCALES) - set(used)}"
    forward = {"maps-embedding", "maps-E", "maps-flat", "maps-hidden", "maps-positions", "maps-qkv"}
    assert forward | {"maps-message", "maps-update"} <= used["part1-vectors"]
    assert {"maps-scores", "maps-masked", "maps-mlp-logits", "maps-attention-logits"} <= used["part1-scores"]
    assert {"maps-weights", "part2-attention-matrix", "fig-p3-weights-all", "part3-replay-one"} <= used["weight"]
    assert scales.SCALES["part1-vectors"].limit == 3 and scales.SCALES["weight"].limit == 1
    n = sum(len(f.heatmaps) > 0 for f in figures)
    assert n >= 40, f"only {n} heatmap figures found in {TABLES_DIR}"


def test_part_one_prints_one_pair_of_limits_where_it_printed_nine(figures):
    """Part I's forward pass restarted its scale on every slide (±2.892, ±1.780, ..., ±0.462): now ±3 on each."""
    ends = {lg.ends for f in figures for lg in f.legends if lg.scale == "part1-vectors"}
    assert ends == {("−3", "3")}
    assert sum(lg.scale == "part1-vectors" for f in figures for lg in f.legends) >= 8


# ---------------------------------------------------------------- the checks catch what they should
SAMPLE = [[0.5, -1.2], [2.4, 0.0]]  # on a ±2.5 run: 2.4 rounds up to 2.5


@pytest.fixture
def run(monkeypatch):
    """A test run "t-run" of ±2.5 in the registry, for the duration of a test."""
    monkeypatch.setitem(scales.SCALES, "t-run", scales.Scale("t-run", "signed", 2.5, "a test run"))
    return "t-run"


def _figure(ident, matrix, scale_name):
    return heatmaps(ident, "t", "d", [("", matrix)], ["r1", "r2"], ["a", "b"], scale_name=scale_name)


def _doctored(svg: str, old: str, new: str, count: int = 1) -> str:
    assert old in svg, old
    return svg.replace(old, new, count)


def test_the_checks_pass_clean_figures(run):
    figs = [parse(_figure("a", SAMPLE, run)), parse(_figure("b", SAMPLE, run))]
    figs.append(parse(_figure("w", [[0.2, 0.8], [1.0, 0.0]], "weight")))
    assert [len(f.heatmaps) for f in figs] == [1, 1, 1] and problems(figs) == []


def test_two_limits_in_one_run_are_caught(run):
    b = _doctored(_figure("b", SAMPLE, run), 'data-high="2.5"', 'data-high="3"')
    b = _doctored(b, ">2.5</text>", ">3</text>")
    found = problems([parse(_figure("a", SAMPLE, run)), parse(b)])
    assert any("scale t-run has two pairs of limits" in p for p in found), found


def test_a_weight_heatmap_not_on_zero_to_one_is_caught():
    svg = _doctored(_figure("w", [[0.2, 0.8], [1.0, 0.0]], "weight"), 'data-high="1"', 'data-high="2"')
    svg = _doctored(svg, ">1</text>", ">2</text>", count=10)
    found = problems([parse(svg)])
    assert any("an attention-weight legend runs 0 to 2, not 0 to 1" in p for p in found), found


def test_a_legend_end_that_is_not_rounded_is_caught(run):
    svg = _figure("a", SAMPLE, run)
    svg = _doctored(_doctored(svg, 'data-high="2.5"', 'data-high="2.412"'), ">2.5</text>", ">2.412</text>")
    found = problems([parse(svg)])
    assert any("legend end '2.412' of t-run is not a rounded number" in p for p in found), found


def test_a_cell_off_its_scale_colour_and_an_unnamed_heatmap_are_caught(run):
    svg = _figure("a", SAMPLE, run)
    right, wrong = colour(2.4, "signed", 2.5), colour(2.4, "signed", 3.0)  # the same 2.40 drawn to another limit
    found = problems([parse(_doctored(svg, f'fill="{right}"', f'fill="{wrong}"'))])
    assert any(f"the cell 2.40 is {wrong}, on t-run it is {right}" in p for p in found), found
    found = problems([parse(_doctored(svg, 'class="cells" data-scale="t-run"', ""))])
    assert any("a number in heatmap colours outside a named heatmap: '2.40'" in p for p in found), found


def test_a_limit_looser_than_its_run_needs_is_caught(monkeypatch):
    monkeypatch.setitem(scales.SCALES, "t-loose", scales.Scale("t-loose", "signed", 4.0, "a test run"))
    found = problems([parse(_figure("a", SAMPLE, "t-loose"))])
    assert any("scale t-loose: limit 4, but its run's largest |value| 2.4 rounds up to 2.5" in p for p in found), found


# ---------------------------------------------------------------- the registry
def test_nice_rounds_up_to_a_rounded_limit():
    assert [scales.nice(x) for x in (2.892, 1.78, 0.767, 0.462, 3.884, 5.4, 10.0, 0.05)] == [
        3.0,
        2.0,
        1.0,
        0.5,
        4.0,
        6.0,
        10.0,
        0.05,
    ]
    assert scales.rounded(3) and scales.rounded(0.25) and not scales.rounded(2.892) and not scales.rounded(0.7)
    assert [scales.end_text(x) for x in (-3.0, 0.0, 1.0, 1.5, -0.25)] == ["−3", "0", "1", "1.5", "−0.25"]
    for s in scales.SCALES.values():
        assert scales.rounded(s.limit), s
        assert s.meaning != "weight" or (s.low, s.high) == (0.0, 1.0), s


def test_a_value_beyond_its_scale_stops_the_build_with_the_limit_to_set():
    d = Drawing(400, 200, "fig-x", "t", "d")
    with pytest.raises(
        ValueError,
        match=r"fig-x: a value of 3\.4 lies outside the colour scale 'part1-vectors' "
        r"\[−3, 3\]; set its limit in export/tables/kit/scales.py to 4",
    ):
        cells(d, 10, 10, [[0.1, -3.4]], "part1-vectors")
    with pytest.raises(ValueError, match="no colour scale 'signed'"):
        legend(d, 10, 10, "signed")
    assert palette.hex_colour(WEIGHT_SCALE[-1]) == colour(1.0, "weight", 1.0)
