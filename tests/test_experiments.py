"""What each head is worth and where attention wins (export/experiments.py,
export/attention_wins.py, the results deck's tables): the splits on a
hand-checkable fixture, the per-window losses against the PyTorch references
(models.train's test loss, export/ablation.py), the built result against
models/results.json, and the build runner's rule for its stage (a warm
build does not recompute; a changed checkpoint does)."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from common.config import CONFIG
from common.files import read_json, sha256_file
from common.layout import MODELS, ModelsFolder
from common.runner import RECORDS, Runner
from common.settings import ROOT
from common.stages import stage
from export import attention_wins as wins
from export import experiments
from export.ablation import ablated_attend
from export.tables import compute
from export.tables.kit.sources import Sources
from models.checkpoints import load_checkpoint
from models.corpus import make_windows
from models.nets import KINDS
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID

BUILT = experiments.EXPERIMENTS_DIR / experiments.RESULT


# ---------------------------------------------------------------- the splits, by hand


def fixture_stories():
    """Two stories: BOS 10 11 10 EOS and BOS 12 UNK; windows of width 4."""
    return [[BOS_ID, 10, 11, 10, EOS_ID], [BOS_ID, 12, UNK_ID]]


def test_positions_and_distances_on_a_hand_checked_fixture():
    stories = fixture_stories()
    X, y = make_windows(stories, context=4)
    X, y = X.numpy(), y.numpy()
    assert y.tolist() == [10, 11, 10, EOS_ID, 12, UNK_ID]
    assert wins.positions(stories).tolist() == [1, 2, 3, 4, 1, 2]
    # target 10 at t=3: window [PAD, BOS, 10, 11] -> 10 sits two slots back; every other target is new
    assert wins.distances(X, y).tolist() == [0, 0, 2, 0, 0, 0]
    # the last occurrence counts: window [10, 7, 10, 8] -> target 10 is two back, not four
    assert wins.distances(np.array([[10, 7, 10, 8], [PAD_ID] * 4]), np.array([10, PAD_ID])).tolist() == [2, 0]


def test_split_means_and_counts_on_a_hand_checked_fixture():
    stories = fixture_stories()
    X, y = (a.numpy() for a in make_windows(stories, context=4))
    losses = {
        "mlp": np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=np.float32),
        "attn1": np.array([1.0, 2.0, 1.0, 4.0, 5.0, 6.0], dtype=np.float32),
        "attn4": np.array([0.5, 1.0, 1.0, 5.0, 5.0, 4.0], dtype=np.float32),
    }
    itos = {i: f"w{i}" for i in range(20)} | {BOS_ID: "<BOS>", EOS_ID: "<EOS>", UNK_ID: "<UNK>", PAD_ID: "<PAD>"}
    out = wins.analyse(losses, X, y, stories, [itos[i] for i in range(20)])
    for name, rows in out["splits"].items():
        assert sum(r["count"] for r in rows) == len(y), name
    distance = {r["label"]: r for r in out["splits"]["distance"]}
    assert distance["not in the window"]["count"] == 5
    assert distance["2–4 back"]["count"] == 1
    assert distance["2–4 back"]["mlp_minus_attn4"] == pytest.approx(2.0)  # 3 - 1
    # not in the window: mlp 1,2,4,5,6 vs attn4 0.5,1,5,5,4 -> differences 0.5,1,-1,0,2
    assert distance["not in the window"]["mlp_minus_attn4"] == pytest.approx(2.5 / 5)
    assert distance["not in the window"]["attn4_less_surprised_share"] == pytest.approx(3 / 5)
    freq = {r["label"]: r["count"] for r in out["splits"]["frequency"]}
    assert freq["<EOS>"] == 1 and freq["<UNK>"] == 1 and freq["top 100"] == 4
    position = {r["label"]: r for r in out["splits"]["position"]}
    assert position["1–8"]["count"] == 6 and position["64+"]["count"] == 0
    assert position["64+"]["mlp_minus_attn4"] is None
    assert out["overall"]["mlp_minus_attn1"] == pytest.approx(2.0 / 6)
    helps, hurts = out["windows"]["helps"], out["windows"]["hurts"]
    assert [w["window"] for w in helps[:3]] == [2, 5, 1]  # differences 2, 2, 1: ties keep window order
    assert hurts[0]["window"] == 3 and hurts[0]["target"] == "<EOS>"
    assert hurts[0]["context"] == ["<BOS>", "w10", "w11", "w10"]
    assert hurts[0]["mlp_minus_attn4"] == pytest.approx(-1.0)


def test_the_windows_must_match_the_stories():
    stories = fixture_stories()
    X, y = (a.numpy() for a in make_windows(stories, context=4))
    losses = {k: np.zeros(len(y) - 1, dtype=np.float32) for k in ("mlp", "attn1", "attn4")}
    with pytest.raises(ValueError, match="windows but the stories give"):
        wins.analyse(losses, X[:-1], y[:-1], stories, ["x"] * 20)


# ---------------------------------------------------------------- the losses, against PyTorch


@pytest.fixture(scope="module")
def seed11():
    return {kind: load_checkpoint(kind)[0].eval() for kind in KINDS}


def test_every_variant_matches_the_pytorch_references_on_real_windows(seed11):
    torch.manual_seed(3)
    # real-looking windows: random IDs with PAD on the left, plus one all-but-last PAD
    X = torch.randint(4, 4000, (48, 64))
    for i in range(48):
        X[i, : i + 1] = PAD_ID
    y = torch.randint(2, 4000, (48,))
    specs = experiments.variants({k: seed11[k].n_heads for k in ("attn1", "attn4")})
    assert [s["name"] for s in specs] == [
        "mlp", "attn1", "attn1-off0", "attn4", "attn4-off0", "attn4-off1", "attn4-off2", "attn4-off3", "attn4-off-all"
    ]  # fmt: skip
    got = experiments.window_losses(seed11, X, y, specs)
    with torch.no_grad():
        for s in specs:
            model = seed11[s["kind"]]
            logits = model(X) if s["kind"] == "mlp" else ablated_attend(model, X, s["heads_off"])[0]
            want = F.cross_entropy(logits, y, reduction="none").numpy()
            np.testing.assert_allclose(got[s["name"]], want, rtol=0, atol=2e-5, err_msg=s["name"])
        # every head on: exactly the trained model's forward, which the test evaluation used
        for kind in ("attn1", "attn4"):
            want = F.cross_entropy(seed11[kind](X), y, reduction="none").numpy()
            assert np.array_equal(got[kind], want)
    assert not np.allclose(got["attn4"], got["attn4-off2"])  # switching a head off changes something


def test_the_built_result_is_current_and_its_baselines_are_the_test_losses():
    assert BUILT.is_file(), "build/experiments is missing: run `make site`"
    result = read_json(BUILT)
    assert Runner().check(stage("experiments"))[1] is None, "stale: run `make site`"
    assert result["inputs"] == experiments.input_files(MODELS)
    runs = {r["kind"]: r for r in read_json(MODELS.results)["runs"] if r["seed"] == CONFIG.training.checkpoint_seed}
    assert result["test_windows"] == read_json(MODELS.results)["test_windows"]
    for kind in KINDS:
        v = result["variants"][kind]
        assert v["loss"] == pytest.approx(runs[kind]["test_loss"], abs=1e-6), kind
        assert v["perplexity"] == pytest.approx(math.exp(v["loss"]))
    assert result["wins"]["total"] == result["test_windows"]
    for name, rows in result["wins"]["splits"].items():
        assert sum(r["count"] for r in rows) == result["test_windows"], name
        weighted = sum(r["count"] * r["mlp_minus_attn4"] for r in rows if r["count"]) / result["test_windows"]
        assert weighted == pytest.approx(result["variants"]["mlp"]["loss"] - result["variants"]["attn4"]["loss"])
    helps = [w["mlp_minus_attn4"] for w in result["wins"]["windows"]["helps"]]
    hurts = [w["mlp_minus_attn4"] for w in result["wins"]["windows"]["hurts"]]
    assert len(helps) == len(hurts) == wins.SHOWN
    assert helps == sorted(helps, reverse=True) and hurts == sorted(hurts) and hurts[-1] < helps[-1]


# ---------------------------------------------------------------- the cache


def test_a_warm_run_skips_and_a_changed_checkpoint_recomputes(tmp_path, monkeypatch):
    """The runner's check of the experiments stage, on a copy of the project's
    inputs, code and result read against the build's own record."""
    job = stage("experiments")
    root = tmp_path / "root"
    for name in ("common", "models", "export", "data"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(BUILT.parent, root / "build" / "experiments")
    copy = Runner(root=root, records=RECORDS)
    assert copy.check(job)[1] is None  # same bytes, same fingerprint: a warm build skips it
    info = root / "models" / "checkpoints" / MODELS.info("attn4").name
    info.write_text(info.read_text() + " ", encoding="utf-8")  # same content, other bytes: another SHA-256
    assert copy.check(job)[1] == "input changed: models/checkpoints/attn4.json"

    # run by hand it computes and records what it read (into a new folder it then owns)
    out = tmp_path / "experiments"
    monkeypatch.setattr(experiments, "compute", lambda folder, log: {"seconds": 0.0, "marker": 1})
    folder = ModelsFolder(root / "models")
    assert experiments.run(folder, out, log=lambda *_: None) == "computed"
    result = json.loads((out / experiments.RESULT).read_text())
    assert result["marker"] == 1 and result["inputs"] == experiments.input_files(folder)
    assert result["inputs"][info.name] == sha256_file(info)


# ---------------------------------------------------------------- the tables


def test_the_tables_refuse_a_result_from_other_checkpoints(tmp_path):
    result = read_json(BUILT)
    result["inputs"][MODELS.weights("attn1").name] = "0" * 64
    stale = tmp_path / "experiments.json"
    stale.write_text(json.dumps(result), encoding="utf-8")
    tables = compute(["results_head_cost", "results_attention_wins"], Sources(experiments_path=stale))
    for value in tables.values():
        assert value["available"] is False and "changed since the experiments ran" in value["reason"]
    absent = compute(["results_head_cost"], Sources(experiments_path=tmp_path / "none.json"))
    assert absent["results_head_cost"]["available"] is False


def test_the_head_cost_table_reads_every_state():
    table = compute(["results_head_cost"])["results_head_cost"]
    result = read_json(BUILT)["variants"]
    attn4 = table["by_kind"]["attn4"]
    assert [h["head"] for h in attn4["heads"]] == [1, 2, 3, 4]
    for h in attn4["heads"]:
        assert h["delta"] == pytest.approx(result[f"attn4-off{h['head'] - 1}"]["loss"] - result["attn4"]["loss"])
    assert attn4["all_off"]["loss"] == result["attn4-off-all"]["loss"]
    assert table["by_kind"]["attn1"]["all_off"]["loss"] == result["attn1-off0"]["loss"]
    assert attn4["most_costly"]["delta"] == max(h["delta"] for h in attn4["heads"])
    assert len(table["rows"]) == 1 + (1 + 4 + 1) + (1 + 1)
    assert all(len(r) == len(table["header"]) for r in table["rows"])
