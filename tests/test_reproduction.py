"""The reproduction record (models/reproduction.json) and what the results deck
says about it.

- the record: its schema, and ensure stopping on a corrupt one, naming the file;
- the table: a rerun counts as identical only when its weights' SHA-256 is the
  committed checkpoint's, and the rerun spread sits beside the seed-to-seed SD;
- the built results deck states what the record and the committed weights say.
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import re
import shutil
import statistics
from pathlib import Path

import pytest

from common.layout import MODELS, ModelsFolder
from common.settings import ROOT
from export.tables.results.reproduction import pinned, reproduction
from models import ensure
from models.nets import KINDS, LABELS
from models.records import REPRODUCTION_FORMAT as FORMAT
from models.records import load_results, same_run, validate_reproduction
from models.reproduce import add, cpu_model, main, record_of


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(MODELS.reproduction.read_text())


@pytest.fixture(scope="module")
def results() -> dict:
    return load_results(MODELS.results)


def order_of_label(label: str) -> int:
    return [LABELS[k] for k in KINDS].index(label)


def committed_sha(kind: str) -> str:
    return hashlib.sha256(MODELS.weights(kind).read_bytes()).hexdigest()


def test_the_committed_record_holds_independent_pinned_reruns_of_the_committed_weights(record, results):
    validate_reproduction(record, MODELS.reproduction, ValueError, results["runs"])
    assert record["format"] == FORMAT and len(record["reruns"]) >= 1
    for r in record["reruns"]:
        assert pinned(r) and r["seed"] == 11 and r["cpu"]
        assert r["weights_sha256"] == committed_sha(r["kind"])
        # not the committed run's own record (issue 32: the old second attn1 "rerun" was)
        assert not any(same_run(r, run) for run in results["runs"])


def _committed(kind: str = "attn1") -> dict:
    return next(x for x in load_results(MODELS.results)["runs"] if x["kind"] == kind and x["seed"] == 11)


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda d: d.update(format=7), "not a reproduction record"),
        (lambda d: d.update(reruns=[]), "has no reruns"),
        (lambda d: d["reruns"][0].pop("test_loss"), "reruns[0].test_loss"),
        (lambda d: d["reruns"][0].pop("cpu"), "reruns[0].cpu"),
        (lambda d: d["reruns"][0].update(kind="rnn"), "reruns[0].kind 'rnn'"),
        (lambda d: d["reruns"][0].update(weights_sha256="abc"), "not a SHA-256"),
        (lambda d: d["reruns"][0].update(test_loss=float("nan")), "reruns[0].test_loss"),
        (lambda d: d["reruns"].append(dict(d["reruns"][0])), "one run recorded twice"),
        (
            lambda d: d["reruns"][0].update(kind="attn1", seed=11, train_seconds=_committed()["train_seconds"]),
            "own record",
        ),
    ],
)
def test_ensure_stops_on_a_corrupt_record_naming_the_file(tmp_path, record, monkeypatch, capsys, change, problem):
    models = tmp_path / "models"
    shutil.copytree(MODELS.checkpoints, models / "checkpoints")
    for path in (MODELS.results, MODELS.audit, MODELS.trace):
        shutil.copy(path, models / path.name)
    calls = []
    monkeypatch.setattr(ensure, "train_cli", lambda args: calls.append(args) or 0)
    assert ensure.main(["--models", str(models)]) == 0  # no record: nothing to check
    bad = copy.deepcopy(record)
    change(bad)
    (models / "reproduction.json").write_text(json.dumps(bad))
    assert ensure.main(["--models", str(models)]) == 1
    log = capsys.readouterr().err
    assert str(models / "reproduction.json") in log and problem in log and not calls


def _trained_folder(tmp_path, kinds=("attn1",), seconds=1234.5) -> ModelsFolder:
    """A folder as `models.train --out FOLDER --kinds K --seeds 11 --fresh` leaves it:
    the committed weights (a bit-identical rerun) and results.json holding the
    seed-11 runs of ``kinds`` with another (independent) training time."""
    src = ModelsFolder(tmp_path / "run")
    src.checkpoints.mkdir(parents=True)
    results = load_results(MODELS.results)
    mine = [r for r in results["runs"] if r["kind"] in kinds and r["seed"] == 11]
    results["runs"] = [dict(r, train_seconds=seconds) for r in mine]
    src.results.write_text(json.dumps(results))
    for kind in kinds:
        shutil.copy(MODELS.weights(kind), src.weights(kind))
    return src


def _models_copy(tmp_path) -> ModelsFolder:
    out = ModelsFolder(tmp_path / "models")
    shutil.copytree(MODELS.checkpoints, out.checkpoints)
    shutil.copy(MODELS.results, out.results)
    return out


def test_a_rerun_equal_to_the_committed_runs_own_record_is_refused(tmp_path):
    src = ModelsFolder(tmp_path / "run")
    src.checkpoints.mkdir(parents=True)
    shutil.copy(MODELS.weights("attn1"), src.weights("attn1"))
    shutil.copy(MODELS.results, src.results)  # the committed run itself, not a rerun
    own = record_of(src, "attn1")
    assert own["weights_sha256"] == committed_sha("attn1") and own["test_loss"] == _committed()["test_loss"]
    out = _models_copy(tmp_path)
    with pytest.raises(RuntimeError, match="own record"):
        add([own], out)
    assert not out.reproduction.exists()  # nothing written


def test_record_of_reads_a_trained_folder_and_add_appends_only_new_runs(tmp_path):
    r = record_of(_trained_folder(tmp_path), "attn1")
    assert r["weights_sha256"] == committed_sha("attn1") and r["train_seconds"] == 1234.5
    assert r["cpu"] == cpu_model() and r["test_loss"] == _committed()["test_loss"]
    out = _models_copy(tmp_path)
    assert len(add([r], out)["reruns"]) == 1
    with pytest.raises(RuntimeError, match="recorded twice"):
        add([r], out)
    assert len(json.loads(out.reproduction.read_text())["reruns"]) == 1


def test_record_folder_records_every_seed_11_run_of_the_folder(tmp_path, capsys):
    src = _trained_folder(tmp_path, kinds=("mlp", "attn4"))
    out = _models_copy(tmp_path)
    assert main(["--record", str(src.root), "--models", str(out.root)]) == 0
    data = json.loads(out.reproduction.read_text())
    assert [r["kind"] for r in data["reruns"]] == ["mlp", "attn4"]
    assert "gave the same weights as the committed checkpoint" in capsys.readouterr().out
    assert main(["--record", str(tmp_path / "nowhere"), "--models", str(out.root)]) == 1
    assert "nowhere" in capsys.readouterr().err


def test_cpu_model_reads_the_model_name(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: X\nmodel name\t: Test CPU 9000\n")
    assert cpu_model(info) == "Test CPU 9000"
    assert cpu_model(tmp_path / "absent")  # falls back to the platform's name


def test_the_table_compares_weights_by_hash_and_says_what_was_rerun(record, results):
    sha = {k: committed_sha(k) for k in ("mlp", "attn1", "attn4")}
    t = reproduction(record, results, sha)
    kinds = [k for k in ("mlp", "attn1", "attn4") if any(r["kind"] == k for r in record["reruns"])]
    assert t["rerun_kinds"] == kinds and t["every_kind_rerun"] == (len(kinds) == 3)
    assert t["cpus_text"] == "; ".join(sorted({r["cpu"] for r in record["reruns"]}))
    assert t["all_identical"] and t["max_rerun_spread"] == 0
    seed_sd = statistics.stdev(r["test_loss"] for r in results["runs"] if r["kind"] == kinds[0])
    assert t["per_kind"][0]["seed_sd"] == pytest.approx(seed_sd)
    assert t["unpinned_seeds"] == sorted({r["seed"] for r in results["runs"] if not pinned(r)})
    assert [row[3] for row in t["rows"]] == ["yes"] * len(record["reruns"])
    other = copy.deepcopy(record)
    extra = dict(other["reruns"][0], weights_sha256="0" * 64, train_seconds=1.0)
    extra["test_loss"] += 0.002
    other["reruns"].append(extra)
    t = reproduction(other, results, sha)
    assert not t["all_identical"] and [row[3] for row in t["rows"]].count("no") == 1
    assert [row[0] for row in t["rows"]] == sorted((row[0] for row in t["rows"]), key=order_of_label)
    assert t["max_rerun_spread"] == pytest.approx(0.002)
    one = copy.deepcopy(record)
    one["reruns"] = [dict(record["reruns"][0], kind="attn1")]
    t = reproduction(one, results, sha)
    assert t["not_rerun_text"] == "fixed-window MLP and four-head attention"


def _slide(deck: Path, source: str) -> str:
    sections = re.split(r"<section", deck.read_text())
    return next(s for s in sections if f'data-source="{source}"' in s)


def test_the_results_deck_states_what_the_record_says(site_dir, record, results):
    slide = _slide(site_dir / "decks" / "results.html", "results_reproduction")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", slide)).split())
    same = all(r["weights_sha256"] == committed_sha(r["kind"]) for r in record["reruns"])
    assert ("a rerun gave the same bits" in text) == same
    # (which runs the takeaway names: test_statements_proofread)
    assert ("bit for bit" in text) == same
    assert text.count("yes") == sum(r["weights_sha256"] == committed_sha(r["kind"]) for r in record["reruns"])
    kinds = [k for k in ("mlp", "attn1", "attn4") if any(r["kind"] == k for r in record["reruns"])]
    missing = [k for k in ("mlp", "attn1", "attn4") if k not in kinds]
    assert ("Not rerun:" in text) == bool(missing)  # the slide claims exactly the kinds rerun
    for r in record["reruns"]:
        assert r["cpu"] in text and r["torch_version"] in text
    unpinned = [r for r in results["runs"] if not pinned(r)]
    if unpinned:  # which ones: test_deck_statements' noise-slide test
        assert f"{len(unpinned)} of the {len(results['runs'])} runs (" in text
    else:
        assert (
            f"All {len(results['runs'])} runs (every model and seed of the course protocol) "
            "were trained on the pinned code paths"
        ) in text
    assert "none of the seed-to-seed spread is rounding noise" not in text


def test_the_table_groups_runs_by_the_cpu_that_trained_them(record, results):
    """A run's CPU is its own record's, else that of a rerun that gave its weights
    bit for bit; runs with neither are named as not recorded."""
    sha = {k: committed_sha(k) for k in ("mlp", "attn1", "attn4")}
    runs = [
        {"kind": "mlp", "seed": 11, "numerics": "pinned: x", "test_loss": 3.8, "train_seconds": 1.0},
        {"kind": "mlp", "seed": 29, "numerics": "pinned: x", "test_loss": 3.7, "train_seconds": 1.0, "cpu": "Chip B"},
        {"kind": "attn1", "seed": 11, "numerics": "pinned: x", "test_loss": 3.3, "train_seconds": 1.0},
        {"kind": "attn1", "seed": 29, "numerics": "pinned: x", "test_loss": 3.2, "train_seconds": 1.0, "cpu": "Chip A"},
        {"kind": "attn4", "seed": 11, "numerics": "pinned: x", "test_loss": 3.2, "train_seconds": 1.0},
    ]
    rerun = dict(record["reruns"][0], kind="attn1", seed=11, cpu="Chip A", weights_sha256=sha["attn1"])
    other = dict(rerun, kind="attn4", cpu="Chip B", weights_sha256="0" * 64)  # other weights: says nothing
    t = reproduction({"format": 1, "reruns": [rerun, other]}, {"runs": runs}, sha)
    assert t["run_cpus"] == ["Chip A", "Chip B"] and not t["one_cpu"]
    assert t["run_cpu_text"] == (
        "on a Chip A: one-head attention seeds 11 and 29; on a Chip B: fixed-window MLP seed 29; "
        "CPU not recorded: fixed-window MLP seed 11, four-head attention seed 11"
    )
    same = [dict(r, cpu="Chip A") for r in runs]
    t = reproduction({"format": 1, "reruns": [rerun]}, {"runs": same}, sha)
    assert t["one_cpu"] and t["run_cpus"] == ["Chip A"]
    assert t["run_cpu_text"].startswith("on a Chip A: fixed-window MLP seeds 11 and 29")


def test_the_train_slide_scopes_bit_for_bit_to_the_cpus_the_runs_were_trained_on(site_dir, record, results):
    """'Start over' claims the same bits again only with every run pinned, and then
    names the CPU kind(s) the runs were trained on, as the table groups them."""
    sections = re.split(r"<section", (site_dir / "decks" / "results.html").read_text())
    slide = next(s for s in sections if "Train it yourself" in s)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", slide)).split())
    sha = {k: committed_sha(k) for k in ("mlp", "attn1", "attn4")}
    t = reproduction(record, results, sha)
    if t["unpinned_runs"]:
        assert "give the same bits again" not in text
    elif t["one_cpu"]:
        assert f"(all {len(results['runs'])} runs: {t['run_cpus'][0]})" in text
    else:
        assert " ".join(f"the runs were trained {t['run_cpu_text']}.".split()) in text


def test_the_readme_states_what_the_training_records_say(record, results):
    """README "Reproducing the training": every run pinned, each model's seed-11 rerun
    identical, the minutes it quotes and the recorded total are the records' own."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    runs = results["runs"]
    assert "every one of the nine runs" in readme and len(runs) == 9 and all(pinned(r) for r in runs)
    reruns = {r["kind"]: r for r in record["reruns"] if r["weights_sha256"] == committed_sha(r["kind"])}
    assert set(reruns) == {"mlp", "attn1", "attn4"}  # "The seed-11 run of each model ... bit for bit"
    minutes = {k: round(_committed(k)["train_seconds"] / 60) for k in reruns}
    rerun_minutes = {k: round(r["train_seconds"] / 60) for k, r in reruns.items()}
    assert f"one head (the committed run in {_committed('attn1')['train_seconds'] / 60:.1f} minutes" in readme
    assert f"the rerun in {rerun_minutes['attn1']} on a heavily loaded machine" in readme
    assert f"MLP ({minutes['mlp']} minutes committed, {rerun_minutes['mlp']} rerun" in readme
    assert (
        f"four heads ({minutes['attn4']} minutes committed on a busy machine, {rerun_minutes['attn4']} rerun)" in readme
    )
    assert f"to more ({sum(r['train_seconds'] for r in runs) / 3600:.1f} hours;" in readme
    assert f"SHA-256 {reruns['attn1']['weights_sha256'][:8]}..." in readme
