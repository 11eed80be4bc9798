"""The committed measurement of the throttled first visit (bench/bench.json,
`python -m bench --only-throttled`): the first model is usable in at most half
the time all three need, and the visit stays within the lab's byte budget."""

from __future__ import annotations

import json

from common.settings import BENCH_FILE


def test_the_throttled_first_visit_records_early_readiness_within_the_budget():
    throttled = json.loads(BENCH_FILE.read_text(encoding="utf-8"))["throttled"]
    assert throttled["mbit_s"] > 0 and throttled["backend"] == "wasm"
    assert 0 < throttled["first_model_ready_ms"] <= throttled["ready_ms"] / 2, throttled
    assert throttled["first_visit_bytes"] <= 35_000_000
