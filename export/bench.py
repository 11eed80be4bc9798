"""`make bench` (python -m export.bench): time the lab in a real browser.

Serves the built site (build/site), opens the lab in Chromium once per
runtime (WASM, WebGPU) and records, per model: the median browser time of one
model call, the lab's ready time (download + verification + session creation
+ warm-up of all three models) and the time per generated token; next to it,
onnxruntime's CPU time per call from Python on the same ONNX files in the same
run. Writes export/benchmarks/bench.json with a description of the machine.

Not a test: the numbers depend on the machine. On a machine without a GPU,
WebGPU runs on SwiftShader, a CPU emulation, and says so in the adapter info.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import http.server
import json
import os
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

from models.settings import HELD_OUT_PRESET, ROOT, SITE_DIR as SITE, SITE_ONNX
OUT = ROOT / "export" / "benchmarks" / "bench.json"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic", "--enable-unsafe-webgpu", "--enable-features=Vulkan",
         "--use-angle=swiftshader", "--use-webgpu-adapter=swiftshader", "--enable-unsafe-swiftshader"]
BACKENDS = ("wasm", "webgpu")


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript"}

    def log_message(self, *args):
        pass


def serve(directory: Path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def ort_cpu_ms(path: Path, runs: int) -> dict:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    ids = np.zeros((1, 64), dtype=np.int64)
    ids[0, -6:] = [1, 5, 6, 7, 8, 9]
    for _ in range(5):
        session.run(None, {"context_ids": ids})
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        session.run(None, {"context_ids": ids})
        times.append((time.perf_counter() - t) * 1000)
    return {"median_ms": statistics.median(times), "runs": runs,
            "intra_op_threads": session.get_session_options().intra_op_num_threads or os.cpu_count()}


def evaluate(page, body: str, arg=None, timeout_s: int = 900):
    return page.evaluate(f"""async (arg) => Promise.race([(async () => {{ {body} }})(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), {timeout_s * 1000}))])""", arg)


def browser_backend(browser, url: str, backend: str, runs: int, prompt: str, tokens: int, repeats: int) -> dict:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    t = time.perf_counter()
    page.goto(f"{url}/lab/?backend={backend}")
    status = evaluate(page, "return await window.lab.ready;")
    wall_ready = (time.perf_counter() - t) * 1000
    if not status.get("ok") or status.get("backend") != backend:
        context.close()
        return {"available": False, "reason": status.get("error") or status.get("fallback_reason")
                or f"runtime resolved to {status.get('backend')}"}
    out = {"available": True, "ready_ms": status["ready_ms"], "ready_ms_since_navigation": status["page_ms"],
           "ready_wall_ms": wall_ready, "adapter": status.get("adapter"), "models": {}}
    for kind, m in status["models"].items():
        bench = evaluate(page, "return await window.lab.benchmark(arg.kind, {backend: arg.backend, runs: arg.runs});",
                         {"kind": kind, "backend": backend, "runs": runs})
        out["models"][kind] = {"median_ms_per_call": bench["median_ms"], "calls_timed": runs,
                               "download_ms": m["download_ms"], "session_ms": m["create_ms"],
                               "warmup_ms": m["warmup_ms"], "bytes": m["bytes"]}
    per_token: dict[str, list[float]] = {k: [] for k in out["models"]}
    per_call: dict[str, list[float]] = {k: [] for k in out["models"]}
    own: dict[str, list[float]] = {k: [] for k in out["models"]}
    for _ in range(repeats):
        result = evaluate(page, "return await window.lab.generate(arg);",
                          {"prompt": prompt, "mode": "greedy", "limit": tokens, "backend": backend})
        for kind, r in result["models"].items():
            per_token[kind].append(r["total_ms"] / max(1, r["new_tokens"]))
            per_call[kind].append(r["median_ms"])
            own[kind].append(r["compute_ms"] / max(1, r["new_tokens"]))
    for kind in out["models"]:
        out["models"][kind]["ms_per_generated_token"] = statistics.median(per_token[kind])
        out["models"][kind]["own_ms_per_generated_token"] = statistics.median(own[kind])
        out["models"][kind]["median_ms_per_call_while_generating"] = statistics.median(per_call[kind])
    out["generation"] = {"prompt": prompt, "mode": "greedy", "limit": tokens, "repeats": repeats,
                         "note": "the three models generate together, one model call at a time: ms_per_generated_token "
                                 "is the wall time of the whole generation divided by the model's new tokens "
                                 "(it includes waiting for the other two); own_ms_per_generated_token counts "
                                 "only the model's own calls"}
    out["page_errors"] = errors
    context.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m export.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", type=Path, default=SITE)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--runs", type=int, default=30, help="timed calls per model and runtime")
    ap.add_argument("--tokens", type=int, default=24, help="token limit of the timed generations")
    ap.add_argument("--repeats", type=int, default=3, help="timed generations per runtime")
    ap.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=BACKENDS)
    args = ap.parse_args(argv)

    metadata_path = args.site / SITE_ONNX / "metadata.json"
    if not (args.site / "lab" / "index.html").is_file() or not metadata_path.is_file():
        print(f"bench: error: no built lab in {args.site} (run `make site`)", file=sys.stderr)
        return 2
    metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    presets = json.loads((args.site / SITE_ONNX / "presets.json").read_text(encoding="utf-8"))
    prompt = next((p["prompt"] for p in presets if p["id"] == HELD_OUT_PRESET), presets[0]["prompt"])

    from playwright.sync_api import sync_playwright

    server, url = serve(args.site)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            chromium_version = browser.version
            browser_results = {}
            for backend in args.backends:
                print(f"bench: browser, {backend}", flush=True)
                browser_results[backend] = browser_backend(browser, url, backend, args.runs, prompt,
                                                           args.tokens, args.repeats)
            browser.close()
    finally:
        server.shutdown()

    print("bench: onnxruntime CPU (Python)", flush=True)
    ort_cpu = {kind: ort_cpu_ms(args.site / SITE_ONNX / metadata["models"][kind]["file"], args.runs * 10)
               for kind in metadata["order"]}
    import onnxruntime

    ort_web = json.loads((ROOT / "node_modules" / "onnxruntime-web" / "package.json").read_text())["version"]
    models = {}
    for kind in metadata["order"]:
        row = {"label": metadata["models"][kind]["label"], "parameters": metadata["models"][kind]["parameters"],
               "onnxruntime_cpu_ms_per_call": ort_cpu[kind]["median_ms"]}
        for backend, res in browser_results.items():
            if res.get("available"):
                row[backend] = res["models"][kind]
                # flat copies for tables that read scalar fields only
                row[f"{backend}_median_ms_per_call"] = res["models"][kind]["median_ms_per_call"]
                row[f"{backend}_ms_per_generated_token"] = res["models"][kind]["ms_per_generated_token"]
        models[kind] = row
    adapter = (browser_results.get("webgpu") or {}).get("adapter")
    report = {
        "measured_at": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(), "chromium": chromium_version,
                    "webgpu_adapter": " ".join(v for v in (adapter or {}).values() if v) or None},
        "method": (f"Chromium {chromium_version}, headless, lab page served from localhost; per runtime a fresh "
                   f"page: ready time = download + SHA-256 check + session creation + warm-up of all three "
                   f"models; ms per call = median of {args.runs} single-context calls after warm-up; ms per "
                   f"generated token = median over {args.repeats} greedy generations of {args.tokens} tokens "
                   f"(three models interleaved); onnxruntime CPU = Python onnxruntime, median of "
                   f"{args.runs * 10} calls, batch 1."),
        "chromium": chromium_version,
        "onnxruntime_web": ort_web,
        "onnxruntime_python": onnxruntime.__version__,
        "onnxruntime_cpu": {"runs_per_model": args.runs * 10,
                            "intra_op_threads": ort_cpu[metadata["order"][0]]["intra_op_threads"]},
        "runtimes": {b: {k: v for k, v in r.items() if k != "models"} for b, r in browser_results.items()},
        "models": models,
        "batch": 1,
        "context": metadata["context"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"bench: wrote {args.out}")
    for kind, row in models.items():
        parts = [f"ORT CPU {row['onnxruntime_cpu_ms_per_call']:.2f} ms"]
        for backend in BACKENDS:
            if backend in row:
                parts.append(f"{backend} {row[backend]['median_ms_per_call']:.2f} ms/call, "
                             f"{row[backend]['ms_per_generated_token']:.1f} ms/token")
        print(f"  {kind:6s} " + "; ".join(parts))
    for backend, r in browser_results.items():
        print(f"  {backend} lab ready in {r['ready_ms']:.0f} ms" if r.get("available")
              else f"  {backend} unavailable: {r['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
