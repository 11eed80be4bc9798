"""The course glossary: content/glossary.toml -> glossary.html (each term, one
line, a link to the slide that teaches it), and the check that no term is used
before that slide in course order.

A [[term]] names its defining slide by deck and heading and gives a regular
expression (`match`, case-insensitive unless `case = true`) that finds the
term in slide text. Walking the decks in course order, the first slide whose
text (main and notes; code, listings, map strips and figures left out) uses
the term must be its defining slide or come after it, or link the term: an
<a> to glossary.html#ID or to the defining slide. [[avoid]] lists words the
course does not use for a term it already has (say "query", not "receiver")."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

from .crosslinks import LinkError, slide_index

FILE = "glossary.toml"
ID = re.compile(r"^[a-z0-9-]+$")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Reader(HTMLParser):
    """Collects what a learner reads: text outside code, listings, map strips,
    figures and KaTeX's glyph boxes; math as its TeX annotation."""

    SKIP = {
        ("code", None),
        ("svg", None),
        ("pre", None),
        ("mrow", None),  # MathML glyphs; the TeX annotation beside them is kept
        ("nav", "map"),
        ("table", "map-code"),  # the map's box labels and their files
        ("p", "story"),  # quoted stories: data, not course prose
        ("blockquote", "story"),
        ("div", "listing"),
        ("span", "katex-html"),
        ("div", "exercise-static"),  # an exercise's printed copy: the widget's texts, which the check never reads
    }

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[bool] = []  # per open element: does it start a skipped region

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        skip = (tag, None) in self.SKIP or any((tag, c) in self.SKIP for c in classes)
        self.stack.append(skip)

    def handle_endtag(self, tag):
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not any(self.stack):
            self.parts.append(data)


class GlossaryError(ValueError):
    """glossary.toml is broken or a deck uses a term too early."""


@dataclass(frozen=True)
class Term:
    id: str
    term: str
    means: str
    deck: str
    slide: str
    pattern: re.Pattern


def load(content_dir: Path) -> dict | None:
    path = content_dir / FILE
    if not path.is_file():
        return None
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise GlossaryError(f"{FILE} is not valid TOML: {exc}") from exc
    terms = []
    for t in spec.get("term", []):
        missing = [k for k in ("id", "term", "means", "deck", "slide", "match") if not isinstance(t.get(k), str)]
        if missing or not ID.match(t["id"]):
            raise GlossaryError(
                f"{FILE}: term {t.get('term')!r} needs id (a-z, 0-9, -), term, means, deck, slide, match"
            )
        try:
            pattern = re.compile(t["match"], 0 if t.get("case") else re.I)
        except re.error as exc:
            raise GlossaryError(f"{FILE}: term {t['term']!r}: bad match pattern ({exc})") from exc
        terms.append(Term(t["id"], t["term"], t["means"], t["deck"], t["slide"], pattern))
    ids = [t.id for t in terms]
    if not terms or len(set(ids)) != len(ids):
        raise GlossaryError(f"{FILE} needs [[term]] entries with distinct ids")
    spec["terms"] = terms
    return spec


def slide_text(html) -> str:
    """What a learner reads on a slide: text without code, listings, map
    strips or figures; math as its TeX source."""
    reader = _Reader()
    reader.feed(str(html or ""))
    return " ".join(" ".join(reader.parts).split())


def links(html: str) -> list[tuple[str, str]]:
    """(href, text) of every link in a slide."""
    return [
        (href, " ".join(unescape(re.sub(r"<[^>]+>", " ", text)).split()))
        for href, text in re.findall(r'<a [^>]*href="([^"]*)"[^>]*>(.*?)</a>', str(html or ""), re.S)
    ]


def check(spec: dict, decks: list) -> list[dict]:
    """Check every term against the rendered decks (in course order); return
    the glossary page's rows, each with the defining slide's deck and number.
    Raises GlossaryError listing every problem found."""
    rows, problems = [], []
    course = [(d, i, s) for d in decks for i, s in enumerate(d.slides)]
    texts = [slide_text(s.html) + " " + slide_text(s.notes) for _, _, s in course]
    for w in spec.get("avoid", []):
        pattern = re.compile(w["match"], re.I)
        for (deck, i, s), text in zip(course, texts):
            if pattern.search(text):
                problems.append(
                    f"content/decks/{deck.slug}.md: slide {i + 1} ({s.title!r}) says {w['word']!r}: "
                    f"the course calls it {w['use']!r} ({FILE})"
                )
    for t in spec["terms"]:
        try:
            n = slide_index(decks, t.deck, t.slide)
        except LinkError as exc:
            problems.append(f"{FILE}: term {t.term!r}: {exc}")
            continue
        defining = next(k for k, (d, i, _) in enumerate(course) if d.slug == t.deck and i == n)
        d_slide = course[defining][2]
        if not t.pattern.search(slide_text(d_slide.html)):
            problems.append(f"{FILE}: term {t.term!r}: its defining slide {t.slide!r} does not use it")
        first = next((k for k, text in enumerate(texts) if t.pattern.search(text)), defining)
        if first < defining:
            deck, i, s = course[first]
            ok = (f"glossary.html#{t.id}", f"{t.deck}.html#/{n}")
            if not any(href.endswith(ok) and t.pattern.search(text) for href, text in links(s.html) + links(s.notes)):
                problems.append(
                    f"content/decks/{deck.slug}.md: slide {i + 1} ({s.title!r}) uses {t.term!r} before "
                    f"{t.deck} slide {n + 1} ({t.slide!r}) teaches it: define it there, or link its first use "
                    f"to ../glossary.html#{t.id} ({FILE})"
                )
        title = re.search(r"<h[12][^>]*>(.*?)</h[12]>", str(d_slide.html), re.S)
        title = slide_text(title.group(1)) if title else t.slide
        rows.append({"id": t.id, "term": t.term, "means": t.means, "deck": t.deck, "slide": n, "title": title})
    ids = {t.id for t in spec["terms"]}
    for deck, i, s in course:  # every glossary link names a term
        for href, _ in links(s.html) + links(s.notes):
            m = re.search(r"glossary\.html#([a-z0-9-]+)$", href)
            if m and m.group(1) not in ids:
                problems.append(
                    f"content/decks/{deck.slug}.md: slide {i + 1} links glossary.html#{m.group(1)}, "
                    f"which is not a term of {FILE}"
                )
    if problems:
        raise GlossaryError("glossary: " + "\n  ".join(problems))
    return sorted(rows, key=lambda r: r["term"].lower())
