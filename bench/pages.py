"""Each deck's first paint and main-thread blocking, as a phone would see them:
the site behind nginx with the README's gzip settings (bench/nginx.py), a fresh
browser context per deck (no cache, no service worker yet), the CPU slowed
down 4x (CDP Emulation.setCPUThrottlingRate, as Lighthouse's mobile profile),
and the browser's own records: first-contentful-paint (Paint Timing) and every
long task (Long Tasks API, over 50 ms) until the page is quiet. Blocking time is
Lighthouse's definition: the sum of each long task's time past 50 ms."""

from __future__ import annotations

import statistics

from bench.nginx import serve

CPU_SLOWDOWN = 4
SETTLE_MS = 3000  # after load, while widgets mount and the precache starts
# Long tasks from the first moment, buffered before any page script runs.
OBSERVE = """window.__longTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries())
  window.__longTasks.push({start: e.startTime, ms: e.duration}); }).observe({type: 'longtask', buffered: true});"""
READ = """() => ({
  fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
  tasks: window.__longTasks,
  elements: document.getElementsByTagName('*').length,
  fitted: document.querySelectorAll('.reveal .slides section[data-fitted]').length,
  slides: document.querySelectorAll('.reveal .slides section').length,
})"""


def deck(browser, url: str, slug: str) -> dict:
    context = browser.new_context(viewport={"width": 412, "height": 823}, device_scale_factor=1.75, is_mobile=True)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    try:
        page.goto(f"{url}decks/{slug}.html", wait_until="load", timeout=180_000)
        page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=180_000)
        page.wait_for_timeout(SETTLE_MS)
        got = page.evaluate(READ)
    finally:
        context.close()
    tasks = got["tasks"]
    return {
        "first_contentful_paint_ms": round(got["fcp"]) if got["fcp"] is not None else None,
        "blocking_ms": round(sum(max(0.0, t["ms"] - 50) for t in tasks)),
        "longest_task_ms": round(max((t["ms"] for t in tasks), default=0)),
        "long_tasks": len(tasks),
        "dom_elements": got["elements"],
        "slides": got["slides"],
        "slides_measured": got["fitted"],
    }


def decks(browser, site, slugs, runs: int = 3) -> dict:
    """slug -> the median of ``runs`` visits of each figure (and the runs' range of blocking time)."""
    out = {}
    with serve(site, compress=True) as host:
        for slug in slugs:
            visits = [deck(browser, host.url, slug) for _ in range(runs)]
            row = {k: statistics.median(v[k] for v in visits) for k in visits[0] if visits[0][k] is not None}
            row["blocking_ms_range"] = [min(v["blocking_ms"] for v in visits), max(v["blocking_ms"] for v in visits)]
            row["runs"] = runs
            out[slug] = row
            print(
                f"  deck {slug}: first paint {row.get('first_contentful_paint_ms', 0) / 1000:.2f} s, "
                f"blocking {row['blocking_ms']:.0f} ms (runs {row['blocking_ms_range']}), "
                f"longest task {row['longest_task_ms']:.0f} ms, {row['dom_elements']:.0f} elements, "
                f"{row['slides_measured']:.0f} of {row['slides']:.0f} slides measured",
                flush=True,
            )
    return out
