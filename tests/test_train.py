"""Smoke-profile training (what CI trains) and checkpoint I/O."""

import dataclasses
import json
import math
import statistics

import pytest
import torch

from models.checkpoints import CHECKPOINT_DIR, CheckpointError, load_checkpoint, load_vocab
from models.corpus import PROFILES, prepare
from models.nets import KINDS, build, count_parameters
from models.train import MODELS_DIR, aggregate, mean_loss, run_protocol

# The smoke profile (what CI trains), with the checkpoint seed only.
SMOKE = dataclasses.replace(PROFILES["smoke"], seeds=(11,))


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("smoke")
    return out, run_protocol(SMOKE, out, kinds=KINDS, progress=False)


def test_training_lowers_validation_loss_and_records_everything(smoke_run):
    out, results = smoke_run
    assert [r["kind"] for r in results["runs"]] == list(KINDS)
    for run in results["runs"]:
        trace = run["val_trace"]
        assert [t["step"] for t in trace] == [1] + list(range(SMOKE.eval_every, SMOKE.steps + 1, SMOKE.eval_every))
        assert min(t["val_loss"] for t in trace) < trace[0]["val_loss"] - 0.5
        best = min(trace, key=lambda t: t["val_loss"])
        assert run["selected_step"] == best["step"] and run["val_loss"] == best["val_loss"]
        assert math.isclose(run["test_perplexity"], math.exp(run["test_loss"]))
        assert run["train_seconds"] > 0 and run["torch_version"].startswith("2.13.0")
    saved = json.loads((out / "results.json").read_text())
    assert saved["aggregate"]["mlp"]["test_loss"]["mean"] == results["runs"][0]["test_loss"]
    assert (out / "corpus_audit.json").exists()


def test_same_seed_gives_same_numbers(smoke_run, tmp_path):
    _, first = smoke_run
    again = run_protocol(SMOKE, tmp_path, kinds=("attn4",), progress=False)
    a = next(r for r in first["runs"] if r["kind"] == "attn4")
    b = again["runs"][0]
    assert a["val_trace"] == b["val_trace"] and a["test_loss"] == b["test_loss"]


def test_resume_skips_recorded_runs(smoke_run):
    out, first = smoke_run
    again = run_protocol(SMOKE, out, kinds=KINDS, progress=False)
    assert again["runs"] == first["runs"]


def test_checkpoint_round_trip(smoke_run):
    out, results = smoke_run
    test_windows = prepare(SMOKE).windows("test")
    vocab = load_vocab(out / "checkpoints")
    for run in results["runs"]:
        model, info = load_checkpoint(run["kind"], out / "checkpoints")
        assert info["selected_step"] == run["selected_step"] and info["seed"] == 11
        ids = torch.tensor([[0] * 60 + [1, 5, 6, 7]])
        assert model(ids).shape == (1, len(vocab))
        assert model.config["C"] == len(vocab)
        # the saved state is the restored best-validation state that was scored on the test windows
        assert math.isclose(mean_loss(model, *test_windows), run["test_loss"], rel_tol=1e-6)


def test_corrupt_and_missing_checkpoints_give_clear_errors(smoke_run, tmp_path):
    out, _ = smoke_run
    import shutil
    ck = tmp_path / "checkpoints"
    shutil.copytree(out / "checkpoints", ck)
    data = bytearray((ck / "attn1.safetensors").read_bytes())
    data[-10] ^= 0xFF
    (ck / "attn1.safetensors").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"corrupt: .*attn1\.safetensors"):
        load_checkpoint("attn1", ck)
    (ck / "mlp.safetensors").unlink()
    with pytest.raises(CheckpointError, match=r"missing: .*mlp\.safetensors"):
        load_checkpoint("mlp", ck)
    (ck / "attn4.json").write_text("{not json")
    with pytest.raises(CheckpointError, match=r"corrupt: .*attn4\.json"):
        load_checkpoint("attn4", ck)
    (ck / "vocab.json").unlink()
    with pytest.raises(CheckpointError, match=r"vocab\.json"):
        load_vocab(ck)


# ---------------------------------------------------------------- the committed course results

@pytest.fixture(scope="module")
def committed():
    return json.loads((MODELS_DIR / "results.json").read_text(encoding="utf-8"))


def test_committed_results_follow_the_protocol(committed):
    course = PROFILES["course"]
    assert committed["profile"] == "course" and committed["validation_windows"] == course.val_windows
    runs = committed["runs"]
    assert sorted((r["kind"], r["seed"]) for r in runs) == sorted((k, s) for k in KINDS for s in course.seeds)
    for run in runs:
        assert run["parameters"] == count_parameters(build(run["kind"]))
        assert (run["steps"], run["batch_size"]) == (course.steps, course.batch_size)
        assert [t["step"] for t in run["val_trace"]] == [1] + list(range(750, 6001, 750))
        best = min(run["val_trace"], key=lambda t: t["val_loss"])
        assert (run["selected_step"], run["val_loss"]) == (best["step"], best["val_loss"])
        assert math.isclose(run["test_perplexity"], math.exp(run["test_loss"]))
        assert run["train_seconds"] > 0 and run["torch_version"].startswith("2.13.0") and run["device"]
    # the aggregate is the sample mean and SD over the three seeds, perplexity averaged per run
    assert committed["aggregate"] == aggregate(runs)
    for kind in KINDS:
        ppl = [r["test_perplexity"] for r in runs if r["kind"] == kind]
        assert committed["aggregate"][kind]["test_perplexity"]["sd"] == statistics.stdev(ppl)
    mean = {k: committed["aggregate"][k]["test_perplexity"]["mean"] for k in KINDS}
    assert mean["attn4"] < mean["attn1"] < mean["mlp"]


def test_committed_checkpoints_reproduce_the_seed_11_test_loss(committed):
    test_windows = prepare("course").windows("test")
    assert len(test_windows[1]) == committed["test_windows"]
    for kind in KINDS:
        model, info = load_checkpoint(kind, CHECKPOINT_DIR)
        run = next(r for r in committed["runs"] if r["kind"] == kind and r["seed"] == 11)
        assert info["seed"] == 11 and info["profile"] == "course"
        assert info["selected_step"] == run["selected_step"]
        assert model.token_embedding.weight[0].abs().sum().item() == 0.0      # PAD's row stayed zero
        assert math.isclose(mean_loss(model, *test_windows), run["test_loss"], rel_tol=1e-6), kind
