"""The notation check reads enough draws of every exercise to see each of its
wordings (issue 31): site_builder/exercise_texts.SEEDS draws, and a wording
(a text with its numbers and quoted words blanked) that first shows up in a
later draw would go unread. Also: the build reads that many, and it stays
fast. Needs Node.js."""

from __future__ import annotations

import re
import shutil
import time

import pytest

from common.settings import ROOT
from site_builder import exercise_texts, notation, reference

WIDE = 1_000  # draws per exercise to look for late wordings in


def wording(text: str) -> str:
    """A text with what a draw changes blanked: quoted words, numbers, lists of
    numbers and arithmetic on them (−0.8·0.1 + (−1.1)·0.8)."""
    text = re.sub(r"“[^”]*”|\"[^\"]*\"|'[^']*'", "Q", text)
    text = re.sub(r"[−-]?\d[\d,.]*(e[−-]?\d+)?", "#", text)
    text = re.sub(r"\(#\)", "#", text)
    text = re.sub(r"\[[#, ]*\]", "L", text)
    return re.sub(r"#(\s*[·×/]\s*#)*(\s*[+−-]\s*#(\s*[·×/]\s*#)*)*", "E", text)


def test_the_wording_blanks_only_what_a_draw_changes():
    a = "q·k = −0.8·0.1 + (−1.1)·0.8 = −0.96."
    b = "q·k = −1.0·(−1.3) + 0.8·1.2 + 0.5·0.4 = 2.39."
    assert wording(a) == wording(b) == "q·k = E = E"  # a full stop after a number goes with it
    assert wording("Scores of slots 1 to 4 (slot 1 is PAD)") != wording("Scores of slots 1 to 4 (slot 1 is real)")


@pytest.fixture(scope="module")
def wide():
    return exercise_texts.drawn(ROOT / "web", WIDE)


def test_every_wording_appears_within_the_seeds_the_build_reads(wide):
    first: dict[tuple[str, str], int] = {}
    for items in wide.values():
        for item in items:
            for text in item["texts"]:
                first.setdefault((item["id"], wording(text)), item["seed"])
    kinds = {item["id"] for items in wide.values() for item in items}
    assert len(kinds) >= 10 and len(first) > 5 * len(kinds)
    late = {k: s for k, s in first.items() if s >= exercise_texts.SEEDS}
    assert not late, f"wordings first drawn at seed {exercise_texts.SEEDS} or later: {late}"


def test_the_build_reads_seeds_draws_of_every_exercise(tmp_path, monkeypatch):
    content = tmp_path / "content"
    content.mkdir()
    shutil.copy(ROOT / "content" / "notation.toml", content / "notation.toml")
    seen = {}

    def record(spec, drawn):
        for items in drawn.values():
            for item in items:
                seen.setdefault(item["id"], set()).add(item["seed"])

    monkeypatch.setattr(notation, "check_exercises", record)
    reference.check(content, [], web=ROOT / "web")
    assert seen and all(s == set(range(exercise_texts.SEEDS)) for s in seen.values())


def test_the_exercise_check_stays_fast():
    """Drawing and checking every exercise's texts is part of every build: a
    few seconds at most (it measured 0.6 s for 100 seeds, 2 cores shared)."""
    spec = notation.load(ROOT / "content")
    started = time.perf_counter()
    notation.check_exercises(spec, exercise_texts.drawn(ROOT / "web"))
    assert time.perf_counter() - started < 5.0
