"""How the project launches Chromium (through Playwright), for the browser
tests (tests/conftest.py and the lab tests) and the benchmark stage (bench/):
one executable, one set of flags, three variants.

WebGPU runs on SwiftShader, Chromium's CPU emulation of a GPU: slow but real,
so WebGPU parity is tested on any machine. Override the executable with the
CHROMIUM environment variable.
"""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BASE_FLAGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
WEBGPU_FLAGS = [
    "--enable-unsafe-webgpu",
    "--enable-features=Vulkan",
    "--use-angle=swiftshader",
    "--use-webgpu-adapter=swiftshader",
    "--enable-unsafe-swiftshader",
]
VARIANTS = {
    # WebGPU on SwiftShader (WASM works in it too): the tests' browser, bench's WebGPU and automatic runs
    "webgpu": WEBGPU_FLAGS,
    # no SwiftShader flags, as on a machine without WebGPU: bench's WASM run (software
    # compositing would otherwise share the CPU with the model calls)
    "wasm": [],
    # WebGPU switched off (no navigator.gpu): the tests of the automatic fallback to WASM
    "no-webgpu": ["--disable-blink-features=WebGPU"],
}


def launch(playwright, variant: str = "webgpu"):
    """A headless Chromium of ``variant`` (a key of VARIANTS) from a Playwright
    instance (``sync_playwright()``); the caller closes it."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=BASE_FLAGS + VARIANTS[variant])


def evaluate(page, body: str, arg=None, timeout_s: float = 300):
    """Run the async function body ``body`` in ``page`` (``arg`` is its argument)
    and return its result, failing (not hanging) after ``timeout_s`` seconds."""
    script = f"""async (arg) => {{
        const work = (async () => {{ {body} }})();
        const limit = new Promise((_, reject) =>
            setTimeout(() => reject(new Error('timed out after {timeout_s} s')), {int(timeout_s * 1000)}));
        return Promise.race([work, limit]);
    }}"""
    return page.evaluate(script, arg)
