"""The deck walks and exercise walks, made ahead in a process of their own.

When the tests are collected, conftest.py starts this module (support/background.py
runs it) with every walk a selected test will ask for, in the order the tests
ask; ``deck_walk`` and ``exercise_walk`` then read each walk from the file it
wrote, waiting for it if it is not written yet (a walk nobody asked for
ahead is made in the test's own browser, as before). The walks are the same
functions over the same built site in the same Chromium (common/chromium.py
"wasm"), served by this process's own server: what they find does not change,
only when. The suite leaves about a third of the two cores idle (browser
round trips); the walks use it.

    PYTHONPATH=tests:. python -m support.prefetch OUT deck:maps:1280x720 exercise:part2:390x844 ...

Each walk is written to OUT/<kind>-<slug>-<size>.json (renamed into place once
complete); a walk that fails writes OUT/<kind>-<slug>-<size>.error with the
traceback, and the others go on.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import traceback
from pathlib import Path

SIZES = ("1280x720", "390x844")


def spec(kind: str, slug: str, size: str) -> str:
    return f"{kind}:{slug}:{size}"


def file_of(out: Path, name: str, suffix: str = ".json") -> Path:
    return out / (name.replace(":", "-") + suffix)


def size_text(size) -> str:
    return size if isinstance(size, str) else f"{size[0]}x{size[1]}"


def walk(browser, site_url: str, kind: str, slug: str, size: str):
    if kind == "deck":
        from support.walks import walk_deck

        return walk_deck(browser, site_url, slug, size)
    from support.exercise_walk import walk_exercises

    width, height = map(int, size.split("x"))
    return walk_exercises(browser, site_url, slug, (width, height))


def load(kind: str, path: Path):
    """The walk written to ``path``, as the dataclass the tests read."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if kind == "deck":
        from support.walks import DeckWalk

        return DeckWalk(**data)
    from support.exercise_walk import ExerciseWalk

    return ExerciseWalk(**{**data, "size": tuple(data["size"])})


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    from common.chromium import launch
    from common.settings import SITE_DIR
    from site_builder.serve import start_server

    out, specs = Path(argv[0]), argv[1:]
    out.mkdir(parents=True, exist_ok=True)
    server, url = start_server(SITE_DIR)
    failed = 0
    try:
        with sync_playwright() as p:
            browser = launch(p, "wasm")
            for name in specs:
                kind, slug, size = name.split(":")
                try:
                    found = walk(browser, url, kind, slug, size)
                except Exception:  # noqa: BLE001 - written for the test that asks for it
                    file_of(out, name, ".error").write_text(traceback.format_exc(), encoding="utf-8")
                    failed = 1
                    continue
                part = file_of(out, name, ".part")
                part.write_text(json.dumps(dataclasses.asdict(found)), encoding="utf-8")
                os.replace(part, file_of(out, name))
            browser.close()
    finally:
        server.shutdown()
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
