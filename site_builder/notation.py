"""The course's one notation: content/notation.toml -> notation.html, and the
check that stops the build where a listed symbol is used in another meaning.

Each symbol may carry `clash` rules: a regular expression that finds the
symbol used in another meaning, and what to write instead. The check reads
everything a learner reads:

* a deck's source line by line (prose, notes, math and Jinja), leaving out code
  fences, code spans and `m.code(...)` listings, so a rule can match
  `T = {{ cfg.T }}` as well as `$O(T^2)$` (check_deck);
* every exercise text with its numbers drawn: question, hint, worked steps,
  mistake messages (check_exercises, fed by exercise_texts.py);
* the text of every figure a table draws: its labels, title and description
  (check_figures);
* the companion notebooks' Markdown cells and comments (check_notebook)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from html import unescape
from pathlib import Path

from .fences import code_flags

FILE = "notation.toml"
CODE_SPAN = re.compile(r"(`+).+?\1")
LISTING = re.compile(r"m\.code\([^)]*\)")


class NotationError(ValueError):
    """notation.toml is broken, or a deck breaks it; ``line`` when known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Clash:
    pattern: re.Pattern
    says: str
    symbol: str


def load(content_dir: Path) -> dict | None:
    """The parsed notation file, or None when the content has none."""
    path = content_dir / FILE
    if not path.is_file():
        return None
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise NotationError(f"{FILE} is not valid TOML: {exc}") from exc
    symbols = spec.get("symbol")
    if not isinstance(spec.get("title"), str) or not isinstance(symbols, list) or not symbols:
        raise NotationError(f'{FILE} needs title = "..." and [[symbol]] entries')
    for s in symbols:
        if not all(isinstance(s.get(k), str) and s.get(k) for k in ("tex", "name", "meaning")):
            raise NotationError(f"{FILE}: every [[symbol]] needs tex, name and meaning ({s.get('name')!r})")
        for c in s.get("clash", []):
            try:
                re.compile(c["pattern"])
            except (KeyError, re.error) as exc:
                raise NotationError(f"{FILE}: symbol {s['name']!r}: a clash needs a valid pattern ({exc})") from exc
            if not isinstance(c.get("says"), str):
                raise NotationError(f'{FILE}: symbol {s["name"]!r}: a clash needs says = "..."')
    return spec


def clashes(spec: dict) -> list[Clash]:
    return [Clash(re.compile(c["pattern"]), c["says"], s["name"]) for s in spec["symbol"] for c in s.get("clash", [])]


def check_deck(spec: dict, text: str) -> None:
    """Raise NotationError at the first line of a deck's source (front matter
    included, so line numbers are the file's) that uses a symbol in another
    meaning."""
    rules = clashes(spec)
    for number, (line, is_code) in enumerate(code_flags(text.split("\n")), start=1):
        if is_code:
            continue
        prose = LISTING.sub(" ", CODE_SPAN.sub(" ", line))
        for rule in rules:
            m = rule.pattern.search(prose)
            if m:
                raise NotationError(
                    f"notation: {m.group(0)!r} uses a symbol in another meaning: {rule.says} "
                    f"(content/{FILE}, {rule.symbol})",
                    number,
                )


def first_clash(rules: list[Clash], text: str) -> tuple[Clash, str] | None:
    for rule in rules:
        m = rule.pattern.search(text)
        if m:
            return rule, m.group(0)
    return None


def _error(found: str, rule: Clash, where: str, line: int | None = None) -> NotationError:
    return NotationError(
        f"{where}: notation: {found!r} uses a symbol in another meaning: {rule.says} (content/{FILE}, {rule.symbol})",
        line,
    )


def check_exercises(spec: dict, drawn: dict[str, list[dict]]) -> None:
    """Every exercise text as the browser shows it (exercise_texts.drawn). A
    text that several draws share (the hint, most mistake messages) is read
    once, at its first draw."""
    rules = clashes(spec)
    read: set[str] = set()
    for deck, items in drawn.items():
        for item in items:
            for text in item["texts"]:
                if text in read:
                    continue
                read.add(text)
                hit = first_clash(rules, text)
                if hit:
                    raise _error(
                        hit[1], hit[0], f"web/core/exercises-{deck}.js, exercise {item['id']!r} (seed {item['seed']})"
                    )


SVG_TAG = re.compile(r"<[^>]+>")


def figure_texts(value, path: str = ""):
    """(path, text) of every SVG string in a table: its labels, title and description."""
    if isinstance(value, str):
        if value.lstrip().startswith("<svg"):
            parts = (t.strip() for t in unescape(SVG_TAG.sub("\n", value)).split("\n"))
            yield path, "\n".join(t for t in parts if t)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from figure_texts(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from figure_texts(v, f"{path}.{i}")


def check_figures(spec: dict, tables: dict) -> None:
    rules = clashes(spec)
    for name, table in tables.items():
        for path, text in figure_texts(table, name):
            for line in text.split("\n"):
                hit = first_clash(rules, line)
                if hit:
                    raise _error(hit[1], hit[0], f"build/tables/{name}.json, figure {path} (drawn in export/tables/)")


def check_notebook(spec: dict, text: str, where: str) -> None:
    """A jupytext notebook (py:percent): its Markdown cells and the comments of
    its code cells; the code itself is code."""
    rules = clashes(spec)
    markdown = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("# %%"):
            markdown = "[markdown]" in line
            continue
        if markdown:
            prose = line[1:] if line.startswith("#") else line
        elif "#" in line:
            prose = line[line.index("#") + 1 :]
        else:
            continue
        hit = first_clash(rules, CODE_SPAN.sub(" ", prose))
        if hit:
            raise _error(hit[1], hit[0], where, number)


def page_rows(spec: dict) -> list[dict]:
    """The rows of notation.html (the TeX is typeset by the caller)."""
    return [
        {"tex": s["tex"], "name": s["name"], "meaning": s["meaning"], "code": s.get("code", "")} for s in spec["symbol"]
    ]
