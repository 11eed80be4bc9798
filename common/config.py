"""The course configuration, in one place (in the style of nanoGPT's config):
the data, the three models' sizes, the training protocol, the training trace
and the decoding settings, as frozen dataclasses.

    from common.config import CONFIG

    CONFIG.data.context                  # 64: the context width w
    CONFIG.vocab_size                    # 4000: the course profile's vocabulary size
    CONFIG.attention.h                   # 256: hidden width of both attention models
    CONFIG.attention.heads["attn4"]      # 4
    CONFIG.training.profiles["course"]   # Profile(name="course", n_stories=6000, ...)
    CONFIG.training.optimizer["mlp"]     # Optimizer(lr=0.001, weight_decay=0.0001)
    CONFIG.decoding.token_limit          # 24
    CONFIG.as_dict()                     # JSON of all of it (export writes it into metadata.json)

Everything that depends on a setting reads it from here: models/nets.py (the
course sizes), models/corpus.py (data file, split seed, profiles),
models/train.py (optimizer, clipping, evaluation batch), models/trace.py
(trace steps and precision), export/ (context width, token limit, held-out
preset) and the slides (through build/export/metadata.json, whose "config" is
``CONFIG.as_dict()``). ``python -m models.ensure`` compares every committed
checkpoint's recorded settings with this configuration and stops the build on
a difference; change a value here, then run `make train`.

Paths live in common/settings.py. The dict fields (heads, optimizer,
profiles) are read-only by convention; derive a variant with
``dataclasses.replace``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Data:
    """The shipped TinyStories sample and how windows are cut from it."""

    file: str = "data/tinystories/stories.jsonl.gz"  # relative to the repo root
    # SHA-256 of the uncompressed bytes, as stated in data/tinystories/SOURCES.md.
    sha256: str = "67f25e806b62c553cd8dabfe9fdb180dc10429a6a85be7be004eb0f9da77a7e4"
    split_seed: int = 20240  # story selection and the train/validation/test split (models/corpus.py)
    context: int = 64  # context width w: the last 64 IDs, left-padded with PAD


@dataclass(frozen=True)
class MLPSizes:
    """The fixed-window MLP."""

    d: int = 64  # embedding width
    h: int = 256  # units of the ReLU hidden layer


@dataclass(frozen=True)
class AttentionSizes:
    """The causal attention models: each head's query, key and value width is
    d // heads, so W_Q, W_K, W_V and W_O stay d x d."""

    d: int = 64  # model width
    h: int = 256  # units of the ReLU hidden layer
    heads: dict[str, int] = field(default_factory=lambda: {"attn1": 1, "attn4": 4})  # per model kind


@dataclass(frozen=True)
class Profile:
    """A training profile: how much data, how long, how often to validate.
    The course profile's vocab_size is the course vocabulary size."""

    name: str
    n_stories: int
    vocab_size: int
    steps: int
    batch_size: int
    eval_every: int
    val_windows: int  # the fixed validation slice
    seeds: tuple[int, ...] = (11, 29, 47)


@dataclass(frozen=True)
class Optimizer:
    """AdamW settings of one model kind."""

    lr: float
    weight_decay: float


def _profiles() -> dict[str, Profile]:
    return {
        "smoke": Profile("smoke", 480, 1000, steps=300, batch_size=128, eval_every=100, val_windows=2000),
        "course": Profile("course", 6000, 4000, steps=6000, batch_size=512, eval_every=750, val_windows=20000),
    }


def _optimizer() -> dict[str, Optimizer]:
    # four heads reuse the one-head settings
    return {"mlp": Optimizer(1e-3, 1e-4), "attn1": Optimizer(3e-3, 1e-3), "attn4": Optimizer(3e-3, 1e-3)}


@dataclass(frozen=True)
class Training:
    """The training protocol (models/train.py)."""

    profiles: dict[str, Profile] = field(default_factory=_profiles)
    optimizer: dict[str, Optimizer] = field(default_factory=_optimizer)  # per model kind
    clip_norm: float = 1.0  # gradient norm clipping
    eval_batch: int = 4096  # windows per batch when scoring validation and test
    validation_seed: int = 0  # the permutation that picks the fixed validation slice
    checkpoint_seed: int = 11  # the seed whose checkpoints are committed and exported


@dataclass(frozen=True)
class Trace:
    """What the training trace records (models/trace.py)."""

    early_steps: tuple[int, ...] = (10, 50, 100, 200, 400)  # before the first validation point
    top_k: int = 10  # predictions kept per probe and point
    digits: int = 8  # decimals kept for probabilities and attention weights


@dataclass(frozen=True)
class Decoding:
    """Generation in the lab and the exporter's references."""

    token_limit: int = 24  # default number of generated tokens
    held_out_preset: str = "test-shortest"  # the lab preset made from the shortest held-out test story


@dataclass(frozen=True)
class CourseConfig:
    data: Data = field(default_factory=Data)
    mlp: MLPSizes = field(default_factory=MLPSizes)
    attention: AttentionSizes = field(default_factory=AttentionSizes)
    training: Training = field(default_factory=Training)
    trace: Trace = field(default_factory=Trace)
    decoding: Decoding = field(default_factory=Decoding)

    @property
    def vocab_size(self) -> int:
        """The course vocabulary size (4 specials + the most frequent training tokens)."""
        return self.training.profiles["course"].vocab_size

    @property
    def kinds(self) -> tuple[str, ...]:
        """The model kinds, in course order: the MLP, then one attention model per heads entry."""
        return ("mlp", *self.attention.heads)

    def as_dict(self) -> dict:
        """The configuration as JSON values (tuples become lists), as metadata.json carries it."""
        return json.loads(json.dumps(asdict(self)))


CONFIG = CourseConfig()
