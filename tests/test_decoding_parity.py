"""The decoding rule and the tokenizer, written twice (Python in models/ and
export/, JavaScript in web/core/), give the same results on the same inputs.
The JavaScript runs in Node (tests/fixtures_lab/node_core.mjs)."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from export.decoding import (BANNED, Mulberry32, context_window, generate, greedy_choice,
                             sampled_choice, sampling_weights)
from models.checkpoints import CHECKPOINT_DIR
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocab, detokenize, normalize, tokenize

FIXTURES = Path(__file__).parent / "fixtures_lab"
TRICKY = json.loads((FIXTURES / "tricky_strings.json").read_text(encoding="utf-8"))
NODE = shutil.which("node")


def run_node(request: dict) -> dict:
    assert NODE, "Node.js is required for the JavaScript side of these tests"
    proc = subprocess.run([NODE, "--no-warnings", str(FIXTURES / "node_core.mjs")], input=json.dumps(request),
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def random_rows(n: int, width: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    rows = [[rng.gauss(0.0, 3.0) for _ in range(width)] for _ in range(n)]
    rows[0][7] = rows[0][9] = max(rows[0]) + 1.0          # a tie: the lower ID must win
    rows[1][UNK_ID] = rows[1][BOS_ID] = rows[1][PAD_ID] = 100.0   # banned IDs must never win
    rows[2][EOS_ID] = 50.0                                 # EOS may win
    return rows


@pytest.fixture(scope="module")
def vocab() -> Vocab:
    return Vocab.load(CHECKPOINT_DIR / "vocab.json")


@pytest.fixture(scope="module")
def case(vocab):
    """One request with every check, answered by Node once for the module."""
    rng = random.Random(5)
    V = 40
    bigram = [[rng.gauss(0.0, 2.0) for _ in range(V)] for _ in range(V)]
    for row in bigram[4:]:
        row[EOS_ID] = -1.0          # stories end now and then
    generate_cases = [
        {"prompt_ids": [], "mode": "greedy", "temperature": 1.0, "seed": 0, "limit": 24},
        {"prompt_ids": [5, 6, 7], "mode": "greedy", "temperature": 1.0, "seed": 0, "limit": 10},
        {"prompt_ids": list(range(4, 40)) * 3, "mode": "greedy", "temperature": 1.0, "seed": 0, "limit": 30},
    ] + [{"prompt_ids": [4 + s % 30, 9], "mode": "sampled", "temperature": t, "seed": s, "limit": 40}
         for s in (0, 7, 123456789, 4294967295) for t in (0.5, 0.9, 1.7)]
    id_lists = [vocab.encode(s) for s in TRICKY["strings"]] + [[BOS_ID, 10, 11, 12, UNK_ID, EOS_ID]]
    blobs = [b"", b"a", b"abc", bytes(range(256)) * 5, b"x" * 55, b"y" * 56, b"z" * 64, b"q" * 119,
             (FIXTURES / "tricky_strings.json").read_bytes()]
    rows = random_rows(6, 300, 1)
    request = {
        "strings": TRICKY["strings"], "token_lists": TRICKY["token_lists"], "vocab": vocab.itos,
        "id_lists": id_lists, "seeds": [0, 1, 7, 42, 2**31 - 1, 2**32 - 1], "draws": 2000,
        "histories": [[], [BOS_ID], list(range(1, 64)), list(range(1, 65)), list(range(1, 200))],
        "logit_rows": rows,
        "sampled": [{"row": r, "temperature": t, "seed": s, "draws": 200}
                    for r in rows[:4] for t, s in ((0.9, 7), (0.3, 1), (2.5, 99))],
        "bigram": bigram, "generate": generate_cases,
        "buffers_b64": [base64.b64encode(b).decode() for b in blobs],
    }
    return {"request": request, "js": run_node(request), "blobs": blobs, "bigram": bigram, "id_lists": id_lists}


def test_tricky_strings_cover_the_required_kinds():
    joined = "".join(TRICKY["strings"])
    for needle in ("'", "\u2019", "\u201c", "12", "\u00e9", "\U0001F436", "\u732b", "\u0000", "\u202e", "<script>"):
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
    assert len(js["I \u2764\ufe0f my \U0001F436! \U0001F469\u200d\U0001F469\u200d\U0001F467"]) > 4


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
        assert js_values == py_values            # exact float equality, every draw
        assert all(0.0 <= v < 1.0 for v in py_values)
        assert len(set(py_values)) > 1990


def test_context_window_agrees(case):
    for history, js in zip(case["request"]["histories"], case["js"]["context_window"]):
        ours = context_window(history)
        assert js == ours and len(ours) == 64
        assert ours[-len(history):] == history[-64:] if history else ours == [PAD_ID] * 64


def test_greedy_choice_agrees_and_follows_the_rule(case):
    rows = case["request"]["logit_rows"]
    ours = [greedy_choice(r) for r in rows]
    assert case["js"]["greedy"] == ours
    assert ours[0] == 7                          # tie between 7 and 9: the lowest ID
    assert ours[1] not in BANNED
    assert ours[2] == EOS_ID


def test_sampled_choice_agrees(case):
    for spec, js in zip(case["request"]["sampled"], case["js"]["sampled"]):
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
        ours = generate(lambda ctx: bigram[ctx[-1]], spec["prompt_ids"], mode=spec["mode"],
                        temperature=spec["temperature"], seed=spec["seed"], limit=spec["limit"])
        assert js == ours
        assert ours["calls"] == len(ours["ids"]) + (ours["stop"] == "eos")
        assert EOS_ID not in ours["ids"] and not set(ours["ids"]) & BANNED
    stops = {g["stop"] for g in case["js"]["generate"]}
    assert stops == {"eos", "limit"}, "the cases should exercise both stop reasons"


def test_js_sha256_fallback_matches_hashlib(case):
    assert case["js"]["sha256"] == [hashlib.sha256(b).hexdigest() for b in case["blobs"]]
