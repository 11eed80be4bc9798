import pytest
import torch

from models.nets import KINDS, CausalAttentionLM, build, count_parameters


@pytest.mark.parametrize("kind,expected", [("mlp", 2_332_832), ("attn1", 1_321_120), ("attn4", 1_321_120)])
def test_parameter_counts(kind, expected):
    assert count_parameters(build(kind)) == expected


def test_pad_embedding_row_is_zero():
    for kind in KINDS:
        torch.manual_seed(0)
        assert build(kind).token_embedding.weight[0].abs().sum() == 0


def _ids(seed=0, n_pad=(0, 20, 63)):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(4, 4000, (len(n_pad), 64), generator=g)
    for row, n in enumerate(n_pad):
        ids[row, :n] = 0
        ids[row, n] = 1  # BOS starts the history
    return ids


@pytest.mark.parametrize("kind", ["attn1", "attn4"])
def test_forward_details_agrees_with_fast_forward(kind):
    torch.manual_seed(3)
    model = build(kind).eval()
    ids = _ids()
    with torch.no_grad():
        details = model.forward_details(ids)
        fast, weights = model.attend(ids)
    assert torch.allclose(details["logits"], fast, atol=1e-5)
    assert torch.allclose(details["weights"][:, :, -1], weights, atol=1e-6)
    heads = int(kind[4:])
    assert details["Q"].shape == (3, heads, 64, 64 // heads)
    assert details["updated"].shape == (3, 64, 64)


@pytest.mark.parametrize("kind", ["attn1", "attn4"])
def test_attention_weights_are_causal_and_ignore_pad(kind):
    torch.manual_seed(4)
    model = build(kind).eval()
    ids = _ids()
    with torch.no_grad():
        A = model.forward_details(ids)["weights"]  # [B, heads, T, T]
    real = ids.ne(0)
    for b in range(ids.shape[0]):
        rows = real[b].nonzero().flatten()
        sums = A[b][:, rows].sum(-1)
        assert torch.allclose(sums, torch.ones_like(sums), atol=1e-6)  # every real row sums to 1
        assert (A[b][:, :, ~real[b]] == 0).all()  # PAD keys exactly 0
        assert (A[b].triu(1) == 0).all()  # future keys exactly 0


@pytest.mark.parametrize("kind", ["attn1", "attn4"])
def test_editing_a_future_token_leaves_earlier_rows_unchanged(kind):
    torch.manual_seed(5)
    model = build(kind).eval()
    ids = _ids(n_pad=(10,))
    edited = ids.clone()
    edited[0, 40] = 7 if int(ids[0, 40]) != 7 else 8
    with torch.no_grad():
        a, b = model.forward_details(ids), model.forward_details(edited)
    for key in ("weights", "updated", "all_logits"):
        early_a = a[key][..., :40, :] if key == "weights" else a[key][:, :40]
        early_b = b[key][..., :40, :] if key == "weights" else b[key][:, :40]
        assert torch.equal(early_a, early_b), key
    assert not torch.equal(a["all_logits"][:, 40], b["all_logits"][:, 40])


def test_four_heads_split_width():
    model = build("attn4")
    assert isinstance(model, CausalAttentionLM)
    assert (model.n_heads, model.d_k, model.d_v) == (4, 16, 16)
    assert model.W_Q.weight.shape == (64, 64) and model.W_O.bias is None
