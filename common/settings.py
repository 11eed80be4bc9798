"""The project's paths, in one place: the repo root, the models folder and
the build folders. Everything downstream (models/, export/, site_builder/,
tests) imports these instead of repeating them.

The course's settings (context width, vocabulary size, model sizes, training
protocol, decoding) live in common/config.py.
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
