"""The course's one notation: content/notation.toml -> notation.html, and the
check that stops a deck using a listed symbol in another meaning.

Each symbol may carry `clash` rules: a regular expression that finds the
symbol used in another meaning, and what to write instead. The check reads a
deck's source line by line (prose, math and Jinja), leaving out code fences,
code spans and `m.code(...)` listings, so a rule can match `T = {{ cfg.T }}`
as well as `$O(T^2)$`."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
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


def page_rows(spec: dict) -> list[dict]:
    """The rows of notation.html (the TeX is typeset by the caller)."""
    return [
        {"tex": s["tex"], "name": s["name"], "meaning": s["meaning"], "code": s.get("code", "")} for s in spec["symbol"]
    ]
