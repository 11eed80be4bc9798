"""The decoding rule and the tokenizer, written twice (Python in models/ and
export/, JavaScript in web/core/), give the same results on the same inputs.
The JavaScript runs in Node (tests/fixtures_lab/node_core.mjs)."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from export.decoding import (
    BANNED,
    CONTEXT,
    Mulberry32,
    check_filters,
    context_window,
    generate,
    greedy_choice,
    kept_ids,
    ranking,
    sampled_choice,
    sampling_weights,
    start_history,
)
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, detokenize, normalize, tokenize

FIXTURES = Path(__file__).parent / "fixtures_lab"
TRICKY = json.loads((FIXTURES / "tricky_strings.json").read_text(encoding="utf-8"))
NODE = shutil.which("node")


def run_node(request: dict) -> dict:
    assert NODE, "Node.js is required for the JavaScript side of these tests"
    proc = subprocess.run(
        [NODE, "--no-warnings", str(FIXTURES / "node_core.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def random_rows(n: int, width: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    rows = [[rng.gauss(0.0, 3.0) for _ in range(width)] for _ in range(n)]
    rows[0][7] = rows[0][9] = max(rows[0]) + 1.0  # a tie: the lower ID must win
    rows[1][UNK_ID] = rows[1][BOS_ID] = rows[1][PAD_ID] = 100.0  # banned IDs must never win
    rows[2][EOS_ID] = 50.0  # EOS may win
    return rows


@pytest.fixture(scope="module")
def case(vocab):
    """One request with every check, answered by Node once for the module."""
    rng = random.Random(5)
    V = 40
    bigram = [[rng.gauss(0.0, 2.0) for _ in range(V)] for _ in range(V)]
    for row in bigram[4:]:
        row[EOS_ID] = -1.0  # stories end now and then
    generate_cases = (
        [
            {"prompt_ids": [], "mode": "greedy", "temperature": 1.0, "seed": 0, "limit": 24},
            {"prompt_ids": [5, 6, 7], "mode": "greedy", "temperature": 1.0, "seed": 0, "limit": 10},
            {"prompt_ids": list(range(4, 40)) * 3, "mode": "greedy", "temperature": 1.0, "seed": 0, "limit": 30},
        ]
        + [
            {"prompt_ids": [4 + s % 30, 9], "mode": "sampled", "temperature": t, "seed": s, "limit": 40}
            for s in (0, 7, 123456789, 4294967295)
            for t in (0.5, 0.9, 1.7)
        ]
        + [
            {
                "prompt_ids": [4 + s % 30, 9],
                "mode": "sampled",
                "temperature": t,
                "seed": s,
                "limit": 40,
                "top_k": k,
                "top_p": p,
            }
            for s in (3, 99)
            for t in (0.7, 1.5)
            for k, p in ((5, 1.0), (0, 0.6), (8, 0.8), (1, 1.0), (0, 1e-9))
        ]
    )
    id_lists = [vocab.encode(s) for s in TRICKY["strings"]] + [[BOS_ID, 10, 11, 12, UNK_ID, EOS_ID]]
    blobs = [
        b"",
        b"a",
        b"abc",
        bytes(range(256)) * 5,
        b"x" * 55,
        b"y" * 56,
        b"z" * 64,
        b"q" * 119,
        (FIXTURES / "tricky_strings.json").read_bytes(),
    ]
    rows = random_rows(6, 300, 1)
    filters = [(0, 1.0), (1, 1.0), (5, 1.0), (0, 0.5), (0, 0.95), (10, 0.7), (0, 1e-9), (300, 0.99)]
    score_ids = [{"ids": [], "eos": True}, {"ids": [5, 6], "eos": False}, {"ids": list(range(4, 90)), "eos": True}]
    request = {
        "strings": TRICKY["strings"],
        "token_lists": TRICKY["token_lists"],
        "vocab": vocab.itos,
        "id_lists": id_lists,
        "seeds": [0, 1, 7, 42, 2**31 - 1, 2**32 - 1],
        "draws": 2000,
        "histories": [[], [BOS_ID], list(range(1, 64)), list(range(1, 65)), list(range(1, 200))],
        "logit_rows": rows,
        "sampled": [
            {"row": r, "temperature": t, "seed": s, "draws": 200}
            for r in rows[:4]
            for t, s in ((0.9, 7), (0.3, 1), (2.5, 99))
        ]
        + [
            {"row": r, "temperature": t, "seed": s, "draws": 200, "top_k": k, "top_p": p}
            for r in rows[:4]
            for t, s in ((0.9, 7), (2.5, 99))
            for k, p in filters
        ],
        "kept": [
            {"row": r, "temperature": t, "top_k": k, "top_p": p}
            for r in rows
            for t in (0.5, 1.0, 2.0)
            for k, p in filters
        ],
        "bad_filters": [[-1, 1.0], [1.5, 1.0], [0, 0.0], [0, 1.5], [0, -0.1], [2, 1.0]],
        "score_rows": [{"row": r, "target": t} for r in rows for t in (0, 2, 17, 299)],
        "score_ids": score_ids,
        "score_logprobs": [[], [-0.5], [-1.0, -2.0, -0.25]],
        "bigram": bigram,
        "generate": generate_cases,
        "context": CONTEXT,  # the lab reads it from onnx/metadata.json, which export writes from common/config.py
        "buffers_b64": [base64.b64encode(b).decode() for b in blobs],
    }
    return {
        "request": request,
        "js": run_node(request),
        "blobs": blobs,
        "bigram": bigram,
        "id_lists": id_lists,
        "score_ids": score_ids,
    }


def test_tricky_strings_cover_the_required_kinds():
    joined = "".join(TRICKY["strings"])
    for needle in ("'", "\u2019", "\u201c", "12", "\u00e9", "\U0001f436", "\u732b", "\u0000", "\u202e", "<script>"):
        assert needle in joined
    assert "" in TRICKY["strings"]


def test_normalize_and_tokenize_agree(case):
    strings = case["request"]["strings"]
    assert case["js"]["normalize"] == [normalize(s) for s in strings]
    assert case["js"]["tokenize"] == [tokenize(s) for s in strings]


def test_tokenizer_examples_from_the_spec(case):
    strings = case["request"]["strings"]
    js = dict(zip(strings, case["js"]["tokenize"]))
    assert js["Lily can't find 12 balls!"] == ["lily", "can't", "find", "12", "balls", "!"]
    assert js["redder!"] == ["redder", "!"]
    assert js[""] == [] and js["   "] == []
    assert len(js["I \u2764\ufe0f my \U0001f436! \U0001f469\u200d\U0001f469\u200d\U0001f467"]) > 4


def test_detokenize_agrees(case):
    lists = case["request"]["token_lists"] + [tokenize(s) for s in case["request"]["strings"]]
    expected = [detokenize(t) for t in case["request"]["token_lists"]]
    assert case["js"]["detokenize"] == expected
    assert case["js"]["pieces_join"] == expected
    assert expected[1] == '"hi," said tom. "yes!"'
    assert len(lists) > len(expected)


def test_vocab_encode_decode_agree(case, vocab):
    assert case["js"]["encode"] == [vocab.encode(s) for s in case["request"]["strings"]]
    assert case["js"]["decode"] == [vocab.decode(ids) for ids in case["id_lists"]]


def test_mulberry32_is_bit_identical(case):
    for seed, js_values in zip(case["request"]["seeds"], case["js"]["mulberry32"]):
        rng = Mulberry32(seed)
        py_values = [rng.next() for _ in range(case["request"]["draws"])]
        assert js_values == py_values  # exact float equality, every draw
        assert all(0.0 <= v < 1.0 for v in py_values)
        assert len(set(py_values)) > 1990


def test_context_window_agrees(case):
    for history, js in zip(case["request"]["histories"], case["js"]["context_window"]):
        ours = context_window(history)
        assert js == ours and len(ours) == 64
        assert ours[-len(history) :] == history[-64:] if history else ours == [PAD_ID] * 64


def test_greedy_choice_agrees_and_follows_the_rule(case):
    rows = case["request"]["logit_rows"]
    ours = [greedy_choice(r) for r in rows]
    assert case["js"]["greedy"] == ours
    assert ours[0] == 7  # tie between 7 and 9: the lowest ID
    assert ours[1] not in BANNED
    assert ours[2] == EOS_ID


def test_sampled_choice_agrees(case):
    for spec, js in zip(case["request"]["sampled"], case["js"]["sampled"]):
        if "top_k" in spec:
            continue  # test_sampled_choice_with_top_k_top_p_agrees
        rng = Mulberry32(spec["seed"])
        ours = [sampled_choice(spec["row"], spec["temperature"], rng) for _ in range(spec["draws"])]
        assert js == ours
        assert not set(ours) & BANNED


def test_sampling_weights_are_a_tempered_softmax_over_allowed_ids():
    row = [0.0, 5.0, 1.0, 2.0, 3.0, 3.0]
    w = sampling_weights(row, 0.5)
    assert w[PAD_ID] == w[BOS_ID] == w[UNK_ID] == 0.0
    total = sum(w)
    assert w[4] / total == pytest.approx(w[5] / total)
    assert w[4] / w[EOS_ID] == pytest.approx(2.718281828459045 ** ((3.0 - 1.0) / 0.5))
    with pytest.raises(ValueError):
        sampling_weights(row, 0.0)


def test_generation_loop_agrees(case):
    bigram = case["bigram"]
    for spec, js in zip(case["request"]["generate"], case["js"]["generate"]):
        ours = generate(
            lambda ctx: bigram[ctx[-1]],
            spec["prompt_ids"],
            mode=spec["mode"],
            temperature=spec["temperature"],
            seed=spec["seed"],
            limit=spec["limit"],
            top_k=spec.get("top_k", 0),
            top_p=spec.get("top_p", 1.0),
        )
        assert js == ours
        assert ours["calls"] == len(ours["ids"]) + (ours["stop"] == "eos")
        assert EOS_ID not in ours["ids"] and not set(ours["ids"]) & BANNED
    stops = {g["stop"] for g in case["js"]["generate"]}
    assert stops == {"eos", "limit"}, "the cases should exercise both stop reasons"


def test_js_sha256_fallback_matches_hashlib(case):
    assert case["js"]["sha256"] == [hashlib.sha256(b).hexdigest() for b in case["blobs"]]


# ---------------------------------------------------------------- top-k / top-p


def test_sampled_choice_with_top_k_top_p_agrees(case):
    filtered = [s for s in case["request"]["sampled"] if "top_k" in s]
    js = case["js"]["sampled"][-len(filtered) :]
    assert len(filtered) == 64
    for spec, got in zip(filtered, js):
        rng = Mulberry32(spec["seed"])
        ours = [
            sampled_choice(spec["row"], spec["temperature"], rng, spec["top_k"], spec["top_p"])
            for _ in range(spec["draws"])
        ]
        assert got == ours, (spec["top_k"], spec["top_p"])
        keep = set(
            kept_ids(spec["row"], sampling_weights(spec["row"], spec["temperature"]), spec["top_k"], spec["top_p"])
        )
        assert set(ours) <= keep


def test_kept_ids_follow_the_rule_and_agree(case):
    for spec, js in zip(case["request"]["kept"], case["js"]["kept"]):
        row, k, p = spec["row"], spec["top_k"], spec["top_p"]
        weights = sampling_weights(row, spec["temperature"])
        ours = kept_ids(row, weights, k, p)
        assert js == ours
        order = ranking(row)
        assert ours == order[: len(ours)]  # a prefix of the ranking
        assert not set(ours) & BANNED
        if k:
            assert len(ours) <= k
        pool = order[:k] if k else order
        share = sum(weights[i] for i in ours) / sum(weights[i] for i in pool)
        if p < 1.0:
            assert share >= p - 1e-12  # reaches top_p ...
            if len(ours) > 1:  # ... and is the shortest prefix that does
                assert (share - weights[ours[-1]] / sum(weights[i] for i in pool)) < p
        else:
            assert ours == pool
        if k == 1 or p == 1e-9:
            assert ours == [greedy_choice(row)]  # top_k=1 / tiny top_p keep only the greedy choice


def test_ranking_breaks_ties_by_lower_id():
    row = [0.0, 9.0, 1.0, 9.0, 5.0, 5.0, 7.0, 5.0]
    assert ranking(row) == [6, 4, 5, 7, 2]
    weights = sampling_weights(row, 1.0)
    assert kept_ids(row, weights, 2, 1.0) == [6, 4]


def test_bad_filters_are_rejected_in_both_languages(case):
    for (k, p), js in zip(case["request"]["bad_filters"], case["js"]["filter_errors"]):
        try:
            check_filters(k, p)
            ours = None
        except ValueError as exc:
            ours = str(exc)
        assert (js is None) == (ours is None), (k, p)
    assert case["js"]["filter_errors"][-1] is None
    with pytest.raises(ValueError, match="top_k"):
        generate(lambda ctx: [0.0] * 10, [5], mode="sampled", top_k=-1)


def test_top_k_one_and_tiny_top_p_equal_greedy(case):
    bigram = case["bigram"]
    greedy = generate(lambda ctx: bigram[ctx[-1]], [9, 10], mode="greedy", limit=30)
    for k, p in ((1, 1.0), (0, 1e-9)):
        for seed in (0, 5, 77):
            sampled = generate(
                lambda ctx: bigram[ctx[-1]],
                [9, 10],
                mode="sampled",
                temperature=1.3,
                seed=seed,
                limit=30,
                top_k=k,
                top_p=p,
            )
            assert sampled == greedy


def test_inspect_distributions_are_the_sampling_rule(case):
    """The inspect panel's 'Sampled with' column: softmax(logits / T) over the
    allowed IDs, cut by top-k/top-p and renormalized; 'Probability': softmax at T=1."""
    for spec, js in zip(case["request"]["kept"], case["js"]["distributions"]):
        row, t = np.array(spec["row"]), spec["temperature"]
        model = torch.softmax(torch.tensor(row, dtype=torch.float64), -1).numpy()
        np.testing.assert_allclose(js["model"], model, rtol=1e-12, atol=1e-15)
        keep = kept_ids(spec["row"], sampling_weights(spec["row"], t), spec["top_k"], spec["top_p"])
        scaled = torch.tensor(row / t, dtype=torch.float64)
        mask = torch.full_like(scaled, -math.inf)
        mask[keep] = 0.0
        want = torch.softmax(scaled + mask, -1).numpy()
        np.testing.assert_allclose(js["sampled"], want, rtol=1e-12, atol=1e-15)
        assert [i for i, k in enumerate(js["kept"]) if k] == sorted(keep)
        top = [r["id"] for r in js["top"]]
        assert top == list(np.argsort(-model, kind="stable")[:10])
        assert all(r["banned"] == (r["id"] in BANNED) for r in js["top"])


# ---------------------------------------------------------------- score mode maths


def test_score_maths_agree_with_torch(case):
    for spec, js in zip(case["request"]["score_rows"], case["js"]["log_probability"]):
        want = torch.log_softmax(torch.tensor(spec["row"], dtype=torch.float64), -1)[spec["target"]].item()
        assert js == pytest.approx(want, abs=1e-12)
    for spec, js in zip(case["score_ids"], case["js"]["score_contexts"]):
        targets = spec["ids"] + ([EOS_ID] if spec["eos"] else [])
        history = start_history(spec["ids"])
        assert js["targets"] == targets
        assert js["contexts"] == [context_window(history[: t + 1]) for t in range(len(targets))]
    for lps, js in zip(case["request"]["score_logprobs"], case["js"]["summarize"]):
        if not lps:
            assert js["cross_entropy"] is None and js["perplexity"] is None
            continue
        ce = -sum(lps) / len(lps)
        assert js["cross_entropy"] == pytest.approx(ce, abs=1e-15)
        assert js["perplexity"] == pytest.approx(math.exp(ce), rel=1e-15)
        assert js["probabilities"] == pytest.approx([math.exp(v) for v in lps])


def test_heatmap_text_contrast_is_at_least_4_5_everywhere(case):
    assert min(case["js"]["heat"]) >= 4.5
    assert min(case["js"]["score_heat"]) >= 4.5
