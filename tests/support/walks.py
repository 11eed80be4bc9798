"""One walk per deck per viewport: every slide of a deck shown once (all its
fragments), measured the way look.py measures it (support/slide_metrics.py)
and checked by axe-core in the same visit, with the deck's console errors,
its sourced values and its comparison words collected on the way.

The tests assert over what a walk collected (``deck_walk`` in conftest.py
caches one walk per deck and viewport for the whole session): the layout
tests of test_slide_layout.py (text sizes, words, pictures, overflow, the
phone's scale and buttons, axe at both sizes) and the provenance tests of
test_site_pages.py (every sourced value, every comparison word, the
keyboard's way to the last slide).

Waits wait for a named condition, never a fixed time: reveal.js ready, the
widgets ready, the fonts loaded, and on each slide every finite animation or
transition finished (fragments fade in); a timeout says what it waited for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from support.decks import AXE_ALONE, open_deck
from support.lab import AXE
from support.pages import PageWatch
from support.phone_figures import WIDE_FIGURES
from support.slide_metrics import PHONE, SHOW_SLIDE, SLIDE

SIZES = {
    "1280x720": {"viewport": {"width": 1280, "height": 720}},
    "390x844": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 1,
    },
}
OPEN_TIMEOUT_MS = 60_000
SETTLE_TIMEOUT_MS = 10_000

# every data-source element (a value the build printed from build/tables) and
# every comparison word (m.compare), as the page shows them
SOURCED = """() => [...document.querySelectorAll('[data-source]')].map(el => ({
  source: el.dataset.source, digits: Number(el.dataset.digits || 4), kind: el.dataset.kind ? el.dataset.kind
    : el.tagName === 'TABLE' ? 'table'
    : el.classList.contains('bars') ? 'bars' : el.classList.contains('unavailable') ? 'unavailable' : 'other',
  text: el.textContent.trim(), len: el.dataset.digits === 'len',
  rows: [...el.querySelectorAll('tbody tr')].map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent)),
  bars: [...el.querySelectorAll('.bar-value')].map(s => s.textContent),
  labels: [...el.querySelectorAll('.bar-label')].map(s => s.textContent),
}))"""

COMPARED = """() => [...document.querySelectorAll('.cmp')].map(el => ({
  a: el.dataset.a, b: el.dataset.b, words: el.dataset.words, text: el.textContent }))"""

# resolves when no finite animation or transition of the current slide is
# running (its fragments fade in), or rejects naming the wait; reveal's own
# controls (the "next" arrow bounces for 100 s) are not on the slide
SETTLED = """async (timeout) => {
  const start = performance.now();
  const busy = () => Reveal.getCurrentSlide().getAnimations({subtree: true}).filter(a => a.playState === 'running'
    && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  await new Promise(requestAnimationFrame);
  while (busy().length) {
    if (performance.now() - start > timeout) {
      throw new Error(`slide ${Reveal.getIndices().h}: animations still running after ${timeout} ms: `
        + busy().map(a => a.animationName || a.transitionProperty || a.constructor.name).join(', '));
    }
    await Promise.all(busy().map(a => a.finished.catch(() => null)));
    await new Promise(requestAnimationFrame);
  }
  return true;
}"""

HEADING = "(Reveal.getCurrentSlide().querySelector('h1, h2') || {textContent: ''}).textContent.trim().slice(0, 50)"

SERIOUS = """(violations) => violations.filter(v => ['serious', 'critical'].includes(v.impact))
    .map(v => v.id + ' ' + v.nodes.slice(0, 2).map(n => n.target.join(' ')).join(', '))"""

# axe on the current slide alone (support/decks.py AXE_ALONE); what needs the whole
# document (ids unique across slides, references between them) is checked once per
# walk by AXE_DOCUMENT
AXE_SLIDE = "async () => (" + SERIOUS + ")(await (" + AXE_ALONE + ")(Reveal.getCurrentSlide()))"

AXE_DOCUMENT = (
    """async () => (""" + SERIOUS + """)((await axe.run(document, {resultTypes: ['violations']})).violations)"""
)


def _visit(metrics: str, wide: str) -> str:
    """One slide's whole visit in one call (a round trip a step cost more than the
    steps): shown with all its fragments, settled, the figures wider than the slide
    (on a phone, tests/test_phone_figures.py), the metrics, its heading, axe."""
    return (
        """async ([i, timeout]) => {
  ("""
        + SHOW_SLIDE
        + """)(i);
  await ("""
        + SETTLED
        + """)(timeout);
  const wide = ("""
        + wide
        + """)();
  const found = ("""
        + metrics
        + """)();
  found.wide = wide;
  found.heading = (() => """
        + HEADING
        + """)();
  found.axe = await ("""
        + AXE_SLIDE
        + """)();
  return found;
}"""
    )


VISIT_WIDE = _visit(SLIDE, "() => null")
VISIT_PHONE = _visit(PHONE, WIDE_FIGURES)


@dataclass
class DeckWalk:
    slug: str
    size: str
    # per slide: the metrics, "axe" (serious/critical), "n", and on a phone "wide" (support/phone_figures.py)
    slides: list[dict] = field(default_factory=list)
    axe_document: list[str] = field(default_factory=list)  # serious/critical on the whole deck page, first slide
    errors: list[str] = field(default_factory=list)  # console and page errors while the deck was open
    outside: list[str] = field(default_factory=list)  # requests that left the site's origin
    sourced: list[dict] = field(default_factory=list)
    compared: list[dict] = field(default_factory=list)
    phone_class: bool = False
    scroll_view: bool = False
    # at 1280x720, after the slides: the keyboard's way from the first slide to the last (walk_keyboard)
    keyboard: dict = field(default_factory=dict)

    def assert_clean(self) -> None:
        assert not self.errors, f"{self.slug} at {self.size}: console errors: {self.errors}"
        assert not self.outside, f"{self.slug} at {self.size}: requests outside the origin: {self.outside}"


def open_walked_deck(page, site_url: str, slug: str) -> None:
    open_deck(page, site_url, slug, timeout_ms=OPEN_TIMEOUT_MS)
    page.wait_for_function("document.fonts.status === 'loaded'", timeout=OPEN_TIMEOUT_MS)


def walk_deck(browser, site_url: str, slug: str, size: str) -> DeckWalk:
    """Open ``slug`` at ``size`` in a fresh context and visit every slide once."""
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    walk = DeckWalk(slug, size)
    watch = PageWatch(page, site_url)
    walk.errors, walk.outside = watch.errors, watch.outside
    try:
        open_walked_deck(page, site_url, slug)
        walk.sourced = page.evaluate(SOURCED)
        walk.compared = page.evaluate(COMPARED)
        walk.phone_class = page.evaluate("document.documentElement.classList.contains('deck-phone')")
        walk.scroll_view = page.evaluate("Reveal.isScrollView ? Reveal.isScrollView() : false")
        page.add_script_tag(path=str(AXE))
        walk.axe_document = page.evaluate(AXE_DOCUMENT)
        visit = VISIT_PHONE if size == "390x844" else VISIT_WIDE
        for i in range(page.evaluate("Reveal.getTotalSlides()")):
            walk.slides.append(dict(page.evaluate(visit, [i, SETTLE_TIMEOUT_MS]), n=i + 1))
        if size == "1280x720":
            walk.keyboard = walk_keyboard(page, site_url, slug)
    finally:
        context.close()
    return walk


def walk_keyboard(page, site_url: str, slug: str) -> dict:
    """From the first slide, one ArrowRight per slide and per fragment (a learner's
    presses, after a click on the page): whether that reached the last slide and
    the address says so; one ArrowLeft back, and the address again; then the
    address of the last slide opens it."""
    page.evaluate("Reveal.slide(0, 0, -1)")
    total = page.evaluate("Reveal.getTotalSlides()")
    page.locator("body").click(position={"x": 5, "y": 300})
    fragments = page.evaluate("document.querySelectorAll('.slides .fragment').length")
    for _ in range(total - 1 + fragments):
        page.keyboard.press("ArrowRight")
    found = {"total": total, "last": page.evaluate("Reveal.isLastSlide()")}
    # reveal writes the address after a short delay
    page.wait_for_function(f"location.hash === '#/{total - 1}'", timeout=SETTLE_TIMEOUT_MS)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"location.hash === '#/{total - 2}'", timeout=SETTLE_TIMEOUT_MS)
    found["back"] = page.evaluate("Reveal.getIndices().h")
    page.goto(f"{site_url}/decks/{slug}.html#/{total - 1}")
    page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=OPEN_TIMEOUT_MS)
    page.wait_for_function(f"Reveal.getIndices().h === {total - 1}", timeout=SETTLE_TIMEOUT_MS)
    found["opened"] = page.evaluate("Reveal.getIndices().h")
    return found
