"""The benchmark's statistics (bench/lab.py loop_statistics, visit_record),
unit-tested on hand-made lab.generate results whose answers are worked out
here by hand (issue 25, point 6): a median taken as a mean, a max as a min, a
step count off by one or a ratio turned over changes a number below."""

from __future__ import annotations

import pytest

from bench.lab import loop_statistics, visit_record


def model(total_ms, new_tokens, median_ms, compute_ms):
    return {"total_ms": total_ms, "new_tokens": new_tokens, "median_ms": median_ms, "compute_ms": compute_ms}


# three repeats; in each, the three models (mlp, attn1, attn4)
RESULTS = [
    {"models": {"mlp": model(90, 10, 1, 12), "attn1": model(100, 10, 2, 25), "attn4": model(80, 9, 3, 33)}},
    {"models": {"mlp": model(300, 10, 1, 10), "attn1": model(120, 12, 4, 30), "attn4": model(60, 12, 5, 50)}},
    {"models": {"mlp": model(50, 5, 2, 5), "attn1": model(40, 5, 2, 10), "attn4": model(45, 4, 8, 15)}},
]


def test_loop_statistics_by_hand():
    s = loop_statistics(RESULTS)
    # wall per step: the slowest total over the most steps: 100/10, 300/12, 50/5 -> 10, 25, 10 -> median 10
    assert s["ms_per_token"] == pytest.approx(10)
    # own per step: the sum of the median calls: 6, 10, 12 -> median 10
    assert s["own_ms_per_token"] == pytest.approx(10)
    # calls per step: the sum of compute over the steps: 70/10, 90/12, 30/5 -> 7, 7.5, 6 -> median 7
    assert s["calls_ms_per_token"] == pytest.approx(7)
    assert s["ratio"] == pytest.approx(10 / 10)
    assert s["ratio_to_calls"] == pytest.approx(10 / 7)
    # each model's median call over the repeats: mlp 1, 1, 2; attn1 2, 4, 2; attn4 3, 5, 8
    assert s["own_ms_per_call"] == {"mlp": 1, "attn1": 2, "attn4": 5}


def test_an_even_number_of_repeats_takes_the_mean_of_the_middle_two():
    s = loop_statistics(RESULTS[:2])
    assert s["ms_per_token"] == pytest.approx((10 + 25) / 2)
    assert s["own_ms_per_call"]["attn4"] == pytest.approx(4)


def test_a_generation_with_no_new_token_counts_one_step_and_no_time_gives_no_ratio():
    r = {"models": {"mlp": model(5, 0, 0, 0), "attn1": model(4, 0, 0, 0), "attn4": model(3, 0, 0, 0)}}
    s = loop_statistics([r])
    assert s["ms_per_token"] == 5 and s["ratio"] is None and s["ratio_to_calls"] is None


def test_visit_record_keeps_each_visit_apart():
    first = {"bytes": 30_000_000, "ready_ms": 9000, "first_model_ready_ms": 4000, "first_token_ms": 9500}
    second = {"bytes": 12_000, "ready_ms": 800, "first_model_ready_ms": 300, "first_token_ms": 900}
    assert visit_record(first, second) == {
        "first_visit_bytes": 30_000_000,
        "ready_ms": 9000,
        "first_model_ready_ms": 4000,
        "first_token_ms": 9500,
        "second_visit_bytes": 12_000,
        "second_visit_ready_ms": 800,
        "second_visit_first_token_ms": 900,
    }


def test_the_onnxruntime_call_time_is_the_median_it_is_named():
    """bench/__main__.py records "median_ms" for onnxruntime CPU (issue 37 item 5): one
    slow call of three moves a mean (11 ms) but not the median (2 ms)."""
    from bench.__main__ import median_ms

    assert median_ms([1.0, 30.0, 2.0]) == 2.0
    assert median_ms([4.0, 1.0, 2.0, 30.0]) == 3.0
