"""The training protocol's helpers, and best-validation restoring on a run that
overfits. The smoke-profile checks of clipping and optimizer settings live in
tests/test_train.py (they watch the smoke run that file trains once).

PROTOCOL_OPTIMIZER and PROTOCOL_CLIP_NORM (tests/support/protocol.py) are the specification (README,
"The models"; the course: four heads reuse the one-head learning rate and
weight decay, frozen before any test scoring). They are typed here on purpose,
apart from models/train.py, so that a change to the code's table fails a test.
"""

import json
import math
import random
import statistics

import torch
import torch.nn.functional as F

from common.layout import ModelsFolder
from models import train
from models.checkpoints import load_checkpoint
from models.corpus import Profile, prepare, split_of
from models.nets import KINDS, LABELS
from models.tokenizer import normalize
from models.train import aggregate, eval_steps, mean_loss, optimizer_settings, validation_slice
from support.protocol import PROTOCOL_CLIP_NORM, PROTOCOL_OPTIMIZER


def test_optimizer_settings_follow_the_protocol():
    for kind in KINDS:
        assert optimizer_settings(kind) == PROTOCOL_OPTIMIZER[kind], kind
    assert optimizer_settings("attn4") == optimizer_settings("attn1") != optimizer_settings("mlp")
    assert train.CLIP_NORM == PROTOCOL_CLIP_NORM


def test_eval_steps_are_first_every_nth_and_last():
    assert eval_steps(Profile("p", 1, 1, steps=300, batch_size=1, eval_every=100, val_windows=1)) == {1, 100, 200, 300}
    assert eval_steps(Profile("p", 1, 1, steps=250, batch_size=1, eval_every=100, val_windows=1)) == {1, 100, 200, 250}
    assert eval_steps(Profile("p", 1, 1, steps=6000, batch_size=1, eval_every=750, val_windows=1)) == {1} | set(
        range(750, 6001, 750)
    )


def test_validation_slice_is_a_fixed_seed_0_sample_of_whole_windows():
    X = torch.arange(200).reshape(100, 2)
    y = torch.arange(100) * 10
    Xs, ys = validation_slice(X, y, 30)
    assert len(ys) == 30 and len(set(ys.tolist())) == 30
    assert (Xs[:, 0] * 5 == ys).all()  # rows stay paired with their targets
    order = torch.randperm(100, generator=torch.Generator().manual_seed(0))[:30]
    assert ys.tolist() == y[order].tolist()  # seed 0, first n
    assert ys.tolist() != sorted(ys.tolist())  # a shuffle, not the first 30 windows
    again = validation_slice(X, y, 30)
    assert torch.equal(again[0], Xs) and torch.equal(again[1], ys)
    torch.manual_seed(123)  # the global RNG plays no part
    assert torch.equal(validation_slice(X, y, 30)[1], ys)
    assert sorted(validation_slice(X, y, 500)[1].tolist()) == y.tolist()  # n past the end: every window


class _Lookup(torch.nn.Module):
    """Logits that depend on the last ID only, so the expected loss is easy to compute."""

    def __init__(self, C=7):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(C, C, generator=torch.Generator().manual_seed(3)))
        self.modes = []

    def forward(self, ids):
        assert ids.dtype == torch.int64
        self.modes.append(self.training)
        return self.table[ids[:, -1]]


def test_mean_loss_is_the_mean_over_every_window_across_batches(monkeypatch):
    monkeypatch.setattr(train, "EVAL_BATCH", 4)
    model = _Lookup()
    gen = torch.Generator().manual_seed(1)
    X = torch.randint(0, 7, (10, 3), generator=gen, dtype=torch.int32)
    y = torch.randint(0, 7, (10,), generator=gen, dtype=torch.int32)
    expected = F.cross_entropy(model.table[X[:, -1].long()], y.long()).item()
    assert math.isclose(mean_loss(model, X, y), expected, rel_tol=1e-6)
    assert model.modes == [False, False, False]  # 4 + 4 + 2 windows, scored in eval mode
    assert model.training  # and handed back in train mode
    one = mean_loss(model, X[:1], y[:1])
    assert math.isclose(one, F.cross_entropy(model.table[X[:1, -1].long()], y[:1].long()).item(), rel_tol=1e-6)


def test_aggregate_is_mean_and_sample_sd_per_kind():
    def run(kind, seed, loss, seconds):
        return {
            "kind": kind,
            "seed": seed,
            "parameters": 10 + len(kind),
            "test_loss": loss,
            "test_perplexity": math.exp(loss),
            "train_seconds": seconds,
        }

    runs = [run("mlp", 11, 4.0, 2.0), run("mlp", 29, 4.5, 3.0), run("mlp", 47, 3.8, 7.0), run("attn4", 11, 3.0, 5.0)]
    agg = aggregate(runs)
    assert list(agg) == ["mlp", "attn4"]  # course order, kinds without runs left out
    mlp = agg["mlp"]
    assert mlp["seeds"] == [11, 29, 47] and mlp["parameters"] == 13 and mlp["label"] == LABELS["mlp"]
    assert mlp["test_loss"] == {"mean": statistics.mean([4.0, 4.5, 3.8]), "sd": statistics.stdev([4.0, 4.5, 3.8])}
    ppl = [math.exp(v) for v in (4.0, 4.5, 3.8)]  # perplexity averaged per run,
    assert mlp["test_perplexity"]["mean"] == statistics.mean(ppl)  # not exp of the mean loss
    assert mlp["test_perplexity"]["sd"] == statistics.stdev(ppl)
    assert mlp["train_seconds"] == {"mean": 4.0, "sd": statistics.stdev([2.0, 3.0, 7.0])}
    assert agg["attn4"]["test_loss"] == {"mean": 3.0, "sd": None}  # one seed: no SD
    assert agg["attn4"]["label"] == LABELS["attn4"] and agg["attn4"]["seeds"] == [11]


def test_models_folder_layout(tmp_path):
    folder = ModelsFolder(tmp_path)
    assert (folder.results, folder.audit, folder.vocab) == (
        tmp_path / "results.json",
        tmp_path / "corpus_audit.json",
        tmp_path / "checkpoints" / "vocab.json",
    )
    assert folder.weights("attn4") == tmp_path / "checkpoints" / "attn4.safetensors"
    assert folder.info("mlp") == tmp_path / "checkpoints" / "mlp.json"


# ------------------------------------------------- best-validation restoring, on a run that overfits


def _tiny_corpus(path):
    """Twelve random 30-word stories, 8 / 2 / 2 by the split hash: every model
    memorizes the training windows within a few updates and validation loss rises."""
    rng = random.Random(0)
    words = (
        "the a dog cat sun ball red big small ran sat saw found lost happy sad tree park mom dad friend played jumped"
    ).split()
    want = {"train": 8, "validation": 2, "test": 2}
    got = {k: [] for k in want}
    while any(len(got[k]) < want[k] for k in want):
        text = " ".join(rng.choice(words) for _ in range(30)) + "."
        split = split_of(normalize(text))
        if len(got[split]) < want[split]:
            got[split].append(text)
    path.write_text("".join(json.dumps({"text": t}) + "\n" for k in got for t in got[k]), encoding="utf-8")
    return path


OVERFIT = Profile("overfit", 12, 100, steps=24, batch_size=32, eval_every=6, val_windows=1000, seeds=(11,))


def test_best_validation_state_is_restored_scored_and_saved(tmp_path):
    data = _tiny_corpus(tmp_path / "tiny.jsonl")
    results = train.run_protocol(OVERFIT, tmp_path / "out", data_path=data, progress=False)
    corpus = prepare(OVERFIT, data)
    val = validation_slice(*corpus.windows("validation"), OVERFIT.val_windows)
    test = corpus.windows("test")
    for run in results["runs"]:
        trace = run["val_trace"]
        # the premise: validation loss rose after the best step, so restoring matters
        assert run["selected_step"] < OVERFIT.steps and trace[-1]["val_loss"] > run["val_loss"] + 1e-3, run["kind"]
        model, info = load_checkpoint(run["kind"], ModelsFolder(tmp_path / "out"))
        assert info["selected_step"] == run["selected_step"]
        # the saved weights are the best-validation state: they score the recorded best val_loss,
        # and the recorded test loss was measured on them
        assert math.isclose(mean_loss(model, *val), run["val_loss"], rel_tol=1e-5), run["kind"]
        assert math.isclose(mean_loss(model, *test), run["test_loss"], rel_tol=1e-5), run["kind"]


def test_eval_steps_at_the_edges_of_the_range():
    def p(steps, every):
        return Profile("p", 1, 1, steps=steps, batch_size=1, eval_every=every, val_windows=1)

    assert eval_steps(p(301, 100)) == {1, 100, 200, 300, 301}
    assert eval_steps(p(299, 100)) == {1, 100, 200, 299}
    assert eval_steps(p(1, 100)) == {1}


def test_aggregate_two_seeds_have_an_sd():
    runs = [
        {
            "kind": "attn1",
            "seed": s,
            "parameters": 5,
            "test_loss": v,
            "test_perplexity": math.exp(v),
            "train_seconds": 1.0,
        }
        for s, v in ((11, 3.0), (29, 3.5))
    ]
    assert aggregate(runs)["attn1"]["test_loss"] == {"mean": 3.25, "sd": statistics.stdev([3.0, 3.5])}
