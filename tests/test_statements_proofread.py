"""Statements the second full proofreading pass of issue 31 corrected, beyond
the issue's list, checked on the built slides and the notebooks so that none
comes back. Each test names the slide and reads the numbers it must agree with
from build/tables. (Wrong symbols are the notation check's: tests/
test_reference_pages.py; number formats are tests/test_page_numbers.py's.)

Needs build/site (make site)."""

from __future__ import annotations

import json
import re

from common.settings import ROOT
from models import numerics
from support.statements import fmt_int, slide, takeaway


# Part I "A real story": the long story is not "a few times longer" than the short one (973 vs 62 tokens)
def test_real_story_notes_give_both_token_counts(site_dir, table):
    st = table("maps_stories")
    s = slide(site_dir, "maps", "A real story")
    assert st["long"]["tokens"] > 10 * st["short"]["tokens"]  # why "a few times" was wrong
    assert "a few times longer" not in s["notes"]
    assert f"has {fmt_int(st['long']['tokens'])} tokens against the short one’s {st['short']['tokens']}" in s["notes"]


# Part I recap: the comparison word has its than-phrase, after the one-head number
def test_maps_recap_says_what_one_head_is_lower_than(site_dir, table):
    s = slide(site_dir, "maps", "Recap")
    runs = table("results_summary")["by_kind"]
    word = "lower" if runs["attn1"]["ppl_mean"] < runs["mlp"]["ppl_mean"] else "higher"
    said = f"{runs['attn1']['ppl_mean']:.1f} for one-head attention, {word} than the MLP’s (lower is better)"
    assert said in s["text"]


# Part II scaling: a seed is a name, printed as it is set (seed 2017, as the notebook sets it), not 2,017
def test_scaling_slides_print_the_seed_as_set(site_dir, table):
    seed = table("part2_scaling")["seed"]
    assert seed >= 1_000  # the case grouping got wrong
    notebook = (ROOT / "notebooks" / "part2.py").read_text(encoding="utf-8")
    assert f"default_rng({seed})" in notebook
    for title in ("Why divide by", "The spread grows"):
        notes = slide(site_dir, "part2", title)["notes"]
        assert f"seed {seed}" in notes and f"seed {fmt_int(seed)}" not in notes


# Part III perplexity: no "perplexity N" (N is the windows a batch is drawn from)
def test_perplexity_takeaway_uses_no_symbol_for_the_number_of_choices(site_dir):
    s = slide(site_dir, "part3", "Perplexity")
    assert "perplexity N" not in takeaway(s) and "among N" not in takeaway(s)
    assert "a fair pick among that many tokens" in takeaway(s)
    assert "N windows" in slide(site_dir, "part3", "Batches are drawn")["notes"]


# Part III top-k / top-p: written top-k = 3, top-p = 0.9, as the notation says
def test_top_k_slide_writes_the_filters_as_the_notation_does(site_dir, table):
    dec = table("part3_decoding")
    s = slide(site_dir, "part3", "Sampling: top-k")
    assert f"Top-k = {dec['top_k']} keeps" in s["text"] and f"top-p = {dec['top_p']:.1f} keeps" in s["text"]
    assert not re.search(r"\bwith [kp] = ", s["text"] + s["notes"])


# Part IV noise: the takeaway claims bit-identical reruns only for the runs rerun
def test_noise_takeaway_is_scoped_to_the_runs_rerun(site_dir, table):
    rep = table("results_reproduction")
    s = slide(site_dir, "results", "Is it noise?")
    said = s["notes"]  # the full sentence moved from the takeaway to the notes (issue 35: short takeaways)
    if rep["all_identical"]:
        run = "run" if rep["n_reruns"] == 1 else "runs"
        assert takeaway(s).startswith(f"The seed-{rep['rerun_seeds_text']} rerun")
        assert ("others unchecked" in takeaway(s)) == (not rep["every_kind_rerun"])
        assert said.startswith(f"For the {rep['rerun_labels']} seed-{rep['rerun_seeds_text']} {run}, a rerun gave")
        assert f"For {rep['identical_text']}, a rerun gives" not in said
        if not rep["every_kind_rerun"]:
            assert "the runs not rerun are not checked" in said


# Part IV appendix: the notes point at the slides they mean, not "the previous" or "the next" one
def test_every_query_row_notes_name_the_prompt_and_the_comparison_slide(site_dir, table):
    att = table("results_attention")
    s = slide(site_dir, "results", "Appendix · For teaching")
    assert "On the prompt of the previous slide" not in s["notes"] and "the next slide shows" not in s["notes"]
    assert f"On the prompt of the one-prompt slides (“{att['prompt']}”)" in s["notes"]
    assert "the slide “One pass vs step by step” shows" in s["notes"]
    slide(site_dir, "results", "One pass vs step by step")  # the slide named exists
    assert "a little dog" in slide(site_dir, "results", "One prompt’s heads")["text"]


# Part IV one pass vs step by step: the first row (BOS only) is trivially the same too
def test_one_pass_takeaway_sets_the_bos_row_apart(site_dir):
    said = slide(site_dir, "results", "One pass vs step by step")["notes"]  # moved from the takeaway (issue 35)
    assert "apart from the first row, whose only source is BOS, only the last row is the same in both" in said


# Part IV zero ablation: a higher loss is worse, not "below" the MLP
def test_zero_ablation_notes_say_worse_for_a_higher_loss(site_dir, table):
    hc = table("results_head_cost")
    s = slide(site_dir, "results", "What zero ablation shows")
    assert hc["by_kind"]["attn1"]["all_off"]["loss"] > hc["mlp"]["loss"]
    assert "fall below the MLP" not in s["notes"] and "score worse than the MLP" in s["notes"]


# notebooks: the results notebook's training time agrees with the deck (not "about an hour on two cores");
# the Part III worksheet's messages are not H (hidden units) and its token count is not T (temperature)
def test_notebooks_keep_the_decks_time_and_symbols():
    results = (ROOT / "notebooks" / "results.py").read_text(encoding="utf-8")
    assert "about an hour on two cores" not in results and "“Train it yourself”" in results
    part3 = (ROOT / "notebooks" / "part3.py").read_text(encoding="utf-8")
    assert not re.search(r"^H = A @ V|^T = len\(TOKENS\)|\bT_\b", part3, flags=re.M)
    assert "msgs = A @ V" in part3
    maps = (ROOT / "notebooks" / "maps.py").read_text(encoding="utf-8")
    assert "(c = 1 on the slide" in maps and "j = 1 on the slide" not in maps


# every page and figure of the course counts what it says: "3 runs", "1 run", never "3 run(s)"
# (the Part IV results figure's tooltip said "over 3 run(s)")
def test_no_page_or_figure_hedges_a_plural(site_dir):
    pages = [p for p in site_dir.rglob("*") if p.suffix in (".html", ".svg") and "vendor" not in p.parts]
    assert len(pages) >= 13  # the index, 4 decks, 4 reading views, 4 notebook pages and more
    hedged = {}
    for p in pages:
        found = re.findall(
            r"[A-Za-z]+\(s\)", re.sub(r"<script.*?</script>", "", p.read_text(encoding="utf-8"), flags=re.S)
        )
        if found:
            hedged[str(p.relative_to(site_dir))] = found[:3]
    assert not hedged


# Part IV "Train it yourself": more threads are for an idle machine's cores, not "a busy machine",
# and the bit-for-bit statements hold for the thread count the committed runs used
def test_train_notes_say_which_thread_count_the_runs_used(site_dir):
    notes = slide(site_dir, "results", "Train it yourself")["notes"]
    assert "on a busy machine" not in notes
    runs = json.loads((ROOT / "models" / "results.json").read_text(encoding="utf-8"))["runs"]
    assert all(f"{numerics.THREADS} thread(s)" in r["numerics"] for r in runs)
    assert numerics.THREADS == 1 and "on one thread" in notes and "used one thread" in notes
