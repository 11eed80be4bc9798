"""The m.exercise macro at build time: a closed box titled from
content/exercises.toml holding the widget element and no number of its own,
followed by the exercise's printed copy (tests/test_exercise_printed.py);
an unknown ID or a broken catalog stops the build, naming the deck and line or
the catalog."""

from __future__ import annotations

import re
import shutil
import tomllib

from support.builds import CONTENT, run_build

DECK = "+++\ntitle = 'x'\norder = 3\n+++\n## A\n\nText.\n\n{{ m.exercise('%s') }}\n\nTakeaway: one line.\n"


def test_an_exercise_box_is_closed_titled_and_holds_no_number(mini, capsys):
    content, tables, out = mini
    shutil.copy(CONTENT / "exercises.toml", content / "exercises.toml")
    (content / "decks" / "ex.md").write_text(DECK % "softmax-weight", encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    html = (out / "decks" / "ex.html").read_text(encoding="utf-8")
    boxes = re.findall(r'<details class="exercise-box">.*?</details>', html, flags=re.S)
    assert len(boxes) == 1
    title = tomllib.loads((CONTENT / "exercises.toml").read_text(encoding="utf-8"))["softmax-weight"]["title"]
    assert f"<summary>Exercise · {title}</summary>" in boxes[0]
    assert 'data-widget="exercise" data-exercise="softmax-weight"' in boxes[0]
    assert "open" not in boxes[0].split(">")[0] and not re.search(r"\d", re.sub(r"<[^>]+>", "", boxes[0]))
    # its own paragraph, then its printed copy, before the takeaway, never inside a <p>
    copy = r'<div class="exercise-static" data-exercise-static="softmax-weight" data-seed="\d+">'
    assert re.search(rf"</details>\s*{copy}", html)
    assert re.search(r"</details>\s*</div>\s*</div>\s*<div class=\"slide-foot\"><p class=\"takeaway\">", html)
    assert "<p><details" not in html
    read = (out / "read" / "ex.html").read_text(encoding="utf-8")
    assert boxes[0] in read and "assets/exercise.css" in read and "assets/exercise.css" in html


def test_an_unknown_exercise_or_a_broken_catalog_stops_the_build(mini, capsys):
    content, tables, out = mini
    shutil.copy(CONTENT / "exercises.toml", content / "exercises.toml")
    (content / "decks" / "ex.md").write_text(DECK % "no-such-exercise", encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "ex.md" in log and "line 9" in log and "unknown exercise 'no-such-exercise'" in log, log
    (content / "decks" / "ex.md").write_text(DECK % "softmax-weight", encoding="utf-8")
    (content / "exercises.toml").write_text('[softmax-weight]\ntitle = "no deck"\n', encoding="utf-8")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "exercises.toml" in log and "deck" in log, log
    (content / "exercises.toml").unlink()
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1 and "exercise catalog not found" in log, log
