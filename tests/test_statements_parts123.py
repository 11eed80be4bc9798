"""Statements of Parts I-III that once contradicted the numbers beside them
(issue 31, items 2-14 and 20), checked on the built slides, the exercise texts
and the notebooks so that none comes back. Each test names the slide and
reads the numbers it must agree with from build/tables.

Needs build/site (make site) and Node.js (the exercise texts)."""

from __future__ import annotations

import math
import re

import pytest

from common.settings import ROOT
from site_builder.exercise_texts import drawn
from support.statements import slide, takeaway, text_of


@pytest.fixture(scope="module")
def exercises():
    return {e["id"]: e for deck in drawn(ROOT / "web", 12).values() for e in deck if e["seed"] == 0} | {
        (e["id"], e["seed"]): e for deck in drawn(ROOT / "web", 12).values() for e in deck
    }


def draws(exercises, kind: str) -> list[dict]:
    return [v for k, v in exercises.items() if isinstance(k, tuple) and k[0] == kind]


def number(x: float, digits: int) -> str:
    return f"{x:.{digits}f}".replace("-", "−")


# 2. the matrix slide's "bank" row is the river sentence, not phase A's cheque sentence
def test_matrix_form_names_the_sentence_of_its_bank_row(site_dir, table):
    mx, bank = table("part2_matrix"), table("part2_bank")
    s = slide(site_dir, "part2", "All rows at once")
    row = mx["A"][mx["tokens"].index("bank")]
    river = row[mx["tokens"].index("river")]
    assert river == pytest.approx(bank["clues"]["river"])  # the row is the river sentence's
    assert "is the row from phase A" not in s["text"]
    assert f"the river sentence ({bank['river']['top_source']} {number(river, 3)})" in s["text"]
    assert "not phase A’s cheque sentence" in s["text"]


# 3. the softmax exercise counts slots from 1, as the slide and the notation do
def test_softmax_exercise_counts_slots_from_one(exercises):
    for e in draws(exercises, "softmax-weight"):
        question = " ".join(e["texts"][:2])
        assert "slot 0" not in question
        asked = int(re.search(r"give slot (\d+)", question).group(1))
        assert asked == e["inputs"]["slot"] + 1 and 1 <= asked <= len(e["inputs"]["scores"])
        if e["inputs"]["scores"][0] is None:
            assert "slot 1 is PAD" in question
        exact = math.exp(e["inputs"]["scores"][asked - 1]) / sum(
            math.exp(s) for s in e["inputs"]["scores"] if s is not None
        )
        assert e["answer"] == pytest.approx(exact)  # the slot named is the slot answered


# 4. the vocabulary is the specials plus the most frequent words, not 4000 words
def test_unk_slide_counts_the_specials_apart_from_the_words(site_dir, table):
    audit = table("corpus_audit")
    s = slide(site_dir, "maps", "Unknown words map to UNK")
    assert audit["vocab_specials"] + audit["vocab_words"] == audit["vocab_size"]
    assert f"the {audit['vocab_specials']} specials and the {audit['vocab_words']:,} most frequent" in s["text"]
    assert "keeps the" not in s["text"]


# 5. the window-count slip sum − N is two windows short per story, and says so
def test_window_count_mistakes_name_how_far_off_they_are(exercises):
    words = {1: "One window", 2: "Two windows"}
    for e in draws(exercises, "windows-count"):
        n_stories = len(e["inputs"]["tokens"])
        for m in e["mistakes"]:
            short = (e["answer"] - m["value"]) / n_stories
            if short in words:
                assert words[short].lower() in m["message"].lower(), (m["name"], short, m["message"])
            for wrong in set(words) - {short}:
                assert f"{words[wrong]} too few" not in m["message"], (m["name"], short)


# 6. the maps notebook names the deck's pairs and example, counted as the deck counts
def test_maps_notebook_follows_the_decks_pairs_and_example(table):
    text = (ROOT / "notebooks" / "maps.py").read_text(encoding="utf-8")
    rows = table("maps_batch")["selected_rows"]
    assert "rows 2 and 3" not in text
    assert f"pairs {rows[0]} and {rows[1]}" in text
    assert f"all_X[[{rows[0] - 1}, {rows[1] - 1}]]" in text  # the code's 0-based rows are those pairs
    assert "# Example 1 (context `<BOS> lily found a`" not in text
    assert "Example 2 of the batch (`logits[1]`" in text


# 7. the part2 notebook writes C for the vocabulary, never V
def test_part2_notebook_keeps_v_for_the_value_matrix():
    text = (ROOT / "notebooks" / "part2.py").read_text(encoding="utf-8")
    assert not re.search(r"H x V|\(V\)|V_WORDS", text)
    assert "(H × C)" in text


# 8. "moves the message by" is the distance, not the largest coordinate change
def test_swap_slide_gives_the_distance_the_message_moves(site_dir, table):
    t = table("part2_swap2d")
    first, second, _ = t["order"]
    dist = math.dist(t["runs"][f"{first}_{second}_pos"]["message"], t["runs"][f"{second}_{first}_pos"]["message"])
    assert t["message_distance_with_positions"] == pytest.approx(dist)
    assert dist > t["message_change_with_positions"]  # the two numbers differ, so the words must too
    text = slide(site_dir, "part2", "Two coordinates, identity projections")["text"]
    assert f"a distance of {number(dist, 3)} with positions" in text
    assert f"largest coordinate change is {number(t['message_change_with_positions'], 3)}" in text


# 9. the Part II hidden layer is Part I's attention layer (one row in), not the MLP's
def test_part2_hidden_layer_is_compared_with_the_right_part1_layer(site_dir, table):
    model = table("part2_model")
    text = slide(site_dir, "part2", "Hidden layer:")["text"]
    assert "the same layer as Part I's MLP" not in text
    assert f"d={model['d_model']}" in text.replace(" ", "")
    assert "Part I’s attention model" in text and "flattened window" in text


# 10. an agreement of 0.0 is "exactly"
def test_zero_differences_read_exactly(site_dir, table):
    att, mlp = table("maps_attention"), table("maps_mlp")
    hidden = slide(site_dir, "maps", "Hidden layer and logits, as in the MLP")["text"]
    loss = slide(site_dir, "maps", "Cross-entropy")["text"]
    soft = slide(site_dir, "maps", "Softmax turns scores into weights")["text"]
    for text in (hidden, loss, soft):
        assert "0.0)" not in text and "within 0.0" not in text and "exactly 0.0" not in text
    assert ("exactly" in hidden) == (att["max_abs_diff_forward"] == 0 == att["max_abs_diff_forward_details"])
    assert ("agrees exactly" in loss) == (mlp["cross_entropy_max_abs_diff"] == 0)


# 11. the four-head replay says the figure shows a few steps and that favourites move late
def test_four_head_replay_says_how_late_each_favourite_changed(site_dir, table):
    rp = table("part3_replay")
    if not rp.get("available"):
        pytest.skip("no training trace")
    s = slide(site_dir, "part3", "Replay: four heads")
    assert "settles on its own tokens" not in s["notes"]
    fav = rp["four_heads"]["favourites"]
    assert f"of the {len(rp['four_heads']['recorded_steps'])} recorded" in s["text"]
    for x in fav:
        assert f"{x['last_change']:,} (head {x['head']})" in s["text"]
        trail = " → ".join(
            f"“{t['token']}” {t['first']:,}" + (f"–{t['last']:,}" if t["last"] != t["first"] else "")
            for t in x["trail"]
        )
        assert f"head {x['head']}: {trail}" in s["notes"]
    # what the slide now says stays true of the trace: some head changed favourite late in training
    assert max(x["last_change"] for x in fav) > rp["four_heads"]["steps"][-2]


# 12. the guesses slide does not hide that four heads guess flatter on this prefix
def test_replay_guesses_name_the_four_head_models_flatter_guess(site_dir, table):
    rp = table("part3_replay")
    if not rp.get("available") or not rp["entropy"].get("available"):
        pytest.skip("no training trace or checkpoints")
    s = slide(site_dir, "part3", "Replay: what the models guess next")
    assert "one prefix does not rank the models" in takeaway(s)
    t = s["text"]  # the guesses and entropies moved from the takeaway to the body (issue 35: short takeaways)
    e = rp["entropy"]
    assert rp["top_selected"]["attn4"]["token"] in t
    assert number(e["attn4"], 2) in t and number(e["attn1"], 2) in t
    assert ("flatter" in t) == (e["attn4"] > e["attn1"]) and ("higher than one head" in t) == (e["attn4"] > e["attn1"])


# 13. attention's best-vs-last differences are a plateau; only the MLP's is far
def test_seed_curves_call_the_attention_differences_a_plateau(site_dir, table):
    c = table("part3_seed_curves")
    if not c.get("available"):
        pytest.skip("no runs")
    s = slide(site_dir, "part3", "One seed’s validation curves")
    body = re.search(r'<p class="small">(.*?)</p>', s["html"], re.S)
    assert body, "the per-run sentence under the figure is gone"
    t = text_of(body.group(1))  # moved from the takeaway to the body (issue 35: short takeaways)
    mlp = next(x for x in c["runs"] if x["kind"] == "mlp")
    if not mlp["best_is_last"]:
        assert f"the MLP’s is {number(mlp['rise'], 3)} nats lower" in takeaway(s)
    for x in c["runs"]:
        if not x["best_is_last"]:
            assert f"{number(x['rise'], 3)} nats below the last step" in t
    plateau = [x["label"] for x in c["runs"] if x["rise"] < c["plateau_nats"]]
    far = [x["label"] for x in c["runs"] if x["rise"] >= c["plateau_nats"]]
    if plateau:
        assert "plateau" in t and all(label in t.split("end on a plateau")[0] for label in plateau)
    for label in far:
        assert label not in t.split("end on a plateau")[0].split(".")[-1]


# 14. the box-by-box slide says which of its shapes come from which path
def test_four_head_model_slide_names_both_paths_and_their_shapes(site_dir, table):
    b = table("part3_batch")
    if not b.get("available") or not b["model"].get("available"):
        pytest.skip("no checkpoints")
    s = slide(site_dir, "part3", "The four-head model, box by box")
    hidden = b["model"]["shapes"]["hidden"]
    assert "forward_details" in s["text"] and "forward," in s["text"]
    assert f"hidden [{', '.join(str(n) for n in hidden)}]" in s["text"]
    assert len(hidden) == 3  # forward_details: a hidden row per slot, unlike the figure's final slot


# 20. the multi-head motivation uses a blank its clues decide
def test_why_more_heads_uses_clues_that_decide_the_blank(site_dir):
    s = slide(site_dir, "part3", "Why more than one head?")
    assert "woolly" not in s["text"] and "hooded" not in s["text"]
    callout = re.search(r'<div class="callout">(.*?)</div>', s["html"], re.S).group(1)
    clues = re.findall(r"<em>(.*?)</em>", s["html"])
    assert clues and all(c in callout for c in clues)


# 23. the index's slide counts are the decks' own
def test_index_slide_counts_are_counted_from_the_built_decks(site_dir):
    index = (site_dir / "index.html").read_text(encoding="utf-8")
    for slug in ("maps", "part2", "part3", "results"):
        deck = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
        n = deck.count("<section data-slide=")
        entry = re.search(rf'href="decks/{slug}\.html".*?class="deck-meta">(\d+) slides', index, re.S)
        assert entry and int(entry.group(1)) == n, (slug, entry and entry.group(1), n)
        # the reading view counts and lists the same slides, its closing "Where next" included
        reading = (site_dir / "read" / f"{slug}.html").read_text(encoding="utf-8")
        assert f"Contents: {n} slides" in reading, slug
        toc = re.search(r'<nav class="read-toc".*?</nav>', reading, re.S).group(0)
        assert toc.count("<li>") == n == reading.count('<article class="read-slide'), slug


# 22. one number format: whole numbers from 1,000 on are grouped, never inside a list
def test_counts_are_grouped_from_a_thousand_and_ids_never(site_dir, table):
    audit = table("corpus_audit")
    data = slide(site_dir, "maps", "The data: complete short stories")["text"]
    assert f"{audit['selected_stories']:,} stories" in data and f"{audit['pool_stories']:,}" in data
    split = slide(site_dir, "maps", "Stories stay together")["text"]
    assert f"train {audit['splits']['train']['documents']:,}" in split
    prefixes = slide(site_dir, "part3", "Two prefixes in the real vocabulary")["text"]
    assert not re.search(r"\[[^\]]*\d,\d{3}[^\]]*\]", prefixes)  # no grouped number inside a list
