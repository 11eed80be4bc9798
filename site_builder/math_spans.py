"""Math in a deck's Markdown, found before Markdown runs and typeset after it.

``$...$`` is inline math, ``$$...$$`` display math (it may span lines); both
are found outside code fences and code spans, and ``\\$`` is a literal dollar
sign. Each expression is replaced by a placeholder (Markdown would read TeX's
``_`` and ``*`` as emphasis), and ``typeset`` fills the placeholders with
KaTeX's HTML: one node call per page (katex_render.py). A ``$`` left over
(unbalanced) or TeX that KaTeX rejects raises MathError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from .fences import code_flags
from .katex_render import render_math
from .placeholders import START, Placeholders

DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^$\\\n])+?)(?<![\s\\])\$(?!\d)")
STRAY_DOLLAR = re.compile(r"(?<!\\)\$+")  # a $ or $$ left after the math is taken out: unbalanced
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)


class MathError(ValueError):
    """Broken math; ``snippet`` is text from the page that shows where (or None)."""

    def __init__(self, message: str, snippet: str | None):
        super().__init__(message)
        self.snippet = snippet


class PageMath:
    """The math of one page. ``to_tex`` rewrites the text of an expression
    before it is kept (provenance markers -> \\htmlData)."""

    def __init__(self, slots: Placeholders, to_tex: Callable[[str], str]):
        self.slots, self.to_tex = slots, to_tex
        self.found: list[tuple[str, bool, int]] = []  # (tex, display, placeholder index)

    def extract(self, text: str) -> str:
        """``text`` with every expression outside code replaced by its placeholder."""
        out: list[str] = []
        prose: list[str] = []
        for line, is_code in code_flags(text.split("\n")):
            if not is_code:
                prose.append(line)
                continue
            if prose:
                out.append(self._outside_code_spans("\n".join(prose)))
                prose.clear()
            out.append(line)
        if prose:
            out.append(self._outside_code_spans("\n".join(prose)))
        return "\n".join(out)

    def _outside_code_spans(self, text: str) -> str:
        pieces, last = [], 0
        for span in CODE_SPAN.finditer(text):
            pieces.append(self._replace(text[last : span.start()]))
            pieces.append(span.group(0))
            last = span.end()
        pieces.append(self._replace(text[last:]))
        return "".join(pieces)

    def _keep(self, tex: str, display: bool) -> str:
        self.found.append((self.to_tex(tex), display, len(self.slots)))
        return self.slots.add("", block=display)

    def _replace(self, text: str) -> str:
        out = DISPLAY_MATH.sub(lambda m: self._keep(m.group(1).strip(), True), text)
        out = INLINE_MATH.sub(lambda m: self._keep(m.group(1), False), out)
        stray = STRAY_DOLLAR.search(out)
        if stray:  # name the text from the unmatched delimiter on; the renderer finds its line
            rest = out[stray.start() :].split("\n")[0].split(START)[0]
            raise MathError(
                f"unbalanced math delimiter {stray.group(0)} (write \\$ for a dollar sign): {rest[:60]!r}", rest
            )
        return out

    def typeset(self, node_modules: Path) -> None:
        """Typeset every expression found (one node call) into its placeholder."""
        results = render_math([(tex, display) for tex, display, _ in self.found], node_modules)
        for (tex, display, index), result in zip(self.found, results):
            if isinstance(result, Exception):
                raise MathError(f"math error in ${tex}$: {result}", tex.split("\n")[0])
            self.slots.set(index, f'<div class="math display">{result}</div>' if display else result)
