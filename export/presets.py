"""The lab's preset prompts: two training-story prefixes, a prefix of the
shortest held-out test story, an authored story opening and two authored
out-of-domain prompts. Dataset presets carry their full source story and its
TinyStories origin, with the CDLA-Sharing-1.0 attribution.

Choice rule (deterministic): the first training story, in corpus order, from
each of the two TinyStories training files; the test story with the fewest
tokens (ties: corpus order). A prefix is the story's first sentence plus the
next two words, as written in the dataset.
"""

from __future__ import annotations

import re

from common.config import CONFIG
from models.corpus import Corpus
from models.tokenizer import UNK_ID, Vocab

ATTRIBUTION = (
    "TinyStories by Ronen Eldan and Yuanzhi Li (arXiv:2305.07759), "
    "released under the Community Data License Agreement - Sharing, Version 1.0 "
    "(CDLA-Sharing-1.0)."
)
LICENSE_URL = "https://cdla.dev/sharing-1-0/"
TRAIN_FILES = ("TinyStories-train.txt", "TinyStoriesV2-GPT4-train.txt")

AUTHORED = [
    {
        "id": "authored-story",
        "group": "Authored",
        "label": "A new story opening",
        "prompt": "Once upon a time, a little bear found a shiny key under a big tree. He",
        "note": "Written for this course; not in the dataset.",
    },
    {
        "id": "ood-cooking",
        "group": "Out of domain",
        "label": "Cooking instructions",
        "prompt": "Preheat the oven to 180 degrees. Mix the flour, the sugar and two eggs in a bowl, then",
        "note": "Not a story: instructions the models never saw in this form.",
    },
    {
        "id": "ood-technical",
        "group": "Out of domain",
        "label": "A technical sentence",
        "prompt": (
            "The transformer computes scaled dot-product attention over learned query, key and value projections."
        ),
        "note": "Most of these words are outside the vocabulary and become UNK.",
    },
]

_SENTENCE = re.compile(r"^(.*?[.!?][\"'\u201d\u2019]?)\s+(\S+)\s+(\S+)", re.S)


def story_prefix(text: str) -> str:
    """The first sentence plus the next two words (fallback: the first 12 words)."""
    m = _SENTENCE.match(text)
    if m and len(m.group(1).split()) <= 40:
        return f"{m.group(1)} {m.group(2)} {m.group(3)}"
    return " ".join(text.split()[:12])


def _source(story: dict, split: str) -> dict:
    return {
        "text": story["text"],
        "origin_file": story["origin_file"],
        "origin_index": story["origin_index"],
        "split": split,
        "dataset": "TinyStories",
        "attribution": ATTRIBUTION,
        "license": "CDLA-Sharing-1.0",
        "license_url": LICENSE_URL,
    }


def build_presets(corpus: Corpus, vocab: Vocab) -> list[dict]:
    presets = []
    for n, origin in enumerate(TRAIN_FILES, 1):
        candidates = [s for s in corpus.stories["train"] if s["origin_file"] == origin]
        if not candidates:  # a smaller or different pool: take the n-th training story
            candidates = corpus.stories["train"][n - 1 :]
        story = candidates[0]
        presets.append(
            {
                "id": f"train-{n}",
                "group": "Training story",
                "label": f"Training story {n} (prefix)",
                "prompt": story_prefix(story["text"]),
                "note": "The models were trained on the full story.",
                "source": _source(story, "train"),
            }
        )
    test = min(enumerate(corpus.stories["test"]), key=lambda p: (len(p[1]["ids"]), p[0]))[1]
    presets.append(
        {
            "id": CONFIG.decoding.held_out_preset,
            "group": "Held-out test story",
            "label": "Shortest held-out test story (prefix)",
            "prompt": story_prefix(test["text"]),
            "note": "The shortest story in the test split; no model saw it in training.",
            "source": _source(test, "test"),
        }
    )
    presets += [dict(p, source=None) for p in AUTHORED]
    for p in presets:
        p["prompt_ids"] = vocab.encode(p["prompt"])
        p["unknown_tokens"] = p["prompt_ids"].count(UNK_ID)
    return presets
