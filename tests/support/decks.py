"""Helpers shared by the deck browser tests."""

from __future__ import annotations

import json
from pathlib import Path

# the text of every slide and its notes, without code listings (Python code says None)
PROSE = """[...document.querySelectorAll('.slides > section')].map(s => {
  const copy = s.cloneNode(true);
  copy.querySelectorAll('.listing').forEach(x => x.remove());
  return copy.textContent; }).join(' ')"""


def table(site_dir: Path, name: str):
    return json.loads((site_dir / "tables" / f"{name}.json").read_text(encoding="utf-8"))


def open_deck(page, site_url: str, slug: str, query: str = "", timeout_ms: float | None = None) -> None:
    """Open a built deck and wait until reveal.js and the widgets are ready."""
    page.goto(f"{site_url}/decks/{slug}.html{query}")
    page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=timeout_ms)
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined", timeout=timeout_ms)


def slide_with(page, selector: str) -> int:
    """Index of the first slide containing ``selector``."""
    index = page.evaluate(f"""[...document.querySelectorAll('.slides > section')]
                              .findIndex(s => s.querySelector({json.dumps(selector)}))""")
    assert index >= 0, f"no slide contains {selector}"
    return index


def assert_deck_text_clean(page) -> None:
    """No KaTeX error, no rendering leftovers in slide text, no console error and
    no request outside the origin."""
    assert page.locator(".slides .katex-error").count() == 0
    text = page.evaluate(PROSE)
    for bad in ("undefined", "NaN", "None"):
        assert bad not in text
    page.watch.assert_clean()
