"""A deck paints before it starts (issue 36): on a phone the first slide is on
screen before reveal.js runs, exactly where reveal.js then keeps it (no layout
shift when it starts), and the widgets' modules and tables are fetched only
after the page's first contentful paint.

templates/deck.html's head script (html.deck-phone, reveal-full-page),
site.css "before reveal.js starts", static/deck.js (starts reveal.js after the
first frame), widgets/loader.js and core/paint.js (mount after the first paint)."""

from __future__ import annotations

import pytest

PHONE = {"width": 390, "height": 844}
# the first slide's title and body, where they stand
PLACES = """() => [...document.querySelectorAll('.reveal .slides > section:first-child :is(h1, h2, .slide-body)')]
  .map((e) => { const r = e.getBoundingClientRect(), at = (v) => Math.round(v);
                return [e.tagName, at(r.left), at(r.top), at(r.width), at(r.height)]; })"""


@pytest.mark.parametrize("deck", ["maps", "results"])
def test_the_first_slide_is_shown_before_reveal_starts_where_it_then_stays(browser, site_url, deck):
    context = browser.new_context(viewport=PHONE)
    try:
        before = context.new_page()
        before.route("**/vendor/reveal/reveal.js*", lambda route: route.abort())  # reveal.js never starts
        before.goto(f"{site_url}/decks/{deck}.html")
        before.wait_for_load_state("load")
        before.evaluate("document.fonts.ready.then(() => true)")
        assert not before.evaluate("!!window.Reveal"), "reveal.js ran"
        shown = before.evaluate(PLACES)
        assert shown and all(w > 0 and h > 0 for _, _, top, w, h in shown), shown
        assert all(0 <= top < PHONE["height"] for _, _, top, _, _ in shown), shown
        title = before.locator(".reveal .slides > section:first-child :is(h1, h2)").first
        assert title.is_visible() and title.inner_text().strip()

        after = context.new_page()
        after.goto(f"{site_url}/decks/{deck}.html")
        after.wait_for_function("window.Reveal && Reveal.isReady()")
        after.evaluate("document.fonts.ready.then(() => true)")
        assert after.evaluate(PLACES) == shown
    finally:
        context.close()


def test_widgets_are_fetched_after_the_first_contentful_paint(browser, site_url):
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(f"{site_url}/decks/part2.html")
        page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined", timeout=120_000)
        got = page.evaluate("""() => ({
          paint: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
          widgets: performance.getEntriesByType('resource')
            .filter((e) => /\\/(widgets\\/(?!loader)[^/]+\\.js|tables\\/[^/]+\\.json)/.test(e.name))
            .map((e) => [e.name.split('/').slice(-2).join('/'), e.startTime]),
          count: Number(document.documentElement.dataset.widgetsReady),
          mounted: document.querySelectorAll('.widget[data-mounted]').length })""")
        assert got["paint"] is not None, "no first contentful paint reported"
        assert got["count"] > 5 and got["mounted"] == got["count"], got
        assert got["widgets"], "no widget module or table fetched"
        early = [(name, round(t)) for name, t in got["widgets"] if t < got["paint"]]
        assert not early, (round(got["paint"]), early)
    finally:
        context.close()
