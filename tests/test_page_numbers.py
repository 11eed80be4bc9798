"""Numbers in the pages' text are written the way the course writes them
(content/notation.toml: whole numbers from 1,000 on with a comma, ints and
floats alike: 4,000 logits, 2,224 ± 2,555 seconds, step 1,500), except inside
code, a list of IDs or a shape ([2, 4000]), a year, an arXiv identifier or a
random seed (tests/support/numbers.py says why). Reads the visible text of every
built deck, reading view, notebook page and reference page (issue 31); the
figures' text is tests/test_figure_numbers.py's."""

from __future__ import annotations

import pytest

from site_builder.provenance import Provenance
from site_builder.values import fmt, track
from support.numbers import grouped_seeds, run_together, ungrouped_in_prose, visible_lines


@pytest.mark.parametrize(
    "text,found",
    [
        ("computed from all 4000 logits", ["4000"]),
        ("2224 ± 2555", ["2224", "2555"]),
        ("single runs took between 467 and 5163 seconds", ["5163"]),
        ("1094", ["1094"]),
        ("2000 steps", ["2000"]),  # a count that happens to look like a year is still a count
        ("the year 2017 steps", ["2017"]),
        ("4,000 logits, 2,224.5 s, step 5,250", []),
        ("logits [2, 4000]", []),
        ("Shaw et al. (2018), relative positions; Press et al. (2022), ALiBi", []),
        ("NeurIPS 2017, arXiv:1706.03762, §3.", []),
        ("(Su et al., 2021).", []),
        ("RoPE. arXiv:2104.09864, 2021 (RoPE).", []),
        ("WebGPU adapter: swiftshader, 2026-11-29. Ready", []),
        ("20,000 pairs per width, seed 2017.", []),
        ("seeds 11, 12 and 2024", []),
        ("Chromium 156.0.8078.108", []),
        # a comma that ends a clause does not hide the number before it (a worked solution said
        # "= 2048, which is w²·d"; a 20xx before a comma reads as a year here, tests/js checks that text)
        ("8 heads: 8 · 512 = 4096, which is w²·d.", ["4096"]),
        ("test windows: 114554, one per target", ["114554"]),
        ("weight 0.7999, then", []),
        ("Vaswani et al., 2017, §3.5", []),
    ],
)
def test_the_prose_reader_finds_what_it_should(text, found):
    assert ungrouped_in_prose(text) == found


@pytest.mark.parametrize(
    "text,found",
    [
        ("standard-normal draws with seed 2,017, separate from", ["seed 2,017"]),
        ("seeds 11, 29 and 2,024", ["seeds 11, 29 and 2,024"]),
        ("standard-normal draws with seed 2017, separate from", []),
        ("seeds 11, 29, 47", []),
        ("seed 314) puts the seed-11 gain of 2.37", []),
    ],
)
def test_a_seed_is_never_grouped(text, found):
    assert grouped_seeds(text) == found


@pytest.mark.parametrize(
    "text,found",
    [
        ("1,094, 467, 483", ["1,094, 467"]),
        ("988, 5,163, 522", ["988, 5,163"]),
        ("steps 0, 400, 5,250 of the 14", ["400, 5,250"]),
        ("1,094; 467; 483", []),
        ("steps 0, 400 and 5,250", []),
        ("seeds 11, 29, 47", []),
        ("best at step 2,250, 0.258 nats below", []),  # a decimal fraction is not part of the list
        ("[2, 4000], [1, 1000]", []),
    ],
)
def test_the_list_reader_finds_numbers_that_run_together(text, found):
    assert run_together(text) == found


def test_visible_text_leaves_out_code_figures_and_the_mathml_copy():
    html = (
        "<p>all <span class='v'>4000</span> logits <code>[2, 4000]</code></p>"
        "<pre>ids = 12345</pre><table><tr><td>1500</td><td>2250</td></tr></table>"
        "<svg><text>7777</text></svg><span class='katex'><span class='katex-mathml'><math><mn>9999</mn></math>"
        "</span><span class='katex-html'>8888</span></span><br>after"
    )
    assert visible_lines(html) == ["all 4000 logits", "1500", "2250", "8888", "after"]


@pytest.mark.parametrize(
    "value,digits,text",
    [
        (4000, 0, "4,000"),
        (5163.2, 0, "5,163"),
        (2224.5, 1, "2,224.5"),
        (999.96, 1, "1,000.0"),
        (-1250.0, 0, "−1,250"),
        (-0.0001, 2, "0.00"),
        (512, 0, "512"),
        (3.25, 3, "3.250"),
        ([2, 4000], 4, "[2, 4000]"),  # a shape or a list of IDs is never grouped
        ([1500.0, 2.5], 1, "[1500.0, 2.5]"),
    ],
)
def test_one_number_format_for_ints_and_floats(value, digits, text):
    assert fmt(value, digits) == text


def test_a_length_and_a_number_in_math_are_grouped():
    prov = Provenance()
    prov.start({"t": track({"logits": list(range(4000)), "base": 10000.0}, "t")})
    length, base = prov.sourced("t.logits", kind="len"), prov.sourced("t.base", 0)
    assert prov.resolve_markers(str(length)).endswith(">4,000</span>")
    # TeX spaces a bare comma as punctuation: the thousands comma goes in braces
    assert prov.resolve_markers(str(base), tex=True).endswith("{10{,}000}")


def pages(site_dir):
    return (
        sorted(site_dir.glob("decks/*.html"))
        + sorted(site_dir.glob("read/*.html"))
        + sorted(site_dir.glob("notebooks/*.html"))
        + sorted(site_dir.glob("*.html"))
    )


def test_every_page_groups_its_digits(site_dir):
    found = pages(site_dir)
    assert len(list(site_dir.glob("decks/*.html"))) >= 4 and len(list(site_dir.glob("read/*.html"))) >= 4
    lines, problems = 0, []
    for page in found:
        for line in visible_lines(page.read_text(encoding="utf-8")):
            lines += 1
            where = f"build/site/{page.relative_to(site_dir)}"
            problems += [f"{where}: {n!r} without a comma in {line[:140]!r}" for n in ungrouped_in_prose(line)]
            problems += [f"{where}: {n!r} runs two numbers together in {line[:140]!r}" for n in run_together(line)]
            problems += [f"{where}: {n!r} groups a seed, which is a name (seed 2017)" for n in grouped_seeds(line)]
    assert lines > 2000, f"only {lines} lines of text read from {len(found)} pages: the reader is broken"
    assert not problems, "numbers not written as content/notation.toml says:\n" + "\n".join(problems)
