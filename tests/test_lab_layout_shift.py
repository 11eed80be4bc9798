"""The lab does not move as it loads (issue 33; Lighthouse measured a layout
shift of 0.305): the page is built with the preset menu and the first preset's
text, note and source story in place, exactly what web/lab/controls.js writes
when the presets arrive (site_builder/build.py initial_preset), and the layout
shift until lab.ready and a moment after stays at most 0.1 (Lighthouse's
"good") wide and on a phone."""

from __future__ import annotations

import html
import re

import pytest

from common.chromium import evaluate

WATCH = """window.__cls = 0; new PerformanceObserver((list) => { for (const e of list.getEntries())
  if (!e.hadRecentInput) window.__cls += e.value; }).observe({type: 'layout-shift', buffered: true});"""


def built(site_dir, pattern: str) -> str:
    found = re.search(pattern, (site_dir / "lab" / "index.html").read_text(encoding="utf-8"), re.S)
    assert found, pattern
    return html.unescape(found.group(1)).strip()


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)], ids=["wide", "phone"])
def test_the_lab_loads_without_moving(browser, site_url, site_dir, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    try:
        page = context.new_page()
        page.add_init_script(WATCH)
        page.goto(f"{site_url}/lab/?backend=wasm")
        status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
        assert status["ok"], status
        page.wait_for_timeout(1000)
        # what the page was built with is what the script wrote
        assert page.input_value("#prompt") == built(site_dir, r'<textarea id="prompt"[^>]*>(.*?)</textarea>')
        assert page.text_content("#preset-note") == built(site_dir, r'<p id="preset-note" class="note">(.*?)</p>')
        assert page.text_content("#source-summary") == built(site_dir, r'<summary id="source-summary">(.*?)</summary>')
        assert page.text_content("#source-text") == built(site_dir, r'<p id="source-text"[^>]*>(.*?)</p>')
        assert page.locator("#preset option").count() == len(
            re.findall(r"<option ", built(site_dir, r'(<select id="preset".*?</select>)'))
        )
        shift = page.evaluate("window.__cls")
        assert shift <= 0.1, f"layout shift {shift:.3f} while the lab loaded ({size[0]} px)"
    finally:
        context.close()
