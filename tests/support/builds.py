"""A small site for the build tests: two decks, the real maps, the index and
one table (the ``mini`` fixture in conftest.py), and how to build it; and a
models/ folder of randomly initialised checkpoints (``make_models_dir``)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import torch

from common.layout import MODELS, ModelsFolder
from common.settings import ROOT
from models.checkpoints import save_checkpoint
from models.nets import build
from site_builder.__main__ import main

CONTENT = ROOT / "content"
VOCAB = MODELS.vocab

MINI_DECK = """+++
title = "Mini deck"
subtitle = "for the build tests"
order = 2
tables = ["mini"]
+++
## First

{{ m.map('training', 'windows') }}

Value {{ m.num('mini.x', 3) }} and $a^2 + b^2$.

{{ m.table('mini.t') }}

Note:
Some notes with $x$.

---

## Second

{{ m.code('models/nets.py', 'FixedWindowMLP.forward') }}
"""

OTHER_DECK = """+++
title = "First by order"
order = 1
+++
## Only slide
$$\\frac{1}{2}$$
"""


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def run_build(capsys, content: Path, tables: Path, out: Path, *extra: str) -> tuple[int, str]:
    rc = main(["--content", str(content), "--tables", str(tables), "--out", str(out), "--no-notebooks", *extra])
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def make_mini(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A small content folder (two decks, the real maps, index) and one table."""
    content = tmp_path / "content"
    (content / "decks").mkdir(parents=True)
    shutil.copytree(CONTENT / "maps", content / "maps")
    shutil.copy(CONTENT / "index.md", content / "index.md")
    (content / "decks" / "mini.md").write_text(MINI_DECK, encoding="utf-8")
    (content / "decks" / "aaa.md").write_text(OTHER_DECK, encoding="utf-8")
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "mini.json").write_text(json.dumps({"x": 0.123456, "t": {"header": ["a", "b"], "rows": [[1, 2.5]]}}))
    return content, tables, tmp_path / "build" / "site"


def make_models_dir(tmp: Path, kinds=("mlp", "attn1", "attn4")) -> Path:
    """A models/ folder with randomly initialised checkpoints (seed 0) over the
    real course vocabulary, in the committed file layout."""
    ckpt = tmp / "checkpoints"
    ckpt.mkdir(parents=True)
    shutil.copy(VOCAB, ckpt / "vocab.json")
    C = len(json.loads(VOCAB.read_text(encoding="utf-8")))
    for kind in kinds:
        torch.manual_seed(0)
        save_checkpoint(build(kind, C=C).eval(), {"seed": 11, "selected_step": 750}, ModelsFolder(tmp))
    shutil.copy(MODELS.audit, tmp / "corpus_audit.json")
    return tmp
