"""The build's guards on deck text: numbers come from tables (typed digits and
Jinja-computed numbers stop the build), printed values carry their JSON path,
direction words are computed from the values, no Jinja inside backticks, and no
sentence glued to the next by Jinja's whitespace trimming in any built deck."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from common.layout import MODELS
from site_builder.build import Inputs
from site_builder.deck import ContentError, Renderer

ROOT = Path(__file__).resolve().parent.parent
DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))
TABLES = {"t": {"loss": 2.2394907, "n": 12, "ids": [3, 1, 4], "a": 1.5, "b": 2.5, "gain": -8.25}}


def render(tmp_path: Path, body: str, front: str = "", tables=None):
    content = tmp_path / "content"
    (content / "decks").mkdir(parents=True, exist_ok=True)
    path = content / "decks" / "x.md"
    path.write_text(f'+++\ntitle = "X"\norder = 1\ntables = ["t"]\n{front}+++\n{body}\n', encoding="utf-8")
    inp = Inputs()
    renderer = Renderer(ROOT, content, inp.templates, inp.node_modules)
    return renderer.render_file(path, tables or TABLES)


def html_of(page) -> str:
    return "\n".join(str(s.html) + str(s.notes or "") for s in page.slides)


def test_a_printed_table_value_names_its_json_path(tmp_path):
    html = html_of(
        render(
            tmp_path,
            "## S\n\nLoss {{ m.num('t.loss', 3) }}, n = {{ data.t.n }}, "
            "ids {{ m.ids(data.t.ids) }}, $L = {{ m.num(data.t.loss, 2) }}$.",
        )
    )
    assert '<span class="v" data-source="t.loss" data-digits="3" data-kind="num">2.239</span>' in html
    assert 'data-source="t.n" data-digits="0" data-kind="num">12</span>' in html
    assert 'data-source="t.ids" data-digits="4" data-kind="list">[3, 1, 4]</span>' in html
    # inside math the path rides on KaTeX's \htmlData
    assert re.search(r'data-source="t.loss" data-digits="2" data-kind="num"><span class="mord">2.24</span>', html)


@pytest.mark.parametrize(
    "expr",
    [
        "{{ data.t.n + 1 }}",
        "{{ m.num(12.5, 1) }}",
        "{{ data.t.ids | length }}",
        "{{ data.t.loss }}",
        "{{ m.num(data.t.a * 2, 2) }}",
    ],
)
def test_a_number_with_no_table_path_stops_the_build(tmp_path, expr):
    with pytest.raises(ContentError) as err:
        render(tmp_path, f"## S\n\nValue {expr}.")
    assert err.value.line == 8
    assert "table path" in str(err.value) or "m.num" in str(err.value)


def test_m_len_prints_a_list_length_with_its_path(tmp_path):
    html = html_of(render(tmp_path, "## S\n\n{{ m.len('t.ids') }} ids"))
    assert 'data-source="t.ids" data-digits="len" data-kind="len">3</span>' in html


@pytest.mark.parametrize(
    "text,bad",
    [
        ("The loss is 2.24 here.", "2.24"),
        ("We used 12 heads.", "12"),
        ("Note:\nTyped in the notes: 0.5", "0.5"),
        ("$p = 0.125$", "0.125"),
        ("| a | 1.5 |\n|---|---|\n| b | 7 |", "1.5"),
    ],
)
def test_a_hand_typed_number_stops_the_build(tmp_path, text, bad):
    with pytest.raises(ContentError) as err:
        render(tmp_path, f"## S\n\n{text}")
    assert repr(bad) in str(err.value) and "allow_digits" in str(err.value)
    assert err.value.line is not None and err.value.line >= 7


def test_structural_digits_pass_when_allow_listed_and_not_otherwise(tmp_path):
    body = "## S\n\nSlot 1 is the oldest; Vaswani et al. (2017). $W_1 x^2 + \\frac{1}{2}$, float32, W1.\n\n1. a list"
    with pytest.raises(ContentError):
        render(tmp_path, body)
    render(tmp_path, body, front='allow_digits = ["Slot 1", "2017"]\n')
    # a bare number allows that number only, not one that contains it
    with pytest.raises(ContentError, match="'12'"):
        render(tmp_path, "## S\n\nHead 1 and 12 more.", front='allow_digits = ["1"]\n')


@pytest.mark.parametrize("text", ["Token `{{ data.t.n }}` here.", "```\nx = {{ data.t.n }}\n```"])
def test_jinja_inside_backticks_stops_the_build(tmp_path, text):
    with pytest.raises(ContentError, match="escaped twice"):
        render(tmp_path, f"## S\n\n{text}")


def test_m_tok_escapes_a_token(tmp_path):
    html = html_of(render(tmp_path, "## S\n\nThe token {{ m.tok('<PAD>') }}."))
    assert '<code class="tok">&lt;PAD&gt;</code>' in html


def test_direction_words_follow_the_values(tmp_path):
    body = (
        "## S\n\nFour heads {{ m.compare('t.a', 't.b', 'lower', 'raise') }} perplexity by "
        "{{ m.num('t.gain', 1, magnitude=True) }}%."
    )
    html = html_of(render(tmp_path, body))
    assert re.search(r'class="cmp" data-a="t.a" data-b="t.b" data-words="lower\|raise\|">lower</span>', html)
    assert 'data-kind="abs">8.2</span>' in html or 'data-kind="abs">8.3</span>' in html
    flipped = {"t": dict(TABLES["t"], a=2.5, b=1.5)}
    assert ">raise</span>" in html_of(render(tmp_path, body, tables=flipped))
    with pytest.raises(ContentError, match="same"):  # equal values need a word for "same"
        render(tmp_path, body, tables={"t": dict(TABLES["t"], a=2.0, b=2.0)})


def test_equal_values_get_the_word_for_same_never_a_direction(tmp_path):
    """Equal values (issue 25, point 6): the word for "same", in both orders of
    the two paths, and a difference of one ulp is a direction again."""
    body = "## S\n\nFour heads {{ m.compare('t.a', 't.b', 'lower', 'raise', 'match') }} it."
    for a, b, word in (
        (2.0, 2.0, "match"),
        (0.1 + 0.2, 0.30000000000000004, "match"),
        (2.0, 2.0000000000000004, "lower"),
    ):
        html = html_of(render(tmp_path, body, tables={"t": dict(TABLES["t"], a=a, b=b)}))
        assert re.search(rf'data-words="lower\|raise\|match">{word}</span>', html), (a, b, html)
    swapped = body.replace("'t.a', 't.b'", "'t.b', 't.a'")
    html = html_of(render(tmp_path, swapped, tables={"t": dict(TABLES["t"], a=2.0, b=2.0)}))
    assert ">match</span>" in html


# ---- every built deck ---------------------------------------------------------------

BLOCKS = {
    "p",
    "li",
    "td",
    "th",
    "h1",
    "h2",
    "h3",
    "h4",
    "div",
    "section",
    "aside",
    "figcaption",
    "caption",
    "tr",
    "ul",
    "ol",
    "table",
    "figure",
    "pre",
    "br",
    "nav",
    "blockquote",
    "title",
    "desc",
    "text",
    "g",
    "svg",
}
SKIP = {"code", "pre", "script", "style", "annotation", "math", "svg"}
GLUED = re.compile(r"[a-z)\]][.!?;][A-Z][a-z]|[.!?]-\s")


class _Text(HTMLParser):
    """The prose of a page: block elements end with a space, code and math are left out."""

    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag in SKIP or "katex" in cls.split():
            self.skip += 1 if tag not in ("br",) else 0
        if tag in BLOCKS:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in BLOCKS:
            self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def prose(html: str) -> str:
    # drop math and code wholesale (nested spans make tag counting fragile)
    html = re.sub(
        r'<span class="katex">.*?</annotation></semantics></math></span><span class="katex-html".*?'
        r'(?=<span class="katex">|</p>|</li>|</td>|</div>)',
        " ",
        html,
        flags=re.S,
    )
    html = re.sub(r"<(code|pre|script|style|svg)\b.*?</\1>", " ", html, flags=re.S)
    # an exercise's printed copy is the widget's text, one element a line (test_exercise_printed.py);
    # its identifiers (nn.Linear) are not sentences
    html = re.sub(r'<div class="exercise-static".*?</details>\s*</div>', " ", html, flags=re.S)
    parser = _Text()
    parser.feed(html)
    return "".join(parser.parts)


@pytest.mark.parametrize("slug", DECKS)
def test_no_sentence_is_glued_to_the_next(site_dir, slug):
    for page in (site_dir / "decks" / f"{slug}.html", site_dir / "read" / f"{slug}.html"):
        if not page.exists():
            continue
        text = prose(page.read_text(encoding="utf-8"))
        glued = [text[max(0, m.start() - 30) : m.end() + 20] for m in GLUED.finditer(text)]
        assert not glued, f"{page.name}: text glued without a space: {glued[:5]}"


def test_the_glue_check_sees_a_trimmed_bullet():
    assert GLUED.search(prose("<p>measured on one thread (x86_64).- A lower loss</p>"))
    assert GLUED.search(prose("<li>four heads for one head.Training time</li>"))
    assert not GLUED.search(prose("<p>See <code>nets.py</code>. The end.</p><p>Next.</p>"))


def test_a_tag_at_the_end_of_a_text_line_keeps_its_newline(tmp_path):
    body = "## S\n\n- first{% if true %} more{% endif %}\n- second\n{% set x = 1 %}\n- third"
    html = html_of(render(tmp_path, body))
    assert html.count("<li>") == 3 and "more</li>" in html


@pytest.mark.parametrize("less,more", [("raise", "lower"), ("higher", "lower"), ("better", "worse")])
def test_direction_words_in_the_wrong_slot_stop_the_build(tmp_path, less, more):
    """A flipped word pair (the deck saying four heads "raise" a smaller perplexity)
    fails, not only a flipped value."""
    with pytest.raises(ContentError, match="not a word for"):
        render(tmp_path, f"## S\n\nFour heads {{{{ m.compare('t.a', 't.b', '{less}', '{more}') }}}} it.")


def test_every_real_deck_passes_the_guards(site_dir):
    """The content as committed: `make site` rendered every deck with the tables of
    build/tables through the guards above, so a hand-typed digit, a number computed
    in Jinja or a swapped direction word in any deck stopped it; what it built has
    every deck, each printing values that name their table paths."""
    for slug in DECKS:
        html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
        assert "<section" in html and 'data-source="' in html, slug


def test_the_test_targets_sentence_counts_the_test_windows(site_dir):
    """A printed value names its path, but a wrong path (the validation slice's
    count where the test count belongs) still shows a real number: the count
    before "test targets" must be the test split's window count, as the corpus
    audit records it (models/corpus_audit.json, written upstream of the tables)."""
    import json  # noqa: PLC0415

    html = (site_dir / "decks" / "results.html").read_text(encoding="utf-8")  # what `make site` built
    audit = json.loads(MODELS.audit.read_text(encoding="utf-8"))
    counts = re.findall(r'<span class="v" data-source="([^"]+)"[^>]*>([^<]+)</span> test targets', html)
    assert counts, "the results deck no longer says over how many test targets it measured perplexity"
    want = audit["splits"]["test"]["windows"]
    for source, text in counts:
        assert text.replace(",", "") == str(want), (
            f"{source} prints {text} test targets; the test split has {want:,} windows"
        )


def test_the_results_takeaway_word_follows_the_measured_means(site_dir):
    """The real results deck with the measured means (as `make site` built it), and
    rendered again with the four-head and one-head means swapped. The word that says
    which way four heads move perplexity must follow the numbers printed beside it,
    so a typed "lower"/"raise" (or a flipped word pair) fails."""
    from site_builder.build import load_tables  # noqa: PLC0415

    inp = Inputs()
    tables = load_tables(inp.tables, inp.root)
    worked = tables["results_worked"]
    if not worked.get("available"):
        pytest.fail("results_worked is not available: run `make site` (export.tables) first")
    flipped = dict(tables, results_worked=dict(worked, mean=worked["baseline_mean"], baseline_mean=worked["mean"]))
    sentence = re.compile(
        r"[Tt]he mean test perplexity of four heads is [\d.]+% (\w+) than one head[’']s \(([\d.]+) vs ([\d.]+)\)"
    )
    built = (site_dir / "decks" / "results.html").read_text(encoding="utf-8")
    renderer = Renderer(ROOT, inp.content, inp.templates, inp.node_modules)
    swapped = html_of(renderer.render_file(inp.content / "decks" / "results.md", flipped))
    words = []
    for html in (built, swapped):
        text = re.sub(r"<[^>]+>", "", html)
        found = sentence.search(text)
        assert found, "the results takeaway comparing four heads with one head is gone"
        word, four, one = found.group(1), float(found.group(2)), float(found.group(3))
        assert word == ("lower" if four < one else "higher"), found.group(0)
        words.append(word)
    assert words[0] != words[1]
