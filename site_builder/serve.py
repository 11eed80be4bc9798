"""python -m site_builder.serve: serve build/site on localhost and rebuild the
site (never the models or the export) when content/, site_builder/templates,
site_builder/static, web/ or build/tables change. A failed rebuild prints its
message and keeps serving the previous site; during the swap of a finished
rebuild, files are served from the previous site (.site.old) so no request
sees a missing site."""

from __future__ import annotations

import argparse
import errno
import functools
import http.server
import os
import sys
import threading
import time
from pathlib import Path

from common.publish import old_dir

from .__main__ import parse_args
from .assemble import BuildError
from .build import HERE, Inputs, build


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


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".onnx": "application/octet-stream",
    }

    def log_message(self, *args):
        pass

    def translate_path(self, path: str) -> str:
        """The file under the site; mid-swap (the site renamed away, the new one
        not yet in place) the same file in the previous site."""
        here = super().translate_path(path)
        site = Path(self.directory)
        previous = old_dir(site) / os.path.relpath(here, site)
        for _ in range(5):  # a few tries: the swap may be between its steps
            for candidate in (here, previous):
                if os.path.exists(candidate):
                    return str(candidate)
            time.sleep(0.002)
        return here

    def copyfile(self, source, outputfile):
        # count the response bodies sent (server.bytes_sent), for the byte budgets of tests and `make bench`
        before = source.tell()
        super().copyfile(source, outputfile)
        with self.server.count_lock:
            self.server.bytes_sent += source.tell() - before


def start_server(directory: Path, port: int = 0):
    """Serve ``directory`` on 127.0.0.1 in a background thread (port 0: any free
    port); returns (server, base_url). Call server.shutdown() to stop.
    server.bytes_sent counts the bytes of the file bodies served so far."""
    handler = functools.partial(Handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.bytes_sent, server.count_lock = 0, threading.Lock()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m site_builder.serve", description=__doc__)
    p.add_argument("--port", type=int, default=8000)
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
