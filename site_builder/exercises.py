"""The exercise boxes of the decks: `m.exercise('ID')` -> a closed <details>
holding the exercise widget (web/widgets/exercise.js), titled from
content/exercises.toml. The widget draws the numbers in the browser, so the
built page holds no number of its own."""

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


def exercise_box(content_dir: Path, exercise_id: str) -> Markup:
    catalog = load_catalog(content_dir)
    if exercise_id not in catalog:
        raise ValueError(f"unknown exercise {exercise_id!r}: add it to content/{CATALOG}")
    title = escape(catalog[exercise_id]["title"])
    return Markup(
        f'<details class="exercise-box"><summary>Exercise · {title}</summary>'
        f'<div class="widget exercise" data-widget="exercise" data-exercise="{escape(exercise_id)}" role="group"'
        f' aria-label="Exercise: {title}"><p class="widget-loading">Exercise: {title}. '
        "It draws its numbers with JavaScript.</p></div></details>"
    )
