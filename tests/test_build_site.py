"""The site builder without a browser: byte-identical rebuilds, failures that
name the broken input and leave the previous site intact, the conventions of
site_builder/README.md, and `python -m export.tables`."""

from __future__ import annotations

import json
import zipfile
from html import unescape

import pytest

from common.publish import MARKER
from common.settings import EXPORT_DIR, ROOT
from site_builder.archive import FIXED_TIME, tracked_files
from site_builder.values import fmt, resolve
from support.builds import CONTENT, run_build, snapshot


def test_mini_build_renders_the_conventions(mini, capsys):
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    html = (out / "decks" / "mini.html").read_text(encoding="utf-8")
    assert html.count("<section") == 3  # two slides and the closing links
    assert 'Value <span class="v" data-source="mini.x" data-digits="3" data-kind="num">0.123</span>' in html
    assert '<table class="data " data-source="mini.t" data-digits="4">' in html
    assert '<td class="n">2.5000</td>' in html
    assert html.count('class="katex"') == 2  # one on the slide, one in the notes
    assert '<aside class="notes">' in html
    assert 'aria-current="step"' in html and 'data-stage="windows"' in html
    assert 'class="listing"' in html and '<span class="nf">forward</span>' in html
    index = (out / "index.html").read_text(encoding="utf-8")
    assert index.index("decks/aaa.html") < index.index("decks/mini.html")  # sorted by front-matter order
    assert "lab/index.html" not in index or (ROOT / "web" / "lab" / "index.html").exists()
    assert (out / "tables" / "mini.json").exists()
    assert (out / "vendor" / "reveal" / "reveal.js").exists()
    assert (out / "vendor" / "katex" / "katex.min.css").exists()
    assert (out / "assets" / "pygments.css").exists()
    assert not (out / "onnx").exists()  # --no-export


def test_lab_link_only_when_the_lab_exists(mini, capsys, tmp_path):
    from site_builder.build import Inputs, build

    content, tables, out = mini
    web = tmp_path / "web"
    (web / "widgets").mkdir(parents=True)
    build(Inputs(content=content, tables=tables, export=None, out=out, web=web))
    assert "lab/index.html" not in (out / "index.html").read_text(encoding="utf-8")
    (web / "lab").mkdir()
    (web / "lab" / "index.html").write_text("<!DOCTYPE html><title>lab</title>")
    build(Inputs(content=content, tables=tables, export=None, out=out, web=web))
    assert 'href="lab/index.html"' in (out / "index.html").read_text(encoding="utf-8")
    assert (out / "lab" / "index.html").exists()


def test_two_builds_are_byte_identical(mini, capsys):
    """The same inputs give the same bytes: the mini site (two decks, the real maps,
    the index, every vendored file) built twice into two folders."""
    content, tables, out = mini
    a, b = out.parent / "a" / "site", out.parent / "b" / "site"
    for folder in (a, b):
        rc, log = run_build(capsys, content, tables, folder, "--no-export")
        assert rc == 0, log
    snap_a, snap_b = snapshot(a), snapshot(b)
    assert len(snap_a) > 50
    assert snap_a == snap_b


def test_the_course_build_has_every_deck_linked_from_the_index(site_dir, tables_dir):
    """What `make site` built from the real content (build/site): a page per deck,
    each linked from the index, and the tables it was built with."""
    decks = sorted(p.stem for p in (CONTENT / "decks").glob("*.md"))
    index = (site_dir / "index.html").read_text(encoding="utf-8")
    assert len(snapshot(site_dir)) > 50
    for slug in decks:
        assert (site_dir / "decks" / f"{slug}.html").exists()
        assert f'href="decks/{slug}.html"' in index
    built = {p.name: p.read_bytes() for p in sorted((site_dir / "tables").glob("*.json"))}
    assert built == {p.name: p.read_bytes() for p in sorted(tables_dir.glob("*.json"))}


BROKEN = {
    "undefined variable": ("+++\ntitle = 'x'\norder = 3\n+++\n## A\n\ntext\n{{ data.nope }}\n", "line 8"),
    "jinja syntax": ("+++\ntitle = 'x'\norder = 3\n+++\n## A\n{% if %}\n", "line 6"),
    "unknown front matter key": ("+++\ntitle = 'x'\norder = 3\nauthor = 'me'\n+++\n## A\n", "unknown front matter key"),
    "missing order": ("+++\ntitle = 'x'\n+++\n## A\n", "needs 'order'"),
    "no front matter": ("## A\n", "front matter"),
    "table not built": ("+++\ntitle = 'x'\norder = 3\ntables = ['no_such_table']\n+++\n## A\n", "no_such_table"),
    "bad source path": (
        "+++\ntitle = 'x'\norder = 3\ntables = ['mini']\n+++\n## A\n\n{{ m.num('mini.y') }}\n",
        "line 8",
    ),
    "bad TeX": ("+++\ntitle = 'x'\norder = 3\n+++\n## A\n\nok\n\n$\\frac{1}{$\n", "line 9"),
    "unclosed $": ("+++\ntitle = 'x'\norder = 3\n+++\n## A\n\nok\n\nthe price $x + 1 rises\n", "line 9"),
    "unclosed $$": ("+++\ntitle = 'x'\norder = 3\n+++\n## A\n\n$$\\frac{1}{2}\n\nmore text\n", "line 7"),
    "two sections on a slide": (
        "+++\ntitle = 'x'\norder = 3\n+++\n## T\n\n---\n\nSection: One\nSection: Two\n## A\n",
        "opens two sections",
    ),
    "a content slide before the first section": (
        "+++\ntitle = 'x'\norder = 3\n+++\n## T\n\n---\n\n## A\n\n---\n\nSection: One\n## B\n",
        "first content slide ('A') opens none",
    ),
    "a section on the title slide": ("+++\ntitle = 'x'\norder = 3\n+++\nSection: One\n## T\n", "title slide"),
    "unknown map stage": ("+++\ntitle = 'x'\norder = 3\n+++\n## A\n{{ m.map('training', 'nowhere') }}\n", "nowhere"),
    "missing listing symbol": (
        "+++\ntitle = 'x'\norder = 3\n+++\n## A\n{{ m.code('models/nets.py', 'Nope') }}\n",
        "'Nope' not found",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_content_file_fails_and_keeps_the_previous_site(mini, capsys, case):
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    before = snapshot(out)
    text, expected = BROKEN[case]
    (content / "decks" / "broken.md").write_text(text, encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1
    assert "build failed:" in log and "broken.md" in log and expected in log, log
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir() if p.name != ".lock") == [
        "site"
    ]  # no staging folder left behind


def test_a_dollar_in_a_story_from_a_table_prints_as_text(mini, capsys):
    """A table's text is data, not markup: a story with dollar signs neither
    opens math nor fails the build (it failed naming the deck, not the table)."""
    content, tables, out = mini
    story = "Tom had $5 and Sue had $6. She said: 2 < 3 & $ is money."
    (tables / "story.json").write_text(json.dumps({"story": story}))
    deck = (
        "+++\ntitle = 'Story'\norder = 3\ntables = ['story']\n+++\n## A story\n\n"
        '<p class="story">{{ data.story.story }}</p>\n\n'
        "In a sentence: {{ data.story.story }}\n\nMath still works: $x^2$.\n"
    )
    (content / "decks" / "story.md").write_text(deck, encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    html = (out / "decks" / "story.html").read_text(encoding="utf-8")
    body = unescape(html[html.index("<h2>A story</h2>") : html.index("</section>")])
    assert body.count(story) == 2  # in the HTML block and in the Markdown sentence
    assert body.count('class="katex"') == 1


def test_a_corrupt_table_is_named(mini, capsys):
    content, tables, out = mini
    (tables / "mini.json").write_text('{"x": 1,', encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "mini.json" in log and "is corrupt" in log
    assert not out.exists()


def test_missing_export_is_an_error_without_the_flag(mini, capsys, tmp_path):
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--export", str(tmp_path / "no_export"))
    assert rc == 1 and "export output missing" in log and "--no-export" in log
    assert not out.exists()


def test_export_is_copied_to_onnx(mini, capsys, tmp_path):
    """The export (cross-checked first: tests/test_export_check.py) lands in onnx/, its marker left out."""
    content, tables, out = mini
    rc, log = run_build(capsys, content, tables, out, "--export", str(EXPORT_DIR))
    assert rc == 0, log
    for f in ("metadata.json", "vocab.json", "presets.json", "attn4.onnx"):
        assert (out / "onnx" / f).read_bytes() == (EXPORT_DIR / f).read_bytes()
    assert not (out / "onnx" / MARKER).exists() and not (out / "onnx" / "cache.json").exists()


def test_source_zip_is_small_sorted_and_timeless(tmp_path):
    from site_builder.archive import write_source_zip

    a, b = tmp_path / "a.zip", tmp_path / "b.zip"
    write_source_zip(ROOT, a)
    write_source_zip(ROOT, b)
    assert a.read_bytes() == b.read_bytes()
    with zipfile.ZipFile(a) as zf:
        names = zf.namelist()
        assert names == sorted(names)
        assert "attention-course/models/nets.py" in names
        assert "attention-course/Makefile" in names
        assert all(i.date_time == FIXED_TIME for i in zf.infolist())
        assert not any(n.endswith((".safetensors", ".onnx")) for n in names)
        assert not any(part in ("build", "node_modules", ".venv") for n in names for part in n.split("/"))
        assert zf.read("attention-course/models/nets.py") == (ROOT / "models" / "nets.py").read_bytes()
    assert len(names) == len(tracked_files(ROOT))


def test_fmt_and_resolve_follow_the_readme():
    assert fmt(None) == "—" and fmt(True) == "true" and fmt(7) == "7" and fmt(999) == "999" and fmt(4760) == "4,760"
    assert fmt([2, 4000]) == "[2, 4000]"  # a list (IDs, a shape) is never grouped
    assert fmt(921288) == "921,288" and fmt(-12345) == "−12,345"
    assert fmt(-0.0000001, 6) == "0.000000" and fmt(-0.5, 1) == "−0.5"
    assert fmt(0.1444295048713684, 7) == "0.1444295" and fmt(-1.5, 2) == "−1.50"
    assert fmt([1, 2.0], 1) == "[1, 2.0]" and fmt("<PAD>") == "<PAD>"
    assert fmt(5163.2, 0) == "5,163" and fmt(2224.5, 1) == "2,224.5" and fmt(-1250.0, 0) == "−1,250"  # floats too
    data = {"t": {"rows": [[1, 2]], "v": [0.5]}}
    assert resolve(data, "t.rows.0.1") == (2, "t.rows.0.1")
    assert resolve(data, [1]) == ([1], None)
    with pytest.raises(ValueError, match="front matter"):
        resolve(data, "other.x")
    with pytest.raises(ValueError, match="no key"):
        resolve(data, "t.nope")


# ---------------------------------------------------------------- export.tables


def test_export_tables_cli_is_deterministic_and_leaves_others(tmp_path, capsys):
    from export.tables.__main__ import main

    out = tmp_path / "tables"
    assert main(["--only", "maps_mlp", "--out", str(out)]) == 0
    assert main(["--only", "maps_mlp", "corpus_audit", "--out", str(out)]) == 0
    first = snapshot(out)
    assert main(["--only", "maps_mlp", "corpus_audit", "--out", str(out)]) == 0
    assert snapshot(out) == first
    assert main(["--only", "corpus_audit", "--out", str(out)]) == 0
    assert snapshot(out) == first  # --only never removes other tables
    assert sorted(first) == [MARKER, "corpus_audit.json", "maps_mlp.json"]  # not what they needed
    text = (out / "maps_mlp.json").read_text(encoding="utf-8")
    assert json.loads(text)["example1"]["target_probability"] == 0.1444295048713684
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    assert not list(out.glob("*.tmp")) and [p.name for p in out.glob(".*")] == [MARKER]


def test_write_tables_removes_only_stale_tables_it_wrote(tmp_path):
    from export.tables.__main__ import write_tables

    write_tables({"gone": "{}\n", "kept": "{}\n"}, tmp_path)
    (tmp_path / "notes.json").write_text("{}")  # a file someone put there later: never the command's
    write_tables({"kept": "{}\n"}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([MARKER, "kept.json", "notes.json"])


def test_tables_reject_nan_duplicate_names_and_unknown_ones(monkeypatch):
    import export.tables as tables
    from export.tables.kit import registry

    with pytest.raises(tables.TablesError, match="not plain JSON"):
        tables.to_json("bad", {"x": float("nan")})
    tables.load_decks()
    monkeypatch.setattr(registry, "ENTRIES", dict(registry.ENTRIES))
    with pytest.raises(tables.TablesError, match="produced by both export/tables/maps/toy.py and"):
        registry.table("maps_vocab")(lambda: {})
    with pytest.raises(tables.TablesError, match="no deck or table named 'mpas'"):
        tables.select(["mpas"])
    assert tables.select(["part2"]) == tables.table_names("part2")


def test_a_table_is_computed_once_and_reads_what_it_needs(monkeypatch):
    """Each table runs once per run, after the tables it declares, and gets
    their values; one that fails is named with its file."""
    import export.tables as tables
    from export.tables.kit import registry

    tables.load_decks()
    monkeypatch.setattr(registry, "ENTRIES", dict(registry.ENTRIES))
    calls = []

    @registry.value("test_base")
    def base():
        calls.append("base")
        return {"n": 2}

    @registry.table("test_double", needs=["test_base"])
    def double(test_base):
        calls.append("double")
        return {"n": 2 * test_base["n"]}

    @registry.table("test_square", needs=["test_base", "test_double"])
    def square(test_base, test_double):
        return {"n": test_base["n"] * test_double["n"]}

    assert tables.compute(["test_square", "test_double"]) == {"test_double": {"n": 4}, "test_square": {"n": 8}}
    assert calls == ["base", "double"]

    @registry.table("test_broken", needs=["sources"])
    def broken(sources):
        raise ValueError("no such thing")

    with pytest.raises(
        tables.TablesError, match="test_build_site.py: table 'test_broken' failed: ValueError: no such thing"
    ):
        tables.compute(["test_broken"])


def test_corpus_audit_table(tmp_path):
    from export.tables.kit.sources import InputError, Sources
    from export.tables.maps.corpus_audit import corpus_audit

    missing = corpus_audit(Sources(models_dir=tmp_path))
    assert missing["available"] is False and "does not exist yet" in missing["reason"]
    audit = json.loads((ROOT / "models" / "corpus_audit.json").read_text())
    table = corpus_audit(Sources())
    assert table["available"] is True
    for row, split in zip(table["rows"], ("train", "validation", "test")):
        s = audit["splits"][split]
        assert row == [split, s["documents"], s["tokens"], s["tokens"] + s["documents"], s["unk_tokens"]]
    broken = json.loads(json.dumps(audit))
    broken["splits"]["train"]["windows"] += 1
    (tmp_path / "corpus_audit.json").write_text(json.dumps(broken))
    with pytest.raises(InputError, match="tokens \\+ stories"):
        corpus_audit(Sources(models_dir=tmp_path))
