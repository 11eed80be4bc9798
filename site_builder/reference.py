"""The course's reference pages and the checks behind them, run once every
deck is rendered: the notation (notation.html, and no deck using a listed
symbol in another meaning), the slide links between decks (crosslinks), and
the glossary (glossary.html, and no term used before the slide that teaches
it). Content without notation.toml or glossary.toml gets neither page."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import crosslinks, exercise_texts, glossary, notation
from .assemble import BuildError
from .katex_render import render_math

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
        page = env.get_template("glossary.html").render(
            spec=ref.glossary, rows=ref.glossary_rows, root="", pages=nav_pages
        )
        (staging / GLOSSARY_PAGE).write_text(page, encoding="utf-8")
