"""Copy the static parts of the site into a staging folder: browser code from
web/, the export (ONNX files and their JSON) and the vendored npm libraries."""

from __future__ import annotations

import shutil
from pathlib import Path

from models.settings import ROOT, SITE_ONNX

WEB = ROOT / "web"
NODE_MODULES = ROOT / "node_modules"

# npm package -> (folder inside the package, glob patterns copied to vendor/<name>/)
VENDOR = {
    # the lab loads ort.all.min.mjs, which runs WebGPU (JSEP) and WASM from the jsep build
    "onnxruntime-web": ("dist", ["ort.all.min.mjs", "ort-wasm-simd-threaded.jsep.mjs",
                                  "ort-wasm-simd-threaded.jsep.wasm"]),
    "reveal.js": ("dist", ["**/*"]),
    "katex": ("dist", ["katex.min.js", "katex.min.css", "katex.mjs", "contrib/*.min.js",
                        "contrib/*.mjs", "fonts/*.woff2"]),
}


class BuildError(RuntimeError):
    """An input of the site build is missing or broken; the message names it."""


def vendor(staging: Path, node_modules: Path = NODE_MODULES) -> None:
    """node_modules/<package>/<sub>/<patterns> -> site/vendor/<package>/."""
    for package, (sub, patterns) in VENDOR.items():
        src = node_modules / package / sub
        if not src.is_dir():
            raise BuildError(f"npm package missing: {src} (run `npm ci`, which `make site` does)")
        dest = staging / "vendor" / package.removesuffix(".js")
        for pattern in patterns:
            for f in sorted(src.glob(pattern)):
                if f.is_file():
                    target = dest / f.relative_to(src)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(f, target)
        license_file = node_modules / package / "LICENSE"
        if license_file.exists():
            shutil.copy2(license_file, dest / "LICENSE")


def copy_web(staging: Path, web: Path = WEB) -> None:
    """web/<part>/ -> site/<part>/ (lab/, core/, widgets/, ...)."""
    if web.is_dir():
        shutil.copytree(web, staging, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.test.*", "__pycache__", "README.md"))


def copy_export(staging: Path, export_dir: Path) -> None:
    """build/export/* (ONNX files, metadata.json, parity.json, vocab.json, presets.json) -> site/onnx/."""
    if not export_dir.is_dir():
        raise BuildError(f"export output missing: {export_dir} (run `python -m export`)")
    shutil.copytree(export_dir, staging / SITE_ONNX, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.tmp", "cache*.json"))
