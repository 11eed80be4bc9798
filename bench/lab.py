"""One lab visit in Chromium, measured: bytes served, time to ready and to the
first token (optionally over a throttled link), the second visit, ms per model
call, and the generation loop's wall time per token against the models' own."""

from __future__ import annotations

import statistics
import time

from common.chromium import evaluate

TIMEOUT_S = 900  # one page call: a first visit over a throttled link, a timed generation


def throttle(context, page, mbit_s: float, latency_ms: float) -> None:
    """CDP network emulation (as DevTools' throttling) on the page and its workers."""
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    rate = mbit_s * 1e6 / 8
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": rate, "uploadThroughput": rate},
    )


def visit(page, server, url: str, prompt: str) -> dict:
    """Navigate, wait for lab.ready, generate one token; times are from navigation start."""
    before = server.bytes_sent
    t = time.perf_counter()
    page.goto(url)
    status = evaluate(page, "return await window.lab.ready;", timeout_s=TIMEOUT_S)
    first = evaluate(
        page,
        """const r = await window.lab.generate({prompt: arg, mode: 'greedy', limit: 1});
        return {ms: performance.now(), ok: Object.values(r.models).every((m) => m.error === null)};""",
        prompt,
        TIMEOUT_S,
    )
    return {
        "status": status,
        "bytes": server.bytes_sent - before,
        "ready_ms": status["page_ms"],
        "first_model_ready_ms": status.get("first_model_ready_ms"),
        "first_token_ms": first["ms"],
        "first_token_ok": first["ok"],
        "wall_ms": (time.perf_counter() - t) * 1000,
    }


def first_and_second_visit(browser, server, url: str, backend: str, prompt: str, *, mbit_s=None, latency_ms=0.0):
    context = browser.new_context()
    page = context.new_page()
    if mbit_s:
        throttle(context, page, mbit_s, latency_ms)
    first = visit(page, server, f"{url}/lab/?backend={backend}", prompt)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)
    page.wait_for_timeout(1000)  # the page's last writes to the offline copy
    second = visit(page, server, f"{url}/lab/?backend={backend}", prompt)
    return context, page, first, second


def visit_record(first: dict, second: dict) -> dict:
    """A first and a second visit as bench.json records them."""
    return {
        "first_visit_bytes": first["bytes"],
        "ready_ms": first["ready_ms"],
        "first_model_ready_ms": first["first_model_ready_ms"],
        "first_token_ms": first["first_token_ms"],
        "second_visit_bytes": second["bytes"],
        "second_visit_ready_ms": second["ready_ms"],
        "second_visit_first_token_ms": second["first_token_ms"],
    }


def loop_timing(page, backend: str, prompt: str, tokens: int, repeats: int) -> dict:
    """Wall time per generated token of the three-model loop, against the models'
    own call time (loop_statistics), over ``repeats`` greedy generations."""
    results = [
        evaluate(
            page,
            "return await window.lab.generate(arg);",
            {"prompt": prompt, "mode": "greedy", "limit": tokens, "backend": backend},
            TIMEOUT_S,
        )
        for _ in range(repeats)
    ]
    return {**loop_statistics(results), "tokens": tokens, "repeats": repeats}


def loop_statistics(results: list[dict]) -> dict:
    """From lab.generate results (one per repeat): per repeat, the loop's wall
    time per step (the slowest model's total over the most steps any model
    took), the models' own time per step (the sum of their median call times:
    each step calls each model once) and the time their calls took per step
    (the sum of their compute times over the steps); then the median of each
    over the repeats, the ratios of the wall time to the other two (ratio, and
    ratio_to_calls: what the loop itself adds) and each model's median call."""
    wall, own, calls, per_model = [], [], [], {}
    for r in results:
        models = r["models"]
        steps = max(1, max(m["new_tokens"] for m in models.values()))
        wall.append(max(m["total_ms"] for m in models.values()) / steps)
        own.append(sum(m["median_ms"] for m in models.values()))
        calls.append(sum(m["compute_ms"] for m in models.values()) / steps)
        for kind, m in models.items():
            per_model.setdefault(kind, []).append(m["median_ms"])
    ms_token, own_token, calls_token = statistics.median(wall), statistics.median(own), statistics.median(calls)
    return {
        "ms_per_token": ms_token,
        "own_ms_per_token": own_token,
        "ratio": ms_token / own_token if own_token else None,
        "calls_ms_per_token": calls_token,
        "ratio_to_calls": ms_token / calls_token if calls_token else None,
        "own_ms_per_call": {k: statistics.median(v) for k, v in per_model.items()},
    }


def runtime(
    browser, server, url: str, backend: str, prompt: str, kinds: list, runs: int, tokens: int, repeats: int
) -> dict:
    """One runtime measured: its two visits, each model's ms per call (kinds:
    metadata.json's order) and the generation loop."""
    context, page, first, second = first_and_second_visit(browser, server, url, backend, prompt)
    status = first["status"]
    try:
        if not status.get("ok") or status.get("backend") != backend:
            return {"available": False, "reason": status.get("error") or f"runtime resolved to {status.get('backend')}"}
        out = {
            "available": True,
            "adapter": status.get("adapter"),
            "software_adapter": status.get("software_adapter"),
            **visit_record(first, second),
            "runtime_file": status["runtime"]["file"],
            "runtime_bytes": status["runtime"]["bytes"],
            "models": {},
        }
        for kind in kinds:
            m = status["models"][kind]
            bench = evaluate(
                page,
                "return await window.lab.benchmark(arg.kind, {backend: arg.backend, runs: arg.runs});",
                {"kind": kind, "backend": backend, "runs": runs},
                TIMEOUT_S,
            )
            out["models"][kind] = {"median_ms_per_call": bench["median_ms"], "calls_timed": runs, "bytes": m["bytes"]}
        out["loop"] = loop_timing(page, backend, prompt, tokens, repeats)
        for kind in kinds:
            out["models"][kind]["own_ms_per_call_while_generating"] = out["loop"]["own_ms_per_call"][kind]
            out["models"][kind]["ms_per_generated_token"] = out["loop"]["ms_per_token"]
        return out
    finally:
        context.close()


def throttled(browser, server, url: str, backend: str, prompt: str, mbit_s: float, latency_ms: float) -> dict:
    context, _, first, second = first_and_second_visit(
        browser, server, url, backend, prompt, mbit_s=mbit_s, latency_ms=latency_ms
    )
    context.close()
    return {
        "mbit_s": mbit_s,
        "latency_ms": latency_ms,
        "choice": backend,
        "backend": first["status"].get("backend"),
        **visit_record(first, second),
    }
