"""The lab's bounds and cross-checks in Chromium (issue 25, points 3 to 5):
scoring a long text never freezes the page and Stop answers at once; a
metadata.json that disagrees with the vocabulary, the presets or the model
graphs is refused naming the file and field; every weak case of the API gets
a message that names the value; a download that breaks off or is stopped names
its file. WASM throughout."""

from __future__ import annotations

import json
import time

import pytest

from common.chromium import evaluate
from common.settings import SITE_ONNX
from site_builder.static_server import Handler, start_server
from support.lab import reset_lab
from support.pages import linked_site

KINDS = ["mlp", "attn1", "attn4"]
# The lab's budget is 100 ms of main-thread work at a time; the test allows 250 ms because the
# browser shares two CPU cores with the models' worker and other work (tasks stretch under load).
# The code before issue 25 froze the page for a minute on 100 KB.
FREEZE_LIMIT_MS = 250

# the longest main-thread task since the observer started (Long Tasks API: tasks over 50 ms)
WATCH_LONG_TASKS = """window.__longest = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longest = Math.max(window.__longest,
  e.duration); }).observe({ type: 'longtask' });"""


@pytest.fixture(scope="module")
def lab(shared_lab):
    return reset_lab(shared_lab, {"width": 1280, "height": 720})


def rejection(page, body: str, arg=None) -> str:
    """The message of the error the async ``body`` throws in the page."""
    return evaluate(page, f"try {{ {body}; return 'no error'; }} catch (err) {{ return err.message; }}", arg)


# ---------------------------------------------------------------- bounded scoring


def test_a_megabyte_of_text_is_refused_at_once_and_the_page_stays_responsive(lab):
    megabyte = "the little dog ran far away. " * 36_000  # 1 MB
    lab.evaluate(WATCH_LONG_TASKS)
    t0 = time.monotonic()
    message = rejection(lab, "await window.lab.score({text: arg})", megabyte)
    assert time.monotonic() - t0 < 1.0
    assert "1,044,000 characters long; the lab reads at most 100,000" in message, message
    message = rejection(lab, "await window.lab.generate({prompt: arg, limit: 2})", megabyte)
    assert "the prompt is 1,044,000 characters long" in message, message
    lab.wait_for_timeout(200)
    assert lab.evaluate("window.__longest") < FREEZE_LIMIT_MS, lab.evaluate("window.__longest")
    # the text box takes at most what the lab reads, and a longer text put in it by a script is not tokenized
    assert lab.evaluate("document.querySelector('#prompt').maxLength") == 100_000
    lab.evaluate(
        "(v) => { const t = document.querySelector('#prompt'); t.value = v; t.dispatchEvent(new Event('input')); }",
        megabyte,
    )
    lab.wait_for_function("document.querySelector('#preview-summary').textContent.includes('too long')")
    assert lab.locator("#preview .tok").count() == 0
    lab.fill("#prompt", "the cat")


def test_too_many_tokens_to_score_is_refused_naming_the_bound(lab):
    text = "! " * 5000  # 10,000 characters, 5,000 tokens
    message = rejection(lab, "await window.lab.score({text: arg})", text)
    assert "the text has 5,000 tokens to score; the lab scores at most 4,096" in message, message
    assert lab.evaluate("window.lab.limits.max_score_tokens") == 4096


def test_scoring_a_long_text_shows_progress_stops_at_once_and_never_freezes(lab):
    text = " ".join(("once", "upon", "a", "time", "the", "dog", "ran", "home.")[i % 8] for i in range(3000))
    lab.evaluate(WATCH_LONG_TASKS)
    lab.evaluate("(t) => { window.__score = window.lab.score({text: t}).then(() => 'done', (e) => e.message); }", text)
    lab.wait_for_function(
        "document.querySelector('#score-body .score-progress progress')?.value >= 64", timeout=120_000
    )
    t0 = time.monotonic()
    outcome = evaluate(lab, "window.lab.stop(); return await window.__score;")
    stopped_after = time.monotonic() - t0
    assert outcome == "stopped by you" and stopped_after < 1.0, (outcome, stopped_after)
    assert lab.evaluate("window.__longest") < FREEZE_LIMIT_MS, lab.evaluate("window.__longest")
    lab.wait_for_function("!document.querySelector('#score').disabled || !document.querySelector('#generate').disabled")


def test_a_scored_text_renders_every_token_without_freezing(lab):
    text = " ".join(("once", "upon", "a", "time", "the", "dog", "ran", "home.")[i % 8] for i in range(600))
    lab.evaluate(WATCH_LONG_TASKS)
    # (the result stays in the page: handing it to the test is the harness's work, not the lab's)
    lab.evaluate(
        "(t) => { window.__score = null; window.lab.score({text: t}).then((r) => { window.__score = r; }); }", text
    )
    lab.wait_for_function("window.__score !== null", timeout=240_000)
    n = lab.evaluate("window.__score.tokens.length")
    assert n == 675  # "home." is 2 tokens
    assert lab.evaluate(f"Object.values(window.__score.models).every((m) => m.probabilities.length === {n})")
    lab.wait_for_function(f"document.querySelectorAll('#score-body .score-tok').length === {n}")
    lab.wait_for_timeout(300)
    assert lab.evaluate("window.__longest") < FREEZE_LIMIT_MS, lab.evaluate("window.__longest")


# ---------------------------------------------------------------- weak cases of the API


@pytest.mark.parametrize(
    "call, message",
    [
        ("window.lab.tokenize(undefined)", "tokenize's text must be a string (got undefined)"),
        ("window.lab.tokenize(42)", "tokenize's text must be a string (got 42)"),
        (
            "await window.lab.logits('mlp', [...new Array(63).fill(5), 7n])",
            "slot 63 holds 7n (a BigInt; pass a Number)",
        ),
        ("await window.lab.logits('mlp', new BigInt64Array(64))", "BigInt64Array: pass token IDs as Numbers"),
        (
            "await window.lab.run('mlp', new Array(20000).fill(new Array(64).fill(5)))",
            "20,000 contexts in one call; at most 1,024",
        ),
    ],
)
def test_bad_api_values_are_named(lab, call, message):
    got = rejection(lab, call)
    assert message in got, got


def test_typed_array_contexts_are_contexts(lab):
    out = evaluate(
        lab,
        """const one = await window.lab.logits('mlp', Int32Array.from(new Array(64).fill(5)));
        const two = await window.lab.logits('mlp', [Int32Array.from(new Array(64).fill(5)), new Array(64).fill(5)]);
        const plain = await window.lab.logits('mlp', new Array(64).fill(5));
        return [one.length, two.length, two[0].length, Array.from(one).every((v, i) => v === plain[i])];""",
    )
    assert out == [4000, 2, 4000, True]


def test_generate_takes_an_explicit_undefined_and_greedy_reads_no_temperature(lab):
    out = evaluate(
        lab,
        """const a = await window.lab.generate({prompt: 'the cat', limit: 2, mode: 'greedy', seed: undefined,
             temperature: undefined, backend: undefined});
        const b = await window.lab.generate({prompt: 'the cat', limit: 2, mode: 'greedy', temperature: 0});
        return [a.models.mlp.ids, b.models.mlp.ids, a.models.mlp.error, b.models.mlp.error];""",
    )
    assert out[0] == out[1] and len(out[0]) == 2 and out[2] is None and out[3] is None
    message = rejection(
        lab, "await window.lab.generate({prompt: 'the cat', limit: 2, mode: 'sampled', temperature: 0})"
    )
    assert "temperature must be a number from" in message


# ---------------------------------------------------------------- cross-checked inputs


def _site(site_dir, tmp_path, change_metadata=None, files=None):
    """The built site with its own metadata.json (changed by ``change_metadata``)
    and, from ``files``, other onnx/ files."""
    files = dict(files or {})
    metadata = json.loads((site_dir / SITE_ONNX / "metadata.json").read_text(encoding="utf-8"))
    if change_metadata:
        change_metadata(metadata)
    files["metadata.json"] = json.dumps(metadata)
    site = linked_site(site_dir, tmp_path, skip=set(files))
    for name, text in files.items():
        (site / SITE_ONNX / name).write_text(text, encoding="utf-8")
    return site


def _vocab(site_dir, n):
    return json.dumps(json.loads((site_dir / SITE_ONNX / "vocab.json").read_text(encoding="utf-8"))[:n])


CROSS = {
    "vocab_size 5000": (lambda m: m.update(vocab_size=5000), {}, ['"vocab_size" says 5000', "onnx/vocab.json"]),
    "vocabulary of 100": (None, {"vocab.json": 100}, ['"vocab_size" says 4000', "holds 100 tokens"]),
    "no heads": (lambda m: m["models"]["attn4"].pop("heads"), {}, ['onnx/metadata.json: field "models.attn4.heads"']),
    "no dataset": (lambda m: m.pop("dataset"), {}, ['onnx/metadata.json: field "dataset.attribution"']),
    "presets {}": (None, {"presets.json": "{}"}, ["onnx/presets.json: expected a non-empty list"]),
}


@pytest.mark.parametrize("case", sorted(CROSS))
def test_the_lab_refuses_inputs_that_disagree(browser, site_dir, tmp_path, case):
    change, files, expected = CROSS[case]
    files = {k: (_vocab(site_dir, v) if k == "vocab.json" else v) for k, v in files.items()}
    server, url = start_server(_site(site_dir, tmp_path, change, files))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/lab/?backend=wasm")
        page.locator("#page-error").wait_for(state="visible")
        text = page.locator("#page-error").text_content()
        assert all(e in text for e in expected), text
        assert "TypeError" not in text and "undefined" not in text and "NaN" not in text, text
        assert page.locator("#generate").is_disabled()
    finally:
        context.close()
        server.shutdown()


def test_heads_that_disagree_with_the_graph_are_named(browser, site_dir, tmp_path):
    server, url = start_server(_site(site_dir, tmp_path, lambda m: m["models"]["attn4"].update(heads=2)))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/lab/?backend=wasm")
        status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
        assert status["models"]["mlp"]["ok"] and status["models"]["attn1"]["ok"]
        error = status["models"]["attn4"]["error"]
        assert not status["models"]["attn4"]["ok"] and '"models.attn4.heads" (2)' in error, error
        assert "attn4.onnx, whose attention has shape [1,4,64]" in error, error
    finally:
        context.close()
        server.shutdown()


# ---------------------------------------------------------------- downloads that break off or stall


class Faulty(Handler):
    """attn4.onnx: ``mode`` 'drop' sends half the file and closes the
    connection; 'stall' sends half and then waits."""

    mode = "drop"

    def copyfile(self, source, outputfile):
        if not self.path.split("?")[0].endswith("/attn4.onnx"):
            return super().copyfile(source, outputfile)
        data = source.read()
        outputfile.write(data[: len(data) // 2])
        outputfile.flush()
        if self.mode == "stall":
            time.sleep(30)
        self.close_connection = True
        self.connection.shutdown(2)


@pytest.mark.parametrize("mode", ["drop", "stall"])
def test_a_broken_or_stopped_download_names_its_file(browser, site_dir, tmp_path, mode):
    site = linked_site(site_dir, tmp_path)
    handler = type("FaultyHandler", (Faulty,), {"mode": mode})
    server, url = start_server(site, handler_class=handler)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/lab/?backend=wasm")
        if mode == "stall":
            page.wait_for_function(
                "document.querySelector('#load-progress li[data-file=attn4] progress')?.value > 0", timeout=60_000
            )
            page.wait_for_timeout(1000)  # attn4.onnx has stalled half way
            assert not page.locator("#stop").is_disabled()  # Stop is offered during the download
            t0 = time.monotonic()
            page.click("#stop")
        status = evaluate(page, "return await window.lab.ready;", timeout_s=60)
        error = status["models"]["attn4"]["error"]
        if mode == "stall":
            assert time.monotonic() - t0 < 5
            assert "the download of attn4.onnx was stopped by you" in error, error
        else:
            assert "the download of attn4.onnx broke off after" in error, error
        metadata = json.loads((site / SITE_ONNX / "metadata.json").read_text(encoding="utf-8"))
        order = sorted(metadata["order"], key=lambda k: metadata["models"][k]["bytes"])  # the worker's order
        for kind in order[: order.index("attn4")]:  # downloaded before attn4: usable
            assert status["models"][kind]["ok"], status["models"]
        for kind in order[order.index("attn4") + 1 :]:  # after it: usable when it only broke off, else stopped too
            if mode == "stall":
                assert "was stopped by you" in status["models"][kind]["error"], status["models"]
            else:
                assert status["models"][kind]["ok"], status["models"]
    finally:
        context.close()
        server.shutdown()


class StallFirst(Handler):
    """The first model file the lab downloads (the smallest) stalls half way;
    every model file asked for is recorded."""

    first = ""
    asked: list = []

    def copyfile(self, source, outputfile):
        path = self.path.split("?")[0]
        if path.endswith(".onnx"):
            self.asked.append(path.rsplit("/", 1)[-1])
        if not path.endswith("/" + self.first):
            return super().copyfile(source, outputfile)
        data = source.read()
        outputfile.write(data[: len(data) // 2])
        outputfile.flush()
        time.sleep(30)
        self.close_connection = True
        self.connection.shutdown(2)


def test_stop_during_the_first_download_stops_the_models_still_queued_too(browser, site_dir, tmp_path):
    """Stop while the first model downloads (issue 38.10): the files not yet
    started are never asked for, and each model says it was stopped."""
    site = linked_site(site_dir, tmp_path)
    metadata = json.loads((site / SITE_ONNX / "metadata.json").read_text(encoding="utf-8"))
    order = sorted(metadata["order"], key=lambda k: metadata["models"][k]["bytes"])  # the worker's order
    handler = type("StallFirstHandler", (StallFirst,), {"first": metadata["models"][order[0]]["file"], "asked": []})
    server, url = start_server(site, handler_class=handler)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/lab/?backend=wasm")
        page.wait_for_function(
            f"document.querySelector('#load-progress li[data-file={order[0]}] progress')?.value > 0", timeout=60_000
        )
        page.wait_for_timeout(500)
        page.click("#stop")
        status = evaluate(page, "return await window.lab.ready;", timeout_s=60)
        for kind in order:
            error = status["models"][kind]["error"] or ""
            assert f"the download of {metadata['models'][kind]['file']} was stopped by you" in error, (kind, error)
        assert handler.asked == [metadata["models"][order[0]]["file"]], handler.asked
        assert not status["ok"]
    finally:
        context.close()
        server.shutdown()
