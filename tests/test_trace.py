"""The training trace (models/training_trace.json) and training's reproducibility.

- the committed trace: schema, size, probes, at least 8 points per model;
- its point at each run's selected step is what the committed checkpoint computes;
- the probe texts equal the strings they copy (the built tables and presets);
- ensure stops on a missing or corrupt trace, naming the file;
- recording does not change a run;
- the fast check (`make trace-check`, retraining the first 100 updates of attn1
  on the pinned code paths) is tests/test_trace_replay.py's, with the other kinds.
"""

from __future__ import annotations

import copy
import json

import pytest
import torch

from common.config import CONFIG
from common.files import sha256_file
from common.layout import MODELS
from common.settings import EXPORT_DIR, TABLES_DIR
from models import ensure, numerics, train
from models.checkpoints import load_checkpoint, load_vocab
from models.corpus import PROFILES, Profile
from models.nets import KINDS
from models.probes import PROBES, probe_ids, probe_windows, window
from models.records import load_results
from models.tokenizer import BOS_ID, PAD_ID, tokenize
from models.trace import DIGITS, TOP_K, TraceRecorder
from models.trace_check import CLOSE, first_difference, largest_difference

CHECKPOINT_SEED, CONTEXT = CONFIG.training.checkpoint_seed, CONFIG.data.context
HELD_OUT_PRESET = CONFIG.decoding.held_out_preset


@pytest.fixture(scope="module")
def trace() -> dict:
    return json.loads(MODELS.trace.read_text())


@pytest.fixture(scope="module")
def corpus(course_corpus):
    return course_corpus


# ------------------------------------------------------------------ the committed trace
def test_the_committed_trace_has_every_model_probe_and_step(trace):
    assert MODELS.trace.stat().st_size < 5_000_000
    assert trace["vocab_sha256"] == sha256_file(MODELS.vocab)
    assert [p["name"] for p in trace["probes"]] == list(PROBES) and len(PROBES) >= 6
    vocab = load_vocab()
    for p in trace["probes"]:
        assert p["ids"] == probe_ids(p["text"], vocab) and p["ids"][0] == BOS_ID
    results = load_results(MODELS.results, AssertionError)
    for kind in KINDS:
        run = trace["runs"][kind]
        steps = [p["step"] for p in run["points"]]
        assert len(steps) >= 8 and steps[0] == 0 and set(train.eval_steps(PROFILES["course"])) <= set(steps)
        assert run["seed"] == CHECKPOINT_SEED and run["numerics"].startswith("pinned:")
        _, info = load_checkpoint(kind, MODELS)
        assert run["checkpoint_sha256"] == info["sha256"] and run["selected_step"] == info["selected_step"]
        record = next(r for r in results["runs"] if r["kind"] == kind and r["seed"] == CHECKPOINT_SEED)
        by_step = {p["step"]: p["validation_loss"] for p in run["points"]}
        assert all(by_step[t["step"]] == t["val_loss"] for t in record["val_trace"])
        assert by_step[run["selected_step"]] == record["val_loss"]
        # recording cost: at most 10% of the run's training time
        assert run["recording_seconds"] <= 0.10 * run["train_seconds"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_selected_step_point_is_what_the_committed_checkpoint_computes(trace, kind):
    run = trace["runs"][kind]
    point = next(p for p in run["points"] if p["step"] == run["selected_step"])
    model, _ = load_checkpoint(kind, MODELS)
    windows = probe_windows(trace["probes"])
    with torch.no_grad():
        if kind == "mlp":
            logits, weights = model(windows), None
        else:
            logits, weights = model.attend(windows)
    probs = logits.softmax(-1)
    for i, top in enumerate(point["top10"]):
        ids = [t[0] for t in top]
        for t, p in top:
            assert abs(probs[i, t].item() - p) <= 1e-6
        # the ten are the ten most likely (up to ties within 1e-6)
        others = probs[i].clone()
        others[ids] = -1
        assert min(p for _, p in top) >= others.max().item() - 1e-6
    assert ("attention" in point) == (weights is not None)
    if weights is not None:
        assert torch.allclose(
            torch.tensor(point["attention"], dtype=torch.float64), weights.double(), atol=1e-6, rtol=0
        )
        # weights fall on the probe's tokens only, never on the left PAD slots
        for i, probe in enumerate(trace["probes"]):
            pads = CONTEXT - min(len(probe["ids"]), CONTEXT)
            assert all(w == 0 for head in point["attention"][i] for w in head[:pads])


# ------------------------------------------------------------------ probe texts and windows
def test_probe_texts_equal_the_strings_they_copy(corpus):
    part2 = json.loads((TABLES_DIR / "part2_model.json").read_text())["sentences"]
    fisherman = json.loads((TABLES_DIR / "part3_fisherman.json").read_text())["tokens"]
    presets = {p["id"]: p for p in json.loads((EXPORT_DIR / "presets.json").read_text())}
    for name in ("river", "cheque"):
        assert tokenize(PROBES[name]) == tokenize(" ".join(part2[name]))
    assert tokenize(PROBES["fisherman"]) == tokenize(" ".join(fisherman))
    assert PROBES["held_out"] == presets[HELD_OUT_PRESET]["prompt"]
    # two TinyStories prompts from outside the training split: the first
    # validation and the first test story's openings, read by no training story
    assert corpus.stories["validation"][0]["text"].startswith(PROBES["validation_story"])
    assert corpus.stories["test"][0]["text"].startswith(PROBES["test_story"])
    for name in ("validation_story", "test_story", "held_out"):
        assert not any(s["text"].startswith(PROBES[name]) for s in corpus.stories["train"])


def test_a_window_is_the_last_64_ids_left_padded():
    assert window([1, 7, 9]) == [PAD_ID] * (CONTEXT - 3) + [1, 7, 9]
    long = list(range(1, 101))
    assert window(long) == long[-CONTEXT:]


# ------------------------------------------------------------------ ensure refuses a bad trace
def _corrupt(trace: dict, how: str) -> dict | str | None:
    t = copy.deepcopy(trace)
    point = t["runs"]["attn4"]["points"][3]
    if how == "missing":
        return None
    if how == "not json":
        return "{"
    if how == "vocabulary":
        t["vocab_sha256"] = "0" * 64
    elif how == "checkpoint":
        t["runs"]["attn1"]["checkpoint_sha256"] = "0" * 64
    elif how == "order":
        point["top10"][0].reverse()
    elif how == "heads":
        point["attention"][0].pop()
    elif how == "kind":
        del t["runs"]["mlp"]
    elif how == "ids":
        t["probes"][0]["ids"].append(5)
    elif how == "step":
        t["runs"]["mlp"]["selected_step"] = 7
    return t


@pytest.mark.parametrize(
    "how, problem",
    [
        ("missing", "training trace missing"),
        ("not json", "training trace is corrupt"),
        ("vocabulary", "recorded with another vocabulary"),
        ("checkpoint", "recorded for another attn1 checkpoint"),
        ("order", "runs.attn4.points[3].top10[0]"),
        ("heads", "runs.attn4.points[3].attention[0] must hold 4 heads"),
        ("kind", "runs must hold exactly"),
        ("ids", "probes[0].ids"),
        ("step", "runs.mlp.selected_step 7 has no point"),
    ],
)
def test_ensure_stops_on_a_missing_or_corrupt_trace_naming_the_file(models_copy, trained, trace, capsys, how, problem):
    path = models_copy / "training_trace.json"
    bad = _corrupt(trace, how)
    if bad is None:
        path.unlink()
    else:
        path.write_text(bad if isinstance(bad, str) else json.dumps(bad))
    rc = ensure.main(["--models", str(models_copy)])
    log = capsys.readouterr().err
    assert rc == 1 and str(path) in log and problem in log and "Traceback" not in log
    assert not trained  # nothing was retrained


def test_ensure_accepts_the_committed_trace(models_copy, trained, capsys):
    assert ensure.main(["--models", str(models_copy)]) == 0
    assert "training trace are intact" in capsys.readouterr().out and not trained


# ------------------------------------------------------------------ recording and the fast check
def test_recording_leaves_the_run_unchanged():
    g = torch.Generator().manual_seed(0)
    X, y = torch.randint(0, 20, (60, CONTEXT), generator=g), torch.randint(0, 20, (60,), generator=g)
    data = {"train": (X, y), "val": (X[:12], y[:12]), "test": (X[:12], y[:12])}
    profile = Profile("tiny", 10, 20, steps=60, batch_size=8, eval_every=30, val_windows=12)
    probes = [{"name": "a", "text": "", "ids": [1, 5, 6]}, {"name": "b", "text": "", "ids": [1] + [7] * 70}]
    plain, _ = train.train_run("attn4", 3, profile, data, 20, progress=False)
    recorder = TraceRecorder(probes, train.trace_steps(profile))
    traced, _ = train.train_run("attn4", 3, profile, data, 20, progress=False, recorder=recorder)
    assert traced["val_trace"] == plain["val_trace"] and traced["test_loss"] == plain["test_loss"]
    assert [p["step"] for p in recorder.points] == [0, 1, 10, 30, 50, 60]
    assert {t["step"]: t["val_loss"] for t in plain["val_trace"]}[30] == recorder.points[3]["validation_loss"]
    for point in recorder.points:
        assert len(point["top10"]) == 2 and all(len(row) == TOP_K for row in point["top10"])
        assert all(round(p, DIGITS) == p for row in point["top10"] for _, p in row)
        assert [len(probe) for probe in point["attention"]] == [4, 4]
    assert recorder.seconds > 0


def test_first_difference_names_the_step_and_field(trace):
    points = trace["runs"]["attn1"]["points"][:4]
    assert first_difference(points, points) is None
    changed = copy.deepcopy(points)
    changed[2]["attention"][1][0][-1] += 1e-8
    assert first_difference(changed, points).startswith(f"step {points[2]['step']}: attention differs")
    assert "points recorded" in first_difference(points[:3], points)


def test_describe_says_whether_the_code_paths_are_pinned():
    assert numerics.describe(dict(numerics.EXPECTED)).startswith("pinned: ATen AVX2, MKL COMPATIBLE, 1 thread")
    assert numerics.describe({**numerics.EXPECTED, "aten": "AVX512"}).startswith("not pinned: ATen AVX512")


def test_largest_difference_allows_rounding_and_near_ties_not_other_numbers(trace):
    points = copy.deepcopy(trace["runs"]["attn1"]["points"][:3])
    assert largest_difference(points, points) == 0.0
    nudged = copy.deepcopy(points)
    nudged[1]["attention"][0][0][-1] += 3e-8
    assert largest_difference(nudged, points) == pytest.approx(3e-8, abs=1e-12)
    swapped = copy.deepcopy(points)
    top = swapped[2]["top10"][0]
    top[-1][1] = top[-2][1]  # the last two tied; then the tie falls the other way
    top[-2], top[-1] = top[-1], top[-2]
    assert largest_difference(swapped, points) <= abs(points[2]["top10"][0][-2][1] - points[2]["top10"][0][-1][1])
    other = copy.deepcopy(points)
    other[2]["top10"][0][0] = [999_999, other[2]["top10"][0][0][1]]  # another token ranked first
    assert largest_difference(other, points) > CLOSE
    moved = copy.deepcopy(points)
    moved[2]["validation_loss"] += 1e-3
    assert largest_difference(moved, points) == pytest.approx(1e-3, rel=1e-6)
    assert largest_difference(points[:2], points) is None
    assert largest_difference([dict(points[0], step=5), *points[1:]], points) is None
