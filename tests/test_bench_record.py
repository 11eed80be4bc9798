"""The committed measurements of bench/bench.json: the throttled first visit
(`python -m bench --only-throttled`: the first model is usable in at most half
the time all three need, and the visit stays within the lab's byte budget) and
the main-thread blocking of the lab's longest calls (`--only-blocking`)."""

from __future__ import annotations

import json
import re

from common.settings import BENCH_FILE, ROOT


def test_the_throttled_first_visit_records_early_readiness_within_the_budget():
    throttled = json.loads(BENCH_FILE.read_text(encoding="utf-8"))["throttled"]
    assert throttled["mbit_s"] > 0 and throttled["backend"] == "wasm"
    assert 0 < throttled["first_model_ready_ms"] <= throttled["ready_ms"] / 2, throttled
    assert throttled["first_visit_bytes"] <= 35_000_000


def test_the_blocking_record_runs_each_long_call_at_the_lab_s_own_bound():
    """`python -m bench --only-blocking` (bench/blocking.py): a generation at the
    page's token limit, a score of lab.limits.max_score_tokens tokens and
    attentionSteps over max_history_tokens IDs, each with its longest main-thread
    task; the bounds are read from the lab's own source, so a changed bound
    without a new measurement fails here."""
    guards = (ROOT / "web" / "lab" / "guards.js").read_text(encoding="utf-8")
    score_bound = int(re.search(r"MAX_SCORE_TOKENS = (\d+)", guards).group(1))
    history = re.search(r"MAX_HISTORY_TOKENS = (\w+)", guards).group(1)
    history_bound = score_bound if history == "MAX_SCORE_TOKENS" else int(history)
    page = (ROOT / "web" / "lab" / "index.html").read_text(encoding="utf-8")
    token_limit = int(re.search(r'<input id="limit"[^>]* max="(\d+)"', page).group(1))
    record = json.loads(BENCH_FILE.read_text(encoding="utf-8"))["blocking"]
    assert record["backend"] == "wasm" and record["measured_at"]
    assert record["generation"]["limit"] == token_limit and 0 < record["generation"]["new_tokens"] <= token_limit
    assert record["score"]["tokens"] == score_bound
    assert record["attention_steps"]["tokens"] == record["attention_steps"]["steps"] == history_bound
    for call in ("generation", "score", "attention_steps"):
        r = record[call]
        assert 0 <= r["longest_task_ms"] <= r["wall_ms"], (call, r)
