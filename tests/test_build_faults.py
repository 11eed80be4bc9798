"""The build under faults: concurrent builds, a crash between the two renames
of the swap, failures while writing, hollow or wrong model inputs, a
read-only build folder, a busy port, requests during a swap. Each test
reproduces one fault of issue 13 (or 14, point 2) and checks that the build
stops with a message naming the file and leaves the previous output as it was.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from common.files import Missing, missing, read_json
from common.layout import MODELS, ModelsFolder
from common.publish import MARKER, BuildBusy, build_lock, old_dir, staging_dir, swap_in
from common.settings import ROOT
from export import pipeline
from export.pipeline import ExportError
from models import ensure
from models.checkpoints import CheckpointError, load_checkpoint, load_vocab
from models.records import load_results
from site_builder import serve
from site_builder.assemble import BuildError
from site_builder.build import Inputs, build
from site_builder.serve import start_server
from support.builds import run_build, snapshot

# ------------------------------------------------------------------ one build at a time


def _build_cmd(content: Path, tables: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "site_builder",
        "--content",
        str(content),
        "--tables",
        str(tables),
        "--out",
        str(out),
        "--no-export",
        "--no-notebooks",
    ]


def test_concurrent_builds_leave_a_complete_site(mini, capsys):
    """Two builds started 0.1 s apart, three rounds: both succeed (the second
    waits for the lock) and the published site equals a lone build's."""
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    reference = snapshot(out)
    for _ in range(3):
        first = subprocess.Popen(
            _build_cmd(content, tables, out), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        time.sleep(0.1)
        second = subprocess.Popen(
            _build_cmd(content, tables, out), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        logs = [p.communicate(timeout=300) for p in (first, second)]
        assert [first.returncode, second.returncode] == [0, 0], logs
        assert snapshot(out) == reference
        assert sorted(p.name for p in out.parent.iterdir()) == ["site"]  # no lock, no staging beside it


def test_a_second_build_that_may_not_wait_is_refused_clearly(tmp_path):
    with build_lock(tmp_path):
        with pytest.raises(BuildBusy, match=f"another build is running \\(pid {os.getpid()}\\)"):
            with build_lock(tmp_path, wait=False):
                pass
    with build_lock(tmp_path, wait=False):  # released: free again
        pass


# ------------------------------------------------------------------ the swap


def test_a_crash_between_the_renames_is_undone_by_the_next_build_even_a_failing_one(mini, capsys):
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    before = snapshot(out)
    # the crash: the first rename of the swap happened, the second did not
    staging_dir(out).mkdir()
    (staging_dir(out) / MARKER).write_text("")  # the first file of every staging folder
    (staging_dir(out) / "half.html").write_text("half")
    out.rename(old_dir(out))
    assert not out.exists()
    # the next build fails (a broken deck), yet the previous site is back
    (content / "decks" / "broken.md").write_text("+++\ntitle = 'x'\norder = 3\n+++\n## A\n{{ nope }}\n")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "broken.md" in log
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["site"]  # no lock, no staging beside it


def test_a_failing_second_rename_puts_the_previous_output_back(tmp_path, monkeypatch):
    monkeypatch.setattr("common.publish.EXCHANGE", False)  # the two-rename swap
    out, staging = tmp_path / "site", tmp_path / ".site.staging"
    out.mkdir()
    (out / "a.txt").write_text("old")
    staging.mkdir()
    (staging / "a.txt").write_text("new")
    real_rename = Path.rename

    def rename(self, target):
        if self == staging:
            raise OSError(errno.EIO, "simulated failure", str(self))
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(OSError):
        swap_in(staging, out)
    assert (out / "a.txt").read_text() == "old" and not old_dir(out).exists()


# ------------------------------------------------------------------ failures while writing (issue 14, point 2)


def _inputs(content: Path, tables: Path, out: Path, **kw) -> Inputs:
    return Inputs(content=content, tables=tables, export=None, out=out, **kw)


def _template_raising_halfway(tmp_path: Path) -> dict:
    """templates/ where index.html (rendered after every deck page is written) raises."""
    templates = tmp_path / "templates"
    shutil.copytree(Inputs().templates, templates)
    index = templates / "index.html"
    index.write_text(index.read_text().replace("{% block body %}", "{% block body %}{{ no_such_value.x }}", 1))
    return {"templates": templates}


def _static_file_that_cannot_be_copied(tmp_path: Path) -> dict:
    """static/ with a link to nothing: copying it fails after vendor/, lab/ and the rest are written."""
    static = tmp_path / "static"
    shutil.copytree(Inputs().static, static)
    (static / "gone.css").symlink_to(tmp_path / "no-such-file.css")
    return {"static": static}


@pytest.mark.parametrize(
    "fault, message",
    [
        (_template_raising_halfway, r"index\.html line \d+: .*no_such_value"),
        (_static_file_that_cannot_be_copied, "gone.css"),
    ],
    ids=["template raises halfway", "file cannot be copied"],
)
def test_a_failure_while_writing_leaves_the_previous_site_byte_identical(mini, tmp_path, fault, message):
    content, tables, out = mini
    build(_inputs(content, tables, out))
    before = snapshot(out)
    with pytest.raises(BuildError, match=message):
        build(_inputs(content, tables, out, **fault(tmp_path)))
    assert snapshot(out) == before
    assert not staging_dir(out).exists() and not old_dir(out).exists()


def test_a_read_only_build_folder_gives_a_message_not_a_traceback(mini, capsys, monkeypatch):
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    before = snapshot(out)

    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "Read-only file system" in log and str(out.parent) in log
    assert "Traceback" not in log
    monkeypatch.undo()
    assert snapshot(out) == before


def test_a_read_only_build_folder_stops_tables_and_export_with_a_message(tmp_path, monkeypatch, capsys):
    import export.__main__
    import export.tables.__main__

    out = tmp_path / "build" / "tables"
    monkeypatch.setattr(export.tables.__main__, "compute_all", lambda only=None: {"t": "{}\n"})

    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    assert export.tables.__main__.main(["--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Read-only file system" in err and str(out.parent) in err
    assert export.__main__.main(["--out", str(tmp_path / "build" / "export")]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "Read-only file system" in err and "was left as it was" in err


# ------------------------------------------------------------------ serving


def test_a_busy_port_is_named_with_the_way_out(mini, capsys):
    content, tables, out = mini
    assert run_build(capsys, content, tables, out, "--no-export")[0] == 0
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        rc = serve.main(
            ["--port", str(port), "--out", str(out), "--content", str(content), "--tables", str(tables), "--no-export"]
        )
    err = capsys.readouterr().err
    assert rc == 1 and f"port {port} is already in use" in err and f"PORT={port + 1}" in err


def test_the_server_keeps_serving_during_swaps(tmp_path):
    """A file requested over and over while the site is swapped 200 times:
    every request is answered with one of the versions, none with 404."""
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("version 0")
    server, url = start_server(out)
    stop, failures, answers = threading.Event(), [], []

    def fetch():
        while not stop.is_set():
            try:
                with urllib.request.urlopen(f"{url}/index.html", timeout=10) as r:
                    answers.append(r.read().decode())
            except urllib.error.HTTPError as exc:
                failures.append(exc.code)

    readers = [threading.Thread(target=fetch) for _ in range(3)]
    for t in readers:
        t.start()
    try:
        for i in range(1, 201):
            staging = staging_dir(out)
            staging.mkdir()
            (staging / "index.html").write_text(f"version {i}")
            swap_in(staging, out)
            time.sleep(0.002)
    finally:
        stop.set()
        for t in readers:
            t.join()
        server.shutdown()
    assert failures == [] and len(answers) > 50
    assert all(a.startswith("version ") for a in answers)


def test_between_two_renames_the_server_serves_the_previous_site(tmp_path):
    """Where the swap is two renames (no atomic exchange), a request that comes
    while the site is renamed away gets the previous site's file."""
    out = tmp_path / "site"
    old_dir(out).mkdir()
    (old_dir(out) / "index.html").write_text("previous")
    server, url = start_server(out)
    try:
        with urllib.request.urlopen(f"{url}/index.html", timeout=10) as r:
            assert r.read() == b"previous"
        with pytest.raises(urllib.error.HTTPError) as info:  # a file neither has is still a 404
            urllib.request.urlopen(f"{url}/nothing.html", timeout=10)
        assert info.value.code == 404
    finally:
        server.shutdown()


# ------------------------------------------------------------------ hollow and wrong model inputs


@pytest.fixture
def models_copy(tmp_path) -> Path:
    """A copy of the committed models/ folder (checkpoints, vocabulary, results, audit, trace)."""
    models = tmp_path / "models"
    shutil.copytree(MODELS.checkpoints, models / "checkpoints")
    for name in ("results.json", "corpus_audit.json", "training_trace.json"):
        shutil.copy(MODELS.root / name, models / name)
    return models


def _ensure(models: Path, capsys, *extra) -> tuple[int, str]:
    rc = ensure.main(["--models", str(models), *extra])
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def _no_training(monkeypatch) -> list:
    """Training runs as `python -m models.train ARGS`; record ARGS instead."""
    calls = []
    monkeypatch.setattr("models.ensure.train_cli", lambda args: calls.append(args) or 0)
    return calls


def test_read_json_tells_missing_from_corrupt_by_type(tmp_path):
    with pytest.raises(Missing):
        read_json(tmp_path / "absent.json", CheckpointError)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(CheckpointError) as info:
        read_json(tmp_path / "bad.json", CheckpointError)
    assert not isinstance(info.value, Missing) and "bad.json" in str(info.value)
    assert issubclass(missing(CheckpointError), CheckpointError) and missing(CheckpointError) is missing(
        CheckpointError
    )


@pytest.mark.parametrize(
    "results, problem",
    [
        ({}, "no field 'profile'"),
        (
            {"profile": "course", "runs": [], "aggregate": {}, "validation_windows": 1, "test_windows": 1},
            "0 runs recorded, 9 expected",
        ),
    ],
)
def test_hollow_results_stop_ensure_and_export_naming_the_file(
    models_copy, capsys, monkeypatch, tmp_path, results, problem
):
    calls = _no_training(monkeypatch)
    path = models_copy / "results.json"
    path.write_text(json.dumps(results))
    if results:  # an empty run list is incomplete, not corrupt: ensure would train the nine runs
        with pytest.raises(ExportError, match=problem):
            load_results(path, ExportError)
    else:
        rc, log = _ensure(models_copy, capsys)
        assert rc == 1 and str(path) in log and problem in log and "Traceback" not in log and not calls
    out = tmp_path / "export"
    out.mkdir()
    (out / MARKER).write_text("")  # a previous export
    (out / "keep.txt").write_text("previous export")
    with pytest.raises(ExportError, match=f"{path}.*{problem}"):
        pipeline.run(ModelsFolder(models_copy), out, log=lambda *_: None)
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "keep.txt"])


def test_a_results_field_of_the_wrong_type_is_named(models_copy):
    path = models_copy / "results.json"
    results = json.loads(path.read_text())
    results["runs"][4]["test_loss"] = "low"
    path.write_text(json.dumps(results))
    with pytest.raises(CheckpointError, match=r"runs\[4\]\.test_loss has the wrong type"):
        load_results(path, CheckpointError)


def test_results_relabelled_against_their_checkpoints_stop_ensure_naming_both_files(models_copy, capsys, monkeypatch):
    """The MLP's and the one-head model's seed-11 outcomes exchanged in results.json
    (schema, settings and aggregate all consistent): each checkpoint's JSON still
    records its own run's test loss, so ensure stops (issue 38 item 5)."""
    from models.train import aggregate

    calls = _no_training(monkeypatch)
    path = models_copy / "results.json"
    results = json.loads(path.read_text())
    mlp, attn1 = (next(r for r in results["runs"] if r["kind"] == k and r["seed"] == 11) for k in ("mlp", "attn1"))
    for key in ("test_loss", "test_perplexity", "val_loss", "selected_step"):
        mlp[key], attn1[key] = attn1[key], mlp[key]
    results["aggregate"] = aggregate(results["runs"])
    path.write_text(json.dumps(results))
    rc, log = _ensure(models_copy, capsys)
    assert rc == 1 and not calls and "Traceback" not in log
    assert str(path) in log and str(models_copy / "checkpoints" / "mlp.json") in log and "test_loss" in log


def test_a_swapped_vocabulary_stops_ensure_and_export_naming_the_file(models_copy, capsys, monkeypatch, tmp_path):
    calls = _no_training(monkeypatch)
    vocab_path = models_copy / "checkpoints" / "vocab.json"
    itos = json.loads(vocab_path.read_text())
    itos[10], itos[11] = itos[11], itos[10]  # still a valid vocabulary, wrong for the models
    vocab_path.write_text(json.dumps(itos, ensure_ascii=False, indent=0) + "\n")
    rc, log = _ensure(models_copy, capsys)
    assert rc == 1 and str(vocab_path) in log and "is not the vocabulary" in log and not calls
    out = tmp_path / "export"
    with pytest.raises(CheckpointError, match=f"{vocab_path} is not the vocabulary"):
        pipeline.run(ModelsFolder(models_copy), out, log=lambda *_: None)
    assert not out.exists()


@pytest.mark.parametrize(
    "itos, problem",
    [
        ({"a": 1}, "not a list of strings"),
        (["x", "<BOS>", "<EOS>", "<UNK>"], "must start with"),
        (["<PAD>", "<BOS>", "<EOS>", "<UNK>", "the", "the"], "duplicate"),
        (["<PAD>", "<BOS>", "<EOS>", "<UNK>", "the"], "5 tokens, expected 4000"),
    ],
)
def test_a_malformed_vocabulary_is_named(models_copy, capsys, monkeypatch, itos, problem):
    calls = _no_training(monkeypatch)
    vocab_path = models_copy / "checkpoints" / "vocab.json"
    vocab_path.write_text(json.dumps(itos))
    rc, log = _ensure(models_copy, capsys)
    assert rc == 1 and str(vocab_path) in log and problem in log and "Traceback" not in log and not calls
    with pytest.raises(CheckpointError, match=str(vocab_path)):
        load_vocab(ModelsFolder(models_copy), 4000)


def test_a_corrupt_data_file_points_to_data_not_models(tmp_path, monkeypatch, capsys):
    import gzip

    from models import corpus

    bad = tmp_path / "stories.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"text": "a story that is not the shipped sample"}\n'))
    monkeypatch.setattr(corpus, "DATA_FILE", bad)
    rc = ensure.main([])
    err = capsys.readouterr().err
    assert rc == 1 and "data file is corrupt" in err and str(bad) in err
    assert "git checkout data/" in err and "git checkout models/" not in err


def test_the_committed_checkpoints_record_the_committed_vocabulary():
    for kind in ("mlp", "attn1", "attn4"):
        load_checkpoint(kind)  # raises if vocab_sha256 is absent or differs


# ------------------------------------------------------------------ ensure trains only what is missing


def test_a_missing_checkpoint_with_its_run_recorded_retrains_that_run_only(models_copy, capsys, monkeypatch):
    calls = _no_training(monkeypatch)
    (models_copy / "checkpoints" / "attn1.safetensors").unlink()
    rc, log = _ensure(models_copy, capsys, "--dry-run")
    assert rc == 0 and "will train attn1 seed 11 (course profile): about" in log and "(measured)" in log
    assert log.count("will train") == 1 and "1 run(s) to train" in log and not calls
    rc, log = _ensure(models_copy, capsys)
    assert calls == [["--profile", "course", "--out", str(models_copy), "--kinds", "attn1", "--seeds", "11"]]
    # the fake trained nothing, and ensure says so instead of returning 0
    assert rc == 1 and "still missing after training" in log and "attn1.safetensors" in log


def test_a_run_missing_from_the_results_is_planned_with_its_measured_time(models_copy):
    path = models_copy / "results.json"
    results = json.loads(path.read_text())
    results["runs"] = [r for r in results["runs"] if not (r["kind"] == "attn4" and r["seed"] == 47)]
    path.write_text(json.dumps(results))
    plan = ensure.plan(models_copy)
    assert plan.runs == [("attn4", 47)] and plan.missing == []
    recorded = sorted(r["train_seconds"] for r in results["runs"] if r["kind"] == "attn4")
    assert plan.seconds["attn4"] == pytest.approx(sum(recorded) / 2)


def test_run_protocol_retrains_a_recorded_run_whose_weights_are_gone(tmp_path, monkeypatch):
    """The skip rule of models.train: a recorded seed-11 run is skipped only
    when both of its checkpoint files exist."""
    import torch

    from models import nets, train

    trained = []

    def fake_run(kind, seed, profile, data, vocab_size, progress=True, recorder=None):
        trained.append((kind, seed))
        record = {
            "kind": kind,
            "seed": seed,
            "numerics": "not pinned (a stand-in run)",
            "selected_step": 1,
            "test_loss": 1.0,
            "train_seconds": 1.0,
            "test_perplexity": 2.7,
            "parameters": 1,
        }
        torch.manual_seed(0)
        return record, nets.build(kind, C=vocab_size)

    monkeypatch.setattr(train, "train_run", fake_run)
    train.run_protocol("smoke", tmp_path, kinds=("mlp", "attn1"), seeds=(11,), progress=False)
    assert trained == [("mlp", 11), ("attn1", 11)]
    (tmp_path / "checkpoints" / "attn1.safetensors").unlink()
    train.run_protocol("smoke", tmp_path, kinds=("mlp", "attn1"), seeds=(11,), progress=False)
    assert trained == [("mlp", 11), ("attn1", 11), ("attn1", 11)]
