"""The worked numbers of the "Training and inference maps" deck (seed 003),
as computed by export/tables/maps/ with the project's own code (read from
build/tables, which `make site` wrote)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from models.nets import FixedWindowMLP, MLPConfig


@pytest.fixture(scope="module")
def t(table):
    """The toy's tables (the deck's stories, audit and figures need more inputs)."""
    names = ("tokenize", "vocab", "story", "windows", "batch", "mlp", "attention", "generation")
    return {f"maps_{name}": table(f"maps_{name}") for name in names}


def test_toy_vocabulary_and_specials(t):
    v = t["maps_vocab"]
    assert v["stoi"] == {
        "<PAD>": 0,
        "<BOS>": 1,
        "<EOS>": 2,
        "<UNK>": 3,
        ".": 4,
        "a": 5,
        "ball": 6,
        "found": 7,
        "lily": 8,
        "red": 9,
    }
    assert v["itos"] == sorted(v["stoi"], key=v["stoi"].get)
    assert v["C"] == 10 and v["n_specials"] == 4 and v["n_words"] == 6
    assert v["blue_in_vocab"] is False
    assert v["blue_ids"] == [3]
    assert v["blue_story_ids"] == [1, 3, 2]
    assert [row[:2] for row in v["table"]["rows"]] == [[i, tok] for i, tok in enumerate(v["itos"])]


def test_tokenization(t):
    tok = t["maps_tokenize"]
    assert tok["pieces"] == ["lily", "found", "a", "red", "ball", "."]
    assert tok["counts"] == [2, 7, 3]
    assert [row[2] for row in tok["choices"]["rows"]] == [2, 7, 3]
    assert all("".join(row[1]) == "redder!" for row in tok["choices"]["rows"])
    assert tok["probes"]["rows"] == [
        ["Lily can't find 12 balls!", ["lily", "can't", "find", "12", "balls", "!"]],
        ["LILY found!", ["lily", "found", "!"]],
    ]


def test_story_boundaries(t):
    s, v = t["maps_story"], t["maps_vocab"]
    assert s["ids"] == [1, 8, 7, 5, 9, 6, 4, 2]
    assert s["context_ids"] == [1, 8, 7, 5] and s["target_id"] == 9 and s["target_token"] == "red"
    counts = v["two_sentence_counts"]
    assert counts == {"bos": 1, "eos": 1, "full_stop": 2}
    assert v["two_sentence_ids"][0] == 1 and v["two_sentence_ids"][-1] == 2


def test_seven_windows(t):
    w = t["maps_windows"]
    assert w["contexts"] == [
        [0, 0, 0, 1],
        [0, 0, 1, 8],
        [0, 1, 8, 7],
        [1, 8, 7, 5],
        [8, 7, 5, 9],
        [7, 5, 9, 6],
        [5, 9, 6, 4],
    ]
    assert w["targets"] == [8, 7, 5, 9, 6, 4, 2]
    assert w["N"] == 7 == w["ordinary_tokens"] + 1
    assert w["X_shape"] == [7, 4] and w["y_shape"] == [7]
    assert w["pad_targets"] == 0 and w["last_target"] == 2
    assert [r[1] for r in w["table"]["rows"]] == w["contexts"]
    assert [r[3] for r in w["table"]["rows"]] == w["targets"]


def test_histories_by_width_and_batches(t):
    s, b = t["maps_story"], t["maps_batch"]
    assert s["contexts_by_width"] == {"2": [9, 6], "4": [7, 5, 9, 6], "6": [1, 8, 7, 5, 9, 6]}
    assert b["X"] == [[0, 1, 8, 7], [1, 8, 7, 5]] and b["y"] == [5, 9]
    assert b["X_shape"] == [2, 4] and b["y_shape"] == [2]
    assert b["batch_sizes"] == [2, 2, 2, 1] and b["steps_per_pass"] == 4
    assert b["dims"] == {"B": 2, "w": 4, "C": 10, "d": 4, "h": 8, "d_k": 3, "d_v": 2, "wd": 16, "Bh": 16}
    assert b["lily_slots"] == [3, 2]  # ID 8 ("lily") in X[0] = [0, 1, 8, 7] and X[1] = [1, 8, 7, 5], from 1
    assert b["course"]["presentations"] == b["course"]["steps"] * b["course"]["batch_size"]


def test_prompt_to_context(t):
    g = t["maps_generation"]
    assert g["prompt_ids"] == [8, 7]
    assert g["history"] == [1, 8, 7]
    assert g["context"] == [0, 1, 8, 7]


def test_mlp_shapes_and_seeded_numbers(t):
    m = t["maps_mlp"]
    assert m["E_shape"] == [2, 4, 4] and m["flat_shape"] == [2, 16]
    assert m["hidden_shape"] == [2, 8] and m["logits_shape"] == [2, 10]
    assert m["layer_order"] == ["token_embedding", "hidden_layer", "vocab_head"]
    assert m["padding_idx"] == 0 and m["pad_row"] == [0.0, 0.0, 0.0, 0.0]
    assert m["E"][0][0] == [0.0] * 4
    assert m["flat"][1][:4] == m["E"][1][0]
    assert all(v >= 0 for row in m["hidden"] for v in row)
    e1 = m["example1"]
    assert e1["guess"] == "red" and e1["target"] == "red"
    assert round(e1["target_probability"], 7) == 0.1444295
    assert round(m["frozen_loss"], 7) == 2.2394907


def test_manual_softmax_cross_entropy_gradient_and_sgd(t):
    m = t["maps_mlp"]
    z = m["example1"]["logits"]
    exps = [math.exp(v - max(z)) for v in z]
    p = [v / sum(exps) for v in exps]
    assert p == pytest.approx(m["example1"]["p"], abs=1e-6)
    assert sum(m["example1"]["p"]) == pytest.approx(1.0, abs=1e-6)
    logits = torch.tensor(m["logits"])
    y = torch.tensor(t["maps_batch"]["y"])
    torch_losses = F.cross_entropy(logits, y, reduction="none")
    manual = [-math.log(math.exp(row[k]) / sum(math.exp(v) for v in row)) for row, k in zip(m["logits"], [5, 9])]
    assert manual == pytest.approx(torch_losses.tolist(), abs=1e-5)
    assert m["losses"] == pytest.approx(manual, abs=1e-5)
    assert m["loss"] == pytest.approx(sum(manual) / 2, abs=1e-5)
    g = m["grad"]
    by_hand = sum((pr - ind) * h for pr, ind, h in zip(g["p_red"], g["is_red"], g["hidden_0"])) / 2
    assert g["autograd"] == pytest.approx(by_hand, abs=1e-7)
    assert g["manual"] == pytest.approx(g["autograd"], abs=1e-7)
    s = m["sgd"]
    assert s["new"] == pytest.approx(s["old"] - 0.1 * g["autograd"], abs=1e-7)
    assert s["new"] != s["old"]
    assert s["loss_after"] < s["loss_before"]


def test_layer_creation_order_matters():
    """0.1444295 depends on the MLP creating token embedding, hidden layer and
    vocabulary head in that order after manual_seed(11): a different order of
    the same layers gives different numbers."""
    X = torch.tensor([[0, 1, 8, 7], [1, 8, 7, 5]])
    torch.set_grad_enabled(False)
    try:
        _check_orders(X)
    finally:
        torch.set_grad_enabled(True)


def _check_orders(X):
    torch.manual_seed(11)
    mlp = FixedWindowMLP(MLPConfig(C=10, w=4, d=4, h=8, pad_id=0))
    assert round(float(mlp(X)[1].softmax(-1)[9]), 7) == 0.1444295
    torch.manual_seed(11)
    head = torch.nn.Linear(8, 10)
    hidden = torch.nn.Linear(16, 8)
    emb = torch.nn.Embedding(10, 4, padding_idx=0)
    p = torch.relu(hidden(emb(X).flatten(1))) @ head.weight.T + head.bias
    assert round(float(p[1].softmax(-1)[9]), 7) != 0.1444295


def test_attention_shapes_mask_and_agreement(t):
    a = t["maps_attention"]
    assert a["E_shape"] == [2, 4, 4]
    assert a["q_shape"] == [2, 1, 3] and a["K_shape"] == [2, 4, 3] and a["V_shape"] == [2, 4, 2]
    assert a["scores_shape"] == [2, 1, 4] and a["weights_shape"] == [2, 1, 4]
    assert a["message_shape"] == [2, 1, 2] and a["update_shape"] == [2, 4]
    assert a["W_K_shape"] == [4, 3] and a["W_V_shape"] == [4, 2] and a["W_O_shape"] == [2, 4]
    assert a["pad_weight"] == 0.0 and a["weights"][0][0][0] == 0.0
    assert a["masked_scores"][0][0][0] == "−∞"
    assert all(isinstance(v, float) for v in a["masked_scores"][1][0])
    assert [row[0] for row in a["weight_sums"]] == pytest.approx([1.0, 1.0], abs=1e-6)
    # the manual softmax over the unmasked scores of example 0
    s = a["scores"][0][0][1:]
    e = [math.exp(v - max(s)) for v in s]
    assert a["weights"][0][0][1:] == pytest.approx([v / sum(e) for v in e], abs=1e-6)
    # message = sum_j a_j v_j for example 1
    msg = [sum(a["weights"][1][0][j] * a["V"][1][j][c] for j in range(4)) for c in range(2)]
    assert a["message"][1][0] == pytest.approx(msg, abs=1e-6)
    # score = q . k / sqrt(3)
    q, K = a["q"][1][0], a["K"][1]
    assert a["scores"][1][0] == pytest.approx([sum(x * y for x, y in zip(q, k)) / math.sqrt(3) for k in K], abs=1e-6)
    assert a["max_abs_diff_forward"] < 1e-6 and a["max_abs_diff_forward_details"] < 1e-6


def test_generation_choices(t):
    g = t["maps_generation"]
    assert [g["p"][i] for i in g["blocked_ids"]] == [0.0, 0.0, 0.0]
    assert g["blocked_ids"] == [0, 1, 3]
    assert sum(g["p"]) == pytest.approx(1.0, abs=1e-6)
    assert g["greedy_id"] == max(range(10), key=lambda i: g["p"][i])
    cdf = g["cdf"]
    assert cdf == pytest.approx([sum(g["p"][: i + 1]) for i in range(10)], abs=1e-6)
    first = next(i for i, c in enumerate(cdf) if c >= 0.8)
    assert g["sample_id"] == first and g["draw"] == 0.8
    assert g["trace"]["rows"][0][1] == [0, 1, 8, 7] and g["trace"]["rows"][0][3] == g["greedy_id"]
    for prev, nxt in zip(g["trace"]["rows"], g["trace"]["rows"][1:]):
        assert nxt[1] == (prev[1] + [prev[3]])[-4:]  # the chosen token becomes input
    assert g["parameters_unchanged"] is True


def test_all_tables_are_plain_json(t):
    from export.tables import to_json

    for name, value in t.items():
        assert name.startswith("maps_")
        to_json(name, value)  # raises on NaN/inf or non-JSON values


def test_embedding_table_and_batch_rows_are_the_same_tensor(t):
    """The lookup slide and the batch slide show the same rows: every E[b, s] is row
    X[b, s] of the table shown (once, the table was read after the SGD step)."""
    m, b = t["maps_mlp"], t["maps_batch"]
    for bi, row in enumerate(b["X"]):
        for s, token_id in enumerate(row):
            assert m["E"][bi][s] == m["embedding_table"][token_id]
    assert m["found_row"] == m["embedding_table"][m["found_id"]]
