"""The notation and glossary pages and the build checks behind them: one
notation (content/notation.toml) that no deck may use in another meaning, a
glossary (content/glossary.toml) whose terms no deck uses before the slide
that teaches them, and slide links by heading (m.see) resolved at build time.

The first tests read the built course (build/site); the others build the
small test site with a broken deck and expect the build to refuse it."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from site_builder import reference
from site_builder.assemble import BuildError
from support.builds import CONTENT, run_build

ROOT = Path(__file__).resolve().parent.parent

DECKS = sorted(p.stem for p in (CONTENT / "decks").glob("*.md"))


def sections(site_dir: Path, slug: str) -> list[str]:
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    return re.findall(r'<section data-slide="\d+"[^>]*>(.*?)</section>', html, flags=re.S)


# ---- the built course -------------------------------------------------------------


def test_notation_page_lists_every_symbol(site_dir):
    spec = tomllib.loads((CONTENT / "notation.toml").read_text(encoding="utf-8"))
    html = (site_dir / "notation.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr id=[^>]*>(.*?)</tr>", html, re.S)
    assert len(rows) == len(spec["symbol"])
    for row, symbol in zip(rows, spec["symbol"]):
        assert symbol["name"] in row and 'class="katex"' in row


def test_reference_pages_are_linked_from_every_deck_reading_view_and_the_index(site_dir):
    for page in [site_dir / "index.html"] + [site_dir / d / f"{s}.html" for s in DECKS for d in ("decks", "read")]:
        html = page.read_text(encoding="utf-8")
        assert re.search(r'href="(\.\./)?notation\.html"', html), page
        assert re.search(r'href="(\.\./)?glossary\.html"', html), page


def test_each_glossary_entry_links_to_a_slide_that_uses_the_term(site_dir):
    spec = tomllib.loads((CONTENT / "glossary.toml").read_text(encoding="utf-8"))
    html = (site_dir / "glossary.html").read_text(encoding="utf-8")
    for term in spec["term"]:
        entry = re.search(rf'<div class="term" id="{term["id"]}">(.*?)</div>', html, re.S)
        assert entry, term["id"]
        deck, n = re.search(r'href="decks/([a-z0-9]+)\.html#/(\d+)"', entry.group(1)).groups()
        assert deck == term["deck"]
        slide = sections(site_dir, deck)[int(n)]
        assert term["slide"] in re.sub(r"<[^>]+>", "", slide.split("</h2>")[0]).replace("&quot;", '"')


def test_slide_links_point_at_the_slide_they_name(site_dir):
    """Part I's preview slides link forward to Part II by heading; the link
    carries the slide number (decks) or the article id (reading view)."""
    for slug in DECKS:
        for body in sections(site_dir, slug):
            for target, n in re.findall(r'<a class="see" href="([a-z0-9]+)\.html#/(\d+)"', body):
                assert int(n) < len(sections(site_dir, target))
        read = (site_dir / "read" / f"{slug}.html").read_text(encoding="utf-8")
        assert "#see=" not in read and not re.search(r'class="see" href="[a-z0-9]+\.html#/', read)
    maps = "".join(sections(site_dir, "maps"))
    assert maps.count('class="see"') >= 10  # every preview slide links to its Part II slide


# ---- the checks refuse broken decks -------------------------------------------------------


def with_reference(content: Path, glossary: str | None = None) -> None:
    shutil.copy(CONTENT / "notation.toml", content / "notation.toml")
    if glossary is not None:
        (content / "glossary.toml").write_text(glossary, encoding="utf-8")


def deck(content: Path, name: str, order: int, body: str) -> None:
    front = f'title = "{name}"\norder = {order}\nallow_digits = ["0", "12"]'
    (content / "decks" / f"{name}.md").write_text(f"+++\n{front}\n+++\n{body}\n")


@pytest.mark.parametrize(
    "line,says",
    [
        ("Attention costs $O(T^2)$ time.", "length is w"),
        ("The weights $a_j$ sum to one.", "not a"),
        ("The vocabulary has $V = 12$ items.", "vocabulary size is C"),
        ("Each head adds $h \\cdot d_k$ numbers.", "h is the hidden layer"),
        ("The first token sits in slot 0.", "count positions and slots from 1"),
        # issue 31's proofreading pass: perplexity is not N, top-k/top-p are not bare k and p
        ("Lower is better: perplexity N is an effective number of choices.", "N is the number of windows"),
        ("A fair pick among $N$ tokens.", "N is the number of windows"),
        ("Top-k with k = 12 keeps the most likely.", "write top-k = 3"),
        ("**Top-k** keeps the $k$ most likely tokens.", "write top-k = 3"),
        ("**Top-p** keeps the fewest whose share reaches $p$.", "write top-k = 3"),
        ("The sample SD divides by $n - 1$.", "n is the number of draws"),
        ("A layer from n inputs has many weights.", "n is the number of draws"),
    ],
)
def test_a_symbol_used_in_another_meaning_stops_the_build(mini, capsys, line, says):
    content, tables, out = mini
    with_reference(content)
    deck(content, "clash", 3, f"## One\n\nFine text.\n\n---\n\n## Two\n\n{line}")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1
    assert "content/decks/clash.md line 14: notation:" in log and says in log


GLOSSARY = """[[term]]
id = "widget"
term = "widget"
means = "A thing on a slide."
deck = "later"
slide = "Widgets"
match = '\\bwidgets?\\b'
"""


def test_a_term_used_before_its_slide_stops_the_build_unless_it_links(mini, capsys):
    content, tables, out = mini
    with_reference(content, GLOSSARY)
    deck(content, "early", 3, "## Before\n\nA widget appears here first.")
    deck(content, "later", 4, "## Widgets\n\nA widget is a thing on a slide.")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1
    assert "content/decks/early.md: slide 1 ('Before') uses 'widget' before later slide 1" in log
    deck(content, "early", 3, "## Before\n\nA [widget](../glossary.html#widget) appears here first.")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    page = (out / "glossary.html").read_text(encoding="utf-8")
    assert '<div class="term" id="widget">' in page and 'href="decks/later.html#/0"' in page


def test_a_word_the_course_avoids_stops_the_build(mini, capsys):
    content, tables, out = mini
    with_reference(content, GLOSSARY + '\n[[avoid]]\nword = "receiver"\nmatch = "receivers?"\nuse = "query token"\n')
    deck(content, "later", 4, "## Widgets\n\nA widget is a thing; the receiver asks.")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "says 'receiver': the course calls it 'query token'" in log


def test_a_slide_link_to_a_missing_heading_stops_the_build(mini, capsys):
    content, tables, out = mini
    deck(content, "links", 3, "## One\n\nSee {{ m.see('mini', 'First', 'the first slide') }}.")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    assert 'href="mini.html#/0"' in (out / "decks" / "links.html").read_text(encoding="utf-8")
    deck(content, "links", 3, "## One\n\nSee {{ m.see('mini', 'Nowhere', 'a slide') }}.")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "content/decks/links.md: slide link: no slide of mini has the heading 'Nowhere'" in log


# ---- in the browser --------------------------------------------------------------------------


@pytest.mark.parametrize("page_path", ["notation.html", "glossary.html", "notebooks/maps.html", "notebooks/part3.html"])
def test_reference_pages_pass_axe_and_read_on_a_phone(browser, site_url, site_dir, page_path):
    if not (site_dir / page_path).exists():
        pytest.skip(f"{page_path} not built (a build without notebooks)")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{site_url}/{page_path}")
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")
    page.add_script_tag(path=str(Path(__file__).resolve().parent.parent / "node_modules/axe-core/axe.min.js"))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [(v["id"], v["impact"]) for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad and not errors, (bad, errors)
    context.close()


# ---- the notation check reads exercise texts, figures and notebooks too (issue 31) --------


def test_a_figure_label_in_another_meaning_stops_the_build(mini, capsys):
    content, tables, out = mini
    with_reference(content)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><title>Rows</title>'
        '<text x="1" y="2">The embedding table T</text></svg>'
    )
    (tables / "planted.json").write_text(json.dumps({"figures": {"rows": svg}}), encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1
    assert "build/tables/planted.json, figure planted.figures.rows" in log and "embedding table is W_E" in log
    (tables / "planted.json").write_text(json.dumps({"figures": {"rows": svg.replace("table T", "table W_E")}}))
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log


def notation_only(tmp_path: Path) -> Path:
    """A content folder with the course's notation and nothing else to check."""
    content = tmp_path / "content"
    content.mkdir()
    shutil.copy(CONTENT / "notation.toml", content / "notation.toml")
    return content


@pytest.fixture(scope="module")
def checked_core(tmp_path_factory) -> Path:
    """A copy of web/core whose real exercise texts pass the notation check (checked
    once here; each test below plants one misuse in a copy of it)."""
    web = tmp_path_factory.mktemp("checked") / "web"
    shutil.copytree(ROOT / "web" / "core", web / "core")
    reference.check(notation_only(tmp_path_factory.mktemp("notation")), [], web=web)  # the real texts pass
    return web


def planted_core(checked_core: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A fresh copy of the checked web/core: (web, its exercises-part3.js)."""
    web = tmp_path / "web"
    shutil.copytree(checked_core, web)
    return web, web / "core" / "exercises-part3.js"


def test_an_exercise_text_in_another_meaning_stops_the_build(tmp_path, checked_core):
    content = notation_only(tmp_path)
    web, path = planted_core(checked_core, tmp_path)
    text = path.read_text(encoding="utf-8")
    planted = text.replace("`A window of w = ${T} slots holds", "`A window of T = ${T} slots holds")
    assert planted != text
    path.write_text(planted, encoding="utf-8")
    with pytest.raises(BuildError, match=r"exercises-part3\.js, exercise 'allowed-sources' .*'T = \d+ slots'"):
        reference.check(content, [], web=web)


@pytest.mark.parametrize(
    "real,planted,exercise",
    [
        ("`After top-k = 2 and renormalising,", "`After top-k with k = 2 and renormalising,", "top-k-renormalised"),
        ("`After top-p = ${f(top, 1)} and", "`After top-p with p = ${f(top, 1)} and", "top-p-renormalised"),
        ("running share reaches the threshold.'", "running share reaches p.'", "top-p-renormalised"),
    ],
)
def test_an_exercise_writes_top_k_and_top_p_not_bare_k_and_p(tmp_path, checked_core, real, planted, exercise):
    content = notation_only(tmp_path)
    web, path = planted_core(checked_core, tmp_path)
    text = path.read_text(encoding="utf-8")
    assert real in text
    path.write_text(text.replace(real, planted), encoding="utf-8")
    with pytest.raises(BuildError, match=rf"exercise '{exercise}' .*top-k = 3 and top-p = 0\.9"):
        reference.check(content, [], web=web)


@pytest.mark.parametrize(
    "cell,says",
    [
        ("# %% [markdown]\n# The messages H = AV of each head.", "H is the number of hidden units"),
        ("# %%\nx = 1  # the vocabulary (V) of the toy", "vocabulary size is C"),
        ("# %% [markdown]\n# The first hidden unit (j = 1 on the slide).", "hidden unit's index is c"),
        ("# %% [markdown]\n# For every position t >= 1 the previous w IDs predict it.", "a position is i"),
        ("# %% [markdown]\n# Perplexity N: a fair pick among N tokens.", "N is the number of windows"),
        ("# %% [markdown]\n# The sample standard deviation (divide by n - 1).", "n is the number of draws"),
    ],
)
def test_a_notebook_in_another_meaning_stops_the_build(tmp_path, cell, says):
    content = notation_only(tmp_path)
    books = tmp_path / "notebooks"
    books.mkdir()
    for real in (ROOT / "notebooks").glob("*.py"):
        shutil.copy(real, books / real.name)
    reference.check(content, [], notebooks=books)  # the real notebooks pass
    (books / "planted.py").write_text("# %% [markdown]\n# A title.\n\n" + cell + "\n", encoding="utf-8")
    with pytest.raises(BuildError, match=rf"notebooks/planted\.py: notation: .*{says}.*\(line [45]\)"):
        reference.check(content, [], notebooks=books)
