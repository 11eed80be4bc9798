"""Checks on a content file's source before it is rendered.

* No hand-typed numbers: a digit in slide prose or math outside a Jinja
  expression stops the build, unless the deck's front matter lists the phrase
  around it in ``allow_digits`` (structural constants: "slot 1", "Part II of 4",
  a citation year). Identifiers such as ``float32`` or ``W1`` and single digits
  inside math ($W_1$, $\\frac{1}{2}$) are not numbers in this sense. An entry
  that is a bare number ("1", "2017") allows that number wherever it stands
  alone (not "1.5" or "12"); any other entry is a phrase allowed verbatim.
* No Jinja inside backticks: `{{ x }}` in a code span or fence would be escaped
  twice; use m.tok(x) (or m.num) instead.
"""

from __future__ import annotations

import re

from .fences import code_flags
from .math_spans import DISPLAY_MATH, INLINE_MATH

JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
HTML = re.compile(r"<!--.*?-->|<[A-Za-z/!][^>]*>", re.S)
ENTITY = re.compile(r"&#?\w+;")
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
LIST_MARKER = re.compile(r"^(\s*)\d+[.)](?=\s)", re.M)
SINGLE_DIGIT = re.compile(r"(?<![\d.])\d(?![\d.])")
NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d|(?<![\w.])\d")


class GuardError(ValueError):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def _blank(match: re.Match) -> str:
    """Replace a match by spaces, keeping its newlines (so line numbers stay)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def check_source(body: str, allow_digits=()) -> None:
    """``body`` is the file text after the front matter, padded so that its line N
    is the file's line N. Raises GuardError at the first problem."""
    lines = []  # code fences blanked
    for i, (line, is_code) in enumerate(code_flags(body.split("\n"))):
        if is_code:
            if "{{" in line or "{%" in line:
                raise GuardError(
                    "Jinja inside a code fence is escaped twice: write the code without Jinja, "
                    "or print tokens with m.tok(...)",
                    i + 1,
                )
            lines.append(" " * len(line))
            continue
        lines.append(line)
        for span in CODE_SPAN.finditer(line):
            if "{{" in span.group(2) or "{%" in span.group(2):
                raise GuardError(
                    f"Jinja inside backticks ({span.group(0)}) is escaped twice: "
                    f"use {{{{ m.tok(...) }}}} for a token or m.num for a number",
                    i + 1,
                )
    text = "\n".join(lines)
    text = JINJA.sub(_blank, text)
    text = CODE_SPAN.sub(_blank, text)
    text = HTML.sub(_blank, text)
    text = ENTITY.sub(_blank, text)
    text = LINK_TARGET.sub(_blank, text)
    text = LIST_MARKER.sub(lambda m: m.group(1) + " " * (len(m.group(0)) - len(m.group(1))), text)

    def math(m):  # single digits in math are structure (indices, 1/2, squares)
        return SINGLE_DIGIT.sub(" ", m.group(0))

    text = DISPLAY_MATH.sub(math, text)
    text = INLINE_MATH.sub(math, text)
    numbers = {a for a in allow_digits if NUMBER.fullmatch(a)}
    for phrase in sorted(set(allow_digits) - numbers, key=len, reverse=True):
        text = text.replace(phrase, " " * len(phrase))
    found = [(_line(text, m.start()), m.group(0)) for m in NUMBER.finditer(text) if m.group(0) not in numbers]
    if found:
        where = ", ".join(f"{n!r} (line {line})" for line, n in found[:12]) + (" ..." if len(found) > 12 else "")
        raise GuardError(
            f"hand-typed numbers in the slide text: {where}. Print each from a table "
            f"({{{{ m.num('TABLE.key') }}}}), or, if it is a structural constant (\"slot 1\", a year), "
            f'list the phrase around it in the front matter: allow_digits = ["..."]',
            found[0][0],
        )
