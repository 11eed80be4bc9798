"""The Part III tables: the two toys, the real corpus excerpts, the real batch
through a four-head checkpoint, generation, and placeholders for absent
inputs."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from export.tables import part3, to_json
from export.tables._part3_continuations import continuations, held_out_preset
from export.tables._part3_corpus import stories
from export.tables._part3_real import generation_step, real_batch
from export.tables._part3_toys import W_O, fisherman, two_source
from export.tables._results_inputs import InputError, Inputs
from models.checkpoints import save_checkpoint
from models.corpus import prepare
from models.nets import build
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from models.settings import ROOT

VOCAB = ROOT / "models" / "checkpoints" / "vocab.json"


def make_models_dir(tmp: Path, kinds=("mlp", "attn1", "attn4")) -> Path:
    """A models/ folder with randomly initialised checkpoints (seed 0) over the
    real course vocabulary, in the committed file layout."""
    ckpt = tmp / "checkpoints"
    ckpt.mkdir(parents=True)
    shutil.copy(VOCAB, ckpt / "vocab.json")
    C = len(json.loads(VOCAB.read_text(encoding="utf-8")))
    for kind in kinds:
        torch.manual_seed(0)
        save_checkpoint(build(kind, C=C).eval(), {"seed": 11, "selected_step": 750}, ckpt)
    shutil.copy(ROOT / "models" / "corpus_audit.json", tmp / "corpus_audit.json")
    return tmp


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    return make_models_dir(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="module")
def corpus():
    return prepare("course")


# ------------------------------------------------------------------ toys
def test_two_source_toy_matches_the_worked_numbers():
    t = two_source()
    assert t["one_head_message"] == pytest.approx([8.4, 2.4])
    assert t["two_head_message"] == pytest.approx([8.4, 6.6])
    # One head with weight w on river gives [8w + 2, 8 - 7w]: 8.4 needs w = 0.8 and
    # 6.6 needs w = 0.2, so no single weight row gives both.
    v = np.array(t["values"])
    w_for_first = (8.4 - v[1, 0]) / (v[0, 0] - v[1, 0])
    w_for_second = (6.6 - v[1, 1]) / (v[0, 1] - v[1, 1])
    assert w_for_first == pytest.approx(0.8) and w_for_second == pytest.approx(0.2)


def test_fisherman_worksheet_shapes_and_arithmetic():
    f = fisherman()
    assert f["n_tokens"] == 10 and f["width"] == 4 and f["n_heads"] == 2 and f["head_width"] == 2
    s = f["shapes"]
    assert s["E"] == [10, 4] and s["Q_per_head"] == [2, 10, 2] and s["A"] == [2, 10, 10]
    assert s["H"] == [2, 10, 2] and s["concat"] == [10, 4] and s["W_O"] == [4, 4] and s["out"] == [10, 4]
    E = torch.tensor(f["E"], dtype=torch.float64)
    for h, head in enumerate(f["heads"]):
        A = torch.tensor(head["weights_all"], dtype=torch.float64)
        assert torch.allclose(A.sum(-1), torch.ones(10, dtype=torch.float64))
        assert torch.all(A.triu(1) == 0), "a token attends to a later token"
        # recompute the head with torch, independently of the numpy code
        cols = slice(2 * h, 2 * h + 2)
        Q = E @ torch.tensor(f["W_Q"], dtype=torch.float64)[:, cols]
        K = E @ torch.tensor(f["W_K"], dtype=torch.float64)[:, cols]
        V = E @ torch.tensor(f["W_V"], dtype=torch.float64)[:, cols]
        scores = (Q @ K.T / math.sqrt(2)).masked_fill(torch.ones(10, 10).triu(1).bool(), float("-inf"))
        assert torch.allclose(scores.softmax(-1), A)
        assert torch.allclose(A @ V, torch.tensor(head["H"], dtype=torch.float64))
        assert head["weight_sum"] == pytest.approx(1.0)
    # concatenation, W_O and the residual for the final receiver
    concat = f["heads"][0]["message"] + f["heads"][1]["message"]
    assert f["concat_last"] == pytest.approx(concat)
    assert f["out_last"] == pytest.approx((np.array(f["E_last"]) + np.array(concat) @ W_O).tolist())
    # the hand-set numbers give the two heads different favourite sources
    assert [h["top_token"] for h in f["heads"]] == ["river", "fisherman"]


# ------------------------------------------------------------------ corpus
def test_corpus_examples_are_real_stories_picked_by_rule(corpus):
    t = stories(corpus)
    every = [s for split in corpus.stories.values() for s in split]
    shortest = min(len(s["ids"]) - 2 for s in every)
    assert t["shortest"]["tokens"] == shortest
    by_origin = {(s["origin_file"], s["origin_index"]): s for s in every}
    short = by_origin[(t["shortest"]["origin_file"], t["shortest"]["origin_index"])]
    assert t["shortest"]["text"] == short["text"]          # shown unchanged
    sample = by_origin[(t["sample"]["origin_file"], t["sample"]["origin_index"])]
    assert sample["text"].startswith(t["sample"]["text_excerpt"].removesuffix(" […]"))
    assert t["long"][-1]["tokens"] == max(len(s["ids"]) - 2 for s in every)
    assert t["credit"]["license"] == "CDLA-Sharing-1.0" and "Eldan" in t["credit"]["authors"]


def test_split_counts_come_from_the_audit(models_dir):
    audit = json.loads((models_dir / "corpus_audit.json").read_text())
    table = part3.compute(models_dir=models_dir, export_dir=models_dir / "none")["part3_corpus"]["audit"]
    for name, docs, tokens, windows in table["rows"]:
        assert docs == audit["splits"][name]["documents"]
        assert windows == tokens + docs == audit["splits"][name]["windows"]


# ------------------------------------------------------------------ the real batch
def test_real_batch_through_four_heads(models_dir):
    t = real_batch(Inputs(models_dir=models_dir))
    vocab = json.loads(VOCAB.read_text(encoding="utf-8"))
    assert t["prefix_ids"][0] == [BOS_ID, vocab.index("lily"), vocab.index("found")]
    assert t["target_ids"] == [vocab.index("a"), vocab.index("red")]
    assert t["pad_counts"] == [61, 60] and t["X_shape"] == [2, 64]
    m = t["model"]
    for name in ("Q", "K", "V"):
        assert m["shapes"][name] == [2, 4, 64, 16]
    assert m["shapes"]["weights"] == [2, 4, 64, 64] and m["shapes"]["messages"] == [2, 64, 64]
    assert m["shapes"]["logits"] == [2, t["C"]]
    assert m["found_weight_sums"] == pytest.approx([1.0] * 4, abs=1e-6)
    assert len(m["found_weights"][0]) == 3
    assert (m["found_allowed_sources"], m["lily_allowed_sources"]) == (3, 2)
    assert m["forward_matches_details"] < 1e-5
    # the loss is the cross-entropy of the two targets under the final-query forward
    from models.checkpoints import load_checkpoint
    model, _ = load_checkpoint("attn4", models_dir / "checkpoints")
    X = torch.tensor([[PAD_ID] * n + ids for n, ids in zip(t["pad_counts"], t["prefix_ids"])])
    with torch.no_grad():
        expected = F.cross_entropy(model(X), torch.tensor(t["target_ids"]))
    assert m["loss"] == pytest.approx(float(expected), rel=1e-5)
    assert -math.log(m["target_probabilities"][0]) - math.log(m["target_probabilities"][1]) == \
        pytest.approx(2 * m["loss"], rel=1e-4)
    assert m["loss_after_step"] < m["loss"]               # one AdamW step on this batch helps it
    assert len(m["parameters_with_gradient"]) == m["n_parameter_tensors"]


def test_generation_step_is_the_greedy_allowed_choice(models_dir):
    g = generation_step(Inputs(models_dir=models_dir))
    assert g["history"][0] == BOS_ID and g["pad_count"] == 64 - len(g["history"])
    assert g["choice_id"] not in (PAD_ID, BOS_ID, UNK_ID)
    assert g["top"]["labels"][0] == g["choice"]
    assert g["top"]["values"] == sorted(g["top"]["values"], reverse=True)


def plain_greedy(model, history, limit=24):
    """An independent greedy loop: BOS + prompt, last 64 left-padded, PAD/BOS/UNK
    excluded, EOS stops."""
    history, new = list(history), []
    for _ in range(limit):
        window = history[-64:]
        X = torch.tensor([[PAD_ID] * (64 - len(window)) + window])
        with torch.no_grad():
            logits = model(X)[0]
        logits[[PAD_ID, BOS_ID, UNK_ID]] = float("-inf")
        nxt = int(logits.argmax())
        if nxt == EOS_ID:
            break
        history.append(nxt)
        new.append(nxt)
    return new


def test_continuations_follow_the_decoding_rule(models_dir, tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    presets = [{"id": "train-1", "prompt": "Tom had a red ball. He"},
               {"id": "test-shortest", "prompt": "Once there was a bald man who wanted to",
                "source": {"split": "test", "origin_file": "f.txt", "origin_index": 3}}]
    (export / "presets.json").write_text(json.dumps(presets))
    assert held_out_preset(presets)["id"] == "test-shortest"
    t = continuations(Inputs(models_dir=models_dir, export_dir=export))
    assert t["available"] and t["prompt"] == presets[1]["prompt"]
    from models.checkpoints import load_checkpoint
    for entry in t["models"]:
        model, _ = load_checkpoint(entry["kind"], models_dir / "checkpoints")
        assert entry["ids"] == plain_greedy(model, [BOS_ID] + t["prompt_ids"])
        assert len(entry["ids"]) <= 24
        assert (entry["stop"] == "limit") == (len(entry["ids"]) == 24)


# ------------------------------------------------------------------ absent and corrupt inputs
def test_absent_inputs_give_placeholders_without_numbers(tmp_path):
    empty = tmp_path / "models"
    empty.mkdir()
    tables = part3.compute(models_dir=empty, export_dir=tmp_path / "export")
    for name in ("part3_batch", "part3_generation", "part3_continuations"):
        assert tables[name]["available"] is False
        assert set(tables[name]) == {"available", "reason"}
        assert "does not exist yet" in tables[name]["reason"]
        to_json(name, tables[name])
    assert tables["part3_corpus"]["audit"]["available"] is False


def test_vocab_without_checkpoint_still_remaps_the_prefixes(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    shutil.copy(VOCAB, tmp_path / "checkpoints" / "vocab.json")
    t = real_batch(Inputs(models_dir=tmp_path))
    assert t["available"] and t["model"]["available"] is False
    assert "attn4.safetensors" in t["model"]["reason"]


def test_corrupt_checkpoint_stops_with_its_name(models_dir, tmp_path):
    bad = make_models_dir(tmp_path / "bad", kinds=("attn4",))
    weights = bad / "checkpoints" / "attn4.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8] + b"corrupt!")
    with pytest.raises(InputError, match="attn4.safetensors"):
        real_batch(Inputs(models_dir=bad))


def test_corrupt_presets_stop_with_its_name(models_dir, tmp_path):
    (tmp_path / "presets.json").write_text("{not json")
    with pytest.raises(InputError, match="presets.json"):
        continuations(Inputs(models_dir=models_dir, export_dir=tmp_path))


def test_continuations_must_agree_with_the_exported_reference(models_dir, tmp_path):
    presets = [{"id": "test-shortest", "prompt": "Once there was a bald man"}]
    (tmp_path / "presets.json").write_text(json.dumps(presets))
    inputs = Inputs(models_dir=models_dir, export_dir=tmp_path)
    good = continuations(inputs)
    parity = {"continuations": {m["kind"]: {"test-shortest": {"greedy": {"ids": m["ids"]}}}
                                for m in good["models"]}}
    (tmp_path / "parity.json").write_text(json.dumps(parity))
    assert all(m["checked_against_export"] for m in continuations(inputs)["models"])
    parity["continuations"]["attn4"]["test-shortest"]["greedy"]["ids"] = [5, 6, 7]
    (tmp_path / "parity.json").write_text(json.dumps(parity))
    with pytest.raises(InputError, match="parity.json.*attn4.*stale"):
        continuations(Inputs(models_dir=models_dir, export_dir=tmp_path))


def test_settings_come_from_the_code_the_course_runs():
    from export.parity import LIMIT
    from export.tables._part3_settings import settings
    s = settings()
    assert s["heads"] * s["head_width"] == s["d"] == s["one_head_width"]
    assert s["limit"] == LIMIT == 24                    # the exporter's saved continuations use the same limit
    assert s["banned"] == ["<PAD>", "<BOS>", "<UNK>"]
    assert (s["C"], s["T"]) == (4000, 64)
