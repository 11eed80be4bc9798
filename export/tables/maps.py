"""Every worked number of the "Training and inference maps" deck (seed 003).

The toy: the story "Lily found a red ball." with C=10, w=4, B=2, d=4, h=8,
d_k=3, d_v=2, computed with the project's own tokenizer, window maker and
model classes (each model created right after torch.manual_seed(11)).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from models.corpus import PROFILES, make_windows
from models.nets import AttentionConfig, CausalAttentionLM, FixedWindowMLP, MLPConfig
from models.tokenizer import SPECIALS, Vocab, tokenize

SENTENCE = "Lily found a red ball."
TWO_SENTENCES = "Lily found a ball. Lily found a red ball."
TOKENIZATION_TEXT = "redder!"
# A hand-chosen split that shows what subword tokens look like; not the
# output of a trained BPE tokenizer (the slides say so).
ILLUSTRATIVE_SUBWORDS = ["red", "der", "!"]
TOKENIZER_PROBES = ["Lily can't find 12 balls!", "LILY found!"]
PROMPT = "Lily found"
SEED = 11
W, B, D, H, D_K, D_V = 4, 2, 4, 8, 3, 2
BATCH_ROWS = [2, 3]
LR = 0.1
DRAW = 0.8
BLOCKED = ["<PAD>", "<BOS>", "<UNK>"]
GENERATION_STEPS = 4
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


def vocabulary(vocab: Vocab) -> dict:
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


def story_and_windows(vocab: Vocab) -> tuple[dict, dict, torch.Tensor, torch.Tensor]:
    ids = vocab.encode_story(SENTENCE)
    all_X, all_y = make_windows([ids], context=W)
    rows = [
        [r, lst(all_X[r]), [vocab.itos[i] for i in lst(all_X[r])], int(all_y[r]), vocab.itos[int(all_y[r])]]
        for r in range(len(all_y))
    ]
    target_position = 4
    history = ids[:6]
    story = {
        "ids": ids,
        "tokens": [vocab.itos[i] for i in ids],
        "positions": {
            "header": ["Position", "ID", "Token"],
            "rows": [[p, i, vocab.itos[i]] for p, i in enumerate(ids)],
        },
        "target_position": target_position,
        "target_row": target_position - 1,  # the window row whose target sits at target_position
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
    return story, windows, all_X, all_y


def batches(vocab: Vocab, all_X: torch.Tensor, all_y: torch.Tensor) -> tuple[dict, torch.Tensor, torch.Tensor]:
    selected = torch.tensor(BATCH_ROWS)
    X, y = all_X[selected].long(), all_y[selected].long()
    N = len(all_y)
    batch_sizes = [len(all_y[start : start + B]) for start in range(0, N, B)]
    course = PROFILES["course"]
    table = {
        "header": ["Batch row", "X (context IDs)", "Context tokens", "y", "Target"],
        "rows": [
            [b, lst(X[b]), [vocab.itos[i] for i in lst(X[b])], int(y[b]), vocab.itos[int(y[b])]] for b in range(B)
        ],
    }
    return (
        {
            "selected_rows": BATCH_ROWS,
            "X": lst(X),
            "y": lst(y),
            "table": table,
            "X_shape": list(X.shape),
            "y_shape": list(y.shape),
            "dtype": str(X.dtype).removeprefix("torch."),
            "window_dtype": str(all_X.dtype).removeprefix("torch."),
            "B": B,
            "batch_sizes": batch_sizes,
            "steps_per_pass": len(batch_sizes),
            "dims": {"B": B, "w": W, "C": len(vocab), "d": D, "h": H, "d_k": D_K, "d_v": D_V, "wd": W * D, "Bh": B * H},
            "lily_slots": [
                lst(X[b]).index(vocab.stoi["lily"]) if vocab.stoi["lily"] in lst(X[b]) else None for b in range(B)
            ],
            "dims_table": {
                "header": ["Symbol", "Value", "Meaning"],
                "rows": [
                    ["B", B, "examples per batch"],
                    ["w", W, "context slots"],
                    ["C", len(vocab), "vocabulary items, specials included"],
                    ["d", D, "embedding width"],
                    ["h", H, "hidden units"],
                    ["d_k", D_K, "query/key width"],
                    ["d_v", D_V, "value width"],
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
        },
        X,
        y,
    )


def mlp_maps(vocab: Vocab, X: torch.Tensor, y: torch.Tensor) -> tuple[dict, FixedWindowMLP]:
    C = len(vocab)
    torch.manual_seed(SEED)
    mlp = FixedWindowMLP(MLPConfig(C=C, w=W, d=D, h=H, pad_id=vocab.pad_id))
    table = mlp.token_embedding.weight.detach().clone()  # before the SGD step below changes the parameter
    found = vocab.stoi["found"]
    E = mlp.token_embedding(X)
    flat = E.flatten(start_dim=1)
    pre_hidden = mlp.hidden_layer(flat)
    hidden = torch.relu(pre_hidden)
    logits = mlp.vocab_head(hidden)
    check(close(logits, mlp(X)), "step-by-step logits equal mlp(X)")
    check(E[0, 0].eq(0).all(), "PAD's embedding row is zero")
    check(torch.equal(E[0, 2], E[1, 1]), "the same ID selects the same row")

    z = logits[1]
    exp = (z - z.max()).exp()
    p = exp / exp.sum()
    check(close(p, z.softmax(-1)), "manual softmax equals torch.softmax")
    guess = int(p.argmax())
    target = int(y[1])

    losses = F.cross_entropy(logits, y, reduction="none")
    loss = losses.mean()
    manual_losses = -logits.log_softmax(-1)[torch.arange(B), y]
    check(close(losses, manual_losses), "manual cross-entropy equals F.cross_entropy")

    mlp.zero_grad(set_to_none=True)
    loss.backward()
    grad = mlp.vocab_head.weight.grad[9, 0].clone()
    probs = logits.softmax(-1)
    manual_grad = ((probs[:, 9] - y.eq(9).float()) * hidden[:, 0]).mean()
    check(close(grad, manual_grad, 1e-7), "manual gradient of vocab_head.weight[9, 0] equals autograd")

    old = mlp.vocab_head.weight[9, 0].detach().clone()
    torch.optim.SGD(mlp.parameters(), lr=LR).step()
    new = mlp.vocab_head.weight[9, 0].detach().clone()
    check(close(new, old - LR * grad, 1e-7), "SGD update equals old - lr * grad")
    after_loss = F.cross_entropy(mlp(X), y)
    mlp.eval()
    with torch.inference_mode():
        frozen_loss = F.cross_entropy(mlp(X), y)

    tokens = vocab.itos
    return {
        "seed": SEED,
        "layer_order": ["token_embedding", "hidden_layer", "vocab_head"],
        "padding_idx": mlp.token_embedding.padding_idx,
        "embedding_table": lst(table),
        "embedding_shape": list(table.shape),
        "found_id": found,
        "found_row": lst(table[found]),
        "pad_row": lst(table[vocab.pad_id]),
        "selected_rows_example1": lst(table[X[1]]),
        "E": lst(E),
        "E_shape": list(E.shape),
        "flat": lst(flat),
        "flat_shape": list(flat.shape),
        "pre_hidden": lst(pre_hidden),
        "hidden": lst(hidden),
        "hidden_shape": list(hidden.shape),
        "relu_zeroed": int(pre_hidden.lt(0).sum()),
        "logits": lst(logits),
        "logits_shape": list(logits.shape),
        "predicted_ids": lst(logits.argmax(-1)),
        "predicted_tokens": [tokens[i] for i in lst(logits.argmax(-1))],
        "example1": {
            "logits": lst(z),
            "exp": lst(exp),
            "exp_sum": fl(exp.sum()),
            "p": lst(p),
            "p_sum": fl(p.sum()),
            "guess_id": guess,
            "guess": tokens[guess],
            "target_id": target,
            "target": tokens[target],
            "target_probability": fl(p[target]),
            "bars": {"labels": list(tokens), "values": lst(p)},
            "softmax_max_abs_diff": max_diff(p, z.softmax(-1)),
        },
        "losses": lst(losses),
        "manual_losses": lst(manual_losses),
        "loss": fl(loss),
        "loss_table": {
            "header": ["Example", "Target", "p(target)", "−log p(target)"],
            "rows": [[b, tokens[int(y[b])], fl(probs[b, int(y[b])]), fl(losses[b])] for b in range(B)],
        },
        "cross_entropy_max_abs_diff": max_diff(losses, manual_losses),
        "grad": {
            "weight": "vocab_head.weight[9, 0]",
            "row_token": tokens[9],
            "p_red": lst(probs[:, 9]),
            "is_red": lst(y.eq(9).float()),
            "hidden_0": lst(hidden[:, 0]),
            "terms": lst((probs[:, 9] - y.eq(9).float()) * hidden[:, 0]),
            "autograd": fl(grad),
            "manual": fl(manual_grad),
            "abs_diff": abs(fl(grad) - fl(manual_grad)),
        },
        "grad_table": {
            "header": ["Example", "p(red)", "[y = red]", "h₀", "term"],
            "rows": [
                [
                    b,
                    fl(probs[b, 9]),
                    fl(y.eq(9).float()[b]),
                    fl(hidden[b, 0]),
                    fl((probs[b, 9] - float(y[b] == 9)) * hidden[b, 0]),
                ]
                for b in range(B)
            ],
        },
        "sgd_table": {
            "header": ["vocab_head.weight[9, 0]", "value"],
            "rows": [
                ["old", fl(old)],
                ["gradient", fl(grad)],
                ["old − η · gradient", fl(old - LR * grad)],
                ["new (after optimizer.step())", fl(new)],
            ],
        },
        "sgd": {
            "lr": LR,
            "old": fl(old),
            "new": fl(new),
            "expected": fl(old - LR * grad),
            "loss_before": fl(loss),
            "loss_after": fl(after_loss),
        },
        "frozen_loss": fl(frozen_loss),
    }, mlp


def attention_maps(vocab: Vocab, X: torch.Tensor, y: torch.Tensor) -> dict:
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
            "header": ["Example", "slot 0", "slot 1", "slot 2", "slot 3"],
            "rows": [[b] + lst(A[b, 0]) for b in range(B)],
        },
        "contributions_example1": lst(contributions),
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


def generation_maps(vocab: Vocab, mlp: FixedWindowMLP) -> dict:
    C = len(vocab)
    prompt_ids = vocab.encode(PROMPT)
    history = [vocab.bos_id] + prompt_ids
    kept = history[-W:]
    context = [vocab.pad_id] * (W - len(kept)) + kept
    frozen = {n: p.detach().clone() for n, p in mlp.named_parameters()}
    mlp.eval()
    blocked = [vocab.stoi[t] for t in BLOCKED]
    with torch.inference_mode():
        next_logits = mlp(torch.tensor([context]))[0].clone()
        raw_logits = next_logits.clone()
        next_logits[blocked] = float("-inf")
        next_p = next_logits.softmax(-1)
        check(next_p[blocked].eq(0).all(), "blocked tokens get probability 0")
        greedy = int(next_p.argmax())
        cdf = next_p.cumsum(0)
        sample = int(torch.searchsorted(cdf, torch.tensor(DRAW)))
        trace_rows, h = [], list(history)
        for step in range(GENERATION_STEPS):
            kept_ = h[-W:]
            x = [vocab.pad_id] * (W - len(kept_)) + kept_
            z = mlp(torch.tensor([x]))[0].clone()
            z[blocked] = float("-inf")
            chosen = int(z.argmax())
            trace_rows.append([step, x, [vocab.itos[i] for i in x], chosen, vocab.itos[chosen]])
            if chosen == vocab.eos_id:
                break
            h.append(chosen)
    check(all(torch.equal(p, frozen[n]) for n, p in mlp.named_parameters()), "generation leaves parameters unchanged")
    tokens = vocab.itos
    p_list = lst(next_p)
    return {
        "prompt": PROMPT,
        "prompt_tokens": tokenize(PROMPT),
        "prompt_ids": prompt_ids,
        "history": history,
        "context": context,
        "context_tokens": [tokens[i] for i in context],
        "C": C,
        "logits_shape": list(next_logits.shape),
        "raw_logits": lst(raw_logits),
        "blocked_ids": blocked,
        "blocked_tokens": BLOCKED,
        "p": p_list,
        "p_sum": fl(next_p.sum()),
        "bars": {"labels": list(tokens), "values": p_list},
        "cdf": lst(cdf),
        "cdf_table": {
            "header": ["ID", "Token", "p", "CDF"],
            "rows": [[i, tokens[i], p_list[i], fl(cdf[i])] for i in range(C)],
        },
        "greedy_id": greedy,
        "greedy": tokens[greedy],
        "draw": DRAW,
        "sample_id": sample,
        "sample": tokens[sample],
        "eos_id": vocab.eos_id,
        "greedy_is_eos": greedy == vocab.eos_id,
        "history_after_greedy": history + ([] if greedy == vocab.eos_id else [greedy]),
        "trace": {"header": ["Step", "Window IDs", "Window tokens", "Chosen ID", "Chosen"], "rows": trace_rows},
        "trace_text": [r[4] for r in trace_rows],
        "parameters_unchanged": True,
        "model_state": "the toy MLP after its one SGD step",
    }


def compute() -> dict:
    vocab = toy_vocab()
    tok = tokenization()
    voc = vocabulary(vocab)
    story, windows, all_X, all_y = story_and_windows(vocab)
    batch, X, y = batches(vocab, all_X, all_y)
    mlp, mlp_model = mlp_maps(vocab, X, y)
    attention = attention_maps(vocab, X, y)
    generation = generation_maps(vocab, mlp_model)
    return {
        "maps_tokenize": tok,
        "maps_vocab": voc,
        "maps_story": story,
        "maps_windows": windows,
        "maps_batch": batch,
        "maps_mlp": mlp,
        "maps_attention": attention,
        "maps_generation": generation,
    }
