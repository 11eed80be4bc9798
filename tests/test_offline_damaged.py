"""A damaged offline copy of a script is never a silent half page (issue 37,
item 4): with the widget loader's cached copy corrupt, a deck opened offline
with its host unreachable names the file that could not load and drops the
damaged copy; back online (the host again on the same port), the deck loads whole."""

from __future__ import annotations

from site_builder.static_server import start_server
from support.pages import build_of, wait_for_precache


def test_a_damaged_cached_script_is_named_offline_and_dropped(browser, site_dir):
    build = build_of(site_dir)
    server, url = start_server(site_dir)
    context = browser.new_context()
    context.set_default_timeout(120_000)
    page = context.new_page()
    key = f"/widgets/loader.js?v={build}"
    try:
        page.goto(f"{url}/decks/part2.html")
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        wait_for_precache(page, build)
        damaged = """async ([name, key]) => { const c = await caches.open(name);
            if (!(await c.match(location.origin + key))) throw new Error('not kept');
            await c.put(location.origin + key, new Response('export const broken = ;',
              {headers: {'content-type': 'text/javascript'}})); }"""
        page.evaluate(damaged, [f"attention-course-shell-{build}", key])
        context.new_cdp_session(page).send("Network.clearBrowserCache")  # only the worker's copies remain
        server.shutdown()  # the host unreachable: the worker answers from its caches
        server.server_close()
        page.goto(f"{url}/decks/part2.html")
        note = page.locator(".damaged-copy")
        note.wait_for(timeout=30000)
        assert "widgets/loader.js" in note.inner_text() and note.is_visible()
        kept = "async ([name, key]) => Boolean(await (await caches.open(name)).match(location.origin + key))"
        assert not page.evaluate(kept, [f"attention-course-shell-{build}", key])  # dropped before it was named
    except BaseException:
        context.close()
        raise
    server, _ = start_server(site_dir, port=int(url.rsplit(":", 1)[1]))
    try:
        page.goto(f"{url}/decks/part2.html")
        page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
        assert page.locator(".widget[data-mounted=true]").count() == page.locator(".widget[data-widget]").count()
    finally:
        context.close()
        server.shutdown()


def test_a_stylesheet_that_does_not_load_is_named(browser, site_dir, tmp_path):
    """A stylesheet of the site the host cannot give (here: missing from the
    published copy) is named on the page with the host's answer, never a
    silently unstyled page (issue 37, item 4: scripts or stylesheets)."""
    from support.pages import linked_site

    site = linked_site(site_dir, tmp_path)
    (site / "assets" / "exercise.css").unlink()
    server, url = start_server(site)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/decks/part2.html")
        note = page.locator(".damaged-copy")
        note.wait_for(timeout=30_000)
        text = note.inner_text()
        assert "assets/exercise.css" in text and "HTTP 404" in text and note.is_visible(), text
        assert page.locator(".damaged-copy").count() == 1  # one line per file
        page.wait_for_function("window.Reveal && Reveal.isReady()")  # the rest of the deck still works
    finally:
        context.close()
        server.shutdown()
