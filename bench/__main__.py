"""`make bench` (python -m bench): measure the built lab in a real browser.

Serves build/site with the project's one static server (site_builder.serve),
opens the lab in Chromium launched as the tests launch it (common.chromium: WASM
in a browser without the SwiftShader flags, as on a machine without WebGPU,
since SwiftShader's software compositing would share the CPU with the model
calls; WebGPU and the automatic choice with them) and records, per runtime
(WASM, WebGPU): the bytes of a first and a second visit, the time to ready
and to the first token, the median ms of one model call, and the wall time per
generated token of the three-model loop against the models' median call time
(the ratio) and to the time their calls took in the same generations
(ratio_to_calls); once more for the automatic choice over a link throttled to
20 Mbit/s (CDP network emulation), where the time to the first usable model
(progressive readiness) is recorded beside the time all three are ready; and,
in the same run, onnxruntime's CPU
time per call from Python on the same ONNX files. Writes
bench/bench.json with a description of the machine; `python -m export.tables`
reads it (the results deck shows it).

Not a test: the numbers depend on the machine. Without a GPU, WebGPU runs on
SwiftShader, a CPU emulation, and the adapter info says so.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from common.chromium import launch
from common.config import CONFIG
from common.settings import BENCH_FILE, SITE_DIR, SITE_ONNX
from export.decoding import context_window, start_history
from site_builder.assemble import ORT_BUILDS
from site_builder.serve import start_server

from . import blocking, lab, pages

OUT = BENCH_FILE
BACKENDS = tuple(ORT_BUILDS)  # the lab's runtimes: one onnxruntime-web build each
# The prompt of every timed call, as the lab's (web/lab/shared.js TIMING_IDS):
# BOS and these IDs, left-padded with PAD to the context width.
TIMING_IDS = (5, 6, 7, 8, 9)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def median_ms(times: list[float]) -> float:
    """The median of the timed calls, as the record names it (a mean would let one slow call move it)."""
    return statistics.median(times)


def ort_cpu_ms(path: Path, runs: int, context: int) -> dict:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    ids = np.array([context_window(start_history(TIMING_IDS), context)], dtype=np.int64)
    for _ in range(5):
        session.run(["logits"], {"context_ids": ids})
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        session.run(["logits"], {"context_ids": ids})
        times.append((time.perf_counter() - t) * 1000)
    return {
        "median_ms": median_ms(times),
        "runs": runs,
        "intra_op_threads": session.get_session_options().intra_op_num_threads or os.cpu_count(),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--site", type=Path, default=SITE_DIR)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--runs", type=int, default=30, help="timed calls per model and runtime")
    ap.add_argument("--tokens", type=int, default=24, help="token limit of the timed generations")
    ap.add_argument("--repeats", type=int, default=5, help="timed generations per runtime")
    ap.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=BACKENDS)
    ap.add_argument("--mbit", type=float, default=20.0, help="throttled link speed, Mbit/s (0: skip)")
    ap.add_argument("--latency", type=float, default=20.0, help="throttled link latency, ms")
    ap.add_argument(
        "--only-throttled",
        action="store_true",
        help="measure only the throttled first visit and replace that record in the existing --out file",
    )
    ap.add_argument(
        "--only-pages",
        action="store_true",
        help="measure only the decks' first paint and blocking (bench/pages.py) and replace that record in --out",
    )
    ap.add_argument(
        "--only-blocking",
        action="store_true",
        help="measure only the main-thread blocking of the lab's longest calls (bench/blocking.py) "
        "and replace that record in --out",
    )
    ap.add_argument("--page-runs", type=int, default=3, help="visits per deck (the median is recorded)")
    args = ap.parse_args(argv)
    if not 1 <= args.page_runs <= 20:
        print(f"bench: error: --page-runs {args.page_runs}: give 1 to 20 visits", file=sys.stderr)
        return 2
    if args.only_throttled:
        return only_throttled(args)
    if args.only_pages:
        return only_pages(args)
    if args.only_blocking:
        return only_blocking(args)

    metadata_path = args.site / SITE_ONNX / "metadata.json"
    if not (args.site / "lab" / "index.html").is_file() or not metadata_path.is_file():
        print(f"bench: error: no built lab in {args.site} (run `make site`)", file=sys.stderr)
        return 2
    metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    presets = json.loads((args.site / SITE_ONNX / "presets.json").read_text(encoding="utf-8"))
    prompt = next((p["prompt"] for p in presets if p["id"] == CONFIG.decoding.held_out_preset), presets[0]["prompt"])

    from playwright.sync_api import sync_playwright

    server, url = start_server(args.site)
    try:
        with sync_playwright() as p:
            runtimes = {}
            for backend in args.backends:
                print(f"bench: browser, {backend}", flush=True)
                browser = launch(p, backend)  # the variants are named after the backends
                runtimes[backend] = lab.runtime(
                    browser, server, url, backend, prompt, metadata["order"], args.runs, args.tokens, args.repeats
                )
                browser.close()
            browser = launch(p, "webgpu")
            chromium_version = browser.version
            throttled = None
            if args.mbit:
                print(f"bench: browser, automatic choice over {args.mbit:g} Mbit/s", flush=True)
                throttled = lab.throttled(browser, server, url, "auto", prompt, args.mbit, args.latency)
            browser.close()
            print("bench: the main-thread blocking of the lab's longest calls (WASM)", flush=True)
            browser = launch(p, "wasm")
            long_calls = blocking.blocking(browser, url, "wasm", prompt)
            browser.close()
            print("bench: decks, behind nginx + gzip, CPU slowed 4x", flush=True)
            browser = launch(p, "wasm")
            page_figures = pages.decks(browser, args.site, deck_slugs(args.site), args.page_runs)
            browser.close()
    finally:
        server.shutdown()

    print("bench: onnxruntime CPU (Python)", flush=True)
    ort_cpu = {
        kind: ort_cpu_ms(args.site / SITE_ONNX / metadata["models"][kind]["file"], args.runs * 10, metadata["context"])
        for kind in metadata["order"]
    }
    import onnxruntime

    manifest = json.loads((args.site / "vendor" / "onnxruntime-web" / "runtimes.json").read_text(encoding="utf-8"))
    models = {}
    for kind in metadata["order"]:
        row = {
            "label": metadata["models"][kind]["label"],
            "parameters": metadata["models"][kind]["parameters"],
            "onnxruntime_cpu_ms_per_call": ort_cpu[kind]["median_ms"],
        }
        for backend, res in runtimes.items():
            if res.get("available"):
                row[backend] = res["models"][kind]
        models[kind] = row
    for res in runtimes.values():
        res.pop("models", None)  # now under models[kind][runtime]
    adapter = (runtimes.get("webgpu") or {}).get("adapter")
    report = {
        "measured_at": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "chromium": chromium_version,
            "webgpu_adapter": " ".join(v for v in (adapter or {}).values() if v) or None,
        },
        "method": (
            f"Chromium {chromium_version}, headless, the built site served from localhost by "
            f"site_builder.serve; per runtime a fresh browser (WASM without the SwiftShader flags, as a browser "
            f"without WebGPU; WebGPU and the automatic choice with them) and profile: first visit = navigation to "
            f"the lab "
            f"until lab.ready (download, SHA-256 check, sessions, warm-up) and one greedy token from each "
            f"model; bytes = response bodies served; second visit = the same page again, online, with the "
            f"offline copy in place; ms per call = median of {args.runs} single-context calls; ms per token "
            f"= wall time of a {args.tokens}-token greedy generation of the three models over its steps, "
            f"median of {args.repeats}, against the sum of the three models' own median call times "
            f"(the ratio), and against the time the three models' calls took in those same generations "
            f"(ratio_to_calls: what the loop itself adds); throttled = the automatic choice over CDP network "
            f"emulation at {args.mbit:g} "
            f"Mbit/s and {args.latency:g} ms latency, with the time to the first usable model (its own file "
            f"checked and its session warmed up) beside the time to all three; "
            f"onnxruntime CPU = Python onnxruntime, median of "
            f"{args.runs * 10} calls, batch 1."
        ),
        "chromium": chromium_version,
        "onnxruntime_web": manifest["version"],
        "onnxruntime_web_builds": {
            b: {"module": v["module"], "wasm": v["wasm"], "bytes": v["bytes"]} for b, v in manifest["builds"].items()
        },
        "onnxruntime_python": onnxruntime.__version__,
        "onnxruntime_cpu": {
            "runs_per_model": args.runs * 10,
            "intra_op_threads": ort_cpu[metadata["order"][0]]["intra_op_threads"],
        },
        "runtimes": runtimes,
        "throttled": throttled,
        "blocking": long_calls,
        "pages": {"decks": page_figures},
        "models": models,
        "batch": 1,
        "context": metadata["context"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"bench: wrote {args.out}")
    for kind, row in models.items():
        parts = [f"ORT CPU {row['onnxruntime_cpu_ms_per_call']:.2f} ms/call"]
        parts += [f"{b} {row[b]['median_ms_per_call']:.2f} ms/call" for b in BACKENDS if b in row]
        print(f"  {kind:6s} " + "; ".join(parts))
    for backend, r in runtimes.items():
        if not r.get("available"):
            print(f"  {backend} unavailable: {r['reason']}")
            continue
        loop = r["loop"]
        print(
            f"  {backend}: first visit {r['first_visit_bytes'] / 1e6:.1f} MB, ready {r['ready_ms'] / 1000:.1f} s, "
            f"first token {r['first_token_ms'] / 1000:.1f} s; second visit {r['second_visit_bytes'] / 1e6:.2f} MB, "
            f"ready {r['second_visit_ready_ms'] / 1000:.1f} s; {loop['ms_per_token']:.1f} ms/token vs "
            f"{loop['own_ms_per_token']:.2f} ms of median model calls (ratio {loop['ratio']:.1f}), "
            f"{loop['calls_ms_per_token']:.2f} ms of calls as timed in those runs (ratio {loop['ratio_to_calls']:.2f})"
        )
    if throttled:
        print_throttled(throttled)
    print_blocking(long_calls)
    return 0


def print_blocking(record: dict) -> None:
    for call in ("generation", "score", "attention_steps"):
        r = record[call]
        size = f"{r['new_tokens']} new tokens" if call == "generation" else f"{r['tokens']:,} tokens"
        print(f"  {call} ({size}): longest main-thread task {r['longest_task_ms']} ms in {r['wall_ms'] / 1000:.1f} s")


def print_throttled(throttled: dict) -> None:
    print(
        f"  automatic at {throttled['mbit_s']:g} Mbit/s ({throttled['backend']}): "
        f"{throttled['first_visit_bytes'] / 1e6:.1f} MB, "
        f"first model ready {throttled['first_model_ready_ms'] / 1000:.1f} s, "
        f"all ready {throttled['ready_ms'] / 1000:.1f} s, first token {throttled['first_token_ms'] / 1000:.1f} s; "
        f"second visit ready {throttled['second_visit_ready_ms'] / 1000:.1f} s"
    )


def replace_record(args, key: str, measure) -> dict:
    """Measure one record alone, ``measure(playwright, server, url, prompt)``, and
    replace ``key`` of the existing --out with it; the rest stays as it was measured."""
    report = json.loads(args.out.read_text(encoding="utf-8"))
    presets = json.loads((args.site / SITE_ONNX / "presets.json").read_text(encoding="utf-8"))
    prompt = next((p["prompt"] for p in presets if p["id"] == CONFIG.decoding.held_out_preset), presets[0]["prompt"])
    from playwright.sync_api import sync_playwright

    server, url = start_server(args.site)
    try:
        with sync_playwright() as p:
            record = measure(p, server, url, prompt)
    finally:
        server.shutdown()
    record["measured_at"] = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    report[key] = record
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"bench: wrote the {key} record of {args.out}")
    return record


def only_throttled(args) -> int:
    """Re-measure the throttled first visit alone (it changed with the lab's loading) and
    replace that record of an existing bench.json; the rest stays as it was measured."""
    if not args.out.is_file() or not args.mbit:
        print(f"bench: error: --only-throttled needs an existing {args.out} and --mbit > 0", file=sys.stderr)
        return 2

    def measure(p, server, url, prompt):
        browser = launch(p, "webgpu")
        print(f"bench: browser, automatic choice over {args.mbit:g} Mbit/s", flush=True)
        try:
            return lab.throttled(browser, server, url, "auto", prompt, args.mbit, args.latency)
        finally:
            browser.close()

    print_throttled(replace_record(args, "throttled", measure))
    return 0


def only_blocking(args) -> int:
    """Measure the lab's longest calls alone (bench/blocking.py) and replace that record of an existing bench.json."""
    if not args.out.is_file():
        print(f"bench: error: --only-blocking needs an existing {args.out}", file=sys.stderr)
        return 2

    def measure(p, server, url, prompt):
        browser = launch(p, "wasm")
        print("bench: the main-thread blocking of the lab's longest calls (WASM)", flush=True)
        try:
            return blocking.blocking(browser, url, "wasm", prompt)
        finally:
            browser.close()

    print_blocking(replace_record(args, "blocking", measure))
    return 0


def deck_slugs(site: Path) -> list[str]:
    return sorted(p.stem for p in (site / "decks").glob("*.html"))


def only_pages(args) -> int:
    """Measure the decks alone (bench/pages.py) and replace that record of an existing bench.json."""
    if not args.out.is_file():
        print(f"bench: error: --only-pages needs an existing {args.out}", file=sys.stderr)
        return 2
    report = json.loads(args.out.read_text(encoding="utf-8"))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p, "wasm")
        print("bench: decks, behind nginx + gzip, CPU slowed 4x", flush=True)
        figures = pages.decks(browser, args.site, deck_slugs(args.site), args.page_runs)
        browser.close()
    report["pages"] = {"measured_at": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(), "decks": figures}
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"bench: wrote the pages record of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
