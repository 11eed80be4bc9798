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
    from models.checkpoints import CHECKPOINT_DIR
    committed = CHECKPOINT_DIR / "vocab.json"
    Vocab.load(committed).save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == committed.read_bytes()
    Vocab(["<PAD>", "<BOS>", "<EOS>", "<UNK>", "é", "🐶"]).save(tmp_path / "v.json")
    raw = (tmp_path / "v.json").read_bytes()
    assert "é".encode("utf-8") in raw and "🐶".encode("utf-8") in raw and b"\\u" not in raw
    assert raw.endswith(b'"\n]\n')
