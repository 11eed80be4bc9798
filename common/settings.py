"""The project's shared constants and paths, in one place.

Everything downstream (models/, export/, site_builder/, tests) imports these
instead of repeating them: the repo root, the build folders, the course's
shape settings (context width, vocabulary size), the decoding token limit,
the checkpoint seed, the training optimizer settings and the id of the lab's
held-out preset.
"""

from __future__ import annotations

from pathlib import Path

# Paths
ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = ROOT / "models"  # its files: common.layout.ModelsFolder
BENCH_FILE = ROOT / "bench" / "bench.json"  # python -m bench; read by export.tables
BUILD_DIR = ROOT / "build"
EXPORT_DIR = BUILD_DIR / "export"  # python -m export
TABLES_DIR = BUILD_DIR / "tables"  # python -m export.tables
SITE_DIR = BUILD_DIR / "site"  # python -m site_builder
SITE_ONNX = "onnx"  # the site folder that holds the export (ONNX files and their JSON)

# Shapes and decoding
CONTEXT = 64  # context width: the last 64 IDs, left-padded with PAD
VOCAB_SIZE = 4000  # course vocabulary (4 specials + 3,996 tokens)
TOKEN_LIMIT = 24  # default number of generated tokens

# Training protocol
CHECKPOINT_SEED = 11  # the seed whose checkpoints are committed and exported
# lr and weight decay per kind; four heads reuse the one-head settings.
OPTIMIZER = {"mlp": (1e-3, 1e-4), "attn1": (3e-3, 1e-3), "attn4": (3e-3, 1e-3)}
CLIP_NORM = 1.0

# The lab preset made from the shortest held-out test story (export/presets.py).
HELD_OUT_PRESET = "test-shortest"
