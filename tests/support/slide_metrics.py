"""Every slide measured the way ../shared/tools/look.py measures it (issue 20),
for tests/test_slide_layout.py and for a report by hand:

    PYTHONPATH=$PWD .venv/bin/python tests/support/slide_metrics.py [SITE_DIR]

prints, per deck, how many slides meet each goal: smallest text >= 18 px,
at most 90 prose words (outside tables, code, figures and math), a figure or
a widget. What a closed ``<details>`` (an exercise box, which opens over the
whole slide) hides is not on the slide: neither its words nor its size count;
nor does an exercise's printed copy once its widget has hidden it.

``SLIDE`` is look.py's METRICS function, unchanged in what it reports
(``min_font_px`` is a font's computed size times reveal.js's scale, so an SVG
label counts with its font-size attribute), plus ``min_rendered_px``: the
same text with an SVG label taken at the size it is drawn (font-size times
the figure's px per viewBox unit), which is what a reader sees. ``PHONE``
measures one slide of a deck opened at 390x844 the same way, in CSS px.
"""

from __future__ import annotations

import sys
from pathlib import Path

GOALS = {"min_font_px": 18, "prose_words": 90, "share": 0.95, "pictures": 0.5}

# the drawn size of a text element: an SVG label scales with its figure
_RENDERED = """
  const outermost = (e) => {
    let root = e.closest('svg');
    for (let p = root.parentElement && root.parentElement.closest('svg'); p;
         p = p.parentElement && p.parentElement.closest('svg')) root = p;
    return root;
  };
  const drawn = (e, f) => {
    if (!e.closest('svg') || e.tagName.toLowerCase() === 'svg') return f;
    const root = outermost(e), vb = root.viewBox && root.viewBox.baseVal, b = root.getBoundingClientRect();
    if (!vb || !vb.width || !vb.height) return f;
    return parseFloat(getComputedStyle(e).fontSize) * Math.min(b.width / vb.width, b.height / vb.height);
  };
  const ownText = (e) => [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent)
    .join('').replace(/[\\u200b\\s]/g, '');"""


# the slide's grid (issue 35, items 3-4; tests/test_slide_grid.py): where the
# body starts under the title, in slide px from the slide's top; the closing
# takeaway's box as shown (cut by the slide, which scrolls on a phone) at the
# slide's top and scrolled to its end, and which of reveal's controls (the
# arrows shown, the slide number) it meets; the takeaway's look; whether the
# slide was set tighter (.dense/.denser); each table or figure's place in the
# body's width (px left and right of it)
GRID = """(() => {
  const s = Reveal.getCurrentSlide(), k = Reveal.getScale() || 1, top0 = s.getBoundingClientRect().top;
  const vis = (e) => { if (!e) return false; const b = e.getBoundingClientRect(), c = getComputedStyle(e);
    return b.width > 0 && b.height > 0 && c.visibility !== 'hidden' && Number(c.opacity) > 0; };
  const rect = (e) => { const b = e.getBoundingClientRect(); return {x: b.left, y: b.top, r: b.right, b: b.bottom}; };
  const cut = (a, c) => ({x: Math.max(a.x, c.x), y: Math.max(a.y, c.y), r: Math.min(a.r, c.r), b: Math.min(a.b, c.b)});
  const meets = (a, c) => a.x < c.r && c.x < a.r && a.y < c.b && c.y < a.b;
  const head = s.querySelector(':scope > .slide-head'), body = s.querySelector(':scope > .slide-body');
  const first = body && [...body.children].find(vis);
  const take = s.querySelector('.takeaway');
  const controls = [...document.querySelectorAll('.reveal .controls button')].filter(vis)
    .map(b => [b.className.split(' ')[0], rect(b)]);
  const number = document.querySelector('.reveal .slide-number');
  if (vis(number)) controls.push(['slide-number', rect(number)]);
  const hits = [];
  let shown = null;
  if (take) {
    const was = s.scrollTop;
    for (const at of [0, s.scrollHeight]) {
      s.scrollTop = at;
      const b = cut(rect(take), rect(s));
      if (b.r > b.x && b.b > b.y) {
        shown = shown || b;
        for (const [name, c] of controls) if (meets(b, c) && !hits.includes(name)) hits.push(name);
      }
    }
    s.scrollTop = was;
  }
  const style = take ? (() => { const c = getComputedStyle(take);
    return [c.fontSize, c.lineHeight, c.fontWeight, c.color, c.backgroundColor, c.borderLeftWidth,
            c.borderLeftColor, c.paddingLeft].join(' '); })() : '';
  // a table, a bar chart or a drawn figure straight in the body (not in a
  // column, not a code listing): its drawn box (a figure's svg or table)
  const bodyBox = body && rect(body);
  const drawnBox = (e) => e.matches('table.data, .bars') ? e
    : e.matches('figure.diagram-figure, figure.chart-figure') ? e.querySelector('svg, table')
    : e.matches('div:not([class])') ? e.querySelector(':scope > table.data') : null;
  const placed = body ? [...body.children].filter(vis).map(drawnBox).filter(vis).map(e => {
    const b = rect(e);
    return {tag: e.tagName.toLowerCase() + (e.classList.length ? '.' + e.classList[0] : ''),
            left: Math.round((b.x - bodyBox.x) / k), right: Math.round((bodyBox.r - b.r) / k)};
  }) : [];
  const title = head && head.querySelector('h1, h2');
  const round = (x) => Math.round(x * 10) / 10;
  // where the learner is: the kicker's section cue, above the title, inside
  // the slide's width, clear of the page's links (top right on a wide screen)
  const here = head && head.querySelector(':scope > .kicker > .here'), kicker = here && here.parentElement;
  const links = document.querySelector('.home-link');
  const cue = here && vis(here) ? {text: here.textContent.trim(),
    font: round(parseFloat(getComputedStyle(here).fontSize) * k),
    above: rect(kicker).b <= rect(title).y + 1,
    inside: rect(kicker).x >= rect(s).x - 1
      && Math.max(rect(kicker).r, kicker.getBoundingClientRect().left + kicker.scrollWidth) <= rect(s).r + 1,
    links: !!links && vis(links) && meets(rect(kicker), rect(links))} : null;
  return {head: !!head && !s.querySelector('.title-slide'), body_top: first ? round((rect(first).y - top0) / k) : null,
          head_bottom: head ? round((rect(head).b - top0) / k) : null,
          // a title taller or wider than its head (it wraps, or runs off the right)
          title_over: title ? round(Math.max(rect(title).b - rect(head).b, title.scrollWidth - title.clientWidth)) : 0,
          controls: controls.map(([name]) => name),
          takeaway: take ? {text: take.textContent.trim().slice(0, 60), style, shown, hits} : null,
          dense: s.classList.contains('denser') ? 'denser' : s.classList.contains('dense') ? 'dense' : '',
          placed, here: cue};
})()"""

SLIDE = (
    """() => {
  // Smallest text: leaf text on screen, leaving out speaker notes, the map
  // strip, the slide number, header links and KaTeX sub/superscripts.
  // Prose words: words outside tables, code, figures and math.
  const s = Reveal.getCurrentSlide(), r = s.getBoundingClientRect(), k = Reveal.getScale();
  const SKIP = 'aside.notes, .katex-mathml, .map-strip, .slide-number, nav, header, .deck-links, '
    + '.msupsub, .vlist-t2';"""
    + _RENDERED
    + """
  const over = [];
  let minFont = 99, minText = '', minDrawn = 99, minDrawnText = '', minOwn = 99, minOwnText = '';
  // a closed <details> (an exercise box) shows only its summary: what it
  // hides is neither on the slide nor sticking out of it
  const hidden = (e) => { const d = e.closest('details:not([open])'); return d && !e.closest('summary'); };
  // a long code listing scrolls inside its own box: its lines are reachable there, not sticking out
  const scrolled = (e) => {
    const p = e.closest('pre'); return !!p && /auto|scroll/.test(getComputedStyle(p).overflowY); };
  for (const e of s.querySelectorAll('*')) {
    if (e.closest('aside.notes, .katex-mathml') || hidden(e)) continue;
    const b = e.getBoundingClientRect();
    if (!b.width || !b.height) continue;
    if (!e.closest('.katex') && (b.bottom > r.bottom + 2 || b.right > r.right + 2) && !scrolled(e)) {
      over.push(e.tagName.toLowerCase());
    }
    if (e.closest(SKIP)) continue;
    const own = ownText(e);
    if (own) {
      const f = parseFloat(getComputedStyle(e).fontSize) * k;
      if (f < minFont) { minFont = f; minText = own.slice(0, 40); }
      const d = e.closest('svg') ? drawn(e, f) : f;
      if (d < minDrawn) { minDrawn = d; minDrawnText = own.slice(0, 40); }
      // what the site's type scale and the drawing kit set: not a widget's
      // own styles, not a size a deck sets inline
      if (!e.closest('.widget, [style*="font-size"]') && Math.min(f, d) < minOwn) {
        minOwn = Math.min(f, d); minOwnText = own.slice(0, 40);
      }
    }
  }
  const c = s.cloneNode(true);
  // a closed <details> (an exercise box) shows only its summary: its hidden body is not prose on the slide;
  // nor is an exercise's printed copy, hidden once its widget works (it is for print)
  c.querySelectorAll('aside.notes, table, pre, code, svg, .katex, .map-strip, .kicker, nav, header, '
    + 'details:not([open]) > :not(summary), .exercise-static[hidden]').forEach(n => n.remove());
  const prose = (c.textContent || '').split(/\\s+/).filter(w => /[A-Za-z]/.test(w)).length;
  const h = s.querySelector('h1,h2,h3');
  const round = (x) => Math.round(x * 10) / 10;
  return {title: h ? h.textContent.trim().slice(0, 80) : '',
          words: (s.innerText || '').split(/\\s+/).filter(Boolean).length,
          prose_words: prose, tables: s.querySelectorAll('table').length,
          figures: s.querySelectorAll('svg title').length,
          widgets: s.querySelectorAll('.widget, input, button, select').length,
          min_font_px: round(minFont), min_font_text: minText,
          min_rendered_px: round(minDrawn), min_rendered_text: minDrawnText,
          min_own_px: round(minOwn), min_own_text: minOwnText, overflowing: over.length,
          grid: """
    + GRID
    + """};
}"""
)

# one slide on a phone: text in CSS px (an SVG label at its drawn size), what
# sticks out of the screen without a scrolling box around it, the controls
PHONE = (
    """() => {
  const s = Reveal.getCurrentSlide(), doc = document.documentElement, W = doc.clientWidth;"""
    + _RENDERED
    + """
  const shown = (e) => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; };
  let min = 99, minText = '';
  const cut = [];
  for (const e of s.querySelectorAll('*')) {
    if (e.closest('aside.notes, .katex-mathml, .msupsub, .vlist-t2') || !shown(e)) continue;
    const own = ownText(e);
    if (!own) continue;
    const f = drawn(e, parseFloat(getComputedStyle(e).fontSize));
    if (f < min) { min = f; minText = own.slice(0, 40); }
    // what shows is the element cut by every ancestor that scrolls
    let right = e.getBoundingClientRect().right;
    for (let a = e.parentElement; a && a !== s.parentElement; a = a.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) {
        right = Math.min(right, a.getBoundingClientRect().right);
      }
    }
    if (right > W + 1) cut.push(own.slice(0, 30));
  }
  const control = (sel) => {
    const c = document.querySelector(sel);
    if (!c || !shown(c) || getComputedStyle(c).visibility === 'hidden') return null;
    const b = c.getBoundingClientRect();
    return {w: Math.round(b.width), h: Math.round(b.height),
            inside: b.left >= 0 && b.right <= W && b.top >= 0 && b.bottom <= doc.clientHeight};
  };
  return {min_font_css_px: Math.round(min * 10) / 10, min_font_text: minText, cut: cut.slice(0, 5),
          page_scroll_width: doc.scrollWidth, width: W, scale: Reveal.getScale(),
          next: control('.reveal .controls .navigate-right'), prev: control('.reveal .controls .navigate-left'),
          grid: """
    + GRID
    + """};
}"""
)

SHOW_SLIDE = "(i) => { const s = Reveal.getSlides()[i], x = Reveal.getIndices(s); Reveal.slide(x.h, x.v || 0, 999); }"


def open_deck(page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=60000)
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined", timeout=60000)


def measure_deck(page, site_url: str, slug: str, script: str = SLIDE, settle_ms: int = 150) -> list[dict]:
    """Every slide of a deck with all its fragments shown (look.py's walk)."""
    open_deck(page, f"{site_url}/decks/{slug}.html")
    slides = []
    for i in range(page.evaluate("Reveal.getTotalSlides()")):
        page.evaluate(SHOW_SLIDE, i)
        page.wait_for_timeout(settle_ms)
        slides.append(dict(page.evaluate(script), n=i + 1))
    return slides


def summary(slides: list[dict]) -> dict:
    n = len(slides)
    return {
        "slides": n,
        "type_ok": sum(s["min_font_px"] >= GOALS["min_font_px"] for s in slides),
        "drawn_type_ok": sum(s["min_rendered_px"] >= GOALS["min_font_px"] for s in slides),
        "words_ok": sum(s["prose_words"] <= GOALS["prose_words"] for s in slides),
        "pictures": sum(bool(s["figures"] or s["widgets"]) for s in slides),
        "overflowing": sum(s["overflowing"] > 0 for s in slides),
    }


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    from common.chromium import launch
    from site_builder.serve import start_server

    site = Path(argv[0] if argv else "build/site").resolve()
    server, url = start_server(site)
    totals: dict[str, int] = {}
    with sync_playwright() as p:
        browser = launch(p, "wasm")
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        for path in sorted((site / "decks").glob("*.html")):
            slides = measure_deck(page, url, path.stem)
            s = summary(slides)
            totals = {k: totals.get(k, 0) + v for k, v in s.items()}
            print(
                f"{path.stem}: {s['slides']} slides; text >= 18 px: {s['type_ok']} "
                f"(drawn size: {s['drawn_type_ok']}); <= 90 prose words: {s['words_ok']}; "
                f"figure or widget: {s['pictures']}; overflowing: {s['overflowing']}"
            )
            for sl in slides:
                flags = [
                    f"text {sl['min_font_px']}/{sl['min_rendered_px']} px ({sl['min_rendered_text']!r})"
                    if min(sl["min_font_px"], sl["min_rendered_px"]) < 18
                    else "",
                    f"{sl['prose_words']} words" if sl["prose_words"] > 90 else "",
                    f"{sl['overflowing']} overflowing" if sl["overflowing"] else "",
                ]
                if any(flags):
                    print(f"  {sl['n']:3d} {sl['title'][:50]!r}: " + "; ".join(f for f in flags if f))
        browser.close()
    server.shutdown()
    n = totals.get("slides", 0)
    print(
        f"all: {n} slides; text >= 18 px {totals['type_ok']} ({totals['type_ok'] / n:.0%}), drawn "
        f"{totals['drawn_type_ok'] / n:.0%}; <= 90 words {totals['words_ok'] / n:.0%}; "
        f"figure or widget {totals['pictures'] / n:.0%}"
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    raise SystemExit(main(sys.argv[1:]))
