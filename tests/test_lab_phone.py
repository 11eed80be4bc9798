"""The lab on a 390 px phone (issue 33): after a generation with a step
inspected, after a score with its head sweep, and with the training replay
open, every token and toggle is a target of at least 44 x 44 px and no text is
under 14 px, outside the dense grids that keep their size and scroll (the
attention table, the matrix grid, the score strip and the SVG charts: listed in
tests/support/phone_targets.js)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.lab import AXE, reset_lab

PHONE = {"width": 390, "height": 844}
SCRIPT = (Path(__file__).parent / "support" / "phone_targets.js").read_text(encoding="utf-8")
MEASURE = SCRIPT[SCRIPT.index("() =>") :]  # the function, after its comment


@pytest.fixture
def lab(shared_lab):
    page = reset_lab(shared_lab, PHONE)
    yield page
    page.check("input[name=task][value=generate]")
    page.evaluate("document.querySelector('#replay').open = false")
    reset_lab(page, {"width": 1280, "height": 720})


def measured(page) -> dict:
    return page.evaluate(MEASURE)


def test_tokens_toggles_and_text_are_large_enough_on_a_phone(lab):
    lab.click("#generate")
    lab.wait_for_selector(".model-card:visible .tok", timeout=120_000)
    lab.wait_for_function("!document.querySelector('#stop') || document.querySelector('#stop').disabled")
    lab.locator(".model-card:visible .tok").first.click()
    lab.wait_for_selector("#inspect .head-toggle, #inspect .hide-tok", timeout=60_000)
    got = measured(lab)
    assert not got["small"] and not got["tiny"], ("generate and inspect", got)

    lab.check("input[name=task][value=score]")
    lab.fill("#prompt", "the little dog ran to the park. he was happy.")
    lab.click("#score")
    lab.wait_for_selector("#run-sweep", timeout=120_000)
    lab.click("#run-sweep")
    lab.wait_for_selector("#head-sweep table.head-sweep", timeout=120_000)
    got = measured(lab)
    assert not got["small"] and not got["tiny"], ("score and head sweep", got)

    lab.evaluate("document.querySelector('#replay').open = true")
    lab.wait_for_selector("#replay .replay-timeline .tl-step", timeout=60_000)
    got = measured(lab)
    assert not got["small"] and not got["tiny"], ("training replay", got)


def test_every_target_of_the_lab_has_room_on_a_phone(lab):
    """axe's target-size rule (WCAG 2.2: 24 px, or 24 px of room around it), which
    Lighthouse's accessibility audit runs, over the whole lab at 390 px and at
    Lighthouse's phone width (412 px): the greedy/sampled radios were 13 px with
    19 px of room."""
    if not lab.evaluate("typeof axe !== 'undefined'"):
        lab.add_script_tag(path=str(AXE))
    for width in (390, 412):
        lab.set_viewport_size({"width": width, "height": 823})
        found = lab.evaluate(
            "async () => (await axe.run(document, {runOnly: ['target-size']})).violations"
            ".flatMap((v) => v.nodes.map((n) => n.target.join(' ')))"
        )
        assert not found, (width, found[:10])
