"""The Part II toy model does what the slides say it does.

Every claim the deck makes about the hand-designed model is asserted here on
the computed numbers (and on the tables the deck renders, read from
build/tables, which `make site` wrote)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from export.tables import table_names
from export.tables.part2 import toy
from export.tables.part2.grids import MASKED
from export.tables.part2.scaling import SCALING_SEED
from models.nets import FixedWindowMLP, MLPConfig


@pytest.fixture(scope="module")
def tables(table):
    return {name: table(name) for name in table_names("part2")}


def softmax_rows(x):
    return torch.softmax(torch.as_tensor(x), dim=-1).numpy()


# ---------------------------------------------------------------- the set-up
def test_sentences_share_the_tail_and_put_bank_at_seven():
    assert len(toy.RIVER) == len(toy.CHEQUE) == 10 and toy.BANK == 7
    assert toy.RIVER[toy.BANK - 1] == toy.CHEQUE[toy.BANK - 1] == "bank"
    assert toy.RIVER[-3:] == toy.CHEQUE[-3:] == ("and", "watched", "the")
    assert toy.RIVER[:7] != toy.CHEQUE[:7]


def test_shapes_match_the_issue():
    assert toy.W_Q.shape == (4, 3) and toy.W_K.shape == (4, 3)
    assert toy.W_V.shape == (4, 2) and toy.W_O.shape == (2, 4)
    assert toy.W1.shape == (4, 8) and toy.b1.shape == (8,)
    assert toy.W2.shape == (8, 20) and toy.b2.shape == (20,)
    assert len(toy.CANDIDATES) == len(set(toy.CANDIDATES)) == 20
    assert len(toy.COORDS) == 4 and len(toy.HIDDEN) == 8


def test_position_offsets_are_small_and_additive():
    assert np.abs(toy.POSITIONS).max() <= 0.5
    E = toy.embed(toy.RIVER)
    assert np.allclose(E - toy.word_rows(toy.RIVER), toy.POSITIONS)
    assert np.array_equal(toy.embed(toy.RIVER, positions=False), toy.word_rows(toy.RIVER))


def test_tables_are_strict_json(tables):
    for name, value in tables.items():
        assert name.startswith("part2_")
        json.dumps(value, allow_nan=False, sort_keys=True)


# ---------------------------------------------------------------- attention at bank
def test_bank_reads_river_in_one_sentence_and_cheque_deposited_in_the_other():
    a = toy.attention_row(toy.embed(toy.RIVER), toy.BANK)
    b = toy.attention_row(toy.embed(toy.CHEQUE), toy.BANK)
    assert toy.RIVER[int(np.argmax(a["weights"]))] == "river"
    assert a["weights"][toy.RIVER.index("river")] > 0.5
    money = [toy.CHEQUE.index("cheque"), toy.CHEQUE.index("deposited")]
    assert set(np.argsort(-b["weights"])[:2]) == set(money)
    assert b["weights"][money].sum() > 0.5
    for r in (a, b):
        assert math.isclose(r["weights"].sum(), 1.0, rel_tol=1e-12)
        assert np.all(r["weights"][toy.BANK :] == 0.0)


def test_bank_starts_from_the_same_row_in_both_sentences():
    assert np.array_equal(toy.embed(toy.RIVER)[toy.BANK - 1], toy.embed(toy.CHEQUE)[toy.BANK - 1])


def test_update_adds_water_in_one_sentence_and_finance_in_the_other():
    water, finance = toy.COORDS.index("water"), toy.COORDS.index("finance")
    a = toy.attention_row(toy.embed(toy.RIVER), toy.BANK)["delta"]
    b = toy.attention_row(toy.embed(toy.CHEQUE), toy.BANK)["delta"]
    assert a[water] > 0.5 and abs(a[finance]) < 1e-12
    assert b[finance] > 0.5 and abs(b[water]) < 1e-12


def test_update_steps_run_from_e_to_e_prime(tables):
    for name in ("river", "cheque"):
        t = tables["part2_bank"][name]
        steps = t["steps"]
        assert steps[0]["t"] == 0.0 and steps[-1]["t"] == 1.0
        assert np.allclose(steps[0]["row"], t["e"]) and np.allclose(steps[-1]["row"], t["e_new"])
        water = [s["row"][0] for s in steps]
        finance = [s["row"][1] for s in steps]
        growing = water if name == "river" else finance
        assert all(x < y for x, y in zip(growing, growing[1:]))


def test_dot_product_terms_add_up_to_the_scores(tables):
    t = tables["part2_bank"]["river"]
    for terms, key, raw, scaled in zip(t["terms"], t["keys"], t["raw"], t["scaled"]):
        assert np.allclose(terms, np.array(t["q"]) * np.array(key))
        assert math.isclose(sum(terms), raw, abs_tol=1e-12)
        assert math.isclose(raw / math.sqrt(3), scaled, rel_tol=1e-12)
    assert np.allclose(np.array(t["weights"]) @ np.array(t["values"]), t["message"])


# ---------------------------------------------------------------- prediction
def test_predictions_after_the_final_the_differ():
    a, b = toy.predict_next(toy.RIVER), toy.predict_next(toy.CHEQUE)
    assert a["top"] != b["top"]
    assert a["top"] in toy.WATER_NOUNS and b["top"] in toy.FINANCE_NOUNS
    assert np.abs(a["probs"] - b["probs"]).max() > 0.1
    for p in (a, b):
        assert math.isclose(p["probs"].sum(), 1.0, rel_tol=1e-12)


def test_bypassing_attention_gives_identical_probabilities(tables):
    a = toy.predict_next(toy.RIVER, bypass=True)
    b = toy.predict_next(toy.CHEQUE, bypass=True)
    assert np.array_equal(a["probs"], b["probs"])
    t = tables["part2_predict"]
    assert t["bypass_max_difference"] == 0.0 and t["attention_max_difference"] > 0.1
    assert t["contexts"]["river"]["probs_bypass"] == t["contexts"]["cheque"]["probs_bypass"]
    # the last-token baseline: the tied top candidates really tie and nothing beats them
    p = np.array(t["contexts"]["river"]["probs_bypass"])
    tied = [toy.CANDIDATES.index(c) for c in t["bypass_top"]]
    assert t["bypass_n_tied"] == len(tied) >= 2 and np.allclose(p[tied], p.max())


def test_final_query_reads_the_clue_words():
    a = toy.predict_next(toy.RIVER)["attention"]["weights"]
    b = toy.predict_next(toy.CHEQUE)["attention"]["weights"]
    assert toy.RIVER[int(np.argmax(a))] == "river"
    assert toy.CHEQUE[int(np.argmax(b))] == "cheque"


def test_head_matches_a_torch_reimplementation():
    row = toy.predict_next(toy.RIVER)["final"]
    hidden = torch.relu(torch.tensor(row) @ torch.tensor(toy.W1) + torch.tensor(toy.b1))
    probs = torch.softmax(hidden @ torch.tensor(toy.W2) + torch.tensor(toy.b2), dim=-1).numpy()
    assert np.allclose(probs, toy.predict_next(toy.RIVER)["probs"], atol=1e-12)


# ---------------------------------------------------------------- matrix form
@pytest.mark.parametrize("tokens", [toy.RIVER[:7], toy.CHEQUE[:7], toy.RIVER, toy.CHEQUE])
def test_matrix_form_equals_step_by_step(tokens):
    E = toy.embed(tokens)
    T = len(tokens)
    # E' = E + softmax(Q K^T / sqrt(d_k) + M) V W_O, written out here independently
    Q, K, V = E @ toy.W_Q, E @ toy.W_K, E @ toy.W_V
    M = np.where(np.tril(np.ones((T, T))) == 1, 0.0, -np.inf)
    E_new = E + softmax_rows(Q @ K.T / math.sqrt(toy.D_K) + M) @ V @ toy.W_O
    stepwise = np.stack([toy.attention_row(E, i)["e_new"] for i in range(1, T + 1)])
    assert np.allclose(E_new, stepwise, atol=1e-12)
    assert np.allclose(toy.attention_matrix(E)["E_new"], stepwise, atol=1e-12)
    # and torch's own causal attention agrees
    ref = F.scaled_dot_product_attention(*(torch.tensor(x)[None] for x in (Q, K, V)), is_causal=True)[0]
    assert np.allclose(E + ref.numpy() @ toy.W_O, stepwise, atol=1e-12)


def test_matrix_row_seven_is_bank(tables):
    mt, bank = tables["part2_matrix"], tables["part2_bank"]["river"]
    assert mt["tokens"][6] == "bank"
    assert np.allclose(mt["A"][6], bank["weights"]) and np.allclose(mt["E_new"][6], bank["e_new"])
    assert mt["max_difference"] < 1e-12
    assert mt["S_masked"][0][1] == MASKED and isinstance(mt["S_masked"][1][0], float)


def test_walkthrough_rows_match_the_final_prediction(tables):
    for name, s in toy.SENTENCES.items():
        w = tables["part2_walk"][name]
        p = toy.predict_next(s)
        assert np.allclose(w["A"][-1], p["attention"]["weights"]) and np.allclose(w["E_new"][-1], p["final"])
        terms = np.array(w["terms"])
        assert np.allclose(terms.sum(axis=2) / math.sqrt(3), w["S"])


# ---------------------------------------------------------------- causal mask
def test_mask_blocks_the_future_and_without_it_row_five_reads_ahead(tables):
    t = tables["part2_mask"]
    assert t["row"] == 5 and t["token"] == "the" and t["next_token"] == "river"
    on, off = np.array(t["weights_on"]), np.array(t["weights_off"])
    assert np.all(on[5:] == 0.0) and math.isclose(on[:5].sum(), 1.0, rel_tol=1e-12)
    assert t["future_mass_off"] > 0.5 and t["future_mass_on"] == 0.0
    assert t["top_off"] == "river"
    future = {t["tokens"][j]: off[j] for j in range(5, 10)}
    assert max(future, key=future.get) == "river"
    assert sorted(future, key=future.get)[-2] == "bank"
    assert t["message_on"] != t["message_off"]


# ---------------------------------------------------------------- fixed window and parameter counts
@pytest.mark.parametrize("w", [1, 3, 10])
def test_mlp_parameter_count_formula(w):
    d, H, V = 4, 8, 20
    net = FixedWindowMLP(MLPConfig(C=V, w=w, d=d, h=H))
    without_embedding = sum(p.numel() for n, p in net.named_parameters() if not n.startswith("token_embedding"))
    assert toy.mlp_parameters(w, d, H, V) == w * d * H + H + H * V + V == without_embedding
    linear = torch.nn.Linear(w * d, V)
    assert toy.linear_head_parameters(w, d, V) == sum(p.numel() for p in linear.parameters())


def test_window_table(tables):
    t = tables["part2_window"]
    assert t["linear_extra_per_slot"] == 80 and t["mlp_extra_per_slot"] == 32
    by = t["by_w"]
    assert not by["3"]["river_inside"] and by["10"]["river_inside"]
    assert by["3"]["river_tokens"] == by["3"]["cheque_tokens"] == ["and", "watched", "the"]
    inside = [x["w"] for x in t["widths"] if x["river_inside"]]
    assert inside == list(range(5, 11))
    for a, b in zip(t["widths"], t["widths"][1:]):
        assert b["linear_parameters"] - a["linear_parameters"] == 80
        assert b["mlp_parameters"] - a["mlp_parameters"] == 32


# ---------------------------------------------------------------- pooling and comparison
def test_pooled_summaries(tables):
    for name in ("river", "cheque"):
        t = tables["part2_pooled"][name]
        rows = np.array(t["rows"])
        assert rows.shape == (7, 4) and np.allclose(t["mean"], rows.mean(axis=0))
        assert math.isclose(t["chosen_sum"], 1.0) and np.allclose(t["summary"], np.array(t["chosen"]) @ rows)
    river, cheque = tables["part2_pooled"]["river"], tables["part2_pooled"]["cheque"]
    # chosen weights pull more of the clue in than the plain mean does
    assert river["summary"][0] > river["mean"][0] and cheque["summary"][1] > cheque["mean"][1]


def test_only_attention_weights_change_with_the_words(tables):
    t = tables["part2_compare"]
    assert t["same_across_sentences"] == [True, True, True, False]
    assert t["attention_max_difference"] > 0.3
    for name in ("river", "cheque"):
        for row in t[name]["weights"][1:]:
            assert math.isclose(sum(row), 1.0, rel_tol=1e-12)
    assert t["river"]["mean_summary"] != t["cheque"]["mean_summary"]  # outputs still depend on words


# ---------------------------------------------------------------- video search
def test_retrieval_from_hard_to_soft(tables):
    t = tables["part2_video"]
    hard, soft = t["settings"][0], t["settings"][1:]
    assert hard["label"] == "hard" and hard["returned"] == t["values"][t["best"]]
    assert t["best_title"] == "Kingfishers at the water's edge"
    scores = np.array(t["scores"][t["query_index"]])
    assert int(np.argmax(scores)) == t["best"]
    temps = [s["temperature"] for s in soft]
    assert temps == sorted(temps)
    # lowest temperature approaches hard retrieval; higher temperature spreads the weights
    assert np.abs(np.array(soft[0]["returned"]) - hard["returned"]).max() < 0.05
    entropy = [-(np.array(s["weights"]) * np.log(s["weights"])).sum() for s in soft]
    assert all(a < b for a, b in zip(entropy, entropy[1:]))
    for s in soft:
        assert np.allclose(np.array(s["weights"]) @ np.array(t["values"]), s["returned"])


# ---------------------------------------------------------------- score scaling
def test_score_variance_grows_with_d_k_and_scaling_removes_it(tables):
    t = tables["part2_scaling"]
    assert t["seed"] == SCALING_SEED and t["n_pairs"] >= 10000
    for row in t["simulation"]:
        assert 0.9 < row["var_raw"] / row["d_k"] < 1.1
        assert 0.9 < row["var_scaled"] < 1.1
    sat = t["saturation"]
    tops = [x["top_raw"] for x in sat]
    assert all(a < b for a, b in zip(tops, tops[1:])) and tops[-1] > 0.999999
    assert sat[-1]["slope_raw"] < 1e-6 < sat[0]["slope_raw"]
    assert len({x["top_scaled"] for x in sat}) == 1
    ex = t["example"]
    assert math.isclose(sum(ex["products"]), ex["score"], abs_tol=1e-12)


def test_scaling_softens_the_bank_weights(tables):
    b = tables["part2_scaling"]["bank"]
    assert max(b["weights_unscaled"]) > max(b["weights_scaled"])
    assert np.argmax(b["weights_unscaled"]) == np.argmax(b["weights_scaled"])


# ---------------------------------------------------------------- positions
def test_swapping_the_and_river_changes_prediction_only_with_positions(tables):
    t = tables["part2_positions"]
    assert t["swapped"][0] == "river" and t["swapped"][5] == "The" and t["swapped"][-1] == "the"
    assert t["runs"]["with"]["max_difference"] > 0.01
    assert t["runs"]["without"]["max_difference"] < 1e-12
    swapped = list(toy.RIVER)
    swapped[0], swapped[5] = swapped[5], swapped[0]
    a = toy.predict_next(toy.RIVER, positions=False)["probs"]
    b = toy.predict_next(swapped, positions=False)["probs"]
    assert np.allclose(a, b, atol=1e-12)


def test_sinusoidal_angle_addition_identity(tables):
    d = 8
    for i in range(0, 30, 7):
        for delta in (1, 2, 5):
            pe = toy.sinusoidal(i, d)
            for k in range(d // 2):
                w = 10000.0 ** (-2 * k / d)
                # sin((i+δ)ω) = sin(iω)cos(δω) + cos(iω)sin(δω); cos((i+δ)ω) = cos(iω)cos(δω) − sin(iω)sin(δω)
                assert math.isclose(
                    math.sin((i + delta) * w),
                    pe[2 * k] * math.cos(delta * w) + pe[2 * k + 1] * math.sin(delta * w),
                    abs_tol=1e-12,
                )
                assert math.isclose(
                    math.cos((i + delta) * w),
                    pe[2 * k + 1] * math.cos(delta * w) - pe[2 * k] * math.sin(delta * w),
                    abs_tol=1e-12,
                )
            assert np.allclose(toy.shift_matrix(delta, d) @ pe, toy.sinusoidal(i + delta, d), atol=1e-12)
    assert tables["part2_positions"]["sinusoidal"]["max_error"] < 1e-12


def test_rope_depends_on_relative_offset_only(tables):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(6), rng.standard_normal(6)
    for i, j in [(0, 3), (2, 5), (10, 13), (4, 1), (9, 6)]:
        Ri, Rj = toy.rope_matrix(i, 6), toy.rope_matrix(j, 6)
        assert np.allclose(Ri.T @ Rj, toy.rope_matrix(j - i, 6), atol=1e-12)
        assert math.isclose((Ri @ q) @ (Rj @ k), q @ toy.rope_matrix(j - i, 6) @ k, abs_tol=1e-12)
        assert np.allclose(Ri.T @ Ri, np.eye(6), atol=1e-12)
    t = tables["part2_positions"]
    assert t["rope"]["score_spread"] < 1e-12 and t["rope"]["matrix_max_error"] < 1e-12
    # the additive contrast: same gap, different absolute positions, different scores
    assert t["additive"]["score_spread"] > 0.1 and t["additive"]["product_spread"] < 1e-12


# ---------------------------------------------------------------- rendered grids agree with the numbers
def test_grids_carry_the_computed_numbers(tables):
    bank = tables["part2_bank"]["river"]
    assert [r[-1] for r in bank["phase_a"]["rows"]] == bank["weights"]
    assert bank["residual"]["rows"][2][1:] == bank["e_new"]
    pr = tables["part2_predict"]
    for row in pr["compare_table"]["rows"]:
        k = toy.CANDIDATES.index(row[0])
        assert row[1] == pr["contexts"]["river"]["probs"][k] and row[3] == pr["contexts"]["river"]["probs_bypass"][k]
    rows = tables["part2_window"]["table"]["rows"]
    assert rows[0][3] == toy.mlp_parameters(3, 4, 8, 20) == eval(rows[0][2].replace("·", "*"))
    assert rows[1][5] == toy.linear_head_parameters(10, 4, 20) == eval(rows[1][4].replace("·", "*"))


# ---------------------------------------------------------------- statements the deck once got wrong
def test_longer_key_query_is_found_and_explained_by_length(tables):
    """ "How do I pay in a cheque?": the savings video's longer key outscores the
    cheque video whose key points exactly the query's way (issue 19, item 2)."""
    lk = tables["part2_video"]["longer_key"]
    assert lk["found"] and lk["dot"][0] > lk["dot"][1] and lk["cosine"][1] > lk["cosine"][0]
    assert lk["key_length"][0] > lk["key_length"][1]
    t = tables["part2_video"]
    assert t["titles"][int(np.argmax(t["scores"][lk["query_index"]]))] == lk["dot_winner"]


def test_two_coordinate_swap_reports_the_scaled_change(tables):
    t = tables["part2_swap2d"]
    assert t["scaled"] is False and t["d_k"] == 2
    assert 0 < t["message_change_with_positions_scaled"] < t["message_change_with_positions"]
