"""Typeset TeX with the project's vendored KaTeX at build time (one node call
per page), so pages need no math JavaScript and a TeX error fails the build."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from .assemble import NODE_MODULES, BuildError

SCRIPT = Path(__file__).with_name("katex_render.cjs")


def render_math(items: list[tuple[str, bool]], node_modules: Path = NODE_MODULES) -> list[str | Exception]:
    """[(tex, display)] -> HTML strings, or a ValueError per expression KaTeX rejects."""
    if not items:
        return []
    node = shutil.which("node")
    if node is None:
        raise BuildError("node not found: build-time math needs Node.js (the same one `npm ci` uses)")
    if not (node_modules / "katex" / "dist" / "katex.js").exists():
        raise BuildError(f"npm package missing: {node_modules / 'katex'} (run `npm ci`, which `make site` does)")
    payload = json.dumps([{"tex": tex, "display": display} for tex, display in items])
    proc = subprocess.run(
        [node, str(SCRIPT), str(node_modules)], input=payload, capture_output=True, text=True, encoding="utf-8"
    )
    if proc.returncode != 0:
        raise BuildError(f"KaTeX (node) failed: {proc.stderr.strip()[-800:]}")
    out = json.loads(proc.stdout)
    return [r["html"] if "html" in r else ValueError(r["error"]) for r in out]
