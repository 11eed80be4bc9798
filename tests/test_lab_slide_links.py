"""The build refuses a lab slide link (web/lab/slides.js) whose heading no deck has."""

from __future__ import annotations

import pytest

from common.settings import ROOT
from site_builder.assemble import BuildError
from site_builder.build import LAB_SLIDE, check_lab_slide_links

TITLES = {"maps": ["Opening", "Greedy choice or a sampled one"], "part3": ["Perplexity: the loss"]}


def _slides(tmp_path, body):
    path = tmp_path / "slides.js"
    path.write_text(f"export const SLIDES = {{\n{body}}};\n", encoding="utf-8")
    return path


def test_every_named_heading_passes(tmp_path):
    path = _slides(
        tmp_path,
        "  greedy: { deck: 'maps', title: 'Greedy choice or a sampled one' },\n"
        "  perplexity: { deck: 'part3', title: 'Perplexity: the loss' },\n",
    )
    check_lab_slide_links(path, TITLES, tmp_path)


@pytest.mark.parametrize(
    "line, words",
    [
        ("  results: { deck: 'maps', title: 'Measured results' },\n", ["results", "'Measured results'", "maps"]),
        ("  perplexity: { deck: 'part3', title: 'Cross-entropy and perplexity' },\n", ["perplexity", "part3"]),
    ],
)
def test_a_missing_heading_stops_the_build_and_names_it(tmp_path, line, words):
    path = _slides(tmp_path, line)
    with pytest.raises(BuildError) as err:
        check_lab_slide_links(path, TITLES, tmp_path)
    assert "slides.js" in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_a_deck_the_build_does_not_hold_is_not_checked(tmp_path):
    """A site built from some decks (the tests' small sites) still builds."""
    check_lab_slide_links(
        _slides(tmp_path, "  perplexity: { deck: 'results', title: 'Anything' },\n"), TITLES, tmp_path
    )


def test_a_file_with_no_links_is_refused(tmp_path):
    with pytest.raises(BuildError, match="no slide links"):
        check_lab_slide_links(_slides(tmp_path, ""), TITLES, tmp_path)


def test_the_pattern_reads_every_entry_of_the_real_file():
    text = (ROOT / "web" / "lab" / "slides.js").read_text(encoding="utf-8")
    block = text.split("export const SLIDES = {", 1)[1].split("};", 1)[0]
    entries = [line for line in block.splitlines() if line.strip()]
    assert len(LAB_SLIDE.findall(text)) == len(entries) >= 10
