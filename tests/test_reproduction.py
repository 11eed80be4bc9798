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
from export.tables.results.reproduction import pinned, reproduction
from models import ensure
from models.records import REPRODUCTION_FORMAT as FORMAT
from models.records import load_results, validate_reproduction
from models.reproduce import add, record_of


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(MODELS.reproduction.read_text())


@pytest.fixture(scope="module")
def results() -> dict:
    return load_results(MODELS.results)


def committed_sha(kind: str) -> str:
    return hashlib.sha256(MODELS.weights(kind).read_bytes()).hexdigest()


def test_the_committed_record_holds_pinned_reruns_of_the_committed_weights(record):
    validate_reproduction(record, MODELS.reproduction, ValueError)
    assert record["format"] == FORMAT and len(record["reruns"]) >= 2
    for r in record["reruns"]:
        assert pinned(r) and r["seed"] == 11
        assert r["weights_sha256"] == committed_sha(r["kind"])


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda d: d.update(format=7), "not a reproduction record"),
        (lambda d: d.update(reruns=[]), "has no reruns"),
        (lambda d: d["reruns"][0].pop("test_loss"), "reruns[0].test_loss"),
        (lambda d: d["reruns"][1].update(kind="rnn"), "reruns[1].kind 'rnn'"),
        (lambda d: d["reruns"][0].update(weights_sha256="abc"), "not a SHA-256"),
        (lambda d: d["reruns"][0].update(test_loss=float("nan")), "reruns[0].test_loss"),
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


def test_record_of_reads_a_trained_folder_and_add_appends(tmp_path, record):
    src = ModelsFolder(tmp_path / "run")
    src.checkpoints.mkdir(parents=True)
    shutil.copy(MODELS.weights("attn1"), src.weights("attn1"))
    shutil.copy(MODELS.results, src.results)
    r = record_of(src, "attn1")
    mine = next(x for x in load_results(MODELS.results)["runs"] if x["kind"] == "attn1" and x["seed"] == 11)
    assert r["weights_sha256"] == committed_sha("attn1") and r["test_loss"] == mine["test_loss"]
    out = ModelsFolder(tmp_path / "out")
    out.root.mkdir()
    assert len(add([r], out)["reruns"]) == 1 and len(add([r, r], out)["reruns"]) == 3


def test_the_table_compares_weights_by_hash_and_sets_the_spread_beside_the_seed_sd(record, results):
    sha = {k: committed_sha(k) for k in ("mlp", "attn1", "attn4")}
    t = reproduction(record, results, sha)
    seed_sd = statistics.stdev(r["test_loss"] for r in results["runs"] if r["kind"] == "attn1")
    assert t["all_identical"] and t["max_rerun_spread"] == 0 and t["per_kind"][0]["seed_sd"] == pytest.approx(seed_sd)
    assert t["unpinned_seeds"] == sorted({r["seed"] for r in results["runs"] if "numerics" not in r})
    assert [row[3] for row in t["rows"]] == ["yes"] * len(record["reruns"])
    other = copy.deepcopy(record)
    other["reruns"][1]["weights_sha256"] = "0" * 64
    other["reruns"][1]["test_loss"] += 0.002
    t = reproduction(other, results, sha)
    assert not t["all_identical"] and t["rows"][1][3] == "no"
    assert t["max_rerun_spread"] == pytest.approx(0.002) and t["per_kind"][0]["noise_share_percent"] > 50


def _slide(deck: Path, source: str) -> str:
    sections = re.split(r"<section", deck.read_text())
    return next(s for s in sections if f'data-source="{source}"' in s)


def test_the_results_deck_states_what_the_record_says(site_dir, record, results):
    slide = _slide(site_dir / "decks" / "results.html", "results_reproduction")
    text = html.unescape(re.sub(r"<[^>]+>", " ", slide))
    same = all(r["weights_sha256"] == committed_sha(r["kind"]) for r in record["reruns"])
    assert ("a rerun gives the same bits" in text) == same
    assert ("bit for bit" in text) == same
    assert text.count("yes") == sum(r["weights_sha256"] == committed_sha(r["kind"]) for r in record["reruns"])
    losses = [r["test_loss"] for r in record["reruns"]]
    spread = re.search(r'data-source="results_reproduction.max_rerun_spread"[^>]*>([^<]+)<', slide).group(1)
    assert float(spread) == pytest.approx(max(losses) - min(losses), abs=5e-5)
    sd = re.search(r'data-source="results_reproduction.per_kind.0.seed_sd"[^>]*>([^<]+)<', slide).group(1)
    kind = record["reruns"][0]["kind"]
    assert float(sd) == pytest.approx(
        statistics.stdev(r["test_loss"] for r in results["runs"] if r["kind"] == kind), abs=5e-5
    )
    unpinned = sorted({r["seed"] for r in results["runs"] if not pinned(r)})
    assert "Seeds " + " and ".join(map(str, unpinned)) in text
