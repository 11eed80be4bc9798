"""The longest main-thread block while the lab runs its three longest calls
(issue 38): a generation at the page's token limit, a score of the most tokens
the lab reads (lab.limits.max_score_tokens) and lab.attentionSteps over the
longest history it takes (lab.limits.max_history_tokens), each on the four-head
model where a call names one. The block is the longest task the Long Tasks API
reports (tasks over 50 ms; 0 when none was that long) while the call runs; the
wall time of the call is recorded beside it."""

from __future__ import annotations

import time

from common.chromium import evaluate

TIMEOUT_S = 900
# the words of the scored text, repeated: short words, one token each, a full stop after each eight
WORDS = ("once", "upon", "a", "time", "the", "dog", "ran", "home")

WATCH = """() => { window.__longest = 0; window.__watch?.disconnect();
  window.__watch = new PerformanceObserver((list) => { for (const e of list.getEntries())
    window.__longest = Math.max(window.__longest, e.duration); });
  window.__watch.observe({ type: 'longtask' }); }"""


def text_of(page, tokens: int) -> str:
    """A text of exactly ``tokens`` tokens by the lab's own tokenizer (refused if it cannot be made)."""
    sentences, text = 0, ""
    while True:
        sentences += 1
        longer = " ".join(" ".join(WORDS) + "." for _ in range(sentences))
        if len(page.evaluate("(t) => window.lab.tokenize(t).tokens", longer)) > tokens:
            break
        text = longer
    have = len(page.evaluate("(t) => window.lab.tokenize(t).tokens", text))
    words = text.split(" ")
    for extra in WORDS:  # top up word by word
        if have == tokens:
            break
        words.append(extra)
        have = len(page.evaluate("(t) => window.lab.tokenize(t).tokens", " ".join(words)))
    if have != tokens:
        raise RuntimeError(f"bench: could not write a text of exactly {tokens} tokens (got {have})")
    return " ".join(words)


def timed(page, body: str, arg) -> dict:
    page.evaluate(WATCH)
    t = time.perf_counter()
    result = evaluate(page, body, arg, TIMEOUT_S)
    wall = (time.perf_counter() - t) * 1000
    page.wait_for_timeout(200)  # the observer reports the last task after it ends
    return {"longest_task_ms": round(page.evaluate("window.__longest")), "wall_ms": round(wall), "result": result}


def blocking(browser, url: str, backend: str, prompt: str) -> dict:
    """The three calls in one fresh page of the lab on ``backend``."""
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{url}/lab/?backend={backend}")
        status = evaluate(page, "return await window.lab.ready;", timeout_s=TIMEOUT_S)
        if not status["ok"]:
            raise RuntimeError(f"bench: the lab did not start on {backend}: {status}")
        limits = page.evaluate("window.lab.limits")
        token_limit = int(page.evaluate("document.querySelector('#limit').max"))
        out = {"backend": backend, "method": __doc__.split("\n\n")[0].replace("\n", " ")}

        g = timed(
            page,
            "return await window.lab.generate(arg);",
            {"prompt": prompt, "mode": "greedy", "limit": token_limit, "backend": backend},
        )
        new = max(m["new_tokens"] for m in g.pop("result")["models"].values())
        out["generation"] = {**g, "limit": token_limit, "new_tokens": new}

        text = text_of(page, limits["max_score_tokens"])
        s = timed(
            page,
            "return await window.lab.score({text: arg.text, backend: arg.backend});",
            {
                "text": text,
                "backend": backend,
            },
        )
        s.pop("result")
        out["score"] = {**s, "tokens": limits["max_score_tokens"]}

        n = limits["max_history_tokens"]
        ids = page.evaluate("(t) => window.lab.tokenize(t).history", text_of(page, n - 1))  # BOS and n - 1 tokens
        if len(ids) != n:
            raise RuntimeError(f"bench: the attention-steps history has {len(ids)} IDs, not {n}")
        a = timed(
            page,
            "return (await window.lab.attentionSteps('attn4', arg.ids, {backend: arg.backend})).length;",
            {
                "ids": ids,
                "backend": backend,
            },
        )
        out["attention_steps"] = {**a, "tokens": len(ids), "steps": a.pop("result")}
        return out
    finally:
        context.close()
