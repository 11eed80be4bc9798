"""The exercise boxes of the decks: `m.exercise('ID')` -> a closed <details>
holding the exercise widget (web/widgets/exercise.js), titled from
content/exercises.toml. The widget draws the numbers in the browser; right
after the box comes the page's printed copy of the exercise: the question and
its worked solution (folded) for the printed seed, in the widget's own words
(exercise_texts.printed runs web/core/exercises.js under Node), for print,
?print-pdf and a reader without JavaScript. The widget hides the copy when it
mounts; exercise.css shows it again in print."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from markupsafe import Markup, escape

CATALOG = "exercises.toml"
ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def load_catalog(content_dir: Path) -> dict[str, dict]:
    """ID -> {"deck", "title"} from content/exercises.toml; a broken file names itself."""
    path = content_dir / CATALOG
    if not path.is_file():
        raise ValueError(f"exercise catalog not found: {path}")
    try:
        catalog = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"exercise catalog is broken: {path}: {exc}") from exc
    for key, entry in catalog.items():
        if (
            not ID.match(key)
            or not isinstance(entry, dict)
            or set(entry) != {"deck", "title"}
            or not all(isinstance(entry[k], str) and entry[k] for k in ("deck", "title"))
        ):
            raise ValueError(
                f'{path}: [{key}] needs an ID of a-z, 0-9 and "-", and exactly deck = "..." and title = "..."'
            )
    return catalog


def printed_copy(exercise_id: str, shown: dict) -> str:
    """The exercise as printed: seed line, question, then the hint, the steps and
    the answer inside a closed <details>. Every text is escaped (text, never HTML)."""
    before, link, after = (escape(part) for part in shown["seedLine"])
    lines = shown["question"]
    ask = ' class="ex-ask"'  # the last line asks the question, as in the widget
    question = "\n".join(f"<p{ask if i == len(lines) - 1 else ''}>{escape(line)}</p>" for i, line in enumerate(lines))
    steps = "\n".join(f"<li>{escape(step)}</li>" for step in shown["steps"])
    return (
        f'<div class="exercise-static" data-exercise-static="{escape(exercise_id)}" data-seed="{shown["seed"]}">\n'
        f'<p class="ex-seed">{before}<a href="?seed={shown["seed"]}">{link}</a>{after}</p>\n'
        f'<div class="ex-question">\n{question}\n</div>\n'
        '<details class="ex-worked"><summary>Worked solution</summary>\n'
        f'<p class="ex-hint">{escape(shown["hint"])}</p>\n'
        f'<ol class="ex-solution">\n{steps}\n<li class="ex-answer">{escape(shown["answer"])}</li>\n</ol>\n'
        "</details>\n</div>"
    )


def exercise_box(content_dir: Path, exercise_id: str, printed: dict[str, dict] | None = None) -> Markup:
    """The closed box, then (when ``printed`` holds the exercise's texts,
    exercise_texts.printed) its printed copy."""
    catalog = load_catalog(content_dir)
    if exercise_id not in catalog:
        raise ValueError(f"unknown exercise {exercise_id!r}: add it to content/{CATALOG}")
    title = escape(catalog[exercise_id]["title"])
    box = (
        f'<details class="exercise-box"><summary>Exercise · {title}</summary>'
        f'<div class="widget exercise" data-widget="exercise" data-exercise="{escape(exercise_id)}" role="group"'
        f' aria-label="Exercise: {title}"><p class="widget-loading">Exercise: {title}. '
        "It draws its numbers with JavaScript.</p></div></details>"
    )
    if printed is None:
        return Markup(box)
    if exercise_id not in printed:
        raise ValueError(f"exercise {exercise_id!r} is in content/{CATALOG} but no web/core/exercises-*.js defines it")
    return Markup(box + "\n" + printed_copy(exercise_id, printed[exercise_id]))
