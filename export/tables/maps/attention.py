"""The toy one-head attention model of the maps deck, step by step: token
plus position rows, query, keys, values, scaled and masked scores, weights,
message, update, logits, each checked against the model's own forward
(table ``maps_attention``)."""

from __future__ import annotations

import math

import torch

from models.nets import AttentionConfig, CausalAttentionLM

from ..kit.registry import table
from .toy import D_K, D_V, SEED, B, D, H, Toy, W, check, close, fl, lst, max_diff


@table("maps_attention", needs=["maps_toy"])
def attention(maps_toy: Toy) -> dict:
    vocab, X, y = maps_toy.vocab, maps_toy.X, maps_toy.y
    C = len(vocab)
    torch.manual_seed(SEED)
    att = CausalAttentionLM(AttentionConfig(C=C, w=W, d=D, d_k=D_K, d_v=D_V, h=H, pad_id=vocab.pad_id))
    positions = torch.arange(W)
    token_rows = att.token_embedding(X)
    position_rows = att.position_embedding(positions)
    E = token_rows + position_rows[None, :, :]
    check(close(E, att.embed(X)), "E equals the model's embed()")
    q = att.W_Q(E[:, -1:, :])
    K = att.W_K(E)
    V = att.W_V(E)
    query_terms = E[1, -1] * att.W_Q.weight[0]
    check(close(query_terms.sum(), q[1, 0, 0]), "q[1,0,0] is the sum of four products")
    raw = q @ K.transpose(-2, -1)
    scores = raw / math.sqrt(D_K)
    dot_terms = q[1, 0] * K[1, 2]
    check(close(dot_terms.sum(), raw[1, 0, 2]), "one raw score is a three-term dot product")
    pad_mask = X[:, None, :].eq(vocab.pad_id)
    masked = scores.masked_fill(pad_mask, float("-inf"))
    src_exp = (masked - masked.amax(-1, keepdim=True)).exp()
    A = src_exp / src_exp.sum(-1, keepdim=True)
    check(close(A, masked.softmax(-1)), "manual source softmax equals torch.softmax")
    check(fl(A[0, 0, 0]) == 0.0, "the PAD slot gets weight exactly 0")
    contributions = A[1, 0, :, None] * V[1]
    message = A @ V
    check(close(contributions.sum(0), message[1, 0]), "message is the weighted sum of value rows")
    update = att.W_O(message).squeeze(1)
    check(close(message[1, 0] @ att.W_O.weight.T, update[1]), "W_O maps the message to the update")
    final = E[:, -1, :] + update
    hidden = torch.relu(att.hidden_layer(final))
    logits = att.vocab_head(hidden)
    model_logits, model_weights = att.attend(X)
    details = att.forward_details(X)
    check(close(logits, att(X)), "step-by-step logits equal attention(X)")
    check(close(logits, details["logits"]), "step-by-step logits equal forward_details(X)['logits']")
    check(close(A[:, 0], model_weights[:, 0]), "weights equal attend()'s weights")

    def masked_list(t):
        return [[["−∞" if math.isinf(v) else v for v in row] for row in ex] for ex in lst(t)]

    tokens = vocab.itos
    return {
        "seed": SEED,
        "layer_order": [
            "token_embedding",
            "position_embedding",
            "W_Q",
            "W_K",
            "W_V",
            "W_O",
            "hidden_layer",
            "vocab_head",
        ],
        "X": lst(X),
        "context_tokens": [[tokens[i] for i in row] for row in lst(X)],
        "position_table": lst(position_rows),
        "token_rows_example1": lst(token_rows[1]),
        "E": lst(E),
        "E_shape": list(E.shape),
        "pad_input_row_example0": lst(E[0, 0]),
        "q": lst(q),
        "q_shape": list(q.shape),
        "query_terms_example1": lst(query_terms),
        "K": lst(K),
        "K_shape": list(K.shape),
        "V": lst(V),
        "V_shape": list(V.shape),
        "W_K_shape": list(att.W_K.weight.T.shape),
        "W_V_shape": list(att.W_V.weight.T.shape),
        "W_O_shape": list(att.W_O.weight.T.shape),
        "dot_terms_example1_slot2": lst(dot_terms),
        "raw_scores": lst(raw),
        "scores": lst(scores),
        "scores_shape": list(scores.shape),
        "masked_scores": masked_list(masked),
        "weights": lst(A),
        "weights_shape": list(A.shape),
        "pad_weight": fl(A[0, 0, 0]),
        "weight_sums": lst(A.sum(-1)),
        "weights_table": {
            "header": ["Example", *(f"slot {s + 1}" for s in range(A.shape[-1]))],  # counted from 1
            "rows": [[b + 1] + lst(A[b, 0]) for b in range(B)],
        },
        "contributions_example1": lst(contributions),
        "slot_labels": [f"slot {s + 1}" for s in range(A.shape[-1])],  # slots count from 1 on the slides
        "message": lst(message),
        "message_shape": list(message.shape),
        "update": lst(update),
        "update_shape": list(update.shape),
        "final": lst(final),
        "hidden": lst(hidden),
        "hidden_shape": list(hidden.shape),
        "logits": lst(logits),
        "logits_shape": list(logits.shape),
        "predicted_ids": lst(logits.argmax(-1)),
        "predicted_tokens": [tokens[i] for i in lst(logits.argmax(-1))],
        "targets": lst(y),
        "max_abs_diff_forward": max_diff(logits, model_logits),
        "max_abs_diff_forward_details": max_diff(logits, details["logits"]),
    }
