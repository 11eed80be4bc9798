"""One rule for every output folder (issue 37 item 1, issue 38 items 7 and 8):
the site, export, experiments, tables and notebooks commands write only into a
new or empty folder or one they wrote before (common.publish's marker names
the command and the files it wrote); none removes a file it did not write; a
folder of the sources, the build/ folder, an input of the stage or another
command's output is refused, naming it, before anything is written; a linked
output is resolved (the link stays a link); the lock is build/.build.lock,
never a file beside the output."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import export.tables.__main__ as tables_cli
from common import publish
from common.layout import ModelsFolder
from common.publish import LOCK, MARKER, check_out, read_marker
from common.settings import BUILD_DIR, EXPORT_DIR, ROOT, SITE_DIR, TABLES_DIR
from export import experiments, pipeline
from export.pipeline import ExportError
from site_builder import notebooks
from site_builder.assemble import BuildError
from site_builder.build import Inputs, build
from support.builds import run_build, snapshot


def _tables(out):
    return tables_cli.main(["--out", str(out)])


def _export(out):
    try:
        pipeline.run(out=out, log=lambda *_: None)
    except ExportError as exc:
        print(exc)
        return 2
    return 0


def _experiments(out):
    return experiments.main(["--out", str(out)])


def _notebooks(out):
    return notebooks.main(["--out", str(out)])


def _site(out):
    try:
        build(Inputs(out=out))
    except BuildError as exc:
        print(exc)
        return 1
    return 0


COMMANDS = {"tables": _tables, "export": _export, "experiments": _experiments, "notebooks": _notebooks, "site": _site}


@pytest.fixture
def nothing_deleted(monkeypatch):
    """Any delete or move fails the test instead of happening (for the tests that aim at the real project)."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"the command tried to delete or move {args[0]}")

    monkeypatch.setattr(shutil, "rmtree", refuse)
    monkeypatch.setattr(os, "rename", refuse)
    monkeypatch.setattr(os, "unlink", refuse)
    monkeypatch.setattr(publish, "_exchange", lambda a, b: refuse(b))
    monkeypatch.setattr(experiments, "compute", lambda *a, **k: refuse("(computing before the output was checked)"))
    monkeypatch.setattr(tables_cli, "compute_all", lambda *a, **k: refuse("(computing before the output was checked)"))


def _listing(out):
    """Names, sizes and modification times in ``out`` and beside it (cheap: no hashing; the
    nothing_deleted fixture catches a deletion anywhere)."""
    return {
        str(p): (p.stat().st_size, p.stat().st_mtime_ns)
        for folder in (out, out.parent)
        if folder.is_dir()
        for p in sorted(folder.iterdir())
        if p.exists()
    }


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_holding_a_foreign_file_is_refused_and_kept(tmp_path, capsys, command, nothing_deleted):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.json").write_text('{"mine": true}\n', encoding="utf-8")
    assert COMMANDS[command](out) != 0
    said = capsys.readouterr()
    assert f"--out {out}: not empty and not a previous output" in said.out + said.err, said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # no lock, staging folder or marker beside it
    assert [p.name for p in out.iterdir()] == ["notes.json"]


DANGEROUS = {
    "models": ROOT / "models",
    "models/checkpoints": ROOT / "models" / "checkpoints",
    "content": ROOT / "content",
    "project root": ROOT,
    "build": BUILD_DIR,
    "a new folder in the sources": ROOT / "models" / "new-out",
}


@pytest.mark.parametrize("target", DANGEROUS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_dangerous_target_is_refused_by_name_before_anything_is_written(capsys, command, target, nothing_deleted):
    out = DANGEROUS[target]
    before = _listing(out)
    assert COMMANDS[command](out) != 0
    said = capsys.readouterr()
    assert f"--out {out}" in said.out + said.err, said
    assert _listing(out) == before
    assert not out.exists() or target != "a new folder in the sources"


OTHERS = {  # another stage's output (or the stage's input) for each command
    "tables": [EXPORT_DIR, SITE_DIR, SITE_DIR / "tables-here"],
    "export": [TABLES_DIR, SITE_DIR, BUILD_DIR / "experiments"],
    "experiments": [TABLES_DIR, EXPORT_DIR, SITE_DIR / "x"],
    "notebooks": [TABLES_DIR, EXPORT_DIR, SITE_DIR / "notebooks"],
    "site": [BUILD_DIR / "experiments", TABLES_DIR, BUILD_DIR / "notebooks", EXPORT_DIR],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_another_stages_output_or_an_input_is_refused(capsys, command, nothing_deleted):
    if not (SITE_DIR / MARKER).is_file() or not TABLES_DIR.is_dir():
        pytest.fail("this test needs the built project (make site)")
    for out in OTHERS[command]:
        before = _listing(out)
        assert COMMANDS[command](out) != 0, out
        said = capsys.readouterr()
        assert f"--out {out}" in said.out + said.err, said
        assert _listing(out) == before


def test_the_tables_keep_a_foreign_file_put_into_their_folder(tmp_path):
    out = tmp_path / "tables"
    tables_cli.write_tables({"a": "{}\n", "b": "{}\n"}, out)
    assert read_marker(out) == {"owner": tables_cli.OWNER, "files": ["a.json", "b.json"]}
    (out / "results.json").write_text('{"runs": "hours of training"}\n', encoding="utf-8")
    tables_cli.write_tables({"a": "{}\n"}, out)  # b is no table now: removed; results.json is not theirs
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "a.json", "results.json"])


def test_the_experiments_keep_a_foreign_file_put_into_their_folder(tmp_path, monkeypatch):
    out = tmp_path / "experiments"
    monkeypatch.setattr(experiments, "compute", lambda folder, log: {"seconds": 0.0})
    monkeypatch.setattr(experiments, "input_files", lambda folder: {})
    experiments.run(ModelsFolder(ROOT / "models"), out, log=lambda *_: None)
    (out / "cache.json").write_text("{}", encoding="utf-8")
    experiments.run(ModelsFolder(ROOT / "models"), out, log=lambda *_: None)
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "cache.json", experiments.RESULT])
    assert read_marker(out)["files"] == [experiments.RESULT]


def test_the_export_refuses_to_replace_a_previous_export_holding_a_foreign_file(tmp_path, nothing_deleted):
    out = tmp_path / "export"
    out.mkdir()
    publish.write_marker(out, pipeline.OWNER, ["metadata.json"])
    (out / "metadata.json").write_text("{}", encoding="utf-8")
    (out / "thesis.tex").write_text("\\section{}\n", encoding="utf-8")
    with pytest.raises(ExportError, match=r"holds files no build wrote \(thesis\.tex\)"):
        pipeline.run(out=out, log=lambda *_: None)
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "metadata.json", "thesis.tex"])


def test_a_previous_site_lists_its_files_and_a_file_added_later_is_refused(mini, capsys):
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    marker = read_marker(out)
    assert marker["owner"] == "python -m site_builder"
    assert set(marker["files"]) == {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} - {MARKER}
    (out / "decks" / "my-notes.html").write_text("mine", encoding="utf-8")
    before = snapshot(out)
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "decks/my-notes.html" in log, log
    assert snapshot(out) == before


def test_an_owners_folder_is_refused_to_another_command(tmp_path, capsys, nothing_deleted):
    out = tmp_path / "tables"
    tables_cli.write_tables({"a": "{}\n"}, out)
    for command in ("export", "experiments", "notebooks", "site"):
        assert COMMANDS[command](out) != 0
        said = capsys.readouterr()
        assert f"the output of `{tables_cli.OWNER}`" in said.out + said.err, (command, said)
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "a.json"])


# ------------------------------------------------------------------ a linked --out (issue 38 item 7)


def test_a_linked_site_output_is_built_into_its_target_and_stays_a_link(mini, capsys, tmp_path):
    content, tables, _ = mini
    target = tmp_path / "releases" / "site"
    target.parent.mkdir()
    link = tmp_path / "www"
    link.symlink_to(target, target_is_directory=True)  # dangling at first: a web root named before its first build
    for _ in range(2):  # the first build and a rebuild over it
        rc, log = run_build(capsys, content, tables, link, "--no-export")
        assert rc == 0, log
        assert link.is_symlink() and os.readlink(link) == str(target)
        assert (target / "index.html").is_file() and (target / MARKER).is_file()
        assert f"site written to {target}" in log
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["content", "releases", "tables", "www"])
    assert sorted(p.name for p in target.parent.iterdir()) == ["site"]


def test_a_linked_tables_output_writes_into_its_target(tmp_path):
    target = tmp_path / "real"
    link = tmp_path / "tables"
    link.symlink_to(target, target_is_directory=True)
    assert tables_cli.write_tables({"a": "{}\n"}, link) == target
    assert link.is_symlink() and (target / "a.json").is_file()


def test_a_link_into_the_sources_is_refused_by_what_it_names(tmp_path):
    link = tmp_path / "out"
    link.symlink_to(ROOT / "models", target_is_directory=True)
    with pytest.raises(publish.OutputRefused, match=f"--out {link} \\(a link to {ROOT / 'models'}\\)"):
        check_out(link)
    assert link.is_symlink()


# ------------------------------------------------------------------ the lock (issue 38 item 8)


def test_the_lock_is_the_builds_own_file_never_one_beside_the_output(mini, capsys, tmp_path):
    content, tables, out = mini
    mine = out.parent / ".lock"
    out.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("my own lock file\n", encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    assert mine.read_text(encoding="utf-8") == "my own lock file\n"
    assert sorted(p.name for p in out.parent.iterdir()) == [".lock", "site"]
    assert (BUILD_DIR / LOCK).is_file()
    tables_cli.write_tables({"a": "{}\n"}, tmp_path / "t")
    with publish.build_lock():
        pass
    assert not (tmp_path / ".lock").exists() and not (ROOT / ".lock").exists()
    assert not (ROOT / "models" / ".lock").exists() and not (ROOT / "content" / ".lock").exists()


def test_a_link_in_place_of_the_lock_is_refused_not_followed(tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep\n", encoding="utf-8")
    (tmp_path / LOCK).symlink_to(victim)
    with pytest.raises(OSError, match="a link, not the build's lock file"):
        with publish.build_lock(tmp_path):
            pass
    assert victim.read_text(encoding="utf-8") == "keep\n"


# ------------------------------------------------------------------ links among the inputs (issue 38 item 9)


def test_a_link_out_of_the_project_among_the_copied_inputs_is_refused(mini, capsys, tmp_path):
    content, tables, out = mini
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0\n", encoding="utf-8")
    (content / "decks" / "secret.txt").symlink_to(secret)
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "secret.txt: a link to" in log and "outside the project" in log, log
    assert not out.exists()


# ------------------------------------------------------------------ the export's own outputs checked (issue 38 item 5)


def test_a_vocab_json_with_two_tokens_swapped_is_refused_by_the_site(tmp_path):
    from common.files import sha256_file
    from common.layout import MODELS
    from site_builder.build import check_vocab_hash

    export = tmp_path / "export"
    export.mkdir()
    shutil.copyfile(MODELS.vocab, export / "vocab.json")
    recorded = json.loads(MODELS.info("mlp").read_text(encoding="utf-8"))["vocab_sha256"]
    assert sha256_file(export / "vocab.json") == recorded
    metadata = {"vocab_sha256": recorded}
    check_vocab_hash(export, metadata, ROOT)  # the vocabulary trained with: taken
    vocab = json.loads((export / "vocab.json").read_text(encoding="utf-8"))
    itos = vocab["itos"] if isinstance(vocab, dict) else vocab
    itos[10], itos[11] = itos[11], itos[10]
    (export / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    with pytest.raises(BuildError, match="vocab.json: not the vocabulary the models were trained with"):
        check_vocab_hash(export, metadata, ROOT)
