"""Real stories for the maps deck: the shortest training story in full and the
beginning and end of the longest one, each with its length in words
(whitespace-separated) and in tokens (our tokenizer: punctuation apart, no
BOS/EOS). Table: ``maps_stories``."""

from __future__ import annotations

from models.tokenizer import tokenize

from ..kit.registry import table
from ..kit.sources import unavailable

EXCERPT_WORDS = 40  # words shown from each end of the long story


def _lengths(text: str) -> dict:
    return {"words": len(text.split()), "tokens": len(tokenize(text))}


@table("maps_stories", needs=["sources"])
def stories(sources) -> dict:
    corpus, reason = sources.corpus_or_reason()
    if corpus is None:
        return unavailable(reason)
    train = corpus.stories["train"]
    by_length = sorted(train, key=lambda s: (len(s["ids"]), s["origin_file"], s["origin_index"]))
    short, long = by_length[0], by_length[-1]
    words = long["text"].split()
    return {
        "available": True,
        "short": dict(text=short["text"], **_lengths(short["text"]), ids=len(short["ids"])),
        "long": dict(
            head=" ".join(words[:EXCERPT_WORDS]),
            tail=" ".join(words[-EXCERPT_WORDS:]),
            **_lengths(long["text"]),
            ids=len(long["ids"]),
        ),
        "n_train": len(train),
        "table": {
            "header": ["Story", "Words", "Tokens", "IDs with BOS and EOS"],
            "rows": [
                ["shortest", *_lengths(short["text"]).values(), len(short["ids"])],
                ["longest", *_lengths(long["text"]).values(), len(long["ids"])],
            ],
        },
    }
