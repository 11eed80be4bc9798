"""The answers to the Part III seed's check questions (``part3_checks``),
each computed with the course's tokenizer, vocabulary and window maker:
a long story is many inputs, tokens are not words, one BOS and one EOS per
story however many sentences, the same number of targets at any width, and
IDs (not embedding coordinates) in X."""

from __future__ import annotations

from models.corpus import make_windows
from models.tokenizer import BOS_ID, EOS_ID, tokenize

from ..kit.registry import table
from ..kit.sources import Sources, file_absent

PHRASE = "Lily's ball rolled away."  # four words
THREE_SENTENCES = "Lily found a ball. It was red. She smiled."
WIDTHS = (4, 8)


@table("part3_checks", needs=["sources", "part3_batch"])
def checks_table(sources: Sources, part3_batch: dict) -> dict:
    vocab = sources.vocab()
    if vocab is None:
        return file_absent(sources.folder.vocab)
    audit = sources.audit() or {}
    longest = audit.get("splits", {}).get("train", {}).get("story_tokens_max")
    tokens = tokenize(PHRASE)
    story = vocab.encode_story(THREE_SENTENCES)
    targets = {str(w): len(make_windows([story], w)[1]) for w in WIDTHS}
    return {
        "available": True,
        "longest_tokens": longest,
        "longest_windows": None if longest is None else longest + 1,  # one per token, one for EOS
        "context": part3_batch.get("T"),
        "phrase": PHRASE,
        "phrase_words": len(PHRASE.split()),
        "phrase_tokens": tokens,
        "phrase_token_count": len(tokens),
        "three_sentences": THREE_SENTENCES,
        "sentences": THREE_SENTENCES.count("."),
        "bos": story.count(BOS_ID),
        "eos": story.count(EOS_ID),
        "story_tokens": len(story) - 2,
        "widths": list(WIDTHS),
        "targets": targets,
        "same_targets": len(set(targets.values())) == 1,
    }
