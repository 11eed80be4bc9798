"""Numbers in the figures are written the way the course writes them (the
notation page: whole numbers from 1,000 on with a comma, except inside a list
of IDs or a shape such as [2, 4000]). Reads the text of every figure a table
draws (build/tables) and of every SVG in the built pages (build/site): axis
ticks, labels, titles, descriptions and aria labels (issue 31)."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from export.tables.kit.charts import tick_text
from support.numbers import ungrouped

SVG = re.compile(r"<svg\b.*?</svg>", re.S)
TAG = re.compile(r"<[^>]+>")
LABEL = re.compile(r'\baria-label="([^"]*)"')


def svg_texts(svg: str) -> list[str]:
    """What a reader (or a screen reader) is told: the text between the tags,
    one piece per element, and every aria-label."""
    pieces = [unescape(t).strip() for t in TAG.split(svg)]
    return [t for t in pieces if t] + [unescape(a) for a in LABEL.findall(svg)]


def figures_in(value, path: str):
    if isinstance(value, str):
        for svg in SVG.findall(value):
            yield path, svg
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from figures_in(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from figures_in(v, f"{path}.{i}")


def bad_numbers(named_svgs) -> list[tuple[str, str]]:
    bad = []
    for where, svg in named_svgs:
        for text in svg_texts(svg):
            bad += [(where, f"{n!r} in {text[:120]!r}") for n in ungrouped(text)]
    return bad


@pytest.mark.parametrize(
    "text,found",
    [
        ("1000", ["1000"]),
        ("selected step 5250: validation 3.280", ["5250"]),
        ("One-head attention: 2224 s", ["2224"]),
        ("1,000", []),
        ("step 5,250", []),
        ("logits [2, 4000]", []),  # a shape
        ("3.1415926", []),
        ("fig-res-1000", []),
        ("−1250", ["1250"]),  # a negative number (a minus sign, not a hyphen) is a number too
    ],
)
def test_the_number_reader_finds_what_it_should(text, found):
    assert ungrouped(text) == found


@pytest.mark.parametrize(
    "x,label", [(0.0, "0"), (1000.0, "1,000"), (6000, "6,000"), (1250.0, "1,250"), (2.5, "2.5"), (0.25, "0.25")]
)
def test_tick_labels_group_digits(x, label):
    assert tick_text(x) == label


def test_every_figure_in_the_tables_groups_its_digits(tables_dir):
    figures = []
    for path in sorted(tables_dir.glob("*.json")):
        figures += figures_in(json.loads(path.read_text(encoding="utf-8")), path.stem)
    assert len(figures) > 50, "too few figures found in build/tables: the reader is broken"
    bad = bad_numbers(figures)
    assert not bad, "numbers from 1,000 on without a comma (content/notation.toml):\n" + "\n".join(
        f"build/tables/{w}: {b}" for w, b in bad
    )


def test_every_svg_on_the_site_groups_its_digits(site_dir):
    pages = sorted(site_dir.rglob("*.html")) + sorted(site_dir.rglob("*.svg"))
    figures = [(str(p.relative_to(site_dir)), svg) for p in pages for svg in SVG.findall(p.read_text(encoding="utf-8"))]
    assert len(figures) > 50, "too few SVGs found in build/site: the reader is broken"
    bad = bad_numbers(figures)
    assert not bad, "numbers from 1,000 on without a comma:\n" + "\n".join(f"build/site/{w}: {b}" for w, b in bad)
