"""Stand-ins that keep finished HTML and math away from the Markdown parser.

A deck body goes through Jinja, then Markdown. Some of it is finished before
Markdown runs and must come out unchanged: the HTML of a block macro (a table,
a listing: Markdown would turn its indented lines into code blocks), a
`Takeaway:`/`Step:` line, and math (TeX's `_` and `*` are emphasis to Markdown;
KaTeX typesets it afterwards). Each such piece is kept here and stands in the
text as ``@@S<n>@@`` (n: its index): a block on a paragraph of its own
(Markdown wraps it in ``<p>``, and ``fill`` replaces the ``<p>`` with it),
inline math in its sentence. After Markdown, ``fill`` puts every piece back.
No deck text contains ``@@S``, and Markdown leaves it as it is.
"""

from __future__ import annotations

import re

START = "@@S"  # every stand-in begins with it
STAND_IN = re.compile(r"<p>@@S(\d+)@@</p>|@@S(\d+)@@")
NESTING = 3  # a piece may hold stand-ins (a Takeaway line its math): fill this deep


class Placeholders:
    """The pieces of one page, in the order they were added."""

    def __init__(self):
        self.pieces: list[str] = []

    def __len__(self) -> int:
        return len(self.pieces)

    def add(self, html: str, block: bool) -> str:
        """Keep ``html`` (set later with ``set`` when empty); returns its stand-in:
        for a block, a paragraph of its own."""
        self.pieces.append(html)
        mark = f"{START}{len(self.pieces) - 1}@@"
        return f"\n\n{mark}\n\n" if block else mark

    def set(self, index: int, html: str) -> None:
        self.pieces[index] = html

    def fill(self, html: str) -> str:
        """Markdown's output with every stand-in replaced by its piece."""

        def sub(m):
            return self.pieces[int(m.group(1) or m.group(2))]

        for _ in range(NESTING):
            if START not in html:
                break
            html = STAND_IN.sub(sub, html)
        return html
