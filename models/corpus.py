"""TinyStories loading, story selection, document split, vocabulary, windows
and the corpus audit.

Story selection (documented for the slides and README): the pool is read in
file order and deduplicated by normalized text, keeping the first copy. Every
remaining story gets the key SHA-256("select-<seed>:" + normalized text); the
profile takes the N stories with the smallest keys. Each selected story then
goes to train / validation / test by SHA-256("split-<seed>:" + normalized
text): the first 8 hex digits as an integer, modulo 10, give 0-7 train,
8 validation, 9 test. Both depend only on the text, never on file order.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from common.config import CONFIG, Profile
from common.settings import ROOT

from .tokenizer import PAD_ID, UNK_ID, Vocab, normalize, tokenize

# The data file, its SHA-256, the split seed and the profiles: common/config.py.
DATA_FILE = ROOT / CONFIG.data.file
DATA_SHA256 = CONFIG.data.sha256
SEED = CONFIG.data.split_seed
CONTEXT = CONFIG.data.context
PROFILES = CONFIG.training.profiles
SPLITS = ("train", "validation", "test")


class DataError(RuntimeError):
    """A data file is missing, corrupt or in an unknown format."""


def _read_bytes(path: Path) -> bytes:
    if not path.exists():
        raise DataError(f"data file missing: {path}")
    try:
        raw = path.read_bytes()
        return gzip.decompress(raw) if path.name.endswith(".gz") else raw
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"data file is corrupt (cannot decompress): {path} ({exc})") from exc


def load_stories(path: str | Path | None = None, expected_sha256: str | None = None) -> list[dict]:
    """Read stories as dicts with ``text``, ``origin_file``, ``origin_index``.

    With no path, reads the shipped sample and checks its SHA-256. A path may
    also point to an official TinyStories release file: ``.txt`` with stories
    separated by ``<|endoftext|>``, or ``.jsonl`` (optionally ``.gz``) with a
    ``text`` field per line.
    """
    if path is None:
        path, expected_sha256 = DATA_FILE, DATA_SHA256
    path = Path(path)
    raw = _read_bytes(path)
    if expected_sha256 is not None:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != expected_sha256:
            raise DataError(f"data file is corrupt: {path} has SHA-256 {digest}, expected {expected_sha256}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"data file is not UTF-8: {path} ({exc})") from exc
    name = path.name.removesuffix(".gz")
    stories = []
    if name.endswith(".txt"):
        for i, piece in enumerate(text.split("<|endoftext|>")):
            piece = piece.strip().lstrip("\ufeff").strip()
            if piece:
                stories.append({"text": piece, "origin_file": name, "origin_index": i})
    elif name.endswith(".jsonl"):
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                story = row["text"].strip()
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise DataError(f"data file is corrupt: {path} line {lineno} has no JSON 'text' field") from exc
            if story:
                stories.append(
                    {
                        "text": story,
                        "origin_file": row.get("origin_file", name),
                        "origin_index": row.get("origin_index", lineno - 1),
                    }
                )
    else:
        raise DataError(f"unknown data format: {path} (expected .txt, .jsonl or .jsonl.gz)")
    if not stories:
        raise DataError(f"data file holds no stories: {path}")
    return stories


def _key(prefix: str, norm: str) -> str:
    return hashlib.sha256(f"{prefix}-{SEED}:{norm}".encode()).hexdigest()


def split_of(norm: str) -> str:
    bucket = int(_key("split", norm)[:8], 16) % 10
    return "train" if bucket < 8 else "validation" if bucket == 8 else "test"


def make_windows(id_lists: list[list[int]], context: int = CONTEXT) -> tuple[torch.Tensor, torch.Tensor]:
    """For every position t >= 1 of every story: input = the previous <= context
    IDs left-padded with PAD, target = ID t. Windows never cross stories."""
    xs, ys = [], []
    for ids in id_lists:
        seq = torch.tensor([PAD_ID] * context + ids, dtype=torch.int32)
        n = len(ids) - 1
        if n < 1:
            continue
        xs.append(seq.unfold(0, context, 1)[1 : n + 1])  # window ending just before target t
        ys.append(seq[context + 1 :])
    if not xs:
        return torch.zeros(0, context, dtype=torch.int32), torch.zeros(0, dtype=torch.int32)
    return torch.cat(xs), torch.cat(ys)


@dataclass
class Corpus:
    profile: Profile
    vocab: Vocab
    stories: dict[str, list[dict]]  # split -> stories (text, origin, ids)
    audit: dict = field(default_factory=dict)

    def ids(self, split: str) -> list[list[int]]:
        return [s["ids"] for s in self.stories[split]]

    def windows(self, split: str) -> tuple[torch.Tensor, torch.Tensor]:
        return make_windows(self.ids(split))


def prepare(profile: Profile | str = "course", path: str | Path | None = None) -> Corpus:
    """Load, deduplicate, select, split, fit the vocabulary, encode, audit."""
    if isinstance(profile, str):
        profile = PROFILES[profile]
    pool = load_stories(path)
    seen: set[str] = set()
    unique = []
    for story in pool:
        norm = normalize(story["text"])
        if norm in seen:
            continue
        seen.add(norm)
        unique.append(dict(story, norm=norm))
    duplicates_removed = len(pool) - len(unique)
    selected = sorted(unique, key=lambda s: _key("select", s["norm"]))[: profile.n_stories]
    selected.sort(key=lambda s: (s["origin_file"], s["origin_index"]))

    stories: dict[str, list[dict]] = {name: [] for name in SPLITS}
    for story in selected:
        story["tokens"] = tokenize(story["norm"])
        stories[split_of(story["norm"])].append(story)
    texts = {name: {s["norm"] for s in stories[name]} for name in SPLITS}
    overlaps = {f"{a}&{b}": len(texts[a] & texts[b]) for i, a in enumerate(SPLITS) for b in SPLITS[i + 1 :]}
    assert not any(overlaps.values()), f"a story appears in two splits: {overlaps}"

    vocab = Vocab.fit((s["tokens"] for s in stories["train"]), profile.vocab_size)
    for split in SPLITS:
        for story in stories[split]:
            story["ids"] = vocab.encode_story(story["norm"])
            del story["tokens"]
    corpus = Corpus(profile, vocab, stories)
    corpus.audit = _audit(corpus, len(pool), duplicates_removed, overlaps, path)
    return corpus


def _audit(corpus: Corpus, pool_size: int, duplicates_removed: int, overlaps: dict, path) -> dict:
    per_split = {}
    for split in SPLITS:
        lengths = [len(ids) - 2 for ids in corpus.ids(split)]
        n_tokens = sum(lengths)
        n_unk = sum(ids[1:-1].count(UNK_ID) for ids in corpus.ids(split))
        per_split[split] = {
            "documents": len(lengths),
            "tokens": n_tokens,
            "windows": n_tokens + len(lengths),
            "unk_tokens": n_unk,
            "oov_rate": n_unk / n_tokens if n_tokens else 0.0,
            "story_tokens_min": min(lengths) if lengths else 0,
            "story_tokens_median": statistics.median(lengths) if lengths else 0,
            "story_tokens_max": max(lengths) if lengths else 0,
        }
    origins: dict[str, int] = {}
    for split in SPLITS:
        for s in corpus.stories[split]:
            origins[s["origin_file"]] = origins.get(s["origin_file"], 0) + 1
    return {
        "profile": asdict(corpus.profile),
        "source": str(path) if path else "data/tinystories/stories.jsonl.gz",
        "pool_stories": pool_size,
        "duplicates_removed": duplicates_removed,
        "selected_stories": sum(v["documents"] for v in per_split.values()),
        "selected_by_origin_file": dict(sorted(origins.items())),
        "selection_rule": f"smallest SHA-256('select-{SEED}:' + normalized text) among deduplicated stories",
        "split_rule": f"int(SHA-256('split-{SEED}:' + normalized text)[:8], 16) % 10: 0-7 train, 8 validation, 9 test",
        "vocab_size": len(corpus.vocab),
        "context": CONTEXT,
        "splits": per_split,
        "overlap_documents": overlaps,
    }
