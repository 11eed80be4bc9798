"""A safe --out (issue 25, point 2): the build replaces its output folder whole,
so it must refuse a folder that holds or lies inside the project's sources or
its inputs, and a folder that is neither empty nor a previous build (the marker
file every build writes); it never deletes what a build did not create."""

from __future__ import annotations

import os
import shutil

import pytest

from common import publish
from common.publish import MARKER, OutputRefused, check_out
from common.settings import ROOT
from export import pipeline
from export.pipeline import ExportError
from site_builder.assemble import BuildError
from site_builder.build import Inputs, build
from support.builds import run_build, snapshot


@pytest.fixture
def nothing_deleted(monkeypatch):
    """A safety net for the tests that point --out at the real project: any
    delete or move fails the test instead of happening."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"the build tried to delete or move {args[0]}")

    monkeypatch.setattr(shutil, "rmtree", refuse)
    monkeypatch.setattr(os, "rename", refuse)
    monkeypatch.setattr(publish, "_exchange", lambda a, b: refuse(b))


def _fake_project(tmp_path, mini):
    """A project folder of its own (content/ inside it) for the build."""
    content, tables, _ = mini
    project = tmp_path / "project"
    project.mkdir()
    shutil.move(content, project / "content")
    (project / "README.md").write_text("the project's readme\n", encoding="utf-8")
    return project, tables


@pytest.mark.parametrize("target", ["content", "project root", "content/decks", "parent of the project"])
def test_out_at_or_around_the_sources_is_refused_and_deletes_nothing(tmp_path, mini, target):
    project, tables = _fake_project(tmp_path, mini)
    out = {
        "content": project / "content",
        "project root": project,
        "content/decks": project / "content" / "decks",
        "parent of the project": tmp_path,
    }[target]
    before = snapshot(tmp_path)
    inp = Inputs(content=project / "content", tables=tables, export=None, out=out, root=project)
    with pytest.raises(BuildError) as err:
        build(inp)
    assert "--out" in str(err.value) and str(out) in str(err.value)
    assert snapshot(tmp_path) == before  # nothing deleted, nothing added (not even a lock or a staging folder)


def test_out_elsewhere_inside_the_project_is_refused(tmp_path, mini):
    project, tables = _fake_project(tmp_path, mini)
    with pytest.raises(BuildError, match="inside the project's sources"):
        build(Inputs(content=project / "content", tables=tables, export=None, out=project / "site", root=project))
    assert not (project / "site").exists()


def test_the_real_project_root_and_content_are_refused_by_the_cli(capsys, mini, nothing_deleted):
    _, tables, _ = mini
    for out in (ROOT, ROOT / "content", ROOT / "web"):
        rc, log = run_build(capsys, ROOT / "content", tables, out, "--no-export")
        assert rc == 1 and f"--out {out}:" in log, log
    assert not (ROOT / ".content.staging").exists() and not (ROOT / ".web.staging").exists()


def test_a_folder_holding_an_unrelated_file_is_refused_and_kept(tmp_path, mini, capsys):
    content, tables, _ = mini
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me\n", encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "not empty and not a previous output" in log and MARKER in log, log
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "mine", "tables"]  # nothing beside it


def test_an_input_as_the_output_is_refused(mini, capsys):
    content, tables, _ = mini
    rc, log = run_build(capsys, content, tables, tables, "--no-export")
    assert rc == 1 and "input" in log, log
    assert (tables / "mini.json").is_file()


def test_an_empty_folder_and_a_previous_build_are_replaced(tmp_path, mini, capsys):
    content, tables, _ = mini
    out = tmp_path / "empty"
    out.mkdir()
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    assert (out / MARKER).is_file() and (out / "index.html").is_file()
    rc, log = run_build(capsys, content, tables, out, "--no-export")  # a previous build: replaced whole
    assert rc == 0, log
    (out / "notes.txt").write_text("put there by hand after the build\n", encoding="utf-8")
    before = snapshot(out)
    rc, log = run_build(capsys, content, tables, out, "--no-export")  # never deleted: refused, named
    assert rc == 1 and "holds files no build wrote (notes.txt)" in log, log
    assert snapshot(out) == before


def test_a_foreign_folder_where_the_staging_folder_goes_is_refused(tmp_path, mini, capsys):
    content, tables, _ = mini
    out = tmp_path / "out"
    stray = publish.staging_dir(out)
    stray.mkdir()
    (stray / "thesis.tex").write_text("\\section{}\n", encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and str(stray) in log, log
    assert (stray / "thesis.tex").is_file() and not out.exists()


def test_the_export_refuses_the_same_targets(tmp_path, nothing_deleted):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me\n", encoding="utf-8")
    with pytest.raises(ExportError, match="not empty and not a previous output"):
        pipeline.run(out=out, log=lambda *a: None)
    with pytest.raises(ExportError, match="holds the project's sources"):
        pipeline.run(out=ROOT, log=lambda *a: None)
    assert (out / "notes.txt").is_file()


def test_check_out_rules():
    with pytest.raises(OutputRefused):
        check_out(ROOT / "models")
    check_out(ROOT / "build" / "somewhere-new")  # a new folder under build/: the project's own outputs
    with pytest.raises(OutputRefused, match="the project's build folder"):
        check_out(ROOT / "build")
    with pytest.raises(OutputRefused, match="holds the project's sources"):
        check_out(ROOT / "build" / "x", inputs=(), root=ROOT / "build" / "x" / "y")
