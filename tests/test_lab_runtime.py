"""The lab's runtime in a real browser (Chromium through Playwright): what a
first visit downloads, the offline copy, the automatic runtime choice, the
file:// message, and an API that answers every bad call with a clear error and
keeps working afterwards. WASM mostly, to stay quick."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from common.chromium import evaluate, launch
from common.config import CONFIG
from common.settings import SITE_ONNX
from site_builder.serve import start_server
from support.lab import open_lab, reset_lab
from support.pages import PageWatch, Recorded, assert_only_update_check, build_of, linked_site, wait_kept

KINDS = ["mlp", "attn1", "attn4"]
FIRST_VISIT_GOAL = 35_000_000  # bytes over the wire before the first token, WASM


@pytest.fixture
def counted_site(site_dir):
    """The built site on a server of its own, so that its byte counter sees one visitor."""
    server, url = start_server(site_dir, handler_class=Recorded)
    server.served = []
    yield server, url
    server.shutdown()


def test_first_visit_is_light_and_automatic_skips_software_webgpu_then_works_offline(
    gpu_browser, counted_site, site_dir
):
    browser = gpu_browser  # WebGPU offered, on SwiftShader: automatic must skip it
    server, url = counted_site
    manifest = json.loads((site_dir / "vendor" / "onnxruntime-web" / "runtimes.json").read_text())
    context = browser.new_context()
    page = context.new_page()
    watch = PageWatch(page, url)
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    status = open_lab(page, url)
    # SwiftShader is the only WebGPU adapter here: automatic must not pick it
    assert status["ok"] and status["choice"] == "auto" and status["backend"] == "wasm", status
    assert "software" in status["fallback_reason"] and "swiftshader" in status["fallback_reason"].lower()
    assert status["planned_runtimes"] == ["wasm"]
    assert "Automatic choice, WASM" in page.locator("#fallback-line").text_content()
    # only the plain WASM build came down, and the whole visit stayed under the goal
    assert not any(
        manifest["builds"]["webgpu"]["wasm"] in u or manifest["builds"]["webgpu"]["module"] in u for u in requested
    ), requested
    assert status["runtime"]["file"] == manifest["builds"]["wasm"]["wasm"]
    first_visit = server.bytes_sent
    assert first_visit < FIRST_VISIT_GOAL, f"first visit moved {first_visit:,} bytes"
    assert status["network_bytes"] == manifest["builds"]["wasm"]["bytes"] + sum(
        status["models"][k]["bytes"] for k in KINDS
    )
    # the total was stated, and every file's bar is full
    summary = page.locator("#load-progress .progress-summary").text_content()
    assert f"{status['network_bytes'] / 1e6:.2f} MB" in summary
    bars = page.locator("#load-progress progress").evaluate_all("els => els.map((e) => [e.value, e.max])")
    assert len(bars) == 4 and all(v == m > 0 for v, m in bars), bars
    assert not page.locator("#generate").is_disabled()
    online = evaluate(page, "return await window.lab.generate({prompt: 'the cat sat', limit: 4});")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    build = build_of(site_dir)
    wait_kept(page, build, ["/lab/", "/lab/lab.js", "/lab/worker.js", "/core/decoding.js", "/assets/site.css"])
    wait_kept(page, build, ["/sw-precached.txt", "/decks/part2.html"], timeout_s=120)  # the whole course, too
    page.wait_for_timeout(500)  # the page's last cache writes
    # network off: a reload still opens the lab from the offline copy, checks the models and generates
    context.set_offline(True)
    before, served = server.bytes_sent, len(server.served)
    page.reload()
    status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
    assert status["ok"] and status["backend"] == "wasm", status
    assert status["network_bytes"] == 0 and status["runtime"]["from"] == "cache"
    assert all(status["models"][k]["ok"] and status["models"][k]["from"] == "cache" for k in KINDS)
    offline = evaluate(page, "return await window.lab.generate({prompt: 'the cat sat', limit: 4});")
    for k in KINDS:
        assert offline["models"][k]["ids"] == online["models"][k]["ids"] and offline["models"][k]["error"] is None
    # nothing came over the network but, at most, the browser's own update check of the worker's script
    assert_only_update_check(server, before, served, site_dir)
    context.set_offline(False)
    assert not watch.outside
    context.close()


def test_a_stale_cached_model_is_replaced(browser, site_dir, tmp_path):
    """The offline copy is checked against metadata.json on every read: a new
    build (changed model, changed metadata) replaces the stale cached file."""
    site = linked_site(site_dir, tmp_path)
    server, url = start_server(site)
    try:
        context = browser.new_context()
        page = context.new_page()
        assert open_lab(page, url, "?backend=wasm")["ok"]
        # the cached attn1 becomes stale: the cache holds other bytes than metadata.json names
        page.evaluate("""async () => {
            const c = await caches.open('attention-lab-files-v1');
            const url = new URL('../onnx/attn1.onnx', location.href).href;
            await c.put(url, new Response(new Uint8Array([1, 2, 3])));
        }""")
        page.reload()
        status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
        assert status["models"]["attn1"]["ok"] and status["models"]["attn1"]["from"].startswith("network")
        assert status["models"]["mlp"]["from"] == "cache"
        size = page.evaluate("""async () => {
            const c = await caches.open('attention-lab-files-v1');
            const r = await c.match(new URL('../onnx/attn1.onnx', location.href).href);
            return (await r.arrayBuffer()).byteLength;
        }""")
        assert size == status["models"]["attn1"]["bytes"] > 3
        context.close()
    finally:
        server.shutdown()


def test_automatic_times_both_runtimes_and_keeps_the_faster(gpu_browser, site_url):
    """With an adapter it may use (?adapter=any lets it use SwiftShader as it
    would a real GPU), automatic warms both runtimes up, times one call of the
    three models on each and keeps the faster, saying so."""
    context = gpu_browser.new_context()
    page = context.new_page()
    status = open_lab(page, site_url, "?adapter=any")
    assert status["ok"] and status["planned_runtimes"] == ["webgpu", "wasm"], status
    timed = status["timed_ms"]
    assert set(timed) == {"webgpu", "wasm"} and all(v > 0 for v in timed.values())
    assert status["backend"] == min(timed, key=timed.get)
    assert "on WebGPU" in status["choice_reason"] and "on WASM" in status["choice_reason"]
    assert "Automatic choice" in page.locator("#fallback-line").text_content()
    works(page)
    context.close()


def test_file_url_says_how_to_serve(browser, site_dir):
    context = browser.new_context()
    page = context.new_page()
    page.goto((site_dir / "lab" / "index.html").as_uri())
    note = page.locator("#file-note")
    note.wait_for(state="visible")
    text = note.text_content()
    assert "make serve" in text and "python3 -m http.server -d build/site" in text
    assert page.locator("#generate").is_disabled()
    assert "web server" in page.locator("#generate-why").text_content()
    context.close()


@pytest.fixture(scope="module")
def wasm_lab(shared_lab):
    return reset_lab(shared_lab, {"width": 1280, "height": 720})


def works(page):
    """The lab still generates, and Generate is enabled afterwards."""
    result = evaluate(
        page, "return await window.lab.generate({prompt: 'the dog', limit: 2, backend: 'wasm'});", timeout_s=120
    )
    assert all(result["models"][k]["error"] is None and result["models"][k]["new_tokens"] >= 1 for k in KINDS)
    page.wait_for_function("!document.querySelector('#generate').disabled")


def rejection(page, body: str, arg=None) -> str:
    return evaluate(
        page, f"try {{ {body}; return 'resolved'; }} catch (err) {{ return err.message; }}", arg, timeout_s=120
    )


def test_two_generations_in_one_tick(wasm_lab):
    out = evaluate(
        wasm_lab,
        """
        const first = window.lab.generate({prompt: 'the cat', limit: 3});
        const second = window.lab.generate({prompt: 'the dog', limit: 3});
        const [a, b] = await Promise.allSettled([first, second]);
        return {a: a.status, aModels: a.value && Object.values(a.value.models).map((m) => m.stop),
                b: b.status, bWhy: b.reason && b.reason.message};""",
    )
    assert out["a"] == "fulfilled" and out["aModels"] == ["limit"] * 3, out
    assert out["b"] == "rejected" and "a generation is already running" in out["bWhy"], out
    works(wasm_lab)


def test_stop_in_the_same_tick_stops_the_generation(wasm_lab):
    out = evaluate(
        wasm_lab,
        """
        const run = window.lab.generate({prompt: 'the cat', limit: 200});
        window.lab.stop();
        const r = await run;
        return Object.values(r.models).map((m) => [m.stop, m.new_tokens]);""",
    )
    assert all(stop == "stopped" and n == 0 for stop, n in out), out
    works(wasm_lab)


def test_benchmark_is_bounded_and_stoppable(wasm_lab):
    assert "runs must be an integer from 1 to 10000" in rejection(
        wasm_lab, "await window.lab.benchmark('mlp', {runs: 1e9})"
    )
    assert "runs must be an integer" in rejection(wasm_lab, "await window.lab.benchmark('mlp', {runs: 2.5})")
    out = evaluate(
        wasm_lab,
        """
        const run = window.lab.benchmark('mlp', {runs: 10000, backend: 'wasm'});
        await new Promise((r) => setTimeout(r, 300));
        const busy = await window.lab.generate({prompt: 'x', limit: 1}).then(() => 'resolved', (e) => e.message);
        await window.lab.stop();
        const r = await run;
        return {stopped: r.stopped, n: r.times.length, busy};""",
    )
    assert out["stopped"] and 0 < out["n"] < 10000, out
    assert "a benchmark is already running" in out["busy"]
    works(wasm_lab)


def test_invalid_backend_is_rejected_without_touching_the_menu(wasm_lab):
    before = wasm_lab.input_value("#backend")
    assert 'unknown backend "cuda"' in rejection(wasm_lab, "await window.lab.generate({prompt: 'a', backend: 'cuda'})")
    assert "unknown backend" in rejection(wasm_lab, "await window.lab.setBackend('cuda')")
    assert "unknown backend" in rejection(
        wasm_lab, "await window.lab.logits('mlp', window.lab.tokenize('a').context, {backend: ''})"
    )
    assert wasm_lab.input_value("#backend") == before
    works(wasm_lab)


@pytest.mark.parametrize("kind", ["constructor", "__proto__", "toString", "hasOwnProperty", ""])
def test_model_names_are_own_properties(wasm_lab, kind):
    why = rejection(wasm_lab, "await window.lab.logits(arg, window.lab.tokenize('a').context)", kind)
    assert f'unknown model "{kind}"' in why, why
    why = rejection(wasm_lab, "await window.lab.benchmark(arg, {runs: 1})", kind)
    assert "unknown model" in why, why


@pytest.mark.parametrize("bad", [-1, 4000, 1.5, "7", None])
def test_token_ids_are_integers_in_the_vocabulary(wasm_lab, bad):
    why = rejection(
        wasm_lab,
        """const ctx = window.lab.tokenize('the cat').context.slice(); ctx[10] = arg;
                                 await window.lab.logits('attn1', ctx);""",
        bad,
    )
    assert "token IDs must be integers from 0 to 3999" in why and "slot 10" in why, why


def test_temperature_has_a_documented_minimum(wasm_lab):
    for t in (1e-310, 0, -1):
        why = rejection(
            wasm_lab, "await window.lab.generate({prompt: 'a', mode: 'sampled', temperature: arg, limit: 2})", t
        )
        assert "temperature must be a number from 0.001" in why, (t, why)
    assert evaluate(wasm_lab, "return window.lab.limits.min_temperature;") == 1e-3
    out = evaluate(
        wasm_lab,
        "return await window.lab.generate({prompt: 'the cat', mode: 'sampled', temperature: 0.001, limit: 3});",
    )
    greedy = evaluate(wasm_lab, "return await window.lab.generate({prompt: 'the cat', mode: 'greedy', limit: 3});")
    assert {k: out["models"][k]["ids"] for k in KINDS} == {k: greedy["models"][k]["ids"] for k in KINDS}
    works(wasm_lab)


def test_right_to_left_override_in_a_prompt_stays_inside_it(wasm_lab):
    evaluate(wasm_lab, "return await window.lab.generate({prompt: 'the cat \\u202e said', limit: 6, mode: 'greedy'});")
    for kind in KINDS:
        xs = wasm_lab.locator(f'.model-card[data-kind="{kind}"] .tok.gen').evaluate_all(
            "els => els.map((e) => [e.getBoundingClientRect().left, e.getBoundingClientRect().top])"
        )
        assert len(xs) >= 2
        same_line = [x for x, y in xs if abs(y - xs[0][1]) < 2]
        assert same_line == sorted(same_line), (kind, xs)
    works(wasm_lab)


def test_recovering_from_a_failed_runtime_enables_generate(playwright_instance, site_url):
    browser = launch(playwright_instance, "no-webgpu")
    try:
        page = browser.new_page()
        status = open_lab(page, site_url, "?backend=webgpu")
        assert not status["ok"] and "WebGPU unavailable" in status["error"]
        assert page.locator("#generate").is_disabled()
        assert "Cannot generate" in page.locator("#generate-why").text_content()
        page.select_option("#backend", "wasm")
        page.wait_for_function("!document.querySelector('#generate').disabled", timeout=120_000)
        assert "3 of 3 models ready" in page.locator("#backend-line").text_content()
        assert page.locator("#generate-why").is_hidden()
        assert page.locator(".model-error:visible").count() == 0
        works(page)
    finally:
        browser.close()


def _site_with_metadata(site_dir: Path, root: Path, metadata: str) -> Path:
    site = linked_site(site_dir, root, skip={"metadata.json"})
    (site / SITE_ONNX / "metadata.json").write_text(metadata, encoding="utf-8")
    return site


def _metadata_without(site_dir: Path, key: str) -> str:
    metadata = json.loads((site_dir / SITE_ONNX / "metadata.json").read_text(encoding="utf-8"))
    del metadata[key]
    return json.dumps(metadata)


@pytest.mark.parametrize(
    "broken, field",
    [
        ("{}", '"order"'),
        ('{"order": ["mlp"], "models": {}}', '"models.mlp"'),
        ("[]", "expected a JSON object"),
        ("without context", '"context"'),
    ],
)
def test_invalid_metadata_names_file_and_field(browser, site_dir, tmp_path, broken, field):
    if broken.startswith("without "):
        broken = _metadata_without(site_dir, broken.split()[1])
    server, url = start_server(_site_with_metadata(site_dir, tmp_path, broken))
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{url}/lab/")
        page.locator("#page-error").wait_for(state="visible")
        text = page.locator("#page-error").text_content()
        assert "onnx/metadata.json" in text and field in text, text
        assert "not iterable" not in text
        assert page.locator("#generate").is_disabled()
        context.close()
    finally:
        server.shutdown()


def test_the_lab_reads_its_context_width_and_token_limit_from_the_build(browser, site_dir, tmp_path):
    """The lab has no width of its own: a metadata.json that says 32 makes every
    context 32 IDs (and the 64-wide models then refuse it, with a message). The
    token limit's default is the one models/settings.py gives the exporter."""
    metadata = json.loads((site_dir / SITE_ONNX / "metadata.json").read_text(encoding="utf-8"))
    html = (site_dir / "lab" / "index.html").read_text(encoding="utf-8")
    limit = re.search(r'<input id="limit"[^>]*value="(\d+)"', html)
    assert limit and int(limit.group(1)) == metadata["decoding"]["default_limit"] == CONFIG.decoding.token_limit
    metadata["context"] = 32
    server, url = start_server(_site_with_metadata(site_dir, tmp_path, json.dumps(metadata)))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/lab/?backend=wasm")
        status = page.evaluate("async () => await window.lab.ready")
        assert page.evaluate("window.lab.context") == 32
        tok = page.evaluate("window.lab.tokenize('once upon a time')")
        assert len(tok["context"]) == 32 and tok["context"][-5:] == tok["history"][-5:]
        assert not any(m["ok"] for m in status["models"].values()), status  # the graphs take 64 IDs
        # no usable model: lab.ready is not ok, and says why (issue 38.10)
        assert not status["ok"] and "no model is usable" in status["error"], status
        assert page.evaluate("document.querySelector('#limit').value") == str(CONFIG.decoding.token_limit)
    finally:
        context.close()
        server.shutdown()


def test_each_model_is_usable_as_soon_as_its_own_file_is_checked(browser, counted_site):
    """Progressive readiness over a throttled link: the runtime, then the models
    smallest first; a model's card says when it is ready, Generate runs the ready
    ones while the others still download, and lab.ready reports both times."""
    from bench.lab import throttle

    _, url = counted_site
    context = browser.new_context()
    page = context.new_page()
    throttle(context, page, 30, 5)
    page.goto(f"{url}/lab/?backend=wasm")
    page.wait_for_selector('.model-card[data-kind="attn1"] .model-status[data-state="ready"]', timeout=120_000)
    assert page.get_attribute('.model-card[data-kind="mlp"] .model-status', "data-state") == "loading"
    assert not page.locator("#generate").is_disabled()
    assert "Still downloading" in page.locator("#generate-why").text_content()
    page.fill("#limit", "3")
    page.click("#generate")
    page.wait_for_function(
        "document.querySelector('.model-card[data-kind=\"mlp\"] [data-stat=stop]').dataset.reason === 'waiting'"
    )
    page.wait_for_selector('.model-card[data-kind="attn1"] .tok.gen')
    assert "still downloading" in page.locator('.model-card[data-kind="mlp"] .stop-explain').text_content()
    status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
    assert status["ok"]
    first, ready = status["first_model_ready_ms"], status["page_ms"]
    assert status["models"]["attn1"]["ready_page_ms"] == first < status["models"]["mlp"]["ready_page_ms"] <= ready
    assert first <= 0.75 * ready, (first, ready)
    for kind in KINDS:
        assert page.get_attribute(f'.model-card[data-kind="{kind}"] .model-status', "data-state") == "ready"
    context.close()
