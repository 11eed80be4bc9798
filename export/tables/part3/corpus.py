"""Real TinyStories documents from our course subset for the Part III slides:
a typical story (excerpt), the shortest story (whole), the beginnings and
endings of two long ones, and the split / window counts from the audit.

Stories are shown with their original text, origin file and row index.
TinyStories is by Ronen Eldan and Yuanzhi Li, under CDLA-Sharing-1.0.
"""

from __future__ import annotations

import re

from models.corpus import SPLITS

from ..kit.registry import table

CREDIT = {
    "dataset": "TinyStories",
    "authors": "Ronen Eldan and Yuanzhi Li",
    "license": "CDLA-Sharing-1.0",
}
ELLIPSIS = "[…]"


def _describe(story: dict, split: str) -> dict:
    return {
        "split": split,
        "origin_file": story["origin_file"],
        "origin_index": story["origin_index"],
        "origin": f"{story['origin_file']}, row {story['origin_index']}",
        "words": len(story["text"].split()),
        "tokens": len(story["ids"]) - 2,
    }


def _word_ends(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\S+", text)]


def _sentence_end(word: str) -> bool:
    return word.rstrip("\"'\u201d\u2019").endswith((".", "!", "?"))


def _head(text: str, n_words: int) -> str:
    """The original text up to the last sentence end within the first n words
    (or exactly n words when no sentence ends there), then […]."""
    spans = _word_ends(text)
    if len(spans) <= n_words:
        return text
    cut = spans[n_words - 1][1]
    ends = [e for s, e in spans[:n_words] if _sentence_end(text[s:e])]
    if ends:
        cut = ends[-1]
    return text[:cut] + f" {ELLIPSIS}"


def _tail(text: str, n_words: int) -> str:
    """[…], then the original text from the first sentence start within the
    last n words (or exactly the last n words)."""
    spans = _word_ends(text)
    if len(spans) <= n_words:
        return text
    tail = spans[-n_words:]
    start = tail[0][0]
    prev = spans[-n_words - 1]
    for (ps, pe), (s, _) in zip([prev] + tail[:-1], tail):
        if _sentence_end(text[ps:pe]):
            start = s
            break
    return f"{ELLIPSIS} " + text[start:]


def stories(corpus) -> dict:
    """Pick the stories by rule (never by hand), so a new corpus gives new picks."""
    every = [(s, split) for split in SPLITS for s in corpus.stories[split]]
    by_length = sorted(every, key=lambda p: (len(p[0]["ids"]), p[0]["origin_file"], p[0]["origin_index"]))
    train = [p for p in by_length if p[1] == "train"]
    typical, typical_split = train[len(train) // 2]  # the median-length training story
    shortest, shortest_split = by_length[0]
    longest = by_length[-1]
    p90 = by_length[int(0.9 * (len(by_length) - 1))]
    sample = dict(
        _describe(typical, typical_split),
        text_excerpt=_head(typical["text"], 60),
        rule="the median-length story of the training split",
    )
    short = dict(
        _describe(shortest, shortest_split), text=shortest["text"], rule="the shortest story of the whole subset"
    )
    long_ones = [
        dict(_describe(s, split), beginning=_head(s["text"], 45), ending=_tail(s["text"], 30), rule=rule)
        for (s, split), rule in ((p90, "a story at the 90th percentile of length"), (longest, "the longest story"))
    ]
    return {"credit": CREDIT, "sample": sample, "shortest": short, "long": long_ones}


def split_counts(audit: dict) -> dict:
    """Document split and window counts straight from models/corpus_audit.json."""
    splits = audit["splits"]
    rows = [[name, splits[name]["documents"], splits[name]["tokens"], splits[name]["windows"]] for name in SPLITS]
    return {
        "available": True,
        "selected_stories": audit["selected_stories"],
        "pool_stories": audit["pool_stories"],
        "vocab_size": audit["vocab_size"],
        "context": audit["context"],
        "header": ["split", "stories", "tokens", "windows (targets)"],
        "rows": rows,
        "documents": {name: splits[name]["documents"] for name in SPLITS},
        "windows": {name: splits[name]["windows"] for name in SPLITS},
        "total_windows": sum(splits[name]["windows"] for name in SPLITS),
        "batch_size": audit["profile"]["batch_size"],
        "steps": audit["profile"]["steps"],
        "seeds": audit["profile"]["seeds"],
    }


@table("part3_corpus", needs=["sources"])
def corpus_tables(sources) -> dict:
    audit = sources.audit()
    out = stories(sources.corpus())
    out["available"] = True
    out["audit"] = (
        split_counts(audit)
        if audit is not None
        else {"available": False, "reason": "models/corpus_audit.json does not exist yet."}
    )
    return out
