"""python -m site_builder.serve: serve build/site on localhost and rebuild the
site (never the models or the export) when content/, site_builder/templates,
site_builder/static, web/ or build/tables change. A failed rebuild prints its
message and keeps serving the previous site; during the swap of a finished
rebuild, files are served from the previous site (.site.old) so no request
sees a missing site. The server itself (caching headers, ranges, timeouts):
site_builder/static_server.py."""

from __future__ import annotations

import argparse
import errno
import sys
import threading
import time

from .__main__ import parse_args
from .assemble import BuildError
from .build import HERE, Inputs, build
from .static_server import start_server

__all__ = ["main", "rebuild", "start_server", "watch"]  # start_server: the tests' and the benchmark's server


def watched_files(inp: Inputs) -> dict[str, float]:
    stamps = {}
    for folder in (inp.content, HERE / "templates", HERE / "static", inp.web, inp.tables):
        if folder.is_dir():
            for path in folder.rglob("*"):
                if path.is_file():
                    stamps[str(path)] = path.stat().st_mtime_ns
    return stamps


def rebuild(inp: Inputs) -> bool:
    started = time.monotonic()
    try:
        build(inp)
    except BuildError as exc:
        print(f"build failed: {exc} (still serving the previous site)", file=sys.stderr, flush=True)
        return False
    print(f"rebuilt in {time.monotonic() - started:.1f} s", flush=True)
    return True


def watch(inp: Inputs, interval: float, stop: threading.Event) -> None:
    before = watched_files(inp)
    while not stop.wait(interval):
        now = watched_files(inp)
        if now != before:
            changed = sorted(set(now.items()) ^ set(before.items()))
            print(f"changed: {changed[0][0]}" + (f" (+{len(changed) - 1})" if len(changed) > 1 else ""), flush=True)
            rebuild(inp)
            before = watched_files(inp)


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return port


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m site_builder.serve", description=__doc__)
    p.add_argument("--port", type=port_number, default=8000, help="0 to 65535 (0: any free port)")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between checks for changes")
    args, rest = p.parse_known_args(argv)
    inp = parse_args(rest)
    if not (inp.out / "index.html").exists() and not rebuild(inp):
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
    threading.Thread(target=watch, args=(inp, args.interval, stop), daemon=True).start()
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
