"""The exercises' texts as a learner reads them: web/core/exercises-*.js run
under Node (site_builder/exercise_texts.mjs) for SEEDS draws each, so the notation
check and the statement tests read the question, hint, worked steps and
mistake messages with their numbers drawn."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).with_name("exercise_texts.mjs")
# Draws per exercise that the notation check reads. In 1,000 draws of every
# exercise, each wording (a text with its numbers and quoted words blanked)
# first appears by seed 3, so 100 covers every variant with a wide margin; it
# costs about 0.6 s of a build (0.2 s under Node, 0.4 s of checks, each
# distinct text read once), against 0.15 s for 8 seeds. test_exercise_texts
# redraws 1,000 and fails if a wording first appears at seed SEEDS or later.
SEEDS = 100


class ExerciseTextError(RuntimeError):
    pass


def _run(web: Path, count: str) -> dict[str, list[dict]]:
    node = shutil.which("node")
    if node is None:
        raise ExerciseTextError("Node.js is needed to read the exercise texts (web/core/exercises-*.js)")
    proc = subprocess.run(
        [node, "--no-warnings", str(SCRIPT), str(web), count],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    if proc.returncode != 0:
        raise ExerciseTextError(f"{SCRIPT.name} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def drawn(web: Path, seeds: int = SEEDS) -> dict[str, list[dict]]:
    """{deck: [{id, seed, inputs, answer, texts, mistakes, shown}]} for seeds 0 .. seeds-1
    of the exercises in ``web``/core (the site's web folder)."""
    return _run(web, str(seeds))


def printed(web: Path) -> dict[str, dict]:
    """ID -> what the widget shows for the seed the built pages print
    (PRINTED_SEED of web/core/exercises.js): {"seed", "seedLine": [before, link,
    after], "question": [...], "hint", "steps": [...], "answer"} (core/exercises.js
    shownTexts), for the page's copy of every exercise (exercises.py)."""
    items = [item for deck in _run(web, "printed").values() for item in deck]
    return {item["id"]: {"seed": item["seed"], **item["shown"]} for item in items}
