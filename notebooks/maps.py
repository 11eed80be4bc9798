# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# **How to run this notebook.** It imports the course's own code (`models/`), which
# comes with the project, not with this file: download `attention-course-src.zip`
# from the course index, unpack it, run `make site` in that folder (it sets up
# `.venv` and the data), then `.venv/bin/pip install -e ".[notebooks]"` and
# `.venv/bin/jupyter lab notebooks/`. The next cell stops with these steps when
# `models` cannot be imported.

# %%
try:
    import models  # noqa: F401  (the course's code: models/ of the project download)
except ImportError as exc:
    raise ImportError(
        "This notebook needs the course's code. Download attention-course-src.zip from the course index, "
        'unpack it, run `make site` in that folder, then `.venv/bin/pip install -e ".[notebooks]"` and '
        "`.venv/bin/jupyter lab notebooks/`."
    ) from exc
print("The course's code (models/) is importable.")

# %% [markdown]
# # Training and inference maps, in code
#
# Companion notebook to the deck **Training and inference maps**. It follows one
# short story, *"Lily found a red ball."*, through everything a next-token model
# does: tokens, a vocabulary, windows and batches, the forward pass of a tiny
# fixed-window MLP and of a tiny attention model, softmax, cross-entropy, the
# gradient of one weight, one SGD step, held-out scoring and generation.
#
# Every number the deck shows is computed again here, step by step, with plain
# torch. The project's own tokenizer, window maker and model classes are
# imported (`models/`), nothing else. The last cell compares the values with the
# tables the slides were built from and stops with an error if one differs.
#
# Sizes: vocabulary C = 10, window w = 4, batch B = 2, embedding width d = 4,
# hidden units H = 8, query/key width d_k = 3, value width d_v = 2.

# %%
import math

import torch
import torch.nn.functional as F

from models.corpus import make_windows
from models.nets import AttentionConfig, CausalAttentionLM, FixedWindowMLP, MLPConfig
from models.tokenizer import SPECIALS, Vocab, tokenize

torch.set_printoptions(precision=4, sci_mode=False, linewidth=110)
SEED = 11  # every toy model is created right after torch.manual_seed(SEED)
C_W, B, D, H, D_K, D_V = 4, 2, 4, 8, 3, 2
got = {}  # what this notebook computes; checked against the deck at the end

# %% [markdown]
# ## 1. Tokens and a vocabulary
#
# The tokenizer lower-cases the text and splits it into words and punctuation.
# The toy vocabulary is the four special tokens followed by the story's distinct
# pieces in alphabetical order.

# %%
SENTENCE = "Lily found a red ball."
pieces = tokenize(SENTENCE)
print(pieces, len(pieces), "pieces")

vocab = Vocab(list(SPECIALS) + sorted(set(pieces)))
C = len(vocab)
for i, token in enumerate(vocab.itos):
    print(i, token)
print("C =", C)
got["maps_vocab.itos"] = vocab.itos
got["maps_vocab.C"] = C
got["maps_tokenize.pieces"] = pieces

# %% [markdown]
# A word the vocabulary has never seen becomes `<UNK>` (ID 3). A story is
# wrapped in one `<BOS>` (ID 1) and one `<EOS>` (ID 2).

# %%
print("blue ->", vocab.encode_tokens(["blue"]), " story 'blue' ->", vocab.encode_story("blue"))
ids = vocab.encode_story(SENTENCE)
print("story IDs:", ids)
print("tokens:   ", [vocab.itos[i] for i in ids])
got["maps_vocab.blue_ids"] = vocab.encode_tokens(["blue"])
got["maps_story.ids"] = ids

# %% [markdown]
# ## 2. Windows and targets
#
# Every ID after `<BOS>` is a target: the w = 4 IDs before it (left-padded with
# `<PAD>`) are its window. One window per ordinary token, plus one for `<EOS>`.

# %%
all_X, all_y = make_windows([ids], context=C_W)
for r in range(len(all_y)):
    context = all_X[r].tolist()
    print(f"pair {r + 1}: {context} {[vocab.itos[i] for i in context]} -> {int(all_y[r])} {vocab.itos[int(all_y[r])]}")
print("X", tuple(all_X.shape), all_X.dtype, " y", tuple(all_y.shape))
got["maps_windows.contexts"] = all_X.tolist()
got["maps_windows.targets"] = all_y.tolist()
got["maps_windows.N"] = len(all_y)

# %% [markdown]
# ## 3. One batch
#
# The deck follows pairs 3 and 4 as a batch of B = 2 examples. The slides count
# pairs, slots and examples from 1; Python indexes them from 0, so the pairs are
# `all_X[2]` and `all_X[3]`, and the batch's example 2 is `X[1]`.

# %%
X, y = all_X[[2, 3]].long(), all_y[[2, 3]].long()
print("X =", X.tolist(), " y =", y.tolist())
print(
    "contexts:", [[vocab.itos[i] for i in row] for row in X.tolist()], " targets:", [vocab.itos[i] for i in y.tolist()]
)
got["maps_batch.X"] = X.tolist()
got["maps_batch.y"] = y.tolist()

# %% [markdown]
# ## 4. The MLP forward pass
#
# Embedding lookup [B, w, d] -> flatten [B, w*d] -> hidden layer and ReLU [B, H]
# -> vocabulary head [B, C]. `<PAD>` has an all-zero embedding row.

# %%
torch.manual_seed(SEED)
mlp = FixedWindowMLP(MLPConfig(C=C, w=C_W, d=D, h=H, pad_id=vocab.pad_id))

E = mlp.token_embedding(X)  # [B, w, d]
flat = E.flatten(start_dim=1)  # [B, w*d]
pre_hidden = mlp.hidden_layer(flat)  # [B, H]
hidden = torch.relu(pre_hidden)
logits = mlp.vocab_head(hidden)  # [B, C]
print("embedding table [C, d]:\n", mlp.token_embedding.weight.data)
print("E", tuple(E.shape), "\n", E.data)
print("hidden after ReLU", tuple(hidden.shape), "\n", hidden.data)
print("logits", tuple(logits.shape), "\n", logits.data)
print("same as mlp(X):", torch.allclose(logits, mlp(X)))
print("predicted:", [vocab.itos[i] for i in logits.argmax(-1).tolist()])
got["maps_mlp.E"] = E.tolist()
got["maps_mlp.hidden"] = hidden.tolist()
got["maps_mlp.logits"] = logits.tolist()
got["maps_mlp.relu_zeroed"] = int(pre_hidden.lt(0).sum())

# %% [markdown]
# ## 5. Softmax: from logits to probabilities
#
# Example 2 of the batch (`logits[1]` in Python; context `<BOS> lily found a`,
# target `red`), as on the slide. Subtracting the largest
# logit first keeps `exp` from overflowing and does not change the result.

# %%
z = logits[1]
exp = (z - z.max()).exp()
p = exp / exp.sum()
for i, token in enumerate(vocab.itos):
    print(f"{i:2d} {token:6s} logit {z[i]:8.4f}  exp {exp[i]:.4f}  p {p[i]:.7f}")
target = int(y[1])
print(f"sum of p = {p.sum().item():.7f};  p(target '{vocab.itos[target]}') = {p[target].item():.7f}")
got["maps_mlp.example1.p"] = p.tolist()
got["maps_mlp.example1.target_probability"] = p[target].item()

# %% [markdown]
# ## 6. Cross-entropy
#
# The loss of one example is -log p(target); the batch loss is the mean.

# %%
log_p = logits.log_softmax(-1)
losses = -log_p[torch.arange(B), y]
loss = losses.mean()
print("per-example losses:", losses.tolist())
print("batch loss:", loss.item(), " F.cross_entropy:", F.cross_entropy(logits, y).item())
got["maps_mlp.losses"] = losses.tolist()
got["maps_mlp.loss"] = loss.item()

# %% [markdown]
# ## 7. The gradient of one weight, and one SGD step
#
# For the head weight that connects the first hidden unit (c = 1 on the slide,
# index 0 in Python) to the logit of `red` (ID 9), `vocab_head.weight[9, 0]` in code:
# its gradient is the mean over the batch of (p(red) - [y = red]) * h_1.

# %%
mlp.zero_grad(set_to_none=True)
loss.backward()
autograd = mlp.vocab_head.weight.grad[9, 0].item()
probs = logits.softmax(-1)
terms = (probs[:, 9] - y.eq(9).float()) * hidden[:, 0]
manual = terms.mean().item()
print("terms:", terms.tolist())
print(f"by hand {manual:.9f}   autograd {autograd:.9f}")

LR = 0.1
old = mlp.vocab_head.weight[9, 0].item()
torch.optim.SGD(mlp.parameters(), lr=LR).step()
new = mlp.vocab_head.weight[9, 0].item()
print(f"old {old:.9f} - {LR} * {autograd:.9f} = {old - LR * autograd:.9f};  after step(): {new:.9f}")
got["maps_mlp.grad.autograd"] = autograd
got["maps_mlp.grad.manual"] = manual
got["maps_mlp.sgd.old"] = old
got["maps_mlp.sgd.new"] = new

# %% [markdown]
# ## 8. Scoring with frozen weights
#
# After the step, the model is scored on the same batch without gradients
# (`eval()` + `inference_mode()`), as held-out data is scored.

# %%
mlp.eval()
with torch.inference_mode():
    frozen_loss = float(F.cross_entropy(mlp(X), y))
print(f"loss before the step {loss.item():.7f}, after it (frozen) {frozen_loss:.7f}")
got["maps_mlp.frozen_loss"] = frozen_loss

# %% [markdown]
# ## 9. The attention forward pass
#
# A fresh seeded attention model reads the same batch. Each slot's row is a token
# row plus a position row; the final slot asks a query q, every slot offers a key
# and a value; scores q·k/sqrt(d_k), `<PAD>` slots masked to -inf, softmax, then
# the weighted sum of values, W_O and the residual.

# %%
torch.manual_seed(SEED)
att = CausalAttentionLM(AttentionConfig(C=C, w=C_W, d=D, d_k=D_K, d_v=D_V, h=H, pad_id=vocab.pad_id))

E_att = att.token_embedding(X) + att.position_embedding(torch.arange(C_W))[None]  # [B, w, d]
q = att.W_Q(E_att[:, -1:, :])  # [B, 1, d_k]
K = att.W_K(E_att)  # [B, w, d_k]
V = att.W_V(E_att)  # [B, w, d_v]
scores = q @ K.transpose(-2, -1) / math.sqrt(D_K)  # [B, 1, w]
masked = scores.masked_fill(X[:, None, :].eq(vocab.pad_id), float("-inf"))
A = masked.softmax(-1)
print("masked scores:\n", masked.data)
print("attention weights:\n", A.data)
message = A @ V  # [B, 1, d_v]
final = E_att[:, -1, :] + att.W_O(message).squeeze(1)
att_logits = att.vocab_head(torch.relu(att.hidden_layer(final)))
print("logits:\n", att_logits.data)
print("same as the model's forward():", torch.allclose(att_logits, att(X)))
print("predicted:", [vocab.itos[i] for i in att_logits.argmax(-1).tolist()])
got["maps_attention.weights"] = A.tolist()
got["maps_attention.message"] = message.tolist()
got["maps_attention.logits"] = att_logits.tolist()

# %% [markdown]
# ## 10. Generation
#
# The (stepped) MLP continues the prompt "Lily found". The history starts with
# `<BOS>`; the window is its last w IDs, left-padded. `<PAD>`, `<BOS>` and
# `<UNK>` are never chosen. Greedy takes the most probable token; sampling with a
# uniform draw u takes the first token whose cumulative probability reaches u.

# %%
BLOCKED = [vocab.stoi[t] for t in ("<PAD>", "<BOS>", "<UNK>")]


def window(history):
    kept = history[-C_W:]
    return [vocab.pad_id] * (C_W - len(kept)) + kept


history = [vocab.bos_id] + vocab.encode("Lily found")
with torch.inference_mode():
    next_logits = mlp(torch.tensor([window(history)]))[0].clone()
    next_logits[BLOCKED] = float("-inf")
    next_p = next_logits.softmax(-1)
    cdf = next_p.cumsum(0)
for i, token in enumerate(vocab.itos):
    print(f"{i:2d} {token:6s} p {next_p[i]:.4f}  CDF {cdf[i]:.4f}")
greedy = vocab.itos[int(next_p.argmax())]
sample = vocab.itos[int(torch.searchsorted(cdf, torch.tensor(0.8)))]
print("greedy:", greedy, "  sample at u = 0.8:", sample)

trace, h = [], list(history)
with torch.inference_mode():
    for step in range(4):
        z_step = mlp(torch.tensor([window(h)]))[0].clone()
        z_step[BLOCKED] = float("-inf")
        choice = int(z_step.argmax())
        trace.append(vocab.itos[choice])
        print(f"step {step}: window {[vocab.itos[i] for i in window(h)]} -> {vocab.itos[choice]}")
        if choice == vocab.eos_id:
            break
        h.append(choice)
got["maps_generation.p"] = next_p.tolist()
got["maps_generation.greedy"] = greedy
got["maps_generation.sample"] = sample
got["maps_generation.trace_text"] = trace

# %% [markdown]
# ## Check against the deck
#
# The slides were built from `build/tables/*.json`. This cell compares every
# value above with the value the deck shows (floats to 1e-6 relative) and raises
# an error naming each one that differs.

# %%
from site_builder.notebook_check import check

check(got)
