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


# axe-core on one element of a deck with the deck's other slides taken out of the
# document while it runs (the same nodes put back before it returns): axe flattens
# the whole document on every run, so on a 57-slide deck a run over one slide or
# box cost as much as one over every slide. What needs the whole document (ids
# unique across slides) is checked by the deck walk's whole-page run
# (support/walks.py AXE_DOCUMENT). Resolves to axe's violations.
AXE_ALONE = """async (element) => {
  const current = element.closest('.slides > section');
  const others = current ? [...document.querySelectorAll('.slides > section')].filter(s => s !== current) : [];
  const marks = others.map(s => { const m = document.createComment('axe'); s.replaceWith(m); return [m, s]; });
  try {
    return (await axe.run(element, {resultTypes: ['violations']})).violations;
  } finally {
    for (const [m, s] of marks) m.replaceWith(s);
  }
}"""

# AXE_ALONE on the element ``selector`` names: the violations of serious or critical
# impact, [id, impact, [[target, summary], ...]]
AXE_IN_SLIDE = (
    """async (selector) => {
  const element = document.querySelector(selector);
  if (!element) throw new Error(`axe: nothing matches ${selector}`);
  const found = await ("""
    + AXE_ALONE
    + """)(element);
  return found.filter(v => ['serious', 'critical'].includes(v.impact)).map(v => [v.id, v.impact,
    v.nodes.slice(0, 3).map(n => [n.target.join(' '), (n.failureSummary || '').slice(0, 200)])]);
}"""
)


def axe_in_slide(page, selector: str) -> list:
    """axe-core's serious and critical violations inside ``selector`` (CSS), run on
    its slide alone (AXE_IN_SLIDE); loads axe-core into the page the first time."""
    from support.lab import AXE

    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_IN_SLIDE, selector)
