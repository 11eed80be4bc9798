"""Statements the decks once got wrong (issue 19, "Errors"), checked on the
built slides so that none of them comes back: each test names the slide and
what it must (or must not) say, against the numbers of its table.

Needs build/site (make site)."""

from __future__ import annotations

import re

import pytest

from support.statements import fmt_int, slide, table, takeaway, text_of


# 1. query rows the model was never trained on
def test_every_query_row_says_which_row_was_trained_and_shows_the_per_step_rows(site_dir):
    teach = slide(site_dir, "results", "Appendix · For teaching: every query row")
    assert "only ever used the last query row" in takeaway(teach) and "never trained" in takeaway(teach)
    ps = table(site_dir, "results_per_step")
    if not ps.get("available"):
        pytest.skip("no checkpoints")
    s = slide(site_dir, "results", "One pass vs step by step")
    # the slide draws both matrices as heatmaps (tests/test_deck_pictures.py checks their cells);
    # the matrices and the agreement table stay in its notes, for the reading view and print
    assert 'data-figure="results_pictures.per_step"' in s["html"]
    for name in ("one_pass", "per_step"):
        assert f'data-source="results_per_step.kinds.attn4.heads.0.{name}"' in s["notes_html"]
    assert 'data-source="results_per_step.agreement"' in s["notes_html"]
    four = ps["kinds"]["attn4"]
    assert f"agrees in only {four['agree']} of {four['rows']} head-rows" in takeaway(s)
    assert four["agree"] < four["rows"]  # the claim the slide makes: the rows are not the model's behaviour


# 2. a dot product rewards a longer key
def test_matching_slide_explains_the_longer_key(site_dir):
    lk = table(site_dir, "part2_video")["longer_key"]
    s = slide(site_dir, "part2", "Matching: one dot product per video")
    if lk["found"]:
        assert lk["dot_winner"] in s["text"] and lk["cosine_winner"] in s["text"]
        assert "rewards a key that claims more" in s["text"]
        assert f"{lk['dot'][0]:.2f}" in s["text"] and f"{lk['dot'][1]:.2f}" in s["text"]


# 3. the uniform case has as many targets as the table
def test_perplexity_uniform_case_counts_the_table_targets(site_dir):
    toy = table(site_dir, "results_perplexity_toy")
    assert toy["uniform"]["targets"] == len(toy["rows"])
    # the results deck no longer repeats Part III's perplexity lesson (issue 32); Part III states the case
    s = slide(site_dir, "part3", "Perplexity: the loss as an effective number of choices")
    assert f"Every one of {len(toy['rows'])} targets" in s["text"]


# 4. RoPE: only the positional part depends on the gap alone
def test_rope_takeaway_keeps_content_in_the_score(site_dir):
    t = takeaway(slide(site_dir, "part2", "RoPE"))
    assert "positional part" in t and "content" in t
    assert "gap between positions only" not in t


# 5. the learned position table's cosine is read for what it supports
def test_position_cosine_is_called_weak_with_its_baseline(site_dir):
    emb = table(site_dir, "part3_embeddings")
    if not emb.get("available"):
        pytest.skip("no checkpoints")
    s = slide(site_dir, "part3", "A learned table of positions")
    assert "got similar rows" not in s["text"]
    assert "weak" in s["text"]
    assert f"{emb['start_position_cos_neighbours']:.3f}".replace("-", "−") in s["text"]
    assert emb["position_cos_neighbours"] < 0.5  # "weak" stays true of the committed checkpoint


# 6. "every position predicts its next word" is standard GPT training, not ours
def test_causal_mask_slide_separates_gpt_training_from_ours(site_dir):
    s = slide(site_dir, "part2", "Hiding the future")
    t = takeaway(s)
    assert "standard GPT training" in t
    assert not re.search(r"^During training every position", t)
    assert "final query only" in s["notes"]


# 7. four ways to mix: the distance row is normalised, the window row is not a weighting
def test_four_ways_to_mix_labels_what_each_row_is(site_dir):
    cmp = table(site_dir, "part2_compare")
    for name in ("river", "cheque"):
        rows = cmp[name]["table"]["rows"]
        assert not any(isinstance(x, (int, float)) for x in rows[0][1:])  # inclusion, no numbers
        assert "normalised" in rows[2][0]
        for row in rows[1:]:
            assert sum(row[1:]) == pytest.approx(1.0)
        assert rows[2][-1] == pytest.approx(1 / sum(0.5**k for k in range(len(rows[2]) - 1)))
    s = slide(site_dir, "part2", "Four ways to mix")
    assert "divided by its sum" in s["text"] and "not a set of weights" in s["text"]


# 8. perplexity: title and takeaway say the same thing
def test_part3_perplexity_title_and_takeaway_agree(site_dir):
    s = slide(site_dir, "part3", "Perplexity")
    assert "effective number of choices" in s["title"] and "effective number of choices" in takeaway(s)
    assert "not a count of words" not in takeaway(s)


# 9. no claim about figures the position slides do not have
def test_position_sources_claim_no_figures(site_dir):
    s = slide(site_dir, "part2", "Sources for positions")
    assert "figures are our own" not in s["text"]


# 10. UNK also arises in training
def test_unk_slide_says_rare_training_words_become_unk(site_dir):
    s = slide(site_dir, "maps", "Unknown words map to UNK")
    assert "only" not in s["notes"].split("UNK wherever")[0][-40:]
    audit = table(site_dir, "corpus_audit")
    if audit.get("available"):
        assert fmt_int(audit["splits"]["train"]["unk_tokens"]) in s["text"]
        assert "rare training word" in takeaway(s)


# 11. the smaller ones
def test_maps_counts_its_maps(site_dir):
    s = slide(site_dir, "maps", "Four maps")
    assert len(re.findall(r"<li>", s["html"])) == 3  # three bullets: training, two forward maps, generation
    assert "Four maps" in takeaway(s)


def test_two_coordinate_toy_says_it_skips_the_scaling(site_dir):
    s = slide(site_dir, "part2", "Two coordinates")
    t = table(site_dir, "part2_swap2d")
    assert not t["scaled"] and "not divided by" in s["text"]
    assert f"{t['message_distance_with_positions_scaled']:.3f}" in s["text"]  # a distance (issue 31, item 8)


def test_generation_probability_says_it_was_renormalised(site_dir):
    gen = table(site_dir, "part3_generation")
    if not gen.get("available"):
        pytest.skip("no checkpoints")
    s = slide(site_dir, "part3", "Generation: feed back")
    assert "renormalised" in s["text"]
    assert f"{gen['choice_probability_unblocked']:.4f}" in s["text"]
    assert gen["top"]["values"][0] > gen["choice_probability_unblocked"]


def test_embedding_rows_slide_highlights_the_embedding_box(site_dir):
    s = slide(site_dir, "part3", "Which embedding rows learn?")
    current = re.search(r'<li[^>]*aria-current="step"[^>]*>(.*?)</li>', s["html"], re.S)
    assert current and "Token + position" in text_of(current.group(1))


def test_repeated_top_token_names_its_position(site_dir):
    att = table(site_dir, "results_attention")
    if not att.get("available"):
        pytest.skip("no checkpoints")
    s = slide(site_dir, "results", "Four weight rows for the final query")
    t = s["notes"]  # the per-head list moved from the takeaway to the notes (issue 35: short takeaways)
    shared = len({top["token"] for top in att["top"]}) < len(att["top"])
    assert ("share a strongest source" in takeaway(s)) == shared
    for top in att["top"]:
        if att["real_words"].count(top["token"]) > 1:
            assert f"Head {top['head']}: most weight on {top['token']} at position {top['position']}" in t


def test_the_cost_takeaway_ranks_training_times_only_when_the_runs_do_not_overlap(site_dir):
    """Training seconds were measured on a shared machine: the takeaway may say one
    attention model trains faster only when their runs' times do not overlap."""
    times = table(site_dir, "results_paired")["times"]
    t1, t4 = times["attn1"]["seconds"], times["attn4"]["seconds"]
    text = takeaway(slide(site_dir, "results", "What it costs: parameters and training time"))
    if min(t4) <= max(t1) and min(t1) <= max(t4):
        assert "do not say which trains faster" in text and "median training time" not in text, text
    else:
        word = "lower" if times["attn4"]["median"] < times["attn1"]["median"] else "higher"
        assert f"{word} than one head’s" in text, text


def test_the_noise_slide_names_exactly_the_runs_not_trained_on_pinned_code_paths(site_dir):
    import json

    from common.layout import MODELS
    from models.nets import KINDS, LABELS

    runs = json.loads(MODELS.results.read_text(encoding="utf-8"))["runs"]
    unpinned = [r for r in runs if not r.get("numerics", "").startswith("pinned")]
    text = text_of(slide(site_dir, "results", "Is it noise?")["html"])
    if not unpinned:
        assert (
            f"All {len(runs)} runs (every model and seed of the course protocol) were trained on the pinned code paths"
        ) in text
        return
    assert f"{len(unpinned)} of the {len(runs)} runs (" in text, text
    for kind in KINDS:
        seeds = sorted(r["seed"] for r in unpinned if r["kind"] == kind)
        label = LABELS[kind][0].lower() + LABELS[kind][1:]
        named = re.search(re.escape(label) + r" seeds? ([0-9 and]+?)(?:;|\))", text)
        if seeds:
            assert named and named.group(1) == " and ".join(map(str, seeds)), (kind, text)
        else:
            assert not named, (kind, text)


def test_the_head_cost_takeaway_names_the_costliest_and_the_cheapest_head_from_the_deltas(site_dir):
    """The takeaway's 'costs most' and 'least' heads are the argmax and argmin of
    the four single-head deltas, recomputed here from the table's head rows (a
    sentence naming one head for both, or the wrong way round, fails)."""
    heads = table(site_dir, "results_head_cost")["by_kind"]["attn4"]["heads"]
    deltas = {h["head"]: h["delta"] for h in heads}
    most, least = max(deltas, key=deltas.get), min(deltas, key=deltas.get)
    assert most != least
    text = takeaway(slide(site_dir, "results", "Where it comes from: what each head is worth"))
    assert re.search(rf"Head {most} costs the four-head model most: \+{deltas[most]:.3f} nats/token", text), text
    assert re.search(rf"head {least} least: \+{deltas[least]:.3f}", text), text
