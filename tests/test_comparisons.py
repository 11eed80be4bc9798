"""m.compare names the sentence's subject (issue 31, item 1): the word says how
the subject stands to `than`, and a sentence that states the `than` value just
before the word stops the build. Also: every comparison sentence of the built
decks, rendered with its values, says the direction its table values have.

The built-deck tests need build/site (make site)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from site_builder import comparisons
from site_builder.build import Inputs
from site_builder.deck import ContentError, Renderer

ROOT = Path(__file__).resolve().parent.parent
DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))
OWN_DECKS = ("maps", "part2", "part3", "results")  # every deck uses the named form
TABLES = {"t": {"all_off": 1.281, "sum_single": 0.904, "four": 25.3, "one": 27.6}}
SPAN = re.compile(r'<span class="cmp" data-a="([^"]*)" data-b="([^"]*)"([^>]*)data-words="([^"]*)">([^<]*)</span>')


def render(tmp_path: Path, body: str, tables=None):
    content = tmp_path / "content"
    (content / "decks").mkdir(parents=True, exist_ok=True)
    path = content / "decks" / "x.md"
    path.write_text(f'+++\ntitle = "X"\norder = 1\ntables = ["t"]\n+++\n{body}\n', encoding="utf-8")
    inp = Inputs()
    return Renderer(ROOT, content, inp.templates, inp.node_modules).render_file(path, tables or TABLES)


def html_of(page) -> str:
    return "\n".join(str(s.html) + str(s.notes or "") for s in page.slides)


ITEM_1 = (
    "All four off: +{{ m.num('t.all_off', 3) }} nats/token, "
    "{{ m.compare(subject='SUBJ', than='THAN', less='less', more='more') }} "
    "than the single costs added up ({{ m.num('t.sum_single', 3) }})."
)


def test_the_named_form_gives_the_subjects_direction_and_names_both_roles(tmp_path):
    html = html_of(render(tmp_path, "## S\n\n" + ITEM_1.replace("SUBJ", "t.all_off").replace("THAN", "t.sum_single")))
    assert 'data-subject="t.all_off" data-than="t.sum_single"' in html
    assert re.search(r'data-words="less\|more\|">more</span> than the single costs', html)


def test_a_sentence_comparing_the_wrong_way_round_stops_the_build(tmp_path):
    """Issue 31, item 1: the sum named as subject while the sentence states 1.281 first."""
    body = "## S\n\n" + ITEM_1.replace("SUBJ", "t.sum_single").replace("THAN", "t.all_off")
    with pytest.raises(ContentError, match=r"states t\.all_off just before .less.*swap subject= and than=") as err:
        render(tmp_path, body)
    assert err.value.line == 8  # the line of the call, in the file (front matter included)


def test_a_value_in_an_earlier_sentence_is_not_the_subject(tmp_path):
    body = (
        "## S\n\nOne head scores {{ m.num('t.one', 1) }}. Four heads score "
        "{{ m.compare(subject='t.four', than='t.one', less='lower', more='higher') }} than one head."
    )
    assert ">lower</span> than one head" in html_of(render(tmp_path, body))
    in_one_sentence = body.replace("}}. Four", "}}, and four")
    with pytest.raises(ContentError, match="swap subject"):
        render(tmp_path, in_one_sentence)


def test_the_named_form_needs_both_names(tmp_path):
    body = "## S\n\nX {{ m.compare(subject='t.four', less='lower', more='higher') }}."
    with pytest.raises(ContentError, match="subject= and than="):
        render(tmp_path, body)


def test_the_old_positional_form_still_renders(tmp_path):
    body = "## S\n\nFour heads score {{ m.compare('t.four', 't.one', 'lower', 'higher') }} than one head."
    html = html_of(render(tmp_path, body))
    assert 'data-a="t.four" data-b="t.one" data-words="lower|higher|">lower</span>' in html
    assert "data-subject" not in html


def sentence_of(html: str, start: int, end: int) -> str:
    """The text of the sentence around a comparison span, for the failure message."""
    before = html[:start]
    cut = max((m.end() for m in comparisons.BREAK.finditer(before)), default=0)
    after = html[end:]
    stop = comparisons.BREAK.search(after)
    text = unescape(
        comparisons.TAG.sub("", html[cut:start] + "[" + html[start:end] + "]" + after[: stop.start() if stop else 300])
    )
    return " ".join(text.split())


def lookup(site_dir: Path, source: str) -> float:
    name, *path = source.split(".")
    value = json.loads((site_dir / "tables" / f"{name}.json").read_text(encoding="utf-8"))
    for key in path:
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def comparisons_in(site_dir: Path, slug: str):
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    for m in SPAN.finditer(html):
        yield html, m


@pytest.mark.parametrize("slug", DECKS)
def test_every_comparison_sentence_says_the_direction_of_its_values(site_dir, slug):
    """Rendered with its values: the word is `less` when the subject is smaller,
    `more` when larger; and in the named form the number stated just before the
    word is never the `than` value."""
    seen = 0
    for html, m in comparisons_in(site_dir, slug):
        subject, than, named, words, word = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
        less, more, same = unescape(words).split("|")
        a, b = lookup(site_dir, subject), lookup(site_dir, than)
        want = less if a < b else more if a > b else same
        sentence = sentence_of(html, m.start(), m.end())
        assert unescape(word) == want, f"{slug}: “{sentence}” ({subject} = {a}, {than} = {b})"
        if "data-subject" in named:
            assert comparisons.value_before(html, m.start()) != than, (
                f"{slug}: “{sentence}” compares the wrong way round"
            )
        seen += 1
    if slug in OWN_DECKS:
        source = (ROOT / "content" / "decks" / f"{slug}.md").read_text(encoding="utf-8")
        calls = re.findall(r"m\.compare\(([^)]*)\)", source)
        assert all(c.strip().startswith("subject=") for c in calls), f"{slug}: an m.compare without subject="
        assert seen >= len(calls) - source.count("{% if") and (seen > 0) == bool(calls)
