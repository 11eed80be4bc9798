"""What scrolls sideways on a phone (issue 35 item 5): on the slide shown, every
drawn figure (``.diagram-figure svg``, ``svg.chart``) and every wide table or
matrix whose drawn box is wider than the slide's width, so part of it sits in
a sideways scroll. For tests/test_phone_figures.py and for a count by hand:

    PYTHONPATH=$PWD .venv/bin/python tests/support/phone_figures.py [SITE_DIR]

Each figure is named by its id: an svg's own id, else the id or data-source
of the figure or table around it.
"""

from __future__ import annotations

import sys
from pathlib import Path

# the figures of the slide shown wider than the slide's content box (CSS px);
# a figure hidden by CSS (the other arrangement of a figure drawn twice) has no box
WIDE_FIGURES = """() => {
  const s = Reveal.getCurrentSlide(), sb = s.getBoundingClientRect(), cs = getComputedStyle(s);
  const inner = sb.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const name = (e) => e.id || (e.closest('[id]:not(section)') || {}).id
    || (e.closest('[data-source]') || {dataset: {}}).dataset.source || e.tagName.toLowerCase();
  const out = [];
  const seen = new Set();
  for (const e of s.querySelectorAll('.diagram-figure svg, svg.chart, table, .matrix-fig')) {
    if (e.closest('aside.notes, details:not([open]) > :not(summary)') || e.parentElement.closest('svg')) continue;
    const b = e.getBoundingClientRect();
    if (!b.width || !b.height) continue;
    const w = Math.max(b.width, e.scrollWidth || 0);
    if (w <= inner + 1) continue;
    const id = name(e);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({id, kind: e.tagName.toLowerCase(), width: Math.round(w), inner: Math.round(inner)});
  }
  return out;
}"""


def walk(page, site_url: str, slug: str, settle_ms: int = 120) -> list[dict]:
    """Every slide of a deck at the page's viewport: [{n, title, wide: [...]}]."""
    from support.slide_metrics import SHOW_SLIDE, open_deck

    open_deck(page, f"{site_url}/decks/{slug}.html")
    slides = []
    for i in range(page.evaluate("Reveal.getTotalSlides()")):
        page.evaluate(SHOW_SLIDE, i)
        page.wait_for_timeout(settle_ms)
        title = page.evaluate("(Reveal.getCurrentSlide().querySelector('h1, h2') || {}).textContent || ''")
        slides.append({"n": i + 1, "title": title.strip()[:50], "wide": page.evaluate(WIDE_FIGURES)})
    return slides


PHONE_VIEW = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 1,
}
DECKS = ("maps", "part2", "part3", "results")


def main(argv: list[str]) -> int:
    import json

    from playwright.sync_api import sync_playwright

    from common.chromium import launch
    from site_builder.serve import start_server

    site = Path(argv[0] if argv else "build/site").resolve()
    server, url = start_server(site)
    report = {}
    with sync_playwright() as p:
        browser = launch(p, "wasm")
        page = browser.new_context(**PHONE_VIEW).new_page()
        for slug in DECKS:
            slides = walk(page, url, slug)
            report[slug] = slides
            hit = [s for s in slides if s["wide"]]
            print(f"{slug}: {len(hit)} of {len(slides)} slides have a figure wider than the slide")
            for s in hit:
                wide = ", ".join(f"{w['id']} {w['width']}/{w['inner']}" for w in s["wide"])
                print(f"  {s['n']:3d} {s['title']!r}: {wide}")
        browser.close()
    server.shutdown()
    if len(argv) > 1:
        Path(argv[1]).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[1])  # tests/, not tests/support (support/numbers.py)
    raise SystemExit(main(sys.argv[1:]))
