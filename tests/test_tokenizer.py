from models.tokenizer import BOS_ID, EOS_ID, UNK_ID, Vocab, detokenize, normalize, tokenize


def test_issue_examples():
    assert tokenize("Lily can't find 12 balls!") == ["lily", "can't", "find", "12", "balls", "!"]
    assert tokenize("redder!") == ["redder", "!"]


def test_normalization_nfkc_lowercase_whitespace():
    assert normalize("  Ｌｉｌｙ\u00a0 FOUND\n\n a\tball ") == "lily found a ball"
    assert tokenize("ﬁsh") == ["fish"]  # NFKC unfolds the ligature


def test_other_characters_are_single_tokens():
    assert tokenize('"Hi," said Tom.') == ['"', "hi", ",", '"', "said", "tom", "."]
    assert tokenize("café 3.5") == ["caf", "é", "3", ".", "5"]
    assert tokenize("rock'n'roll") == ["rock'n", "'", "roll"]
    assert tokenize("") == [] and tokenize("   ") == []


def test_detokenize_rebuilds_readable_text():
    text = 'lily said, "look at the red ball!" (it was big.)'
    assert detokenize(tokenize(text)) == text
    assert detokenize(["<BOS>", "the", "end", ".", "<EOS>"]) == "the end."


def test_one_bos_and_one_eos_per_story():
    vocab = Vocab.fit([tokenize("the cat sat. the dog ran. the end.")] * 2, 50)
    ids = vocab.encode_story("The cat sat. The dog ran. The end.")
    assert ids[0] == BOS_ID and ids[-1] == EOS_ID
    assert ids.count(BOS_ID) == 1 and ids.count(EOS_ID) == 1
    assert ids.count(vocab.stoi["."]) == 3


def test_vocab_order_min_count_cap_and_unk():
    tokens = [["b", "a", "a", "c", "c", "b", "d", "e", "e", "e"]]
    vocab = Vocab.fit(tokens, max_size=7)
    assert vocab.itos == ["<PAD>", "<BOS>", "<EOS>", "<UNK>", "e", "a", "b"]  # count desc, ties abc, cap
    assert vocab.encode("d c zebra e") == [UNK_ID, UNK_ID, UNK_ID, vocab.stoi["e"]]


def test_vocab_round_trip(tmp_path):
    vocab = Vocab.fit([["x", "x", "y", "y"]], 10)
    vocab.save(tmp_path / "v.json")
    assert Vocab.load(tmp_path / "v.json").itos == vocab.itos


def test_vocab_save_reproduces_the_committed_file_and_keeps_text_readable(tmp_path):
    from common.layout import MODELS

    committed = MODELS.vocab
    Vocab.load(committed).save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == committed.read_bytes()
    Vocab(["<PAD>", "<BOS>", "<EOS>", "<UNK>", "é", "🐶"]).save(tmp_path / "v.json")
    raw = (tmp_path / "v.json").read_bytes()
    assert "é".encode() in raw and "🐶".encode() in raw and b"\\u" not in raw
    assert raw.endswith(b'"\n]\n')


def test_bad_vocabularies_are_rejected_with_messages_naming_the_file(tmp_path):
    import json

    import pytest

    from models.tokenizer import SPECIALS, VocabError

    with pytest.raises(ValueError, match=r"vocabulary must start with \('<PAD>', '<BOS>', '<EOS>', '<UNK>'\)"):
        Vocab(["<BOS>", "<PAD>", "<EOS>", "<UNK>"])
    with pytest.raises(ValueError, match="^vocabulary has duplicate tokens$"):
        Vocab(list(SPECIALS) + ["a", "a"])
    cases = {
        "missing.json": (None, r"vocabulary file missing: .*missing\.json"),
        "corrupt.json": ("[not json", r"vocabulary file is corrupt: .*corrupt\.json"),
        "dict.json": ({"a": 1}, r"dict\.json: vocabulary file is not a list of strings"),
        "ints.json": (list(SPECIALS) + [5], r"ints\.json: vocabulary file is not a list of strings"),
        "order.json": (["<BOS>", "<PAD>", "<EOS>", "<UNK>"], r"order\.json: vocabulary must start with"),
        "dup.json": (list(SPECIALS) + ["a", "a"], r"dup\.json: vocabulary has duplicate tokens"),
    }
    for name, (content, message) in cases.items():
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif content is not None:
            path.write_text(json.dumps(content), encoding="utf-8")
        with pytest.raises(VocabError, match=message):
            Vocab.load(path)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(list(SPECIALS) + ["a", "b"]), encoding="utf-8")
    assert len(Vocab.load(good, size=6)) == 6 and len(Vocab.load(good)) == 6
    with pytest.raises(VocabError, match=r"good\.json: vocabulary has 6 tokens, expected 7"):
        Vocab.load(good, size=7)


def test_fit_keeps_min_count_and_never_repeats_a_special():
    vocab = Vocab.fit([["<UNK>", "<UNK>", "<EOS>", "<EOS>", "a", "a", "b", "c", "c", "c"]], max_size=100)
    assert vocab.itos == ["<PAD>", "<BOS>", "<EOS>", "<UNK>", "c", "a"]  # b (once) left out
    assert Vocab.fit([["a", "b"]], max_size=100, min_count=1).itos[4:] == ["a", "b"]
