"""How the project drives Chromium, for the browser tests (tests/conftest.py)
and the benchmark stage (bench/): one executable and one set of flags.

WebGPU runs on SwiftShader, Chromium's CPU emulation of a GPU: slow but real,
so WebGPU parity is tested on any machine. Override the executable with the
CHROMIUM environment variable."""

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
FLAGS = BASE_FLAGS + WEBGPU_FLAGS
