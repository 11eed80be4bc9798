"""The story's real continuation beside the models' (issue 33): a prompt that
starts a dataset story shows, under the three continuations, the tokens that
really come next in it (as many as the token limit, written as the Python
tokenizer's detokenize writes them), and its button scores the whole story with
all three models; a prompt that starts no dataset story shows none."""

from __future__ import annotations

import json

import pytest

from common.chromium import evaluate
from common.settings import SITE_ONNX
from models.tokenizer import detokenize, tokenize
from support.lab import reset_lab

LIMIT = 12


@pytest.fixture(scope="module")
def lab(shared_lab):
    return reset_lab(shared_lab, {"width": 1280, "height": 900})


@pytest.fixture(scope="module")
def presets(site_dir):
    return {p["id"]: p for p in json.loads((site_dir / SITE_ONNX / "presets.json").read_text(encoding="utf-8"))}


def generate(lab, prompt: str) -> None:
    evaluate(lab, "return await window.lab.generate(arg);", {"prompt": prompt, "mode": "greedy", "limit": LIMIT})


def test_a_dataset_prompt_shows_the_real_continuation_and_scores_the_story(lab, presets):
    preset = next(p for p in presets.values() if p.get("source") and p["group"].startswith("Held-out"))
    generate(lab, preset["prompt"])
    section = lab.locator("#real-story")
    assert section.is_visible()
    story, prompt = tokenize(preset["source"]["text"]), tokenize(preset["prompt"])
    assert story[: len(prompt)] == prompt
    expected = detokenize(prompt + story[len(prompt) : len(prompt) + LIMIT])[len(detokenize(prompt)) :]
    assert lab.locator("#real-story-text .generated").text_content() == expected
    note = lab.locator("#real-story-note").text_content()
    assert f"the next {LIMIT} tokens of the story" in note and preset["label"] in note, note

    lab.click("#score-real")
    lab.wait_for_function(
        "document.querySelector('#score-body tr[data-kind=attn4] td:nth-of-type(3)')?.textContent > ''",
        timeout=120_000,
    )
    assert lab.input_value("#prompt") == preset["source"]["text"]
    for kind in ("mlp", "attn1", "attn4"):
        scored = lab.locator(f"#score-body tr[data-kind={kind}] td:nth-of-type(3)").text_content()
        assert scored == str(len(story)), (kind, scored)
    lab.check("input[name=task][value=generate]")


def test_a_prompt_that_starts_no_dataset_story_shows_none(lab, presets):
    authored = next(p for p in presets.values() if not p.get("source"))
    generate(lab, authored["prompt"])
    assert lab.locator("#real-story").is_hidden()
    generate(lab, "the dog ran")
    assert lab.locator("#real-story").is_hidden()
