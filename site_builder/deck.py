"""One content file -> slides: TOML front matter, Jinja2 (with the deck's
tables and the macros), slide and notes separators, build-time math, Markdown."""

from __future__ import annotations

import html as html_lib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from . import guards
from .katex_render import render_math
from .listing import listing
from .maps import code_table, map_strip
from .values import (
    TFloat,
    TInt,
    TList,
    bars_parts,
    figure_parts,
    fmt,
    is_plain_number,
    resolve,
    source_of,
    table_parts,
    track,
)

FRONT_KEYS = {"title": str, "order": int, "subtitle": str, "tables": list, "part": str, "allow_digits": list}
REQUIRED = ("title", "order")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
STRAY_DOLLAR = re.compile(r"(?<!\\)\$+")  # a $ or $$ left after the math is taken out: unbalanced
INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^$\\\n])+?)(?<![\s\\])\$(?!\d)")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)
PLACEHOLDER = re.compile(r"<p>@@S(\d+)@@</p>|@@S(\d+)@@")
BLOCK_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}")
LINE_BLOCK = re.compile(r"^(Takeaway|Step):[ \t]+(.+)$", re.M)
# m.compare's words: the first word of `less` must say "smaller", of `more` "larger",
# so swapping them (a deck that says four heads "raise" a smaller perplexity) stops the build
LESS_WORDS = {
    "lower",
    "lowers",
    "smaller",
    "fewer",
    "less",
    "shorter",
    "below",
    "under",
    "cuts",
    "reduces",
    "drops",
    "falls",
    "decreases",
}
MORE_WORDS = {
    "higher",
    "raises",
    "raise",
    "larger",
    "more",
    "greater",
    "longer",
    "above",
    "over",
    "increases",
    "grows",
    "rises",
}
MARKER = re.compile("\ue000(\\d+)\ue001")


class ContentError(ValueError):
    """A content file is broken; ``line`` is its 1-based line when known."""

    def __init__(self, message: str, line: int | None = None, snippet: str | None = None):
        super().__init__(message)
        self.line = line
        self.snippet = snippet


@dataclass
class Slide:
    html: Markup
    notes: Markup | None

    @property
    def title(self) -> str:
        """The slide's first heading as text ('' when it has none)."""
        m = re.search(r"<h[12][^>]*>(.*?)</h[12]>", str(self.html), re.S)
        return html_lib.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip() if m else ""


@dataclass
class Page:
    path: Path
    slug: str
    meta: dict
    slides: list[Slide] = field(default_factory=list)


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
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class Renderer:
    """Renders content files of one build. Holds the Jinja environment and the
    placeholders that keep HTML blocks and math away from Markdown."""

    def __init__(self, root: Path, content_dir: Path, templates_dir: Path, node_modules: Path):
        self.root, self.content_dir, self.node_modules = root, content_dir, node_modules
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(templates_dir)),
            undefined=jinja2.StrictUndefined,
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            finalize=self._finalize,
        )
        self.env.filters["block"] = self._stash
        self.env.globals.update(
            resolve=resolve,
            fmt=fmt,
            figure_svg=figure_parts,
            sourced=self.sourced,
            compare_word=self.compare,
            table_parts=table_parts,
            bars_parts=bars_parts,
            listing=lambda path, symbol=None, lines=None, caption=None: listing(root, path, symbol, lines, caption),
            map_strip=lambda name, stage: map_strip(content_dir, name, stage),
            map_code_table=lambda name: code_table(content_dir, name),
        )
        self.md = MarkdownIt("commonmark", {"html": True}).enable("table")
        self.stash: list[str] = []
        self.values: list[tuple[str, str, str, str]] = []  # (source, digits, kind, text) per marker
        self.problems: list[str] | None = None  # a list: collect unsourced prints instead of stopping (tools)

    def _problem(self, message: str, value):
        if self.problems is None:
            raise ValueError(message)
        self.problems.append(message)
        return fmt(value)

    # ---- printed values carry their JSON path ---------------------------------
    def _marker(self, source: str, digits, kind: str, text: str) -> Markup:
        self.values.append((source, str(digits), kind, text))
        return Markup(f"\ue000{len(self.values) - 1}\ue001")

    def sourced(self, x, digits=4, kind="num") -> Markup:
        """A value (source string or tracked value) printed with its path: m.num,
        m.ids, m.shape, m.len. An untracked number has no path and stops the build."""
        value, source = resolve(self.data, x)
        if source is None:
            return self._problem(
                f"a value with no table path was printed ({value!r}): pass a source string "
                f"'TABLE.key' or a value read from `data`, never a typed or Jinja-computed number "
                f"(compute it in export/tables)",
                value,
            )
        if kind == "len":
            return self._marker(source, "len", "len", str(len(value)))
        if kind == "abs":  # the size of a signed value, when a word (m.compare) already says its direction
            return self._marker(source, digits, "abs", fmt(abs(value), digits))
        return self._marker(source, digits, kind, fmt(value, digits))

    def compare(self, a, b, less: str, more: str, same: str | None = None) -> Markup:
        """The word for how value a stands to value b: ``less`` when a < b, ``more``
        when a > b, ``same`` when equal. Both values need a table path."""
        va, sa = resolve(self.data, a)
        vb, sb = resolve(self.data, b)
        if sa is None or sb is None or not is_plain_number(va) or not is_plain_number(vb):
            raise ValueError(f"m.compare needs two numbers read from tables (got {a!r}, {b!r})")
        for word, allowed, side in ((less, LESS_WORDS, "a < b"), (more, MORE_WORDS, "a > b")):
            if word.split()[0].lower() not in allowed:
                raise ValueError(
                    f"m.compare: {word!r} is not a word for {side} (use one of "
                    f"{', '.join(sorted(allowed))}); the words follow the order of a and b"
                )
        if va == vb and same is None:
            raise ValueError(f"m.compare: {sa} equals {sb} and no word for 'same' was given")
        word = less if va < vb else more if va > vb else same
        words = "|".join([less, more, same or ""])
        return Markup(
            f'<span class="cmp" data-a="{escape(sa)}" data-b="{escape(sb)}" '
            f'data-words="{escape(words)}">{escape(word)}</span>'
        )

    @jinja2.pass_context
    def _finalize(self, ctx, value):
        if ctx.name == "macros.j2":
            return value
        if isinstance(value, (TInt, TFloat)):
            if isinstance(value, TFloat):
                return self._problem(
                    f"{source_of(value)}: print a float with m.num(value, digits), which fixes its decimals", value
                )
            return self._marker(source_of(value), 0, "num", fmt(value))
        if isinstance(value, TList) and all(is_plain_number(v) for v in value):
            return self._marker(source_of(value), 4, "list", fmt(value))
        if is_plain_number(value):
            return self._problem(
                f"the number {value!r} has no table path (typed or computed in Jinja): print values "
                f"read from `data` or with m.num('TABLE.key'); compute derived numbers in export/tables",
                value,
            )
        return value

    def resolve_markers(self, text: str, tex: bool = False) -> str:
        def sub(m):
            source, digits, kind, txt = self.values[int(m.group(1))]
            if tex:
                return f"\\htmlData{{source={source}, digits={digits}, kind={kind}}}{{{txt}}}"
            start = m.start()
            if text.rfind("<", 0, start) > text.rfind(">", 0, start):  # inside a tag: an attribute value
                return txt
            return (
                f'<span class="v" data-source="{escape(source)}" data-digits="{digits}" '
                f'data-kind="{kind}">{escape(txt)}</span>'
            )

        return MARKER.sub(sub, text)

    def _stash(self, html) -> Markup:
        self.stash.append(str(html).strip())
        return Markup(f"\n\n@@S{len(self.stash) - 1}@@\n\n")

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
        slides, current, fence = [], [], None
        for line in text.split("\n"):
            m = FENCE.match(line)
            if m:
                fence = None if fence and m.group(1).startswith(fence) else (fence or m.group(1)[:3])
            if line.rstrip() == "---" and fence is None:
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

    # ---- math ----------------------------------------------------------------
    def extract_math(self, text: str, found: list[tuple[str, bool, int]]) -> str:
        """Replace $$..$$ and $..$ outside code by placeholders; record (tex, display, stash index)."""
        out, fence = [], None
        chunk: list[str] = []

        def flush():
            if chunk:
                out.append(self._math_in_prose("\n".join(chunk), found))
                chunk.clear()

        for line in text.split("\n"):
            m = FENCE.match(line)
            if fence is None and not m:
                chunk.append(line)
                continue
            flush()
            out.append(line)
            if m:
                fence = None if fence and m.group(1).startswith(fence) else (fence or m.group(1)[:3])
        flush()
        return "\n".join(out)

    def _math_in_prose(self, text: str, found) -> str:
        pieces, last = [], 0
        for span in CODE_SPAN.finditer(text):
            pieces.append(self._math_replace(text[last : span.start()], found))
            pieces.append(span.group(0))
            last = span.end()
        pieces.append(self._math_replace(text[last:], found))
        return "".join(pieces)

    def _math_replace(self, text: str, found) -> str:
        def display(m):
            self.stash.append("")
            found.append((self.resolve_markers(m.group(1).strip(), tex=True), True, len(self.stash) - 1))
            return f"\n\n@@S{len(self.stash) - 1}@@\n\n"

        def inline(m):
            self.stash.append("")
            found.append((self.resolve_markers(m.group(1), tex=True), False, len(self.stash) - 1))
            return f"@@S{len(self.stash) - 1}@@"

        out = INLINE_MATH.sub(inline, DISPLAY_MATH.sub(display, text))
        stray = STRAY_DOLLAR.search(out)
        if stray:  # name the text from the unmatched delimiter on; render_file finds its line
            rest = out[stray.start() :].split("\n")[0].split("@@S")[0]
            raise ContentError(
                f"unbalanced math delimiter {stray.group(0)} (write \\$ for a dollar sign): {rest[:60]!r}", snippet=rest
            )
        return out

    # ---- Markdown ------------------------------------------------------------
    def markdown(self, text: str) -> str:
        return self.md.render(text)

    def line_blocks(self, text: str) -> str:
        """`Takeaway: ...` -> the slide's one-line conclusion; `Step: ...` -> one
        revealed step (a reveal.js fragment) of a worked calculation."""

        def sub(m):
            inline = self.md.renderInline(m.group(2).strip())
            if m.group(1) == "Takeaway":
                return self._stash(f'<p class="takeaway"><strong>Takeaway:</strong> {inline}</p>')
            return self._stash(f'<p class="fragment step">{inline}</p>')

        return LINE_BLOCK.sub(sub, text)

    def fill(self, html: str) -> Markup:
        def sub(m):
            return self.stash[int(m.group(1) or m.group(2))]

        for _ in range(3):  # a stashed block may contain another placeholder
            if "@@S" not in html:
                break
            html = PLACEHOLDER.sub(sub, html)
        return Markup(self.resolve_markers(html).strip())

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
        data = {name: track(tables[name], name) for name in meta.get("tables", [])}
        self.data = data
        self.stash, self.values = [], []
        try:
            guards.check_source(body, meta.get("allow_digits", []))
        except guards.GuardError as exc:
            raise ContentError(str(exc), exc.line) from exc
        rendered = self.render_jinja(body, path, {"data": data, "deck": meta})
        parts = self.split_slides(rendered) if slides else [rendered]
        page = Page(path, path.stem, meta)
        math: list[tuple[str, bool, int]] = []
        raw = []
        for part in parts:
            main, notes = self.split_notes(part) if slides else (part, None)
            try:
                main_md = self.line_blocks(self.extract_math(main, math))
                notes_md = self.extract_math(notes, math) if notes is not None else None
            except ContentError as exc:
                exc.line = exc.line or next((i + 1 for i, l in enumerate(text.split("\n")) if exc.snippet in l), None)
                raise
            raw.append((self.markdown(main_md), self.markdown(notes_md) if notes_md is not None else None))
        results = render_math([(tex, display) for tex, display, _ in math], self.node_modules)
        for (tex, display, index), result in zip(math, results):
            if isinstance(result, Exception):
                line = next((i + 1 for i, l in enumerate(text.split("\n")) if tex.split("\n")[0] in l), None)
                raise ContentError(f"math error in ${tex}$: {result}", line)
            self.stash[index] = f'<div class="math display">{result}</div>' if display else result
        page.slides = [Slide(self.fill(main), self.fill(notes) if notes is not None else None) for main, notes in raw]
        return page
