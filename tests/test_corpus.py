import gzip
import json

import pytest
import torch

from models import corpus
from models.corpus import DataError, load_stories, make_windows, prepare
from models.tokenizer import PAD_ID, tokenize


@pytest.fixture(scope="module")
def smoke():
    return prepare("smoke")


def test_shipped_file_and_sources_are_present():
    assert corpus.DATA_FILE.exists()
    sources = (corpus.DATA_FILE.parent / "SOURCES.md").read_text()
    assert "CDLA-Sharing-1.0" in sources and corpus.DATA_SHA256 in sources


def test_corrupt_data_file_gives_clear_error(tmp_path):
    bad = tmp_path / "stories.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"text": "changed"}\n'))
    with pytest.raises(DataError, match="corrupt.*stories.jsonl.gz.*SHA-256"):
        load_stories(bad, expected_sha256=corpus.DATA_SHA256)
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(DataError, match="broken.jsonl.gz"):
        load_stories(broken)
    with pytest.raises(DataError, match="missing"):
        load_stories(tmp_path / "nope.txt")


def test_official_release_formats(tmp_path):
    txt = tmp_path / "TinyStories-valid.txt"
    txt.write_text("\ufeffOnce upon a time.\n<|endoftext|>\nThe end came.\n<|endoftext|>\n", encoding="utf-8")
    stories = load_stories(txt)
    assert [s["text"] for s in stories] == ["Once upon a time.", "The end came."]
    jsonl = tmp_path / "stories.jsonl"
    jsonl.write_text("\n".join(json.dumps({"text": t}) for t in ["A dog ran.", "A cat sat."]) + "\n")
    assert [s["text"] for s in load_stories(jsonl)] == ["A dog ran.", "A cat sat."]
    (tmp_path / "bad.jsonl").write_text('{"story": "no text field"}\n')
    with pytest.raises(DataError, match="line 1"):
        load_stories(tmp_path / "bad.jsonl")


def test_prepare_from_a_txt_file(tmp_path):
    texts = [f"Tom saw {n} red balls. Tom was happy and Tom smiled." for n in range(40)]
    path = tmp_path / "mini.txt"
    path.write_text("<|endoftext|>".join(texts + texts[:5]), encoding="utf-8")
    c = prepare(corpus.Profile("t", 30, 50, 1, 1, 1, 1), path)
    assert c.audit["duplicates_removed"] == 5
    assert sum(len(v) for v in c.stories.values()) == 30


def test_splits_are_disjoint_and_deterministic(smoke):
    names = {split: {s["norm"] for s in smoke.stories[split]} for split in corpus.SPLITS}
    assert not names["train"] & names["validation"] and not names["train"] & names["test"]
    assert not names["validation"] & names["test"]
    assert sum(len(v) for v in names.values()) == 480
    for split, texts in names.items():
        assert all(corpus.split_of(t) == split for t in texts)
    again = prepare("smoke")
    assert again.vocab.itos == smoke.vocab.itos and again.ids("test") == smoke.ids("test")
    # roughly 80/10/10
    assert 0.7 < len(names["train"]) / 480 < 0.9


def test_vocabulary_is_fitted_on_training_stories_only(smoke):
    train_tokens = {t for s in smoke.stories["train"] for t in tokenize(s["norm"])}
    assert set(smoke.vocab.itos[4:]) <= train_tokens
    held_out_only = {
        t for split in ("validation", "test") for s in smoke.stories[split] for t in tokenize(s["norm"])
    } - train_tokens
    assert held_out_only and not held_out_only & set(smoke.vocab.itos)
    assert len(smoke.vocab) <= smoke.profile.vocab_size


def test_window_counts_equal_tokens_plus_stories(smoke):
    for split in corpus.SPLITS:
        X, y = smoke.windows(split)
        audit = smoke.audit["splits"][split]
        assert len(y) == audit["tokens"] + audit["documents"] == audit["windows"]
        assert X.shape == (len(y), 64)


def test_windows_are_left_padded_and_never_cross_stories():
    X, y = make_windows([[1, 10, 11, 2], [1, 20, 2]], context=4)
    assert X.tolist() == [[0, 0, 0, 1], [0, 0, 1, 10], [0, 1, 10, 11], [0, 0, 0, 1], [0, 0, 1, 20]]
    assert y.tolist() == [10, 11, 2, 20, 2]
    long = list(range(1, 80))
    X, y = make_windows([long], context=64)
    assert X[-1].tolist() == long[-65:-1] and int(y[-1]) == long[-1]
    assert int((X[0] == PAD_ID).sum()) == 63


def test_audit_fields(smoke):
    a = smoke.audit
    assert a["overlap_documents"] == {"train&validation": 0, "train&test": 0, "validation&test": 0}
    for split in corpus.SPLITS:
        s = a["splits"][split]
        assert s["story_tokens_min"] <= s["story_tokens_median"] <= s["story_tokens_max"]
        assert 0 <= s["oov_rate"] < 0.2
    assert a["splits"]["train"]["oov_rate"] < a["splits"]["test"]["oov_rate"]


def test_course_profile_settings():
    p = corpus.PROFILES["course"]
    assert (p.n_stories, p.vocab_size, p.steps, p.batch_size, p.eval_every, p.val_windows) == (
        6000,
        4000,
        6000,
        512,
        750,
        20000,
    )
    assert p.seeds == (11, 29, 47)


def test_split_rule_is_the_documented_hash_for_every_bucket():
    """split_of is int(SHA-256('split-<seed>:' + text)[:8], 16) % 10: 0-7 train,
    8 validation, 9 test, checked on texts that land in each of the ten buckets."""
    import hashlib

    seen = {}
    for i in range(400):
        text = f"story number {i}"
        bucket = int(hashlib.sha256(f"split-{corpus.SEED}:{text}".encode()).hexdigest()[:8], 16) % 10
        seen.setdefault(bucket, []).append(text)
        assert corpus.split_of(text) == ("train" if bucket <= 7 else "validation" if bucket == 8 else "test")
    assert sorted(seen) == list(range(10))
    assert corpus.SEED == 20240 and corpus.split_of("é") == corpus.split_of("é")
    assert corpus._key("select", "a b") == hashlib.sha256(b"select-20240:a b").hexdigest()


def test_corpus_windows_are_make_windows_of_the_split_ids():
    from models.tokenizer import Vocab

    stories = {"train": [{"ids": [1, 4, 5, 2]}], "validation": [{"ids": [1, 6, 2]}, {"ids": [1, 2]}], "test": []}
    c = corpus.Corpus(corpus.PROFILES["smoke"], Vocab(["<PAD>", "<BOS>", "<EOS>", "<UNK>"]), stories)
    assert c.ids("validation") == [[1, 6, 2], [1, 2]]
    X, y = c.windows("validation")
    assert X.shape == (3, 64) and y.tolist() == [6, 2, 2]
    assert X[0, -1] == 1 and X[1, -2:].tolist() == [1, 6] and X[2, -1] == 1
    X, y = c.windows("test")
    assert X.shape == (0, 64) and y.shape == (0,) and X.dtype == y.dtype == torch.int32
    X, y = make_windows([[1], [1, 7, 2]], context=3)  # a story with one ID has no target
    assert X.tolist() == [[0, 0, 1], [0, 1, 7]] and y.tolist() == [7, 2]
    assert X.dtype == y.dtype == torch.int32  # windows are stored as int32
    assert make_windows([], context=5)[0].shape == (0, 5)
