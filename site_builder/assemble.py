"""Copy the static parts of the site into a staging folder: browser code from
web/, the export (ONNX files and their JSON) and the vendored npm libraries."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from common.publish import MARKER
from common.settings import ROOT, SITE_ONNX

WEB = ROOT / "web"
NODE_MODULES = ROOT / "node_modules"

# The onnxruntime-web builds the lab loads, one per runtime: (ES module, its
# Emscripten glue, its WebAssembly). The worker loads only the build of the
# runtime it uses. For WebGPU the JSPI build of the WebGPU execution provider
# (16.8 MB of .wasm in 1.30.0) works in Chromium and is the smallest: the JSEP
# build (ort.min.mjs) is 28.3 MB and the asyncify one (ort.webgpu.min.mjs) 26.8 MB.
ORT_BUILDS = {
    "wasm": ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"),
    "webgpu": ("ort.jspi.min.mjs", "ort-wasm-simd-threaded.jspi.mjs", "ort-wasm-simd-threaded.jspi.wasm"),
}
RUNTIME_MANIFEST = "runtimes.json"

# A host types a file by its name, and many know no `.mjs` (Debian's stock
# nginx sends application/octet-stream, which a browser refuses for a module):
# the ES modules are vendored under a `.js` name, which every host's table
# types as JavaScript, and the lab names the glue itself (env.wasm.wasmPaths,
# web/lab/runtime.js). `.esm.js`, not `.js`: the package's own ort.wasm.min.js
# is another file (its script-tag build).
MODULE_SUFFIX = ".esm.js"


def served_name(name: str) -> str:
    """The name a vendored file has in the site: an ES module's `.mjs` becomes `.esm.js`."""
    return name.removesuffix(".mjs") + MODULE_SUFFIX if name.endswith(".mjs") else name


# npm package -> (folder inside the package, glob patterns copied to vendor/<name>/)
VENDOR = {
    "onnxruntime-web": ("dist", sorted({f for files in ORT_BUILDS.values() for f in files})),
    "reveal.js": ("dist", ["**/*"]),
    "katex": ("dist", ["katex.min.js", "katex.min.css", "contrib/*.min.js", "fonts/*.woff2"]),
}
# reveal.js's and KaTeX's ES module builds: no page imports them (the decks load
# reveal's script build), and a host that does not know `.mjs` would serve them untyped.
SKIPPED = (".mjs", ".mjs.map")


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
                if f.is_file() and (package == "onnxruntime-web" or not f.name.endswith(SKIPPED)):
                    target = dest / f.relative_to(src).with_name(served_name(f.name))
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(f, target)
        license_file = node_modules / package / "LICENSE"
        if license_file.exists():
            shutil.copy2(license_file, dest / "LICENSE")


def write_runtime_manifest(staging: Path, node_modules: Path = NODE_MODULES) -> None:
    """vendor/onnxruntime-web/runtimes.json: per runtime its files, and the size
    and SHA-256 of its .wasm, so the lab states the download size before it
    starts and checks the runtime it reads back from its offline cache."""
    folder = staging / "vendor" / "onnxruntime-web"
    package = json.loads((node_modules / "onnxruntime-web" / "package.json").read_text(encoding="utf-8"))
    builds = {}
    for runtime, (module, glue, wasm) in ORT_BUILDS.items():
        data = (folder / wasm).read_bytes()
        builds[runtime] = {
            "module": served_name(module),
            "glue": served_name(glue),
            "wasm": wasm,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    manifest = {"package": "onnxruntime-web", "version": package["version"], "builds": builds}
    (folder / RUNTIME_MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def copy_web(staging: Path, web: Path = WEB) -> None:
    """web/<part>/ -> site/<part>/ (lab/, core/, widgets/, ...). The copies get
    the time of the build (not the sources' old times, from which a browser
    would guess that a file is fresh for hours)."""
    if web.is_dir():
        shutil.copytree(
            web,
            staging,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("*.test.*", "__pycache__", "README.md"),
            copy_function=shutil.copyfile,
        )


def copy_export(staging: Path, export_dir: Path) -> None:
    """build/export/* (ONNX files, metadata.json, parity.json, vocab.json, presets.json) -> site/onnx/."""
    if not export_dir.is_dir():
        raise BuildError(f"export output missing: {export_dir} (run `python -m export`)")
    shutil.copytree(
        export_dir,
        staging / SITE_ONNX,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("*.tmp", "cache*.json", MARKER),
    )
