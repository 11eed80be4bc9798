"""One typographic voice across the four decks (issue 35 item 6): an index in
a title or a figure label is set as math (KaTeX in titles; a subscript in the
SVG text, tests/test_figure_math.py), never as "W_O" or "√d_k" in plain text;
the prose uses curly quotes and apostrophes (code, listings, data tables and
quoted stories keep what they quote); the four decks open with one title-slide
pattern (m.title_slide) and close with the same designed "Where next" slide.

Reads build/site (make site)."""

from __future__ import annotations

import json
import re
import tomllib
from html import unescape
from html.parser import HTMLParser

from common.settings import ROOT

DECKS = ["maps", "part2", "part3", "results"]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# text a learner reads as the course's own words; code and data keep their quotes
PROSE = {"p", "li", "h1", "h2", "h3", "figcaption", "summary", "dt", "dd", "caption"}
NOT_PROSE_TAGS = {"code", "pre", "kbd", "samp", "script", "style", "svg", "table", "math", "textarea"}
# exercise boxes are the exercise widgets' own texts (web/core/exercises-*.js), left out here
NOT_PROSE_CLASSES = {"katex", "listing", "story", "map-code", "highlight", "exercise", "exercise-static"}
PLAIN_INDEX = re.compile(r"(?<![\w.])√?[A-Za-zα-ω]_(?:\{[^{}]+\}|[A-Za-z0-9]+)(?!\w)")
STRAIGHT = re.compile(r"['\"]")


class Texts(HTMLParser):
    """Per element kind: the text outside code, math, figures, tables and stories."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, bool, bool]] = []  # (tag, skipped, prose, a map label)
        self.prose: list[str] = []
        self.titles: list[str] = []
        self.svg_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skipped = tag in NOT_PROSE_TAGS or bool(classes & NOT_PROSE_CLASSES)
        self.stack.append((tag, skipped, tag in PROSE, "map-label" in classes))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        tags = [t for t, *_ in self.stack]
        if "text" in tags and "svg" in tags:
            self.svg_text.append(data)
        if any(m for *_, m in self.stack):  # the map strip's stage labels are figure labels too
            self.svg_text.append(data)
        if any(s for _, s, _, _ in self.stack):
            return
        if any(p for _, _, p, _ in self.stack):
            self.prose.append(data)
        if tags and tags[-1] in ("h1", "h2") or (len(tags) > 1 and tags[-2] in ("h1", "h2")):
            self.titles.append(data)


def read(path) -> Texts:
    t = Texts()
    t.feed(path.read_text(encoding="utf-8"))
    return t


def pages(site_dir):
    return (
        [site_dir / "decks" / f"{d}.html" for d in DECKS]
        + [site_dir / "read" / f"{d}.html" for d in DECKS]
        + [site_dir / "index.html", site_dir / "glossary.html"]
    )


def test_titles_and_figure_labels_set_indices_as_math(site_dir):
    found = {}
    for path in pages(site_dir):
        t = read(path)
        for kind, texts in (("title", t.titles), ("figure", t.svg_text)):
            bad = sorted({m.group(0) for text in texts for m in PLAIN_INDEX.finditer(text)})
            if bad:
                found[f"{path.parent.name}/{path.name} {kind}"] = bad
    assert not found, found


def quoted_data(site_dir) -> list[str]:
    """Strings of the pipeline's tables that hold a straight quote (a toy video's
    title, a story): data the prose quotes as they are, longest first."""
    out = set()

    def walk(v):
        if isinstance(v, str):
            if STRAIGHT.search(v) and len(v) >= 4 and not v.startswith("<svg"):
                out.add(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for path in sorted((site_dir / "tables").glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return sorted(out, key=len, reverse=True)


def test_the_prose_has_no_straight_quotes(site_dir):
    found = {}
    data = quoted_data(site_dir)
    for path in pages(site_dir):
        text = "".join(read(path).prose)
        for quoted in data:
            text = text.replace(quoted, "")
        hits = [text[max(0, m.start() - 25) : m.end() + 15].replace("\n", " ") for m in STRAIGHT.finditer(text)]
        if hits:
            found[f"{path.parent.name}/{path.name}"] = hits[:6]
    assert not found, found


def test_no_markdown_backtick_reaches_the_prose(site_dir):
    """A code span written inside raw HTML (a `<p class="takeaway">` line) is not
    Markdown: its backticks would print as they are; the `Takeaway:` line renders them."""
    found = {}
    for path in pages(site_dir):
        text = "".join(read(path).prose)
        hits = [text[max(0, m.start() - 25) : m.end() + 25] for m in re.finditer("`", text)]
        if hits:
            found[f"{path.parent.name}/{path.name}"] = hits[:4]
    assert not found, found


def test_the_parser_sees_what_the_tests_forbid(tmp_path):
    """The two checks above read the prose and the titles, not code or math."""
    page = tmp_path / "p.html"
    page.write_text(
        '<h2>Why <span class="katex">d_k</span> and W_O</h2><p>the model\'s <code>x = "a"</code></p>'
        '<svg><text>√d_k</text></svg><nav class="map"><span class="map-label">W_V</span></nav>'
        '<table><tr><td>"data"</td></tr></table><aside class="notes"><p>"no"</p></aside>'
    )
    t = read(page)
    assert [m.group(0) for x in t.titles for m in PLAIN_INDEX.finditer(x)] == ["W_O"]
    assert [m.group(0) for x in t.svg_text for m in PLAIN_INDEX.finditer(x)] == ["√d_k", "W_V"]
    assert STRAIGHT.findall("".join(t.prose)) == ["'", '"', '"']  # the apostrophe and the notes' quotes


class Structure(HTMLParser):
    """A region's elements as (depth, tag, classes), from the element with id or class ``start``."""

    def __init__(self, start: str):
        super().__init__(convert_charrefs=True)
        self.start, self.depth, self.inside, self.shape, self.text = start, 0, None, [], []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.depth += 1
        classes = (dict(attrs).get("class") or "").split()
        if self.inside is None and self.start in classes:
            self.inside = self.depth
        if (
            self.inside is not None
            and not any(c.startswith("katex") for c in classes)
            and tag not in ("span", "a", "code")
        ):
            self.shape.append((self.depth - self.inside, tag, tuple(sorted(classes))))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.inside == self.depth:
            self.inside = -1
        self.depth -= 1

    def handle_data(self, data):
        if self.inside is not None and self.inside > 0:
            self.text.append(data)


def first_and_last(site_dir, slug):
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section data-slide="\d+"[^>]*>.*?</section>', html, re.S)
    return sections[0], sections[-1]


def structure(html: str, start: str) -> Structure:
    s = Structure(start)
    s.feed(html)
    assert s.inside is not None, f"no .{start}"
    return s


def test_the_four_decks_open_with_one_title_slide_pattern(site_dir):
    shapes = {}
    for slug in DECKS:
        first, _ = first_and_last(site_dir, slug)
        s = structure(first, "title-slide")
        shapes[slug] = s.shape
        meta = tomllib.loads((ROOT / "content" / "decks" / f"{slug}.md").read_text(encoding="utf-8").split("+++")[1])
        head = re.search(
            r'<div class="title-slide">\s*<p class="part-label">(.*?)</p>\s*<h1>(.*?)</h1>\s*'
            r'<p class="title-subtitle">(.*?)</p>\s*<p class="title-lede muted small">',
            first,
            re.S,
        )
        assert head, slug
        assert [unescape(x) for x in head.groups()] == [meta["part"], meta["title"], meta["subtitle"]], slug
    assert shapes["maps"][:5] == [
        (0, "div", ("title-slide",)),
        (1, "p", ("part-label",)),
        (1, "h1", ()),
        (1, "p", ("title-subtitle",)),
        (1, "p", ("muted", "small", "title-lede")),
    ]
    top = {slug: [x for x in shape if x[0] <= 1] for slug, shape in shapes.items()}
    assert all(v == top["maps"] for v in top.values()), top


def test_the_four_decks_close_with_the_same_designed_slide(site_dir):
    shapes = {}
    for i, slug in enumerate(DECKS):
        _, last = first_and_last(site_dir, slug)
        assert 'class="end-slide"' in last
        kicker = re.search(r'<p class="part-label end-kicker">End of (.*?)</p>\s*<h2>Where next</h2>', last)
        assert kicker, slug
        nav = structure(last, "deck-next")
        items = [x for x in nav.shape if x[1] == "li"]
        assert items[0][2] == ("next-deck",), slug  # the next deck (or the way back) first, as the large card
        shapes[slug] = [x for x in nav.shape if x[0] <= 1]
        if i + 1 < len(DECKS):
            assert 'class="next-subtitle"' in last  # what the next deck is about, not only its name
    assert len({tuple(v) for k, v in shapes.items() if k != DECKS[-1]}) == 1, shapes
