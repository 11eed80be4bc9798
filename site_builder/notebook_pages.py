"""The executed companion notebooks as pages of the site: each
build/notebooks/<deck>.ipynb becomes notebooks/<deck>.html (its Markdown
cells, its code highlighted by Pygments, its outputs as text or images) next
to the .ipynb download. nbconvert is not needed: a notebook is JSON, and the
site already renders Markdown and code.

Every `##` heading gets an id (its words, lowercase, joined by hyphens, with
the leading number dropped: "## 1. Tokens and a vocabulary" ->
"tokens-and-a-vocabulary"), so a slide can link the section that re-derives
its numbers: `m.notebook('maps', 'tokens-and-a-vocabulary', 'text')`. A link to
a notebook section that does not exist stops the build."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from .assemble import BuildError

HEADING = re.compile(r"^(#{1,3})\s+(.*)$")
LINK = re.compile(r'href="\.\./notebooks/([a-z0-9-]+)\.html#([a-z0-9-]+)"')
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def anchor(heading: str) -> str:
    words = re.sub(r"^\d+\.\s*", "", heading).lower()
    return re.sub(r"[^a-z0-9]+", "-", words).strip("-")


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


class _Markdown:
    """Markdown cells, with an id on every heading."""

    def __init__(self):
        self.md = MarkdownIt("commonmark", {"html": False}).enable("table")
        self.ids: list[str] = []

    def render(self, source: str) -> str:
        out = []
        for block in re.split(r"(?m)^(?=#{1,3}\s)", source):
            m = HEADING.match(block.split("\n", 1)[0])
            if m:
                level, title = len(m.group(1)), m.group(2).strip()
                ident = anchor(title)
                self.ids.append(ident)
                out.append(f'<h{level + 1} id="{ident}">{escape(title)}</h{level + 1}>')
                block = block.split("\n", 1)[1] if "\n" in block else ""
            out.append(self.md.render(block))
        return "".join(out)


def _outputs(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(f'<pre class="nb-output" tabindex="0">{escape(ANSI.sub("", _text(out["text"])))}</pre>')
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "image/png" in data:
                png = _text(data["image/png"]).replace("\n", "")
                parts.append(f'<img class="nb-image" alt="figure output" src="data:image/png;base64,{png}">')
            elif "text/plain" in data:
                parts.append(f'<pre class="nb-output" tabindex="0">{escape(_text(data["text/plain"]))}</pre>')
        elif kind == "error":
            trace = ANSI.sub("", "\n".join(out.get("traceback", [])))
            parts.append(f'<pre class="nb-output nb-error" tabindex="0">{escape(trace)}</pre>')
    return "".join(parts)


def render(notebook: Path) -> tuple[list[dict], list[str]]:
    """(cells as {kind, html}, the section ids) of one executed notebook."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    md, formatter, cells = _Markdown(), HtmlFormatter(nowrap=False, cssclass="highlight"), []
    for cell in nb["cells"]:
        source = _text(cell["source"])
        if cell["cell_type"] == "markdown":
            cells.append({"kind": "markdown", "html": Markup(md.render(source))})
        elif cell["cell_type"] == "code":
            code = highlight(source, PythonLexer(), formatter).replace("<pre>", '<pre tabindex="0">', 1)
            cells.append({"kind": "code", "html": Markup(code), "outputs": Markup(_outputs(cell))})
    return cells, md.ids


def write(env, staging: Path, notebooks: list[Path], decks: list, nav: dict, pages: dict) -> None:
    """notebooks/<slug>.html for every executed notebook; then check that
    every notebook-section link of the decks names a section that exists
    (skipped by a build without notebooks, whose links are allowed to dangle)."""
    sections = {}
    titles = {d.slug: nav[d.slug] for d in decks}
    for path in notebooks:
        slug = path.stem
        cells, ids = render(path)
        sections[slug] = set(ids)
        html = env.get_template("notebook.html").render(
            slug=slug, cells=cells, nav=titles.get(slug), root="../", pages=pages, ipynb=path.name
        )
        (staging / "notebooks" / f"{slug}.html").write_text(html, encoding="utf-8")
    if not notebooks:  # a development build without notebooks (--no-notebooks): nothing to check against
        return
    for deck in decks:
        for slide in deck.slides:
            for slug, ident in LINK.findall(str(slide.html) + str(slide.notes or "")):
                if slug not in sections or ident not in sections[slug]:
                    known = ", ".join(sorted(sections.get(slug, [])))
                    raise BuildError(
                        f"content/decks/{deck.slug}.md: slide {slide.title!r} links notebooks/{slug}.html#{ident}, "
                        f"which is not a section of that notebook (sections: {known})"
                    )
