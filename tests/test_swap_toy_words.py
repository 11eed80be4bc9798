"""Part II's two-coordinate swap toy names its tokens with words (issue 31):
it once called them A and B, and its query token q, while the course's
notation gives A to the attention weights, B to the batch size and q to a
query row. These tests fail if the toy's words become notation symbols again,
if the slide or figure stops naming them, or if the notation check stops
catching the old wording in a deck, a figure or a notebook."""

from __future__ import annotations

import re
import tomllib

import pytest

from common.settings import ROOT
from export.tables.part2 import positions
from site_builder import notation
from support.statements import slide

CONTENT = ROOT / "content"


def notation_letters() -> set[str]:
    """Every one-letter symbol the notation page lists (A, B, q from Q, ...),
    lower-cased: a toy token spelt as one of them reads as that symbol."""
    spec = tomllib.loads((CONTENT / "notation.toml").read_text(encoding="utf-8"))
    letters = set()
    for s in spec["symbol"]:
        tex = re.sub(r"\\[A-Za-z]+", " ", s["tex"])  # \mathbf, \text, \omega: commands, not letters
        letters |= set(re.findall(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])", tex))
    return {c.lower() for c in letters}


def test_the_reader_of_the_notation_finds_its_letters():
    letters = notation_letters()
    assert {"a", "b", "q", "k", "v", "m", "t", "c"} <= letters  # A, B, Q/K/V, M, T, C are on the page
    assert all(len(c) == 1 for c in letters)  # n_\text{heads} gives n, not "heads"


def test_the_swap_words_are_words_not_notation_symbols(table):
    t = table("part2_swap2d")
    words = t["order"]
    assert words == list(positions.SWAP_WORDS) and set(words) == set(t["words"])
    clashing = [w for w in words if w.lower() in notation_letters()]
    assert not clashing, f"toy tokens spelt as notation symbols: {clashing}"
    assert all(re.fullmatch(r"[a-z]{2,}", w) for w in words), words  # real words, not letters or codes
    assert len(set(words)) == len(words)


def test_the_slide_and_figure_name_the_words(site_dir, table):
    t = table("part2_swap2d")
    first, second, query = t["order"]
    s = slide(site_dir, "part2", "Two coordinates, identity projections")
    for word in (first, second, query):
        assert f"“{word}”" in s["text"]
    assert f"Swapping “{first}” and “{second}” moves the message" in s["text"]
    assert not re.search(r"\btokens? [AB]\b|\b[AB] and [AB]\b|Swapping [AB]\b", s["text"] + s["notes"])
    figure = table("part2_pictures")["swap2d"]
    assert f"“{first}” and “{second}”" in figure and f"slot 3 ({query})" in figure
    assert [r[0] for r in t["table"]["rows"]] == [f"{first} {second} {query}"] * 2 + [f"{second} {first} {query}"] * 2


@pytest.fixture(scope="module")
def spec():
    return notation.load(CONTENT)


OLD_DECK = (
    "A separate toy you can check by eye: tokens A = {{ m.num('part2_swap2d.words.A', 1) }} and "
    "B = {{ m.num('part2_swap2d.words.B', 1) }}, a final query token {{ m.num('part2_swap2d.words.q', 1) }}."
)


@pytest.mark.parametrize(
    "line,says",
    [
        (OLD_DECK, "B is the batch size"),  # B's rules come first in notation.toml
        (OLD_DECK.replace("words.B", "words.b").replace(" B = ", " b = "), "A is the attention weights"),
        ("Swapping A and B moves the message a distance of {{ d }}.", "A is the attention weights"),
        ("and B = {{ m.num('part2_swap2d.words.B', 1) }}", "B is the batch size"),
        ("Here the tokens B, A and q swap places.", "B is the batch size"),
    ],
)
def test_the_deck_check_stops_letters_as_tokens(spec, line, says):
    with pytest.raises(notation.NotationError, match=says):
        notation.check_deck(spec, "---\n---\n" + line + "\n")


def test_the_figure_and_notebook_checks_stop_letters_as_tokens(spec):
    svg = "<svg><title>Two orders of A and B, with and without positions</title><text>B A q</text></svg>"
    with pytest.raises(notation.NotationError, match="A is the attention weights"):
        notation.check_figures(spec, {"part2_pictures": {"swap2d": svg}})
    old = "# %% [markdown]\n# The same in two coordinates: tokens A = (1, 0),\n# B = (0, 1).\n"
    with pytest.raises(notation.NotationError, match="A is the attention weights"):
        notation.check_notebook(spec, old, "notebooks/part2.py")


def test_the_real_deck_and_notebook_pass_the_new_rules(spec):
    """The rules do not fire on the course as it is ("the words A to Z" of the
    maps deck's toy vocabulary is not a token named A)."""
    for deck in sorted((CONTENT / "decks").glob("*.md")):
        notation.check_deck(spec, deck.read_text(encoding="utf-8"))
    for book in sorted((ROOT / "notebooks").glob("*.py")):
        notation.check_notebook(spec, book.read_text(encoding="utf-8"), book.name)
