"""The corpus audit (models/corpus_audit.json) as a slide table: stories,
ordinary tokens and training windows per split, where every story of n
ordinary tokens gives n + 1 windows (its EOS is a target too). The maps deck
shows it; the results deck quotes it."""

from __future__ import annotations

from common.files import shown
from models.corpus import SPLITS
from models.tokenizer import SPECIALS

from ..kit.registry import table
from ..kit.sources import InputError, unavailable


@table("corpus_audit", needs=["sources"])
def corpus_audit(sources) -> dict:
    path = sources.folder.audit
    audit = sources.audit()
    if audit is None:
        return unavailable(f"{shown(path)} does not exist yet (written by `make train`).")
    splits = audit["splits"]
    rows = []
    for split in SPLITS:
        s = splits[split]
        windows = s["tokens"] + s["documents"]
        if windows != s["windows"]:
            raise InputError(f"{path}: {split} windows {s['windows']} != tokens + stories {windows}")
        rows.append([split, s["documents"], s["tokens"], s["windows"], s["unk_tokens"]])
    total = [sum(r[i] for r in rows) for i in range(1, 5)]
    profile = audit["profile"]
    return {
        "available": True,
        "source": "models/corpus_audit.json",
        "header": ["Split", "Stories", "Ordinary tokens", "Windows (= tokens + stories)", "UNK tokens"],
        "rows": rows,
        "total": total,
        "splits": {split: dict(splits[split]) for split in SPLITS},
        "pool_stories": audit["pool_stories"],
        "duplicates_removed": audit["duplicates_removed"],
        "selected_stories": audit["selected_stories"],
        "vocab_size": audit["vocab_size"],
        "vocab_specials": len(SPECIALS),  # the vocabulary is the specials plus the most frequent training words
        "vocab_words": audit["vocab_size"] - len(SPECIALS),
        "context": audit["context"],
        "overlap_documents": audit["overlap_documents"],
        "overlap_total": sum(audit["overlap_documents"].values()),
        "no_overlap": not any(audit["overlap_documents"].values()),
        "selection_rule": audit["selection_rule"],
        "split_rule": audit["split_rule"],
        "steps": profile["steps"],
        "batch_size": profile["batch_size"],
        "presentations": profile["steps"] * profile["batch_size"],
        "seeds": profile["seeds"],
        "length_table": {
            "header": ["Split", "Shortest", "Median", "Longest"],
            "rows": [
                [
                    split,
                    splits[split]["story_tokens_min"],
                    splits[split]["story_tokens_median"],
                    splits[split]["story_tokens_max"],
                ]
                for split in SPLITS
            ],
        },
    }
