"""The corpus audit (models/corpus_audit.json) as a slide table: stories,
ordinary tokens and training windows per split, where every story of n
ordinary tokens gives n + 1 windows (its EOS is a target too)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AUDIT = ROOT / "models" / "corpus_audit.json"
SPLITS = ("train", "validation", "test")


def compute(path: Path = AUDIT) -> dict:
    if not path.is_file():
        return {"corpus_audit": {"available": False,
                                 "reason": f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} "
                                           "does not exist yet (written by `make train`)."}}
    audit = json.loads(path.read_text(encoding="utf-8"))
    splits = audit["splits"]
    rows = []
    for split in SPLITS:
        s = splits[split]
        windows = s["tokens"] + s["documents"]
        if windows != s["windows"]:
            raise ValueError(f"{path}: {split} windows {s['windows']} != tokens + stories {windows}")
        rows.append([split, s["documents"], s["tokens"], s["windows"], s["unk_tokens"]])
    total = [sum(r[i] for r in rows) for i in range(1, 5)]
    profile = audit["profile"]
    return {"corpus_audit": {
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
        "length_table": {"header": ["Split", "Shortest", "Median", "Longest"],
                         "rows": [[split, splits[split]["story_tokens_min"], splits[split]["story_tokens_median"],
                                   splits[split]["story_tokens_max"]] for split in SPLITS]},
    }}
