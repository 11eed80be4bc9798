"""Word-level tokenizer and vocabulary.

Normalization: Unicode NFKC, lowercase, every run of whitespace collapsed to
one space, ends stripped. Tokens: words ``[a-z]+(?:'[a-z]+)?``, digit runs
``[0-9]+``, and every other non-space character on its own.

web/core/tokenizer.js mirrors this file; tests/test_decoding_parity.py checks
the two agree.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from common.files import read_json

PAD, BOS, EOS, UNK = "<PAD>", "<BOS>", "<EOS>", "<UNK>"
SPECIALS = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3

# Spelled out (rather than \s) so that Python and JavaScript agree exactly.
WHITESPACE = re.compile("[ \t\n\r\f\v\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|[0-9]+|[^ ]")

NO_SPACE_BEFORE = set(".,!?;:)]}%'")
NO_SPACE_AFTER = set("([{")


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    return WHITESPACE.sub(" ", text).strip()


def tokenize(text: str) -> list[str]:
    return TOKEN.findall(normalize(text))


def detokenize(tokens: Iterable[str]) -> str:
    """Join tokens into readable text: no space before closing punctuation,
    none after opening brackets, and straight double quotes paired up."""
    out: list[str] = []
    quote_open = False
    glue_next = True  # no space before the first token
    for tok in tokens:
        if tok in (PAD, BOS, EOS):
            continue
        if tok == '"':
            if quote_open:  # closing quote hugs the previous word
                out.append(tok)
                glue_next = False
            else:
                out.append(tok if glue_next else " " + tok)
                glue_next = True
            quote_open = not quote_open
            continue
        if glue_next or tok in NO_SPACE_BEFORE:
            out.append(tok)
        else:
            out.append(" " + tok)
        glue_next = tok in NO_SPACE_AFTER
    return "".join(out)


class VocabError(ValueError):
    """vocab.json is missing (then also a ``files.Missing``) or not a valid vocabulary."""


class Vocab:
    """Token <-> ID table. IDs 0..3 are the special tokens."""

    def __init__(self, itos: list[str]):
        if tuple(itos[:4]) != SPECIALS:
            raise ValueError(f"vocabulary must start with {SPECIALS}")
        self.itos = list(itos)
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise ValueError("vocabulary has duplicate tokens")

    pad_id, bos_id, eos_id, unk_id = PAD_ID, BOS_ID, EOS_ID, UNK_ID

    def __len__(self) -> int:
        return len(self.itos)

    @classmethod
    def fit(cls, token_lists: Iterable[list[str]], max_size: int, min_count: int = 2) -> Vocab:
        """Specials, then tokens seen at least ``min_count`` times, most
        frequent first, ties alphabetical, ``max_size`` items in total."""
        counts = Counter(tok for toks in token_lists for tok in toks)
        ranked = sorted(
            (t for t, c in counts.items() if c >= min_count and t not in SPECIALS), key=lambda t: (-counts[t], t)
        )
        return cls(list(SPECIALS) + ranked[: max_size - len(SPECIALS)])

    def encode_tokens(self, tokens: Iterable[str]) -> list[int]:
        return [self.stoi.get(t, UNK_ID) for t in tokens]

    def encode(self, text: str) -> list[int]:
        return self.encode_tokens(tokenize(text))

    def encode_story(self, text: str) -> list[int]:
        """One BOS before and one EOS after the whole story."""
        return [BOS_ID] + self.encode(text) + [EOS_ID]

    def decode(self, ids: Iterable[int]) -> str:
        return detokenize(self.itos[i] for i in ids)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.itos, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, size: int | None = None) -> Vocab:
        """Read and check vocab.json: a list of unique strings starting with the
        specials (and exactly ``size`` of them when given). Raises VocabError
        naming the file."""
        path = Path(path)
        itos = read_json(path, VocabError, "vocabulary file")
        if not isinstance(itos, list) or not all(isinstance(t, str) for t in itos):
            raise VocabError(f"{path}: vocabulary file is not a list of strings")
        try:
            vocab = cls(itos)
        except ValueError as exc:
            raise VocabError(f"{path}: {exc}") from exc
        if size is not None and len(vocab) != size:
            raise VocabError(f"{path}: vocabulary has {len(vocab)} tokens, expected {size}")
        return vocab
