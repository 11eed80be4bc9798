"""Which lines of a deck's Markdown are code: a line of three or more ` or ~
(indented at most three spaces) opens a fenced block, and the next such line of
the same character closes it. The guards (on the source), the slide separator
and the math finder (on Jinja's output) skip code with the same rule."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def code_flags(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """(line, is_code) per line: True for the fence lines and the lines between them."""
    fence = None
    for line in lines:
        m = FENCE.match(line)
        inside = fence is not None
        if m:
            fence = None if fence and m.group(1).startswith(fence) else (fence or m.group(1)[:3])
        yield line, inside or m is not None
