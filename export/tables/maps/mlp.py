"""The toy fixed-window MLP of the maps deck, step by step: embedding lookup,
hidden layer, logits, softmax, cross-entropy, one gradient by hand and one SGD
step (table ``maps_mlp``). The value ``maps_mlp_step`` keeps the model after
that step for the generation table."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from models.nets import FixedWindowMLP, MLPConfig

from ..kit.registry import table, value
from .toy import SEED, B, D, H, Toy, W, check, close, fl, lst, max_diff

LR = 0.1


@dataclass(frozen=True)
class MlpStep:
    table: dict
    model: FixedWindowMLP  # after its one SGD step


@table("maps_mlp", needs=["maps_mlp_step"])
def mlp_table(maps_mlp_step: MlpStep) -> dict:
    return maps_mlp_step.table


@value("maps_mlp_step", needs=["maps_toy"])
def mlp_step(maps_toy: Toy) -> MlpStep:
    vocab, X, y = maps_toy.vocab, maps_toy.X, maps_toy.y
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
    summary = {
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
            "rows": [[b + 1, tokens[int(y[b])], fl(probs[b, int(y[b])]), fl(losses[b])] for b in range(B)],
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
            "header": ["Example", "p(red)", "[y = red]", "h₁", "term"],
            "rows": [
                [
                    b + 1,
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
    }
    return MlpStep(summary, mlp)
