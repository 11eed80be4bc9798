"""Cross-checked inputs, build side (issue 25, point 4): an export whose
metadata, vocabulary, presets and ONNX graphs disagree is refused by the site
build and by the export stage before publishing, naming the file and field."""

from __future__ import annotations

import json
import shutil

import pytest

from common.export_check import ExportMismatch, check_export
from common.publish import MARKER
from common.settings import EXPORT_DIR
from export import pipeline
from export.pipeline import ExportError
from support.builds import run_build, snapshot


def _edit_metadata(folder, change):
    m = json.loads((folder / "metadata.json").read_text())
    change(m)
    (folder / "metadata.json").write_text(json.dumps(m))


def _drop(path):
    def change(m):
        *parents, last = path.split(".")
        node = m
        for key in parents:
            node = node[key]
        del node[last]

    return change


def _set(path, value):
    def change(m):
        *parents, last = path.split(".")
        node = m
        for key in parents:
            node = node[key]
        node[last] = value

    return change


def _truncate_vocab(folder):
    itos = json.loads((folder / "vocab.json").read_text())
    (folder / "vocab.json").write_text(json.dumps(itos[:100]))


def _swap_model(folder):  # attn1's file under attn4's name, with metadata that names its size and hash
    (folder / "attn4.onnx").unlink()
    shutil.copyfile(EXPORT_DIR / "attn1.onnx", folder / "attn4.onnx")
    m = json.loads((folder / "metadata.json").read_text())
    m["models"]["attn4"].update(bytes=m["models"]["attn1"]["bytes"], sha256=m["models"]["attn1"]["sha256"])
    (folder / "metadata.json").write_text(json.dumps(m))


# flaw -> (how to make it, what the message must name)
FLAWS = {
    "vocab_size 5000": (lambda f: _edit_metadata(f, _set("vocab_size", 5000)), ["metadata.json", "'vocab_size'"]),
    "vocabulary of 100": (_truncate_vocab, ["vocab.json", "holds 100 tokens"]),
    "no heads": (lambda f: _edit_metadata(f, _drop("models.attn4.heads")), ["metadata.json", "models.attn4.heads"]),
    "two heads": (lambda f: _edit_metadata(f, _set("models.attn4.heads", 2)), ["attn4.onnx", "models.attn4.heads"]),
    "context 32": (lambda f: _edit_metadata(f, _set("context", 32)), ["metadata.json", "'context' (32)", "mlp.onnx"]),
    "no dataset": (lambda f: _edit_metadata(f, _drop("dataset")), ["metadata.json", "'dataset'"]),
    "presets {}": (lambda f: (f / "presets.json").write_text("{}"), ["presets.json", "non-empty list"]),
    "other model": (_swap_model, ["attn4.onnx", "models.attn4.heads"]),
    "stale hash": (
        lambda f: _edit_metadata(f, _set("models.mlp.sha256", "0" * 64)),
        ["metadata.json", "models.mlp.sha256", "mlp.onnx"],
    ),
    "special token": (
        lambda f: _edit_metadata(f, _set("special_ids.EOS", 7)),
        ["vocab.json", "special_ids.EOS"],
    ),
}


@pytest.fixture
def export_copy(tmp_path):
    """A copy of the built export (ONNX files linked, JSON files copied)."""
    folder = tmp_path / "export"
    folder.mkdir()
    for f in EXPORT_DIR.iterdir():
        if f.suffix == ".onnx":
            (folder / f.name).symlink_to(f)
        elif f.is_file():
            shutil.copyfile(f, folder / f.name)
    return folder


def test_the_built_export_passes():
    m = check_export(EXPORT_DIR)
    assert m["order"] == ["mlp", "attn1", "attn4"]


@pytest.mark.parametrize("flaw", sorted(FLAWS))
def test_a_flawed_export_is_named(export_copy, flaw):
    make, named = FLAWS[flaw]
    make(export_copy)
    with pytest.raises(ExportMismatch) as err:
        check_export(export_copy)
    for word in named:
        assert word in str(err.value), str(err.value)


@pytest.mark.parametrize("flaw", ["vocab_size 5000", "vocabulary of 100", "no heads"])
def test_the_site_build_refuses_a_flawed_export_and_keeps_the_previous_site(mini, capsys, export_copy, flaw):
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--export", str(export_copy))
    assert rc == 0, log
    before = snapshot(out)
    make, named = FLAWS[flaw]
    make(export_copy)
    rc, log = run_build(capsys, content, tables, out, "--export", str(export_copy))
    assert rc == 1 and "build failed:" in log, log
    assert all(word in log for word in named), log
    assert snapshot(out) == before


def test_the_export_stage_checks_before_publishing(tmp_path, monkeypatch):
    """A flaw made by the exporter itself (simulated) stops the export before its
    swap: the previous output stays as it was."""
    out = tmp_path / "export"
    out.mkdir()
    (out / MARKER).write_text("")
    (out / "previous.txt").write_text("the previous export\n")

    def flawed_build(models, staging, log):
        for f in EXPORT_DIR.iterdir():
            if f.is_file() and f.name != MARKER:
                shutil.copyfile(f, staging / f.name)
        _edit_metadata(staging, _drop("models.attn4.heads"))

    monkeypatch.setattr(pipeline, "build", flawed_build)
    with pytest.raises(ExportError, match="models.attn4.heads"):
        pipeline.run(out=out, log=lambda *a: None)
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "previous.txt"])
