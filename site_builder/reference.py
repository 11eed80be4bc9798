"""The course's reference pages and the checks behind them, run once every
deck is rendered: the notation (notation.html, and no deck using a listed
symbol in another meaning), the slide links between decks (crosslinks), and
the glossary (glossary.html, and no term used before the slide that teaches
it). Content without notation.toml or glossary.toml gets neither page."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from markupsafe import Markup

from . import crosslinks, exercise_texts, glossary, notation
from .assemble import BuildError
from .katex_render import render_math

# a symbol with an index written in plain text (W_Q, d_k, √d_k), which the
# glossary page sets as math; a code name (padding_idx) is left as written
PLAIN_INDEX = re.compile(r"(?<![\w.])(√)?([A-Za-z])_(\{[^{}]+\}|[A-Za-z0-9]+)(?!\w)")
NOTATION_PAGE = "notation.html"
GLOSSARY_PAGE = "glossary.html"


@dataclass
class Reference:
    notation: dict | None = None
    notation_rows: list = field(default_factory=list)
    glossary: dict | None = None
    glossary_rows: list = field(default_factory=list)

    @property
    def pages(self) -> dict:
        """Which reference pages the site has (for the navigation)."""
        return {
            "notation": NOTATION_PAGE if self.notation else None,
            "glossary": GLOSSARY_PAGE if self.glossary else None,
        }


def check(
    content_dir: Path, decks: list, web: Path | None = None, tables: dict | None = None, notebooks: Path | None = None
) -> Reference:
    """Load both files, check every deck against them and resolve the slide
    links. The notation is checked on the decks, and when given on the exercise
    texts of ``web``/core, the figures of ``tables`` and the notebook sources in
    ``notebooks``. Raises BuildError naming the file (and line) at fault."""
    ref = Reference()
    try:
        ref.notation = notation.load(content_dir)
    except notation.NotationError as exc:
        raise BuildError(f"content/{notation.FILE}: {exc}") from exc
    if ref.notation:
        for deck in decks:
            try:
                notation.check_deck(ref.notation, deck.path.read_text(encoding="utf-8"))
            except notation.NotationError as exc:
                raise BuildError(f"content/decks/{deck.slug}.md line {exc.line}: {exc}") from exc
        try:
            if web is not None and (web / "core" / "exercises.js").is_file():
                notation.check_exercises(ref.notation, exercise_texts.drawn(web))
            if tables:
                notation.check_figures(ref.notation, tables)
            for path in sorted(notebooks.glob("*.py")) if notebooks is not None and notebooks.is_dir() else []:
                where = f"notebooks/{path.name}"
                notation.check_notebook(ref.notation, path.read_text(encoding="utf-8"), where)
        except notation.NotationError as exc:
            raise BuildError(f"{exc}" if exc.line is None else f"{exc} (line {exc.line})") from exc
        except exercise_texts.ExerciseTextError as exc:
            raise BuildError(str(exc)) from exc
        ref.notation_rows = notation.page_rows(ref.notation)
    try:
        crosslinks.resolve(decks)
    except crosslinks.LinkError as exc:
        raise BuildError(str(exc)) from exc
    try:
        ref.glossary = glossary.load(content_dir)
        if ref.glossary:
            ref.glossary_rows = glossary.check(ref.glossary, decks)
    except glossary.GlossaryError as exc:
        raise BuildError(str(exc)) from exc
    return ref


def write(env, staging: Path, ref: Reference, nav_pages: dict, node_modules: Path) -> None:
    if ref.notation:
        typeset = render_math([(r["tex"], False) for r in ref.notation_rows], node_modules)
        for row, html in zip(ref.notation_rows, typeset):
            if isinstance(html, Exception):
                raise BuildError(f"content/{notation.FILE}: symbol {row['name']!r}: KaTeX: {html}")
            row["html"] = html
        page = env.get_template("notation.html").render(
            spec=ref.notation, rows=ref.notation_rows, root="", pages=nav_pages
        )
        (staging / NOTATION_PAGE).write_text(page, encoding="utf-8")
    if ref.glossary:
        set_glossary_math(ref.glossary_rows, node_modules)
        page = env.get_template("glossary.html").render(
            spec=ref.glossary, rows=ref.glossary_rows, root="", pages=nav_pages
        )
        (staging / GLOSSARY_PAGE).write_text(page, encoding="utf-8")


def set_glossary_math(rows: list[dict], node_modules: Path) -> None:
    """Each glossary row's term, meaning and slide title as HTML (``term_html``,
    ``means_html``, ``title_html``) with every plain-text index (W_O, d_k,
    √d_k) typeset by KaTeX, as the slides set them; the plain texts stay for
    the links' accessible names."""
    fields = ("term", "means", "title")
    found = sorted({m.group(0) for r in rows for f in fields for m in PLAIN_INDEX.finditer(r[f])})

    def tex(m: re.Match) -> str:
        body = f"{m.group(2)}_{{{m.group(3).strip('{}')}}}"
        return f"\\sqrt{{{body}}}" if m.group(1) else body

    typeset = render_math([(tex(PLAIN_INDEX.fullmatch(x)), False) for x in found], node_modules)
    html = {}
    for text, out in zip(found, typeset):
        if isinstance(out, Exception):
            raise BuildError(f"content/{glossary.FILE}: {text!r}: KaTeX: {out}")
        html[text] = out
    for r in rows:
        for f in fields:
            parts, last = [], 0
            for m in PLAIN_INDEX.finditer(r[f]):
                parts += [escape(r[f][last : m.start()], quote=False), html[m.group(0)]]
                last = m.end()
            r[f"{f}_html"] = Markup("".join(parts) + escape(r[f][last:], quote=False))
