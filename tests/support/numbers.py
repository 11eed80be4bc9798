"""Reading numbers the way a learner sees them, for the tests that check the
course writes them one way (content/notation.toml: whole numbers from 1,000 on
with a comma, except inside a list of IDs or a shape such as [2, 4000]).

``ungrouped`` finds runs of four or more digits that are not grouped; figures
(tests/test_figure_numbers.py) use it as it is. ``ungrouped_in_prose`` also
leaves out what grouping would make wrong in a sentence: a year (Vaswani et
al., 2017; a date 2026-11-29), an arXiv identifier (arXiv:1706.03762) and a
random seed (seed 2017), which are names, not amounts. ``run_together`` finds
a list of whole numbers whose comma separators read as thousands commas. ``visible_lines`` is the
text of a page a reader sees, without code, SVG (the figure test reads those)
or the copy KaTeX keeps for screen readers."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# a shape or a list of IDs: [2, 4000], [2, 4, 64, 16]
BRACKETS = re.compile(r"\[[^\[\]]*\]")
# four or more digits in a row that are not part of a grouped number, a decimal
# fraction, an identifier (fig-res-1000) or a hex colour
# (a comma after it ends a clause, "= 2048, which is", unless a digit follows: 1234,567)
UNGROUPED = re.compile(r"(?<![\w.,#-])\d{4,}(?!\w|,\d)")
# a year as a citation or a date writes it: (2018), et al., 2019), NeurIPS 2017, 2021 (RoPE), 2026-11-29
YEAR = re.compile(r"(?<![\d,.])(?:19|20)\d\d(?=\)|,|;|-\d\d-\d\d\b| \(|\.(?!\d)|$)")
ARXIV = re.compile(r"\barXiv:\d{4}\.\d{4,5}")
SEED = re.compile(r"\bseeds? \d+(?:(?:, | and )\d+)*")


# two whole numbers in a list, one of them grouped: "1,094, 467" or "400, 5,250" reads
# as one number (such a list is separated by "; " or ends with "and")
RUN_TOGETHER = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+, \d+(?![\d.])|(?<![\d.,])\d+, \d{1,3}(?:,\d{3})+(?![\d.])")


# a seed is a name: written as it is set (seed 2017), never grouped like an amount (seed 2,017)
GROUPED_SEED = re.compile(r"\bseeds? (?:\d+(?:, | and ))*\d{1,3}(?:,\d{3})+(?!\d)")


def grouped_seeds(text: str) -> list[str]:
    return GROUPED_SEED.findall(text)


def ungrouped(text: str) -> list[str]:
    return UNGROUPED.findall(BRACKETS.sub(" ", text))


def ungrouped_in_prose(text: str) -> list[str]:
    for name in (ARXIV, SEED, YEAR):
        text = name.sub(" ", text)
    return ungrouped(text)


def run_together(text: str) -> list[str]:
    return RUN_TOGETHER.findall(BRACKETS.sub(" ", text))


# elements whose text is not prose: code, a figure (its own test), KaTeX's MathML copy
NOT_PROSE = {"code", "pre", "kbd", "samp", "script", "style", "svg", "math", "template"}
# KaTeX's MathML copy
NOT_PROSE_CLASSES = {"katex-mathml"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# elements that start a new line of text: two cells or paragraphs never run together
BREAKS = {
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div", "dt", "figcaption",
    "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main", "nav", "ol", "p", "section",
    "summary", "table", "td", "th", "tr", "ul", "button", "label", "option",
}  # fmt: skip


class _Visible(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, bool]] = []  # (tag, hidden) of every open element
        self.hidden = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in BREAKS:
            self.parts.append("\n")
        if tag in VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        hide = tag in NOT_PROSE or bool(NOT_PROSE_CLASSES & set(classes))
        self.open.append((tag, hide))
        self.hidden += hide

    def handle_startendtag(self, tag, attrs):
        if tag in BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in BREAKS:
            self.parts.append("\n")
        if tag in VOID or tag not in {t for t, _ in self.open}:
            return
        while self.open:
            t, hide = self.open.pop()
            self.hidden -= hide
            if t == tag:
                break

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def visible_lines(html: str) -> list[str]:
    """The page's prose and table cells, one block element per line."""
    reader = _Visible()
    reader.feed(html)
    reader.close()
    return [" ".join(line.split()) for line in "".join(reader.parts).split("\n") if line.strip()]
