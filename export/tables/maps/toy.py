"""The toy of the "Training and inference maps" deck (seed 003) and its data
tables: tokenization, vocabulary, the story, its windows and one batch.

The toy: the story "Lily found a red ball." with C=10, w=4, B=2, d=4, h=8,
d_k=3, d_v=2, computed with the project's own tokenizer, window maker and
model classes (each model created right after torch.manual_seed(11)).
The value ``maps_toy`` (vocabulary, windows, the batch) feeds the model tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from models.corpus import PROFILES, make_windows
from models.tokenizer import SPECIALS, Vocab, tokenize

from ..kit.registry import table, value

SENTENCE = "Lily found a red ball."
TWO_SENTENCES = "Lily found a ball. Lily found a red ball."
TOKENIZATION_TEXT = "redder!"
# A hand-chosen split that shows what subword tokens look like; not the
# output of a trained BPE tokenizer (the slides say so).
ILLUSTRATIVE_SUBWORDS = ["red", "der", "!"]
TOKENIZER_PROBES = ["Lily can't find 12 balls!", "LILY found!"]
SEED = 11
W, B, D, H, D_K, D_V = 4, 2, 4, 8, 3, 2
BATCH_ROWS = [2, 3]
SPECIAL_ROLES = {
    "<PAD>": "fills empty input slots",
    "<BOS>": "starts every story",
    "<EOS>": "ends every story",
    "<UNK>": "stands for any word not in the vocabulary",
}


class CheckFailed(AssertionError):
    pass


def check(condition, what: str) -> None:
    if not condition:
        raise CheckFailed(f"maps: check failed: {what}")


def fl(t) -> float:
    return float(t.detach()) if isinstance(t, torch.Tensor) else float(t)


def lst(t: torch.Tensor):
    return t.detach().tolist()


def close(a: torch.Tensor, b: torch.Tensor, atol: float = 1e-6) -> bool:
    return bool(torch.allclose(a.detach().float(), b.detach().float(), atol=atol, rtol=0))


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.detach().double() - b.detach().double()).abs().max())


def toy_vocab() -> Vocab:
    pieces = tokenize(SENTENCE)
    return Vocab(list(SPECIALS) + sorted(set(pieces)))


@dataclass(frozen=True)
class Toy:
    vocab: Vocab
    ids: list[int]  # the story with BOS and EOS
    all_X: torch.Tensor  # every window of the story
    all_y: torch.Tensor
    X: torch.Tensor  # the batch: windows BATCH_ROWS
    y: torch.Tensor


@value("maps_toy")
def toy() -> Toy:
    vocab = toy_vocab()
    ids = vocab.encode_story(SENTENCE)
    all_X, all_y = make_windows([ids], context=W)
    selected = torch.tensor(BATCH_ROWS)
    return Toy(vocab, ids, all_X, all_y, all_X[selected].long(), all_y[selected].long())


@table("maps_tokenize")
def tokenization() -> dict:
    choices = [
        ("Word + punctuation", tokenize(TOKENIZATION_TEXT)),
        ("Character", list(TOKENIZATION_TEXT)),
        ("Subword (illustrative)", ILLUSTRATIVE_SUBWORDS),
    ]
    for _, parts in choices:
        check("".join(parts) == TOKENIZATION_TEXT, "every tokenization joins back to the text")
    pieces = tokenize(SENTENCE)
    return {
        "sentence": SENTENCE,
        "pieces": pieces,
        "n_pieces": len(pieces),
        "text": TOKENIZATION_TEXT,
        "choices": {
            "header": ["Choice", "Tokens", "Count"],
            "rows": [[name, parts, len(parts)] for name, parts in choices],
        },
        "counts": [len(parts) for _, parts in choices],
        "probes": {"header": ["Text", "Tokens"], "rows": [[text, tokenize(text)] for text in TOKENIZER_PROBES]},
    }


@table("maps_vocab", needs=["maps_toy"])
def vocabulary(maps_toy: Toy) -> dict:
    vocab = maps_toy.vocab
    two_ids = vocab.encode_story(TWO_SENTENCES)
    return {
        "stoi": dict(vocab.stoi),
        "itos": list(vocab.itos),
        "C": len(vocab),
        "n_specials": len(SPECIALS),
        "n_words": len(vocab) - len(SPECIALS),
        "table": {
            "header": ["ID", "Token", "Role"],
            "rows": [[i, tok, SPECIAL_ROLES.get(tok, "word from the story")] for i, tok in enumerate(vocab.itos)],
        },
        "blue_in_vocab": "blue" in vocab.stoi,
        "blue_ids": vocab.encode_tokens(["blue"]),
        "blue_story_ids": vocab.encode_story("blue"),
        "two_sentences": TWO_SENTENCES,
        "two_sentence_ids": two_ids,
        "two_sentence_tokens": [vocab.itos[i] for i in two_ids],
        "two_sentence_counts": {
            "bos": two_ids.count(vocab.bos_id),
            "eos": two_ids.count(vocab.eos_id),
            "full_stop": two_ids.count(vocab.stoi["."]),
        },
        "ids": {"pad": vocab.pad_id, "bos": vocab.bos_id, "eos": vocab.eos_id, "unk": vocab.unk_id},
    }


@table("maps_story", needs=["maps_toy"])
def story(maps_toy: Toy) -> dict:
    vocab, ids = maps_toy.vocab, maps_toy.ids
    target_position = 4  # a Python index: ids[4]; the slides count positions from 1
    history = ids[:6]
    return {
        "ids": ids,
        "tokens": [vocab.itos[i] for i in ids],
        "positions": {
            "header": ["Position", "ID", "Token"],
            "rows": [[p + 1, i, vocab.itos[i]] for p, i in enumerate(ids)],  # counted from 1 (BOS is 1)
        },
        "target_position": target_position,  # Python index
        "target_number": target_position + 1,  # the same position counted from 1, as the slides count
        "target_row": target_position,  # the window row (counted from 1) whose target is ids[target_position]
        "context_ids": ids[target_position - W : target_position],
        "target_id": ids[target_position],
        "target_token": vocab.itos[ids[target_position]],
        "history": history,
        "history_tokens": [vocab.itos[i] for i in history],
        "contexts_by_width": {str(width): history[-width:] for width in (2, 4, 6)},
        "width_table": {
            "header": ["w", "Context IDs", "Context tokens"],
            "rows": [[width, history[-width:], [vocab.itos[i] for i in history[-width:]]] for width in (2, 4, 6)],
        },
    }


@table("maps_windows", needs=["maps_toy"])
def windows(maps_toy: Toy) -> dict:
    vocab, ids, all_X, all_y = maps_toy.vocab, maps_toy.ids, maps_toy.all_X, maps_toy.all_y
    rows = [
        [r + 1, lst(all_X[r]), [vocab.itos[i] for i in lst(all_X[r])], int(all_y[r]), vocab.itos[int(all_y[r])]]
        for r in range(len(all_y))
    ]
    windows = {
        "w": W,
        "N": len(all_y),
        "ordinary_tokens": len(ids) - 2,
        "contexts": lst(all_X),
        "targets": lst(all_y),
        "table": {"header": ["Row", "Context IDs", "Context tokens", "Target ID", "Target"], "rows": rows},
        "dtype": str(all_X.dtype).removeprefix("torch."),
        "X_shape": list(all_X.shape),
        "y_shape": list(all_y.shape),
        "pad_targets": int(all_y.eq(vocab.pad_id).sum()),
        "last_target": int(all_y[-1]),
    }
    check(windows["N"] == windows["ordinary_tokens"] + 1, "one window per ordinary token plus EOS")
    return windows


@table("maps_batch", needs=["maps_toy"])
def batch(maps_toy: Toy) -> dict:
    vocab, all_X, all_y, X, y = maps_toy.vocab, maps_toy.all_X, maps_toy.all_y, maps_toy.X, maps_toy.y
    N = len(all_y)
    batch_sizes = [len(all_y[start : start + B]) for start in range(0, N, B)]
    course = PROFILES["course"]
    rows = {
        "header": ["Example", "X (context IDs)", "Context tokens", "y", "Target"],
        "rows": [
            [b + 1, lst(X[b]), [vocab.itos[i] for i in lst(X[b])], int(y[b]), vocab.itos[int(y[b])]] for b in range(B)
        ],
    }
    return {
        "selected_rows": [r + 1 for r in BATCH_ROWS],  # rows of the windows table, counted from 1
        "X": lst(X),
        "y": lst(y),
        "table": rows,
        "X_shape": list(X.shape),
        "y_shape": list(y.shape),
        "dtype": str(X.dtype).removeprefix("torch."),
        "window_dtype": str(all_X.dtype).removeprefix("torch."),
        "B": B,
        "batch_sizes": batch_sizes,
        "steps_per_pass": len(batch_sizes),
        "dims": {"B": B, "w": W, "C": len(vocab), "d": D, "h": H, "d_k": D_K, "d_v": D_V, "wd": W * D, "Bh": B * H},
        "lily_slots": [  # counted from 1
            lst(X[b]).index(vocab.stoi["lily"]) + 1 if vocab.stoi["lily"] in lst(X[b]) else None for b in range(B)
        ],
        "dims_table": {
            "header": ["Symbol", "Value", "Meaning"],
            "rows": [
                ["B", B, "examples per batch"],
                ["w", W, "context slots"],
                ["C", len(vocab), "vocabulary items, specials included"],
                ["d", D, "embedding width"],
                ["H", H, "hidden units"],
            ],
        },
        "course": {
            "steps": course.steps,
            "batch_size": course.batch_size,
            "presentations": course.steps * course.batch_size,
            "eval_every": course.eval_every,
            "val_windows": course.val_windows,
            "seeds": list(course.seeds),
        },
    }
