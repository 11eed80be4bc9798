"""One content file -> slides: TOML front matter, the source guards, Jinja2
(with the deck's tables and the macros), slide and notes separators,
build-time math, Markdown.

The pieces live beside it: guards.py (checks on the source), provenance.py
(printed numbers carry their JSON path; m.compare's words), math_spans.py +
katex_render.py (math), placeholders.py (what Markdown must not touch),
jinja_env.py (the Jinja settings), values.py (lookup and formatting)."""

from __future__ import annotations

import collections
import re
import tomllib
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from . import comparisons, exercise_texts, guards
from .exercises import exercise_box
from .fences import code_flags
from .jinja_env import environment, last_template_frame
from .listing import listing
from .maps import code_table, map_strip
from .math_spans import MathError, PageMath
from .placeholders import Placeholders
from .predictions import prediction_box
from .provenance import Provenance
from .values import bars_parts, figure_parts, fmt, resolve, table_parts, track

FRONT_KEYS = {
    "title": str,
    "order": int,
    "subtitle": str,
    "tables": list,
    "part": str,
    "allow_digits": list,
    "key_figure": str,
}
REQUIRED = ("title", "order")
BLOCK_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}")
LINE_BLOCK = re.compile(r"^(Takeaway|Step):[ \t]+(.+)$", re.M)
# `Section: NAME` on a line of its own opens a section of the deck: the slide
# carrying it and every later one until the next show NAME as where the learner
# is (templates/deck.html, read.html)
SECTION_LINE = re.compile(r"^Section:[ \t]+(.+?)[ \t]*$\n?", re.M)
# a slide's leading title (and map strip) and its closing takeaway (Slide.parts)
SLIDE_HEAD = re.compile(r'\s*(<h[12][^>]*>.*?</h[12]>)\s*(<nav class="map".*?</nav>)?', re.S)
SLIDE_FOOT = re.compile(r'<p class="takeaway">(?:(?!</p>).)*</p>', re.S)
BLOCK_OPEN = re.compile(r"<(div|details|figure|ul|ol|li|table|blockquote)[\s>]")
BLOCK_CLOSE = re.compile(r"</(div|details|figure|ul|ol|li|table|blockquote)>")


def top_level(html: str) -> bool:
    """Whether the end of ``html`` is outside every block it opened (a takeaway
    there can move to the slide's foot without breaking its container)."""
    return collections.Counter(BLOCK_OPEN.findall(html)) == collections.Counter(BLOCK_CLOSE.findall(html))


class ContentError(ValueError):
    """A content file is broken; ``line`` is its 1-based line when known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


@dataclass
class Slide:
    html: Markup
    notes: Markup | None
    # the deck section the slide belongs to (a `Section:` line on it or on an
    # earlier slide); None on a title slide and in a deck without sections
    section: str | None = None

    @property
    def title(self) -> str:
        """The slide's first heading as text ('' when it has none)."""
        m = re.search(r"<h[12][^>]*>(.*?)</h[12]>", str(self.html), re.S)
        return unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip() if m else ""

    @property
    def parts(self) -> dict[str, Markup]:
        """The slide as the deck page lays it out (templates/deck.html): ``head``
        (the leading title), ``map`` (its map strip, shown in the kicker row
        above the title with the section), ``body`` and ``foot`` (a closing
        takeaway, moved there from wherever the slide wrote it); the body is
        top-aligned under the head, the foot in a strip at the bottom."""
        html = str(self.html)
        head = SLIDE_HEAD.match(html)
        start = head.end() if head else 0
        # the slide's last takeaway, wherever the deck wrote it (an exercise or a
        # code link after it stays in the body): the foot is its strip
        feet = [m for m in SLIDE_FOOT.finditer(html, start) if top_level(html[start : m.start()])]
        foot = feet[-1] if feet else None
        body = html[start : foot.start()] + html[foot.end() :] if foot else html[start:]
        return {
            "head": Markup(head.group(1) if head else ""),
            "map": Markup((head.group(2) or "") if head else ""),
            "body": Markup(body.strip()),
            "foot": Markup(foot.group(0) if foot else ""),
        }


@dataclass
class Page:
    path: Path
    slug: str
    meta: dict
    slides: list[Slide] = field(default_factory=list)
    # the figure the index shows for this deck (front matter `key_figure`):
    # {svg, source, slide (its 0-based index), title (that slide's)}; None without one
    key_figure: dict | None = None


def split_front_matter(text: str, required=REQUIRED) -> tuple[dict, str]:
    """Returns (front matter, body padded with blank lines so that body line N
    is file line N)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "+++":
        raise ContentError("the file must start with TOML front matter between two lines of +++", 1)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "+++")
    except StopIteration:
        raise ContentError("front matter is not closed by a line of +++", 1) from None
    try:
        meta = tomllib.loads("\n".join(lines[1:end]))
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise ContentError(f"front matter is not valid TOML: {exc}", int(m.group(1)) + 1 if m else 2) from exc
    for key, value in meta.items():
        if key not in FRONT_KEYS:
            raise ContentError(f"unknown front matter key {key!r} (allowed: {', '.join(FRONT_KEYS)})", 2)
        if not isinstance(value, FRONT_KEYS[key]) or (key == "order" and isinstance(value, bool)):
            raise ContentError(f"front matter {key!r} must be {FRONT_KEYS[key].__name__}", 2)
    for key in required:
        if key not in meta:
            raise ContentError(f"front matter needs {key!r}", 2)
    if not all(isinstance(t, str) for t in meta.get("tables", [])):
        raise ContentError("front matter 'tables' must be a list of table names", 2)
    if not all(isinstance(t, str) and t for t in meta.get("allow_digits", [])):
        raise ContentError("front matter 'allow_digits' must be a list of phrases such as \"slot 1\"", 2)
    return meta, "\n" * (end + 1) + "\n".join(lines[end + 1 :])


def _template_line(exc: BaseException, filename: str) -> int | None:
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return exc.lineno
    frame = last_template_frame(exc, lambda name: name == filename)
    return frame[1] if frame else None


def _line_of(text: str, snippet: str | None) -> int | None:
    """The 1-based line of ``text`` that first contains ``snippet``."""
    if snippet is None:
        return None
    return next((i + 1 for i, line in enumerate(text.split("\n")) if snippet in line), None)


class Renderer:
    """Renders the content files of one build: one Jinja environment for the
    deck bodies, and per page its printed values (provenance) and placeholders."""

    def __init__(self, root: Path, content_dir: Path, templates_dir: Path, node_modules: Path, web: Path | None = None):
        self.root, self.content_dir, self.node_modules = root, content_dir, node_modules
        self.web = root / "web" if web is None else web
        self._printed: dict[str, dict] | None = None  # the exercises' printed texts, read once (exercise_box)
        self.provenance = Provenance()
        self.slots = Placeholders()
        self.map_reach: dict[str, int] = {}  # per page: the furthest stage of each map shown (maps.py)
        self.env = environment(templates_dir, keep_trailing_newline=True, finalize=self.provenance.finalize)
        self.env.filters["block"] = self.block
        self.env.globals.update(
            resolve=resolve,
            fmt=fmt,
            figure_svg=figure_parts,
            sourced=self.provenance.sourced,
            compare_word=self.provenance.compare,
            table_parts=table_parts,
            bars_parts=bars_parts,
            listing=lambda path, symbol=None, lines=None, caption=None: listing(root, path, symbol, lines, caption),
            map_strip=lambda name, stage: map_strip(content_dir, name, stage, self.map_reach),
            map_code_table=lambda name: code_table(content_dir, name),
            exercise_box=lambda name: exercise_box(content_dir, name, self.printed_exercises()),
            prediction_box=lambda *args, **kwargs: prediction_box(self.provenance, *args, **kwargs),
        )
        self.md = MarkdownIt("commonmark", {"html": True}).enable("table")

    def printed_exercises(self) -> dict[str, dict] | None:
        """Every exercise's texts for the printed seed (exercise_texts.printed), read
        once per build; None when the web folder has no exercises."""
        if self._printed is None and (self.web / "core" / "exercises.js").is_file():
            try:
                self._printed = exercise_texts.printed(self.web)
            except exercise_texts.ExerciseTextError as exc:
                raise ValueError(str(exc)) from exc
        return self._printed

    def block(self, html) -> Markup:
        """The `block` filter of the macros: finished HTML, kept away from Markdown."""
        return Markup(self.slots.add(str(html).strip(), block=True))

    # ---- Jinja -------------------------------------------------------------
    @staticmethod
    def keep_line_ends(body: str) -> str:
        """trim_blocks drops the newline after a block tag, which is what lets a line
        holding only `{% set %}` vanish; but a tag that ends a line of text would glue
        that line to the next (a bullet to the sentence before it). Such tags get
        `+%}`, which keeps their newline."""
        out = []
        for line in body.split("\n"):
            if line.endswith("%}") and not line.endswith(("-%}", "+%}")) and BLOCK_TAG.sub("", line).strip():
                line = line[:-2] + "+%}"
            out.append(line)
        return "\n".join(out)

    def render_jinja(self, body: str, path: Path, context: dict) -> str:
        filename = str(path)
        body = self.keep_line_ends(body)
        try:
            code = self.env.compile(body, name=path.name, filename=filename)
            template = self.env.template_class.from_code(self.env, code, self.env.globals)
            macros = self.env.get_template("macros.j2").make_module({"data": context["data"]})
            return template.render(m=macros, **context)
        except jinja2.TemplateError as exc:
            raise ContentError(f"template error: {exc}", _template_line(exc, filename)) from exc
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise ContentError(str(exc), _template_line(exc, filename)) from exc

    # ---- slides --------------------------------------------------------------
    @staticmethod
    def split_slides(text: str) -> list[str]:
        """A line that is exactly `---` (outside code fences) separates slides."""
        slides, current = [], []
        for line, is_code in code_flags(text.split("\n")):
            if line.rstrip() == "---" and not is_code:
                slides.append("\n".join(current))
                current = []
            else:
                current.append(line)
        slides.append("\n".join(current))
        return [s for s in slides if s.strip()]

    @staticmethod
    def split_notes(text: str) -> tuple[str, str | None]:
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line.rstrip() == "Note:":
                return "\n".join(lines[:i]), "\n".join(lines[i + 1 :])
        return text, None

    # ---- Markdown ------------------------------------------------------------
    def markdown(self, text: str) -> str:
        return self.md.render(text)

    def line_blocks(self, text: str) -> str:
        """`Takeaway: ...` -> the slide's one-line conclusion (no prefix on the slide:
        the takeaway strip is one style in every deck, site.css); `Step: ...` -> one
        revealed step (a reveal.js fragment) of a worked calculation."""

        def sub(m):
            inline = self.md.renderInline(m.group(2).strip())
            if m.group(1) == "Takeaway":
                return self.block(f'<p class="takeaway">{inline}</p>')
            return self.block(f'<p class="fragment step">{inline}</p>')

        return LINE_BLOCK.sub(sub, text)

    @staticmethod
    def take_section(main: str, text: str) -> tuple[str, str | None]:
        """The slide without its `Section:` line, and the section's name (None
        when the slide opens none). A second one on a slide is refused by line."""
        found = SECTION_LINE.findall(main)
        if len(found) > 1:
            where = _line_of(text, f"Section: {found[1]}")
            raise ContentError(f"one slide opens two sections ({found[0]!r}, {found[1]!r})", where)
        return SECTION_LINE.sub("", main), (found[0] if found else None)

    @staticmethod
    def place_sections(page: Page, sections: list[str | None], text: str) -> None:
        """Every slide after the first (the title slide) gets the section it is in.
        A deck has sections on every content slide or on none: once any slide
        opens one, the first content slide must open one too."""
        if not any(sections):
            return
        if sections[0]:
            where = _line_of(text, f"Section: {sections[0]}")
            raise ContentError("the title slide opens a section; open it on the next slide", where)
        if len(sections) > 1 and not sections[1]:
            raise ContentError(
                f"the deck has sections, but its first content slide ({page.slides[1].title!r}) opens none: "
                "add a `Section: NAME` line to it",
                _line_of(text, "Section: "),
            )
        current = None
        for slide, section in zip(page.slides, sections):
            current = section or current
            slide.section = current

    def fill(self, html: str) -> Markup:
        return Markup(self.provenance.resolve_markers(self.slots.fill(html)).strip())

    # ---- whole files ---------------------------------------------------------
    def render_file(self, path: Path, tables: dict, slides: bool = True) -> Page:
        """``tables`` maps NAME -> parsed JSON for every available table. With
        ``slides=False`` (the index page) the body is one part and needs no order."""
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ContentError(f"not UTF-8: {exc}") from exc
        meta, body = split_front_matter(text, REQUIRED if slides else ("title",))
        missing = [t for t in meta.get("tables", []) if t not in tables]
        if missing:
            raise ContentError(
                f"table {missing[0]!r} listed in front matter has no build/tables/{missing[0]}.json "
                f"(run `python -m export.tables`)",
                2,
            )
        self.provenance.start({name: track(tables[name], name) for name in meta.get("tables", [])})
        self.slots = Placeholders()
        self.map_reach = {}
        try:
            guards.check_source(body, meta.get("allow_digits", []))
        except guards.GuardError as exc:
            raise ContentError(str(exc), exc.line) from exc
        rendered = self.render_jinja(body, path, {"data": self.provenance.data, "deck": meta})
        parts = self.split_slides(rendered) if slides else [rendered]
        math = PageMath(self.slots, lambda tex: self.provenance.resolve_markers(tex, tex=True))
        raw, sections = [], []
        try:
            for part in parts:
                main, notes = self.split_notes(part) if slides else (part, None)
                main, section = self.take_section(main, text)
                sections.append(section)
                main_md = self.line_blocks(math.extract(main))
                notes_md = math.extract(notes) if notes is not None else None
                raw.append((self.markdown(main_md), self.markdown(notes_md) if notes_md is not None else None))
            math.typeset(self.node_modules)
        except MathError as exc:
            raise ContentError(str(exc), _line_of(text, exc.snippet)) from exc
        page = Page(path, path.stem, meta)
        page.slides = [Slide(self.fill(main), self.fill(notes) if notes is not None else None) for main, notes in raw]
        self.place_sections(page, sections, text)
        for slide in page.slides:
            for html in (slide.html, slide.notes or ""):
                try:
                    comparisons.check(str(html))
                except comparisons.ComparisonError as exc:
                    raise ContentError(str(exc), _line_of(text, f"subject='{exc.subject}'")) from exc
        if "key_figure" in meta:
            page.key_figure = key_figure(page, tables, meta["key_figure"])
        return page


def key_figure(page: Page, tables: dict, source: str) -> dict | None:
    """The deck's key figure for the index: one of the figures its slides show
    (m.figure), named by its table path; the first slide that shows it is the
    one the index links to. None while its table says "not measured yet" (the
    index card then has no picture, as the slide has none)."""
    if source.split(".")[0] not in page.meta.get("tables", []):
        raise ContentError(f"key_figure {source!r}: its table is not in the deck's front matter `tables`", 2)
    try:
        parts = figure_parts(tables, source, phone=False)  # a card shows one figure: the wide one
    except ValueError as exc:
        raise ContentError(f"key_figure: {exc}", 2) from exc
    if parts["unavailable"] is not None:
        return None
    marker = f'data-figure="{source}"'
    shown = [i for i, slide in enumerate(page.slides) if marker in str(slide.html)]
    if not shown:
        raise ContentError(f"key_figure {source!r} is not a figure any slide of this deck shows (m.figure)", 2)
    return {"svg": parts["svg"], "source": source, "slide": shown[0], "title": page.slides[shown[0]].title}
