"""Code listings read from the project's own source files, cut to one symbol
(found with ast) or a line range, and highlighted by Pygments at build time."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_for_filename
from pygments.style import Style
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String
from pygments.util import ClassNotFound

from common import palette


class STYLE(Style):
    """Listings in the palette's greys, weight and slant only: a colour on a
    slide is kept for what it means (common/palette.py MEANING_NAMES), and
    syntax colours would repeat those (a purple keyword, a blue number). Every
    grey reads at 7:1 or more on the listing background."""

    background_color = palette.SURFACE_SOFT
    highlight_color = palette.HIGHLIGHT
    line_number_special_color = palette.INK  # special line numbers (none are asked for)
    line_number_special_background_color = palette.HIGHLIGHT
    styles = {
        Comment: f"italic {palette.MUTED}",
        Keyword: f"bold {palette.INK}",
        Name.Builtin: palette.INK,
        Name.Function: f"bold {palette.INK}",
        Name.Class: f"bold {palette.INK}",
        Name.Decorator: palette.INK_SOFT,
        String: palette.INK_SOFT,
        Number: palette.INK_SOFT,
        Operator.Word: f"bold {palette.INK}",
        Error: f"{palette.ERROR} border:{palette.ERROR}",
    }


def formatter(start: int = 1) -> HtmlFormatter:
    return HtmlFormatter(style=STYLE, cssclass="highlight", linenos="inline", linenostart=start, wrapcode=True)


def stylesheet() -> str:
    """CSS for the listings (written to assets/pygments.css)."""
    return formatter().get_style_defs(".highlight") + "\n"


def _defines(node: ast.AST, name: str) -> bool:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    return False


def _symbol_lines(source: str, symbol: str, path: str) -> tuple[int, int]:
    """1-based inclusive line range of ``Class``, ``function``, ``Class.method``
    or a module-level ``NAME = ...`` assignment, decorators included."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"cannot parse {path} for a listing: {exc}") from exc
    nodes: list[ast.AST] = list(tree.body)
    found = None
    for part in symbol.split("."):
        found = next((n for n in nodes if _defines(n, part)), None)
        if found is None:
            raise ValueError(f"symbol {symbol!r} not found in {path}")
        nodes = list(getattr(found, "body", []))
    start = min([found.lineno] + [d.lineno for d in getattr(found, "decorator_list", [])])
    return start, found.end_lineno


def _line_range(spec: str, n_lines: int, path: str) -> tuple[int, int]:
    try:
        a, _, b = str(spec).partition("-")
        start, end = int(a), int(b or a)
    except ValueError as exc:
        raise ValueError(f"lines must look like '10-24', got {spec!r}") from exc
    if not 1 <= start <= end <= n_lines:
        raise ValueError(f"lines {spec!r} outside {path} (1-{n_lines})")
    return start, end


def listing(
    root: Path, path: str, symbol: str | None = None, lines: str | None = None, caption: str | None = None
) -> Markup:
    """HTML <figure> with the highlighted code of ``path`` (relative to ``root``)."""
    file = (root / path).resolve()
    if root.resolve() not in file.parents:
        raise ValueError(f"listing path must stay inside the project: {path!r}")
    if not file.is_file():
        raise ValueError(f"listing file not found: {path}")
    source = file.read_text(encoding="utf-8")
    all_lines = source.splitlines()
    if symbol:
        start, end = _symbol_lines(source, symbol, path)
    elif lines:
        start, end = _line_range(lines, len(all_lines), path)
    else:
        start, end = 1, len(all_lines)
    code = textwrap.dedent("\n".join(all_lines[start - 1 : end])) + "\n"
    try:
        lexer = get_lexer_for_filename(path, stripnl=False)
    except ClassNotFound:
        from pygments.lexers.special import TextLexer

        lexer = TextLexer()
    html = highlight(code, lexer, formatter(start))
    where = f"{path}" + (f" · {symbol}" if symbol else "") + f" · lines {start}–{end}"
    cap = (
        escape(caption) + Markup(' <span class="where">') + escape(where) + Markup("</span>")
        if caption
        else Markup('<span class="where">') + escape(where) + Markup("</span>")
    )
    return Markup(
        f'<figure class="listing" data-file="{escape(path)}" data-lines="{start}-{end}">'
        f"<figcaption>{cap}</figcaption>{html}</figure>"
    )
