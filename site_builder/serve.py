"""python -m site_builder.serve: serve build/site on localhost and keep it
current while you edit. Every second it looks at the inputs and code of every
build stage (common/stages.py: content/, web/, site_builder/, export/tables/,
export/, models/, notebooks/, data/, bench/bench.json, ...); when one changed,
the build runner (common/runner.py) reruns the first stale stage and every
later stage whose inputs that changed (editing a figure's code under
export/tables reruns the tables, then the site). A failed rerun prints its
message and keeps serving the previous site; during the swap of a finished
rebuild, files are served from the previous site (.site.old) so no request
sees a missing site. Site options (--content, --no-export, ...) are passed to
the site stage. The server itself (caching headers, ranges, timeouts):
site_builder/static_server.py."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import sys
import threading
import time

from common.runner import Runner
from common.settings import BUILD_DIR, ROOT
from common.stages import STAGES

from .__main__ import parse_args
from .build import Inputs
from .static_server import start_server

# start_server: the tests' and the benchmark's server
__all__ = ["main", "rebuild", "runner_for", "start_server", "watch"]


def runner_for(inp: Inputs, site_args: list[str]) -> Runner:
    """The build runner with the site stage built as these options ask (its
    inputs include the folders they name, its output is their --out)."""
    stages = []
    for stage in STAGES:
        if stage.name == "site":
            named = [p for p in (inp.content, inp.tables, inp.export, inp.web) if p is not None]
            named += [inp.notebooks / "*.ipynb"] if inp.notebooks is not None else []  # what the site copies
            stage = dataclasses.replace(
                stage,
                args=tuple(site_args),
                inputs=tuple(dict.fromkeys([*stage.inputs, *(str(p) for p in named)])),
                outputs=(str(inp.out),),
            )
        stages.append(stage)
    return Runner(stages, root=ROOT)


def rebuild(runner: Runner) -> bool:
    started = time.monotonic()
    code = runner.run()
    if code != 0:
        print(f"build failed (exit status {code}); still serving the previous site", file=sys.stderr, flush=True)
        return False
    print(f"up to date in {time.monotonic() - started:.1f} s", flush=True)
    return True


def watch(runner: Runner, interval: float, stop: threading.Event, before: dict | None = None) -> None:
    """Poll the stages' inputs (``before``: what they were when serving began);
    on a change, rerun what is stale. Files a rerun writes itself (under build/)
    are looked at again too, so an edit made during a rerun is never missed;
    a pass that finds only those reruns nothing and says nothing."""
    build = str(BUILD_DIR.relative_to(ROOT)) + "/"
    before = runner.watched() if before is None else before
    while not stop.wait(interval):
        now = runner.watched()
        if now == before:
            continue
        changed = sorted(k for k in now.keys() | before.keys() if now.get(k) != before.get(k))
        edited = [k for k in changed if not k.startswith(build)]
        before = now
        if edited:
            print(f"changed: {edited[0]}" + (f" (+{len(edited) - 1})" if len(edited) > 1 else ""), flush=True)
        elif not runner.stale():
            continue  # only the last rerun's own outputs moved
        rebuild(runner)


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return port


INTERVAL_S = (0.05, 3600.0)  # the watcher's poll interval: below it the polling spins the CPU


def interval_seconds(text: str) -> float:
    """--interval: a finite number of seconds within INTERVAL_S."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    low, high = INTERVAL_S
    if not low <= seconds <= high:  # False for NaN too
        raise argparse.ArgumentTypeError(f"{text!r} is not an interval in seconds ({low:g} to {high:g})")
    return seconds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m site_builder.serve", description=__doc__)
    p.add_argument("--port", type=port_number, default=8000, help="0 to 65535 (0: any free port)")
    p.add_argument(
        "--interval", type=interval_seconds, default=1.0, help="seconds between checks for changes (0.05 to 3600)"
    )
    args, rest = p.parse_known_args(argv)
    inp = parse_args(rest)
    runner = runner_for(inp, rest)
    if not (inp.out / "index.html").exists() and not rebuild(runner):
        return 1
    try:
        server, url = start_server(inp.out, args.port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            print(
                f"error: port {args.port} is already in use (another `make serve`?); "
                f"choose another: `make serve PORT={args.port + 1}`",
                file=sys.stderr,
            )
        else:
            print(f"error: cannot serve on 127.0.0.1:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    stop = threading.Event()
    watched = runner.watched()  # before the "serving" line: an edit made after it is always seen
    threading.Thread(target=watch, args=(runner, args.interval, stop, watched), daemon=True).start()
    print(f"serving {inp.out} at {url}/ (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
