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
# # Part III: multi-head attention and TinyStories, in code
#
# Companion notebook to the deck **Part III: Multi-head attention and
# TinyStories**. It recomputes the deck's worked numbers:
#
# 1. why one head is not enough: the river/fisherman value toy;
# 2. the fisherman worksheet: ten tokens, width 4, two heads of width 2;
# 3. the TinyStories pipeline at C = 4,000 and w = 64: deduplicate, select,
#    split, fit the vocabulary, count windows, and which windows training draws;
# 4. one forward pass (and the cost of attention), one training step of the
#    committed four-head model, and its first generation step for "Lily found".
#
# The project's data loader, tokenizer, model class and checkpoint loader are
# imported; every step in between is written out here. The last cell compares
# the results with the tables the slides were built from.

# %%
import copy
import hashlib
import math

import numpy as np
import torch
import torch.nn.functional as F

from common.config import CONFIG
from models.checkpoints import load_checkpoint, load_vocab
from models.corpus import load_stories, make_windows
from models.tokenizer import BOS_ID, PAD_ID, UNK_ID, Vocab, normalize, tokenize

np.set_printoptions(precision=4, suppress=True, linewidth=110)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=110)
got = {}  # what this notebook computes; checked against the deck at the end

# %% [markdown]
# ## 1. One head mixes everything with one set of weights
#
# Two sources with values [setting, person]: river = [10, 1], fisherman = [2, 8].
# A single head that favours "river" (0.8 / 0.2) dilutes the person coordinate;
# two heads can each read one coordinate with their own weights.

# %%
VALUES = np.array([[10.0, 1.0], [2.0, 8.0]])
setting_w, person_w = np.array([0.8, 0.2]), np.array([0.2, 0.8])
one_head = setting_w @ VALUES
two_heads = [float((setting_w @ VALUES)[0]), float((person_w @ VALUES)[1])]
print("one head, weights (0.8, 0.2):", one_head)
print("two heads, setting head reads coordinate 0, person head coordinate 1:", two_heads)
got["part3_two_source.one_head_message"] = one_head.tolist()
got["part3_two_source.two_head_message"] = two_heads

# %% [markdown]
# ## 2. The fisherman worksheet: two heads of width 2
#
# Ten tokens with four hand-set features (setting, person, action, grammar).
# The packed projections are 4 x 4: the first two columns belong to head 1, the
# last two to head 2 (Python's columns 0-1 and 2-3).
# Each head scores with its own queries and keys, scaled by sqrt(2), under the
# causal mask; the two messages are concatenated and W_O maps them back.

# %%
TOKENS = ("the", "fisherman", "sat", "beside", "the", "river", "bank", "and", "watched", "the")
ROWS = {
    "the": (0.0, 0.0, 0.0, 1.0),
    "fisherman": (0.0, 1.0, 0.2, 0.1),
    "sat": (0.0, 0.1, 1.0, 0.0),
    "beside": (0.4, 0.0, 0.1, 0.6),
    "river": (1.0, 0.0, 0.0, 0.1),
    "bank": (0.8, 0.0, 0.0, 0.2),
    "and": (0.0, 0.0, 0.1, 0.9),
    "watched": (0.0, 0.2, 1.0, 0.0),
}
W_Q = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [2.0, -1.0, 1.5, -0.5]])
W_K = np.array([[2.0, 0, 0, 0], [0, 0, 2.0, 0], [0, 0, 0, 0], [0, 1.0, 0, 1.0]])
W_V = np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0], [0, 1.0, 0, 0]])
W_O = np.array([[0.5, 0, 0, 0], [0, 0, 0, -0.5], [0, 0.5, 0, 0], [0, 0, 0.5, 0]])

E = np.array([ROWS[t] for t in TOKENS])  # [10, 4]
n_tokens = len(TOKENS)


def split_heads(M):  # [10 tokens, 4] -> [2 heads, 10 tokens, 2]
    return M.reshape(n_tokens, 2, 2).transpose(1, 0, 2)


Q, K, V = split_heads(E @ W_Q), split_heads(E @ W_K), split_heads(E @ W_V)
scores = Q @ K.transpose(0, 2, 1) / math.sqrt(2)  # [2, 10, 10]
future = np.triu(np.ones((n_tokens, n_tokens), dtype=bool), 1)
masked = np.where(future[None], -np.inf, scores)
A = np.exp(masked - masked.max(-1, keepdims=True))
A = A / A.sum(-1, keepdims=True)
msgs = A @ V  # [2, 10, 2]: each head's messages m = AV
concat = msgs.transpose(1, 0, 2).reshape(n_tokens, 4)  # [10, 4]
out = E + concat @ W_O
for g in range(2):  # head g + 1 (heads are numbered from 1 on the slides)
    print(f"head {g + 1}, final 'the' attends:", " ".join(f"{t}:{a:.3f}" for t, a in zip(TOKENS, A[g, -1])))
    print(f"         message {msgs[g, -1]}")
    got[f"part3_fisherman.heads.{g}.weights"] = A[g, -1].tolist()
    got[f"part3_fisherman.heads.{g}.message"] = msgs[g, -1].tolist()
print("concat:", concat[-1], " update:", (concat @ W_O)[-1], " new row:", out[-1])
got["part3_fisherman.concat_last"] = concat[-1].tolist()
got["part3_fisherman.out_last"] = out[-1].tolist()

# %% [markdown]
# ## 3. The TinyStories pipeline at C = 4,000, w = 64
#
# The shipped sample is read with the project's loader (it checks the file's
# SHA-256). Then, in plain code: normalize and drop duplicates; keep the 6,000
# stories with the smallest SHA-256("select-20240:" + text); put each story in
# train / validation / test by SHA-256("split-20240:" + text), first 8 hex
# digits mod 10 (0-7 / 8 / 9); fit the vocabulary on training stories only.

# %%
pool = load_stories()
unique, seen = [], set()
for story in pool:
    norm = normalize(story["text"])
    if norm not in seen:
        seen.add(norm)
        unique.append(dict(story, norm=norm))


def sha(prefix, text):
    return hashlib.sha256(f"{prefix}-20240:{text}".encode()).hexdigest()


selected = sorted(unique, key=lambda s: sha("select", s["norm"]))[:6000]
selected.sort(key=lambda s: (s["origin_file"], s["origin_index"]))
splits = {"train": [], "validation": [], "test": []}
for story in selected:
    bucket = int(sha("split", story["norm"])[:8], 16) % 10
    splits["train" if bucket < 8 else "validation" if bucket == 8 else "test"].append(story)
print(f"{len(pool):,} stories in the pool, {len(unique):,} after removing duplicates, {len(selected):,} selected")
print({name: len(s) for name, s in splits.items()})

vocab = Vocab.fit((tokenize(s["norm"]) for s in splits["train"]), 4000)
committed = load_vocab()
print("C =", len(vocab), "; first items:", vocab.itos[:12])
print("same as the committed models/checkpoints/vocab.json:", vocab.itos == committed.itos)
assert vocab.itos == committed.itos, "the refitted vocabulary differs from the committed one"

windows = {}
for name, stories in splits.items():
    X_split, y_split = make_windows([vocab.encode_story(s["norm"]) for s in stories], context=CONFIG.data.context)
    windows[name] = len(y_split)
print("windows (one per target):", windows, " total", sum(windows.values()))
got["part3_corpus.audit.pool_stories"] = len(pool)
got["part3_corpus.audit.selected_stories"] = len(selected)
got["part3_corpus.audit.documents"] = {name: len(s) for name, s in splits.items()}
got["part3_corpus.audit.windows"] = windows
got["part3_corpus.audit.vocab_size"] = len(vocab)

# %% [markdown]
# ### Which windows does training see?
#
# Each of the 6,000 updates draws 512 training windows uniformly at random, with
# replacement (seed 11, the generator and call of `models/train.py`). Some
# windows are drawn several times, some never: n draws from N windows all miss
# a given one with probability (1 - 1/N)^n.

# %%
n_train = windows["train"]
generator = torch.Generator().manual_seed(11)
drawn = torch.stack([torch.randint(0, n_train, (512,), generator=generator) for _ in range(6000)])
counts = torch.bincount(drawn.flatten(), minlength=n_train)
expected = 100 * math.exp(drawn.numel() * math.log1p(-1 / n_train))
print(
    f"{drawn.numel():,} draws over {n_train:,} windows: {int((counts > 0).sum()):,} distinct, "
    f"{int((counts == 0).sum()):,} never drawn ({float((counts == 0).float().mean()) * 100:.2f} %, "
    f"expected {expected:.2f} %); the most drawn window {int(counts.max())} times"
)
got["part3_sampling.distinct_drawn"] = int((counts > 0).sum())
got["part3_sampling.never_drawn"] = int((counts == 0).sum())
got["part3_sampling.expected_never_percent"] = expected
got["part3_sampling.most_draws"] = int(counts.max())

# %% [markdown]
# ## 4. The four-head model: one forward pass
#
# Two training-style examples, "<BOS> lily found" -> "a" and
# "<BOS> lily found a" -> "red", left-padded to w = 64 slots. The committed
# seed-11 checkpoint (d = 64, four heads of width 16) reads them;
# `forward_details` returns every intermediate tensor.

# %%
model, info = load_checkpoint("attn4")
print(f"checkpoint: seed {info['seed']}, selected step {info['selected_step']:,}", model.config)
prefixes = [["<BOS>", "lily", "found"], ["<BOS>", "lily", "found", "a"]]
X = torch.tensor([[PAD_ID] * (CONFIG.data.context - len(p)) + vocab.encode_tokens(p) for p in prefixes])
y = torch.tensor(vocab.encode_tokens(["a", "red"]))
print("X", tuple(X.shape), "last six slots:", X[:, -6:].tolist(), " y", y.tolist())
with torch.no_grad():
    details = model.forward_details(X)
for name in ("E", "Q", "K", "V", "scores", "weights", "heads", "messages", "updated", "hidden", "logits"):
    print(f"{name:9s} {tuple(details[name].shape)}")
found = details["weights"][0, :, -1, -3:]  # final query "found", over <BOS> lily found
print("the four heads' weights from 'found' over <BOS>, lily, found:\n", found)
loss = F.cross_entropy(details["logits"], y)
p_target = details["logits"].softmax(-1)[torch.arange(2), y]
print(f"loss {float(loss):.4f}; p(target) {p_target.tolist()}")
got["part3_batch.model.found_weights"] = found.tolist()
got["part3_batch.model.loss"] = float(loss)
got["part3_batch.model.target_probabilities"] = p_target.tolist()

# %% [markdown]
# Full-sequence attention costs w x w x d multiply-adds for the scores (Q K^T)
# and again for the mixing (A V), whatever the number of heads (each head does
# w x w x d_k with d_k = d / heads); only the stored weights grow with the
# heads. Our models score only the final query: 2 x w x d.

# %%
w, d, n_heads = CONFIG.data.context, model.config.d, model.config.n_heads
d_k = d // n_heads
scores_madds = mixing_madds = n_heads * w * w * d_k
print(
    f"scores {scores_madds:,} + mixing {mixing_madds:,} = {scores_madds + mixing_madds:,} multiply-adds "
    f"(w²d = {w * w * d:,}); weights stored: one head {w * w:,}, {n_heads} heads {n_heads * w * w:,}; "
    f"final query only: {2 * w * d:,}"
)
got["part3_cost.total_madds"] = scores_madds + mixing_madds
got["part3_cost.T2D"] = w * w * d
got["part3_cost.final_query_madds"] = 2 * w * d

# %% [markdown]
# ## 5. One training step
#
# A copy of the model takes one AdamW step on this batch with the course's
# settings (lr 0.003, weight decay 0.001 for the attention models); the loss on
# the same batch goes down.

# %%
trainee = copy.deepcopy(model).train()
lr, wd = CONFIG.training.optimizer["attn4"].lr, CONFIG.training.optimizer["attn4"].weight_decay
opt = torch.optim.AdamW(trainee.parameters(), lr=lr, weight_decay=wd)
step_loss = F.cross_entropy(trainee(X), y)
opt.zero_grad()
step_loss.backward()
opt.step()
with torch.no_grad():
    after = float(F.cross_entropy(trainee(X), y))
print(f"AdamW lr {lr}, weight decay {wd}: loss {step_loss.item():.4f} -> {after:.4f}")
got["part3_batch.model.loss_after_step"] = after

# %% [markdown]
# ## 6. The first generation step for "Lily found"
#
# History = <BOS> + the prompt's IDs, left-padded to 64 slots. `<PAD>`, `<BOS>`
# and `<UNK>` are never chosen; greedy takes the highest remaining logit.

# %%
history = [BOS_ID] + vocab.encode("Lily found")
context = torch.tensor([[PAD_ID] * (CONFIG.data.context - len(history)) + history])
with torch.no_grad():
    logits = model(context)[0]
logits[[PAD_ID, BOS_ID, UNK_ID]] = float("-inf")
probs = logits.softmax(-1)
top = torch.topk(probs, 5)
for p, i in zip(top.values.tolist(), top.indices.tolist()):
    print(f"{vocab.itos[i]:8s} {p:.4f}")
choice = vocab.itos[int(logits.argmax())]
print("greedy choice:", choice)
got["part3_generation.choice"] = choice
got["part3_generation.top.values"] = top.values.tolist()
got["part3_generation.top.labels"] = [vocab.itos[i] for i in top.indices.tolist()]

# %% [markdown]
# ## Check against the deck
#
# The slides were built from `build/tables/*.json`. This cell compares every
# value above with the value the deck shows (floats to 1e-6 relative) and raises
# an error naming each one that differs.

# %%
from site_builder.notebook_check import check

check(got)
