"""The Part III tables: the two toys, the real corpus excerpts, the real batch
through a four-head checkpoint, generation, and placeholders for absent
inputs. The tables of the committed inputs are read from build/tables (`make
site` wrote them); a test that changes an input computes them here."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from common.layout import MODELS, ModelsFolder
from common.settings import ROOT
from export.tables import compute, to_json
from export.tables.kit.sources import InputError, Sources
from export.tables.part3.continuations import continuations, held_out_preset
from export.tables.part3.real import generation_step, real_batch
from export.tables.part3.toys import W_O, fisherman, two_source
from models.checkpoints import load_checkpoint
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from support.builds import make_models_dir

VOCAB = MODELS.vocab


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    return make_models_dir(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="module")
def corpus(course_corpus):
    return course_corpus


def sources(corpus, **paths) -> Sources:
    """The tables' inputs over these paths, with the course corpus already prepared
    (it is read from data/, whatever the models folder)."""
    return Sources(**paths, _cache={"corpus": corpus})


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
def test_corpus_examples_are_real_stories_picked_by_rule(corpus, table):
    t = table("part3_corpus")
    every = [s for split in corpus.stories.values() for s in split]
    shortest = min(len(s["ids"]) - 2 for s in every)
    assert t["shortest"]["tokens"] == shortest
    by_origin = {(s["origin_file"], s["origin_index"]): s for s in every}
    short = by_origin[(t["shortest"]["origin_file"], t["shortest"]["origin_index"])]
    assert t["shortest"]["text"] == short["text"]  # shown unchanged
    sample = by_origin[(t["sample"]["origin_file"], t["sample"]["origin_index"])]
    assert sample["text"].startswith(t["sample"]["text_excerpt"].removesuffix(" […]"))
    assert t["long"][-1]["tokens"] == max(len(s["ids"]) - 2 for s in every)
    assert t["credit"]["license"] == "CDLA-Sharing-1.0" and "Eldan" in t["credit"]["authors"]


def test_split_counts_come_from_the_audit(models_dir, corpus):
    audit = json.loads((models_dir / "corpus_audit.json").read_text())
    tables = compute(["part3_corpus"], sources(corpus, models_dir=models_dir, export_dir=models_dir / "none"))
    table = tables["part3_corpus"]["audit"]
    for name, docs, tokens, windows in table["rows"]:
        assert docs == audit["splits"][name]["documents"]
        assert windows == tokens + docs == audit["splits"][name]["windows"]


# ------------------------------------------------------------------ the real batch
def test_real_batch_through_four_heads(models_dir):
    t = real_batch(Sources(models_dir=models_dir))
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

    model, _ = load_checkpoint("attn4", ModelsFolder(models_dir))
    X = torch.tensor([[PAD_ID] * n + ids for n, ids in zip(t["pad_counts"], t["prefix_ids"])])
    with torch.no_grad():
        expected = F.cross_entropy(model(X), torch.tensor(t["target_ids"]))
    assert m["loss"] == pytest.approx(float(expected), rel=1e-5)
    assert -math.log(m["target_probabilities"][0]) - math.log(m["target_probabilities"][1]) == pytest.approx(
        2 * m["loss"], rel=1e-4
    )
    assert m["loss_after_step"] < m["loss"]  # one AdamW step on this batch helps it
    assert len(m["parameters_with_gradient"]) == m["n_parameter_tensors"]


def test_generation_step_is_the_greedy_allowed_choice(models_dir):
    g = generation_step(Sources(models_dir=models_dir))
    assert g["history"][0] == BOS_ID and g["pad_count"] == 64 - len(g["history"])
    assert g["choice_id"] not in (PAD_ID, BOS_ID, UNK_ID)
    assert g["top"]["labels"][0] == g["choice"]
    assert g["top"]["values"] == sorted(g["top"]["values"], reverse=True)
    # the slide's renormalisation: p(choice) among the allowed IDs = unblocked p / (1 - specials' share)
    expected = g["choice_probability_unblocked"] / (1 - g["excluded_probability"])
    assert g["top"]["values"][0] == pytest.approx(expected, rel=1e-5)


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
    presets = [
        {"id": "train-1", "prompt": "Tom had a red ball. He"},
        {
            "id": "test-shortest",
            "prompt": "Once there was a bald man who wanted to",
            "source": {"split": "test", "origin_file": "f.txt", "origin_index": 3},
        },
    ]
    (export / "presets.json").write_text(json.dumps(presets))
    assert held_out_preset(presets)["id"] == "test-shortest"
    t = continuations(Sources(models_dir=models_dir, export_dir=export))
    assert t["available"] and t["prompt"] == presets[1]["prompt"]
    from models.checkpoints import load_checkpoint

    for entry in t["models"]:
        model, _ = load_checkpoint(entry["kind"], ModelsFolder(models_dir))
        assert entry["ids"] == plain_greedy(model, [BOS_ID] + t["prompt_ids"])
        assert len(entry["ids"]) <= 24
        assert (entry["stop"] == "limit") == (len(entry["ids"]) == 24)


# ------------------------------------------------------------------ absent and corrupt inputs
def test_absent_inputs_give_placeholders_without_numbers(tmp_path, corpus):
    empty = tmp_path / "models"
    empty.mkdir()
    tables = compute(["part3"], sources(corpus, models_dir=empty, export_dir=tmp_path / "export"))
    for name in ("part3_batch", "part3_generation", "part3_continuations"):
        assert tables[name]["available"] is False
        assert set(tables[name]) == {"available", "reason"}
        assert "does not exist yet" in tables[name]["reason"]
        to_json(name, tables[name])
    assert tables["part3_corpus"]["audit"]["available"] is False


def test_vocab_without_checkpoint_still_remaps_the_prefixes(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    shutil.copy(VOCAB, tmp_path / "checkpoints" / "vocab.json")
    t = real_batch(Sources(models_dir=tmp_path))
    assert t["available"] and t["model"]["available"] is False
    assert "attn4.safetensors" in t["model"]["reason"]


def test_corrupt_checkpoint_stops_with_its_name(models_dir, tmp_path):
    bad = make_models_dir(tmp_path / "bad", kinds=("attn4",))
    weights = bad / "checkpoints" / "attn4.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8] + b"corrupt!")
    with pytest.raises(InputError, match="attn4.safetensors"):
        real_batch(Sources(models_dir=bad))


def test_corrupt_presets_stop_with_its_name(models_dir, tmp_path):
    (tmp_path / "presets.json").write_text("{not json")
    with pytest.raises(InputError, match="presets.json"):
        continuations(Sources(models_dir=models_dir, export_dir=tmp_path))


def test_continuations_must_agree_with_the_exported_reference(models_dir, tmp_path):
    presets = [{"id": "test-shortest", "prompt": "Once there was a bald man"}]
    (tmp_path / "presets.json").write_text(json.dumps(presets))
    good = continuations(Sources(models_dir=models_dir, export_dir=tmp_path))
    parity = {"continuations": {m["kind"]: {"test-shortest": {"greedy": {"ids": m["ids"]}}} for m in good["models"]}}
    (tmp_path / "parity.json").write_text(json.dumps(parity))
    checked = continuations(Sources(models_dir=models_dir, export_dir=tmp_path))  # a new run reads the new file
    assert all(m["checked_against_export"] for m in checked["models"])
    parity["continuations"]["attn4"]["test-shortest"]["greedy"]["ids"] = [5, 6, 7]
    (tmp_path / "parity.json").write_text(json.dumps(parity))
    with pytest.raises(InputError, match="parity.json.*attn4.*stale"):
        continuations(Sources(models_dir=models_dir, export_dir=tmp_path))


def test_settings_come_from_the_code_the_course_runs(table):
    from export.parity import LIMIT

    s = table("part3_settings")
    assert s["heads"] * s["head_width"] == s["d"] == s["one_head_width"]
    assert s["limit"] == LIMIT == 24  # the exporter's saved continuations use the same limit
    assert s["banned"] == ["<PAD>", "<BOS>", "<UNK>"]
    assert (s["C"], s["T"]) == (4000, 64)


# ------------------------------------------------------------------ how the real models were trained
def test_sampling_replays_the_draws_train_py_makes(monkeypatch):
    """The slide's "drawn with replacement" counts replay models/train.py's own
    random draws: record what train_run draws and compare."""
    from export.tables.part3.training import draws
    from models import train
    from models.corpus import Profile

    recorded = []
    original = torch.randint

    def spy(*args, **kwargs):
        out = original(*args, **kwargs)
        if kwargs.get("generator") is not None:
            recorded.append(out.clone())
        return out

    monkeypatch.setattr(torch, "randint", spy)
    g = torch.Generator().manual_seed(0)
    X, y = original(0, 20, (50, 64), generator=g), original(0, 20, (50,), generator=g)
    profile = Profile("tiny", 10, 20, steps=3, batch_size=8, eval_every=3, val_windows=10)
    train.train_run(
        "attn1", 29, profile, {"train": (X, y), "val": (X[:10], y[:10]), "test": (X[:10], y[:10])}, 20, progress=False
    )
    assert torch.equal(torch.stack(recorded), draws(50, 8, 3, 29))


def test_sampling_counts_are_consistent():
    from export.tables.part3.training import sampling

    s = sampling(1000, seed=11, profile="smoke")
    assert s["draws"] == s["batch_size"] * s["steps"]
    assert s["distinct_drawn"] + s["never_drawn"] == 1000
    # with replacement: more draws than distinct windows
    assert s["distinct_drawn"] < s["draws"] and s["most_draws"] > 1
    assert abs(s["never_drawn_percent"] - s["expected_never_percent"]) < 2.0


def test_embedding_rules_on_the_committed_checkpoint(corpus, table):
    """PAD row zero, EOS never an input (no gradient: still its decayed starting
    row), BOS and UNK inputs whose rows learned."""
    t = table("part3_embeddings")
    assert t["available"]
    by = t["by_token"]
    assert t["pad_row_max_abs"] == 0.0 and by["<PAD>"]["batch_grad_norm"] == 0.0
    assert (
        by["<EOS>"]["input_count"] == 0 and by["<EOS>"]["target_count"] == corpus.audit["splits"]["train"]["documents"]
    )
    assert by["<EOS>"]["batch_grad_norm"] == 0.0 and by["<EOS>"]["output_grad_norm"] > 0
    assert by["<EOS>"]["cosine_to_start"] > 0.9999 and by["<EOS>"]["gap_to_decayed_start"] < 1e-3
    for tok in ("<BOS>", "<UNK>"):
        assert by[tok]["input_count"] > 0 and by[tok]["batch_grad_norm"] > 0
        assert by[tok]["cosine_to_start"] < 0.99 and by[tok]["gap_to_decayed_start"] > 0.1
    assert t["position_shape"] == [64, 64] and t["position_parameters"] == 64 * 64
    assert t["position_cos_neighbours"] > t["position_cos_far"]
    # the starting table (rebuilt from the seed) is the baseline the slide quotes: random rows, no order
    assert abs(t["start_position_cos_neighbours"]) < 0.05 and abs(t["start_position_cos_far"]) < 0.05
    gaps = t["position_cos_by_gap"]
    assert len(gaps) == 63 and gaps[0] == pytest.approx(t["position_cos_neighbours"])
    import xml.etree.ElementTree as ET

    line = ET.fromstring(t["position_svg"]).find(".//{http://www.w3.org/2000/svg}polyline")
    assert len(line.get("points").split()) == 64 - t["position_min_pairs"]


def test_comparison_caveats_come_from_the_checkpoints_and_settings(table):
    from export.tables.part3.comparison import comparison
    from models.train import OPTIMIZER

    t = table("part3_comparison")
    p = t["parameters"]
    assert t["attention_equal"] and p["attn1"] == p["attn4"]
    assert t["mlp_ratio"] == p["mlp"] / p["attn4"] and f"{t['mlp_ratio']:.2f}" == "1.77"
    assert t["optimizer_reused"] and t["optimizer"]["attn4"] == {
        "lr": OPTIMIZER["attn1"][0],
        "weight_decay": OPTIMIZER["attn1"][1],
    }
    assert t["optimizer_recorded"] == t["optimizer"]  # what the runs recorded is what the code sets
    assert comparison(Sources(models_dir=ROOT / "nowhere"), None)["available"] is False


def test_seed_curves_mark_the_best_step_not_the_last():
    import xml.etree.ElementTree as ET

    from export.tables.part3.comparison import seed_curves

    results_json = json.loads(MODELS.results.read_text(encoding="utf-8"))
    t = seed_curves(results_json, 11)
    runs = [r for r in results_json["runs"] if r["seed"] == 11]
    for x, r in zip(t["runs"], runs):
        best = min(r["val_trace"], key=lambda p: p["val_loss"])
        assert x["selected_step"] == best["step"] == r["selected_step"]
        assert x["best_is_last"] == (best["step"] == r["val_trace"][-1]["step"])
    svg = ET.fromstring(t["svg"])
    ns = "{http://www.w3.org/2000/svg}"
    assert svg.find(f"{ns}title").text and "best" in svg.find(f"{ns}desc").text
    assert len(svg.findall(f".//{ns}circle[@class='selected']")) == len(runs)
    assert len(svg.findall(f".//{ns}rect[@class='last']")) == len(runs)
    assert t["not_last"], "the committed seed-11 runs include one whose best step is not the last"


def test_attention_cost_counts():
    from export.tables.part3.comparison import cost

    c = cost(64, 64, 4)
    assert c["scores_madds"] == c["mixing_madds"] == 64 * 64 * 64 == c["T2D"]
    assert c["weights_stored"] == {"1": 64 * 64, "4": 4 * 64 * 64}
    assert c["rows"][0][1] == c["rows"][1][1]  # time does not depend on the head count
    assert c["rows"][1][3] == 4 * c["rows"][0][3]  # storage does


def test_figures_are_drawn_from_their_numbers(models_dir):
    import xml.etree.ElementTree as ET

    from export.tables.kit.heads import attention_arrows, head_split
    from export.tables.part3.figures import pipeline

    ns = "{http://www.w3.org/2000/svg}"
    f = fisherman()
    svg = ET.fromstring(head_split("x", 10, 4, 2, 2, "split"))
    assert svg.get("role") == "img" and svg.find(f"{ns}title").text == "split"
    assert len(svg.findall(f".//{ns}rect[@class='head-slice']")) == 2
    rows = [h["weights"] for h in f["heads"]]
    svg = ET.fromstring(attention_arrows("y", f["token_labels"], rows, "the", "arrows"))
    lines = svg.findall(f".//{ns}line[@class='weight']")
    drawn = {(int(l.get("data-head")), int(l.get("data-slot"))): float(l.get("data-weight")) for l in lines}
    for h, row in enumerate(rows):
        for i, w in enumerate(row):
            if w > 0.0005:
                assert drawn[(h + 1, i)] == pytest.approx(w, abs=1e-6)
    # a heavier weight is drawn with a thicker line
    widths = sorted((float(l.get("data-weight")), float(l.get("stroke-width"))) for l in lines)
    assert [w for _, w in widths] == sorted(w for _, w in widths)
    audit = json.loads(MODELS.audit.read_text(encoding="utf-8"))
    desc = ET.fromstring(pipeline(audit, 512, 6000, 64)).find(f"{ns}desc").text
    assert f"{audit['splits']['train']['windows']:,}" in desc and f"{audit['selected_stories']:,}" in desc


# ------------------------------------------------------------------ sampling, overfitting, full Transformer


def test_sampling_table_applies_the_decoding_rule_to_the_real_logits(table):
    """Each shown probability is softmax(logits / T) over the allowed IDs, cut
    by top-k / top-p with export/decoding.py's rule; small T is greedy."""
    from export.decoding import BANNED, kept_ids, sampling_weights

    t = table("part3_decoding")
    logits = torch.tensor(t["logits"], dtype=torch.float64)
    allowed = torch.ones(len(logits), dtype=torch.bool)
    allowed[sorted(BANNED)] = False
    for check in t["checks"]:
        T, k, p = check["temperature"], check["top_k"], check["top_p"]
        keep = torch.zeros_like(allowed)
        keep[kept_ids(t["logits"], sampling_weights(t["logits"], T), k, p)] = True
        want = torch.softmax((logits / T).masked_fill(~(allowed & keep), float("-inf")), -1)
        for name, q in check["top"]:
            assert q == pytest.approx(float(want[t["labels"].index(name)]), abs=1e-12)
        assert check["kept"] == int((want > 0).sum())
    rows = t["temperature_table"]["rows"]
    assert all(sum(r[c] for r in rows) == pytest.approx(1.0) for c in (1, 2, 3))
    assert rows[0][1] > rows[0][2] > rows[0][3]  # the top token gains as T falls
    assert t["top_p_kept"] == t["checks"][4]["kept"] and t["small_temperature_top"] > 0.99


def test_small_gpt_count_is_gpt2_small_and_ours_is_the_checkpoint(table):
    from export.tables.part3.transformer import GPT2_SMALL

    t = table("part3_transformer")
    g = GPT2_SMALL
    d, L, V, n = g["d"], g["layers"], g["vocab"], g["context"]
    per_block = 2 * 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d)
    assert t["gpt"]["parameters"] == V * d + n * d + L * per_block + 2 * d == 124_439_808
    model, _ = load_checkpoint("attn4")
    assert t["ours"]["parameters"] == sum(p.numel() for p in model.parameters())


def test_overfitting_reads_the_recorded_losses():
    from export.tables.part3.overfitting import overfitting

    results = json.loads(MODELS.results.read_text(encoding="utf-8"))
    t = overfitting(results)
    for run in (r for r in results["runs"] if r["seed"] == t["seed"]):
        row = t["by_kind"][run["kind"]]
        best = next(p for p in run["val_trace"] if p["step"] == run["selected_step"])
        assert (row["best_train"], row["best_val"]) == (best["train_loss"], best["val_loss"])
        assert row["last_val"] == run["val_trace"][-1]["val_loss"]
        assert row["best_val"] == min(p["val_loss"] for p in run["val_trace"])
    assert overfitting(None)["available"] is False


def test_the_split_recap_draws_counts_per_split_in_part_ones_colour(tables_dir):
    """Part III's recap of the windows per split and Part I's stories per split
    are counts per split: one colour, Part I's, not a shade of the attention-weight
    ramp (issue 35 item 1: a colour keeps one meaning)."""
    import re

    from common.palette import WEIGHT_SCALE, scale_colour

    def bar_fills(svg: str) -> set[str]:  # the fills of the drawn boxes: bars, tracks, the axis
        return {f.lower() for f in re.findall(r'<rect[^>]*fill="(#[0-9a-fA-F]{6})"', svg)}

    recap = json.loads((tables_dir / "part3_pictures.json").read_text(encoding="utf-8"))["windows"]
    part1 = json.loads((tables_dir / "maps_corpus_figures.json").read_text(encoding="utf-8"))["stories"]
    ramp = {scale_colour(t / 20, WEIGHT_SCALE).lower() for t in range(1, 21)}
    assert not bar_fills(recap) & ramp, bar_fills(recap) & ramp
    assert bar_fills(recap) == bar_fills(part1)
