"""Model sizes (parameters, checkpoint and ONNX file sizes) and the browser
measurements recorded in bench/bench.json (the benchmark stage, `make bench`)."""

from __future__ import annotations

from models.nets import KINDS, LABELS, count_parameters

from ..kit.registry import table
from ..kit.sources import InputError, Sources, file_absent

NOT_YET = "not measured yet"


def _metadata_entry(metadata, kind: str) -> dict | None:
    """The exporter's record of one model in build/export/metadata.json."""
    if not isinstance(metadata, dict):
        return None
    models = metadata.get("models", metadata)
    if isinstance(models, dict):
        entry = models.get(kind)
        return entry if isinstance(entry, dict) else None
    if isinstance(models, list):
        return next((m for m in models if isinstance(m, dict) and m.get("kind") == kind), None)
    return None


def _onnx_bytes(entry: dict | None):
    if entry is None:
        return None
    for key in ("onnx_bytes", "size_bytes", "bytes", "file_bytes"):
        value = entry.get(key)
        if isinstance(value, int):
            return value
    onnx = entry.get("onnx")
    if isinstance(onnx, dict):
        return _onnx_bytes(onnx)
    return None


def mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB"


@table("results_sizes", needs=["sources"])
def sizes(sources: Sources) -> dict:
    results = sources.results()
    metadata = sources.export_json("metadata.json")
    rows, models = [], []
    for kind in KINDS:
        loaded = sources.model(kind)
        runs = [r for r in (results or {}).get("runs", []) if r["kind"] == kind]
        params = count_parameters(loaded[0]) if loaded else (runs[0]["parameters"] if runs else None)
        weights = sources.folder.weights(kind)
        ckpt_bytes = weights.stat().st_size if loaded else None
        onnx_bytes = _onnx_bytes(_metadata_entry(metadata, kind))
        models.append(
            {
                "kind": kind,
                "label": LABELS[kind],
                "parameters": params,
                "fp32_bytes": params * 4 if params is not None else None,
                "checkpoint_bytes": ckpt_bytes,
                "onnx_bytes": onnx_bytes,
            }
        )
        rows.append(
            [
                LABELS[kind],
                f"{params:,}" if params is not None else NOT_YET,
                mib(params * 4) if params is not None else NOT_YET,
                mib(ckpt_bytes) if ckpt_bytes is not None else NOT_YET,
                mib(onnx_bytes) if onnx_bytes is not None else NOT_YET,
            ]
        )
    by_kind = {m["kind"]: m for m in models}
    return {
        "available": any(m["parameters"] is not None for m in models),
        "onnx_available": metadata is not None,
        "onnx_reason": None if metadata is not None else file_absent(sources.export_dir / "metadata.json")["reason"],
        "models": models,
        "by_kind": by_kind,
        "attention_models_equal": (
            by_kind["attn1"]["parameters"] == by_kind["attn4"]["parameters"]
            if by_kind["attn1"]["parameters"] is not None and by_kind["attn4"]["parameters"] is not None
            else None
        ),
        "header": ["model", "parameters", "32-bit floats", "checkpoint file", "ONNX file"],
        "rows": rows,
    }


def _ms(value) -> str:
    if value is None:
        return NOT_YET
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}" if value < 10 else f"{value:.1f}"


def _mb(n) -> str:
    return NOT_YET if n is None else f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def _s(ms) -> str:
    return NOT_YET if ms is None else f"{ms / 1000:.1f} s"


RUNTIME_LABELS = {"wasm": "WASM", "webgpu": "WebGPU"}


def shown_ratio(loop: dict, medians: list[float]) -> float:
    """The loop's ms per token over the sum of the models' median call times,
    both as the row shows them (rounded by ``_ms``), so that a reader who
    divides the row's numbers gets the bracket. (bench.json's own ``ratio``
    divides by the call times measured while generating, which the row does
    not show.)"""

    def shown(v: float) -> float:
        return float(_ms(v).replace(",", ""))

    return shown(loop["ms_per_token"]) / sum(shown(m) for m in medians)


@table("results_bench", needs=["sources"])
def benchmark(sources: Sources) -> dict:
    """bench/bench.json (written by `make bench`) as one row per way of running
    the lab: each browser runtime on localhost, the automatic choice over a
    throttled link, and onnxruntime CPU from Python for comparison. Columns:
    bytes and times of a first visit, bytes of a second visit, ms per model
    call, and the loop's ms per generated token with its ratio to the models'
    own call time."""
    bench = sources.bench()
    if bench is None:
        return file_absent(sources.bench_path)
    try:
        models, runtimes, machine = bench["models"], bench["runtimes"], bench["machine"]
        throttled = bench.get("throttled")
        names = [name for name in ("wasm", "webgpu") if runtimes.get(name, {}).get("available")]
        header = ["runtime", "first visit", "ready", "first token", "second visit"]
        header += [f"{LABELS[k]}, ms/call" for k in KINDS] + ["ms/token (× model calls)"]
        rows = []
        adapter = runtimes.get("webgpu", {}).get("adapter") or {}
        for name in names:
            r = runtimes[name]
            architecture = adapter.get("architecture") if name == "webgpu" else None
            label = f"{RUNTIME_LABELS[name]}{f' ({architecture})' if architecture else ''}, localhost"
            loop = r["loop"]
            medians = [models[k][name]["median_ms_per_call"] for k in KINDS]
            rows.append(
                [
                    label,
                    _mb(r["first_visit_bytes"]),
                    _s(r["ready_ms"]),
                    _s(r["first_token_ms"]),
                    _mb(r["second_visit_bytes"]),
                ]
                + [_ms(m) for m in medians]
                + [f"{_ms(loop['ms_per_token'])} ({shown_ratio(loop, medians):.1f}×)"]
            )
        if throttled:
            rows.append(
                [
                    f"automatic ({RUNTIME_LABELS.get(throttled['backend'], throttled['backend'])}), "
                    f"{throttled['mbit_s']:g} Mbit/s",
                    _mb(throttled["first_visit_bytes"]),
                    _s(throttled["ready_ms"]),
                    _s(throttled["first_token_ms"]),
                    _mb(throttled["second_visit_bytes"]),
                ]
                + ["—"] * len(KINDS)
                + ["—"]
            )
        rows.append(
            ["onnxruntime CPU (Python)", "—", "—", "—", "—"]
            + [_ms(models[k]["onnxruntime_cpu_ms_per_call"]) for k in KINDS]
            + ["—"]
        )
        ready = {name: runtimes[name]["ready_ms"] for name in names}
        loops = {name: runtimes[name]["loop"] for name in names}
    except (KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{sources.bench_path}: unexpected layout ({exc!r}); rerun `make bench`") from exc
    adapter_text = " ".join(str(adapter.get(k)) for k in ("vendor", "architecture") if adapter.get(k))
    machine_text = (
        f"{machine.get('cpu', 'unknown CPU')}, {machine.get('cores', '?')} cores, "
        f"Chromium {machine.get('chromium', '?')}, onnxruntime-web {bench.get('onnxruntime_web', '?')}"
        + (f", WebGPU adapter: {adapter_text}" if adapter_text else "")
    )
    return {
        "available": True,
        "machine": machine_text,
        "software_gpu": adapter.get("architecture") == "swiftshader",
        "sub_millisecond": any(models[k][n]["median_ms_per_call"] < 1 for k in KINDS for n in names),
        "measured_at": bench.get("measured_at"),
        "method": bench.get("method", ""),
        "ready_ms": ready,
        "ready_text": "; ".join(f"{RUNTIME_LABELS[n]} {ms / 1000:.1f} s" for n, ms in ready.items()),
        "loops": loops,
        "throttled": throttled,
        "header": header,
        "rows": rows,
    }
