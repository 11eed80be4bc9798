"""The project's one static file server (python -m site_builder.serve, the
tests, python -m bench): build/site on 127.0.0.1, in a background thread.

What a browser needs from it, beyond http.server's defaults:
- Cache-Control per kind of file: pages, the service worker and every URL
  without the build's version are revalidated (no-cache); a URL stamped with
  the current build (?v=<build>, site_builder.versioning) never changes, so it
  is cached for a year (immutable); one stamped with another build is not
  stored at all, and it is answered 410 Gone (stale_build): its file is no
  longer that build's, and a page must not run another build's file.
- Links: a path whose links lead out of the site folder is answered 404.
- Range requests (one byte range: 206, or 416 when out of the file).
- A listen backlog for a page's burst of requests, an idle timeout so idle
  keep-alive sockets do not hold threads, no traceback when a client goes
  away, and a 400 (not a traceback) for an encoded NUL in the path.
- Revalidation by ETag (size and modification time in nanoseconds), never by
  Last-Modified alone: two builds within one second would otherwise answer
  "not modified" for a page that changed.
- During the swap of a rebuilt site, files come from the previous site
  (.site.old), so no request sees a missing site.
- Compression, as a static host does it: a text or WebAssembly file asked
  for whole by a client that accepts gzip goes gzipped (Content-Encoding,
  Vary; its own ETag), compressed once per file version and kept in memory.
  The ONNX models (float weights) go as they are: gzip barely shrinks them.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import json
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from common.publish import old_dir

from .versioning import VERSION_FILE

IDLE_TIMEOUT_S = 30  # a keep-alive connection with no request for this long is closed
BACKLOG = 256  # pending connections the socket accepts before the server takes them
IMMUTABLE = "public, max-age=31536000, immutable"
GZIPPED = (".wasm", ".mjs", ".js", ".json", ".html", ".css", ".svg", ".txt", ".ipynb")  # sent gzipped when accepted
GZIP_MIN_BYTES = 1024  # smaller files go as they are
OUTSIDE = ".no such file: a link out of the site"  # what a link out of the site is served as (404)
_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


def build_of(directory: Path) -> str | None:
    """The build id of the site in ``directory`` (its version.json), or None."""
    try:
        return json.loads((Path(directory) / VERSION_FILE).read_text(encoding="utf-8")).get("build")
    except (OSError, ValueError, AttributeError):
        return None


def cache_control(url_path: str, query: str, build: str | None) -> str:
    """The Cache-Control header for a request (see the module's docstring)."""
    versions = parse_qs(query).get("v")
    if versions and not url_path.endswith((".html", "/")) and not url_path.endswith("/sw.js"):
        return IMMUTABLE if build is not None and versions[-1] == build else "no-store"
    return "no-cache"


_GZ_LOCK = threading.Lock()  # one compression at a time: a request never compresses what another is compressing


_GZ_CACHE: dict[tuple, bytes] = {}  # a file version -> its gzip encoding, the oldest dropped first
_GZ_KEEP = 64


def gzipped(path: str, st: os.stat_result) -> bytes:
    """A file's gzip encoding, computed once per version of the file: its device,
    inode, size and time (``st``, its os.stat), so that a hard link to it (a copy
    of the site made of links) is not compressed again."""
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _GZ_LOCK:
        body = _GZ_CACHE.get(key)
        if body is None:
            body = _GZ_CACHE[key] = gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)
            while len(_GZ_CACHE) > _GZ_KEEP:
                del _GZ_CACHE[next(iter(_GZ_CACHE))]
        return body


def precompress(directory: Path) -> None:
    """Compress the site's WebAssembly files ahead of the first request (as a host
    that stores them precompressed would serve them): a first visit never waits on it."""
    for path in sorted(Path(directory).rglob("*.wasm"), key=lambda p: p.stat().st_size):  # the WASM build's first
        try:
            gzipped(str(path), path.stat())
        except OSError:
            pass


def accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding header admits gzip (not with q=0)."""
    for item in (header or "").split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "").lower() not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _within(path: str, folder: Path) -> bool:
    """Does ``path``, its links resolved, lie in ``folder`` (its links resolved)?"""
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def stale_build(url_path: str, query: str, build: str | None) -> str | None:
    """The build a ``?v=`` URL names when it is not the current one (None otherwise):
    its file is no longer that build's, so it is answered 410 Gone, never with the
    current build's bytes (a page mixing two builds)."""
    versions = parse_qs(query).get("v")
    if versions and build is not None and versions[-1] != build and cache_control(url_path, query, build) == "no-store":
        return versions[-1]
    return None


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".onnx": "application/octet-stream",
    }
    timeout = IDLE_TIMEOUT_S

    def log_message(self, *args):
        pass

    def translate_path(self, path: str) -> str:
        """The file under the site; mid-swap (the site renamed away, the new one
        not yet in place) the same file in the previous site. A path whose
        links lead out of the site folder is answered as missing (None)."""
        here = super().translate_path(path)
        site = Path(self.directory)
        previous = old_dir(site) / os.path.relpath(here, site)
        for _ in range(5):  # a few tries: the swap may be between its steps
            for candidate, folder in ((here, site), (previous, old_dir(site))):
                if os.path.exists(candidate):
                    return str(candidate) if _within(candidate, folder) else str(site / OUTSIDE)
            time.sleep(0.002)
        return here

    def end_headers(self):
        if self.command in ("GET", "HEAD") and not getattr(self, "_error", False):
            parts = urlsplit(self.path)
            self.send_header("Cache-Control", cache_control(parts.path, parts.query, build_of(self.directory)))
            self.send_header("Accept-Ranges", "bytes")
            if self._etag:
                self.send_header("ETag", self._etag)
        super().end_headers()

    def parse_request(self):
        self._error, self._range, self._etag = False, None, None  # one handler serves a whole keep-alive connection
        return super().parse_request()

    def send_error(self, code, message=None, explain=None):
        self._error = True
        super().send_error(code, message, explain)

    def send_head(self):
        if "\x00" in unquote(urlsplit(self.path).path):
            self.send_error(400, "Bad request: the path holds a NUL byte")
            return None
        parts = urlsplit(self.path)
        old = stale_build(parts.path, parts.query, build_of(self.directory))
        if old is not None:
            self.send_error(410, f"Gone: this file of build {old} was replaced by build {build_of(self.directory)}")
            return None
        wanted = self.headers.get("Range")
        path = self.translate_path(self.path)
        # never http.server's If-Modified-Since check: 1-second times call a page rebuilt in that second unchanged
        del self.headers["If-Modified-Since"]
        index = os.path.join(path, "index.html")
        served = path if os.path.isfile(path) else index if self.path.split("?")[0].endswith("/") else None
        site = Path(self.directory)
        if served is not None and not (_within(served, site) or _within(served, old_dir(site))):
            self.send_error(404, "File not found")
            return None
        if served is None or not os.path.isfile(served):
            return super().send_head()
        st = os.stat(served)
        gz = (
            wanted is None
            and served.endswith(GZIPPED)
            and st.st_size >= GZIP_MIN_BYTES
            and accepts_gzip(self.headers.get("Accept-Encoding"))
        )
        self._etag = f'"{st.st_size:x}-{st.st_mtime_ns:x}{"-gz" if gz else ""}"'
        if wanted is None and self._etag in [t.strip() for t in self.headers.get("If-None-Match", "").split(",")]:
            self.send_response(304, "Not Modified")
            self.end_headers()
            return None
        if gz:
            return self._send_gzipped(served, st)
        if wanted is None or served != path:
            return super().send_head()
        return self._send_range(path, wanted.strip())

    def _send_gzipped(self, path: str, st: os.stat_result):
        body = gzipped(path, st)
        self.send_response(200)
        self.send_header("Content-type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(int(st.st_mtime)))
        self.end_headers()
        return io.BytesIO(body)

    def _send_range(self, path: str, wanted: str):
        """One byte range of a file: 206 with Content-Range, 416 when it lies
        outside the file; several ranges are answered with the whole file."""
        match = _RANGE.match(wanted)
        if not match or match.groups() == ("", ""):
            return super().send_head()  # not one byte range: the whole file (RFC 9110 allows ignoring Range)
        try:
            f = open(path, "rb")  # noqa: SIM115 (closed by do_GET)
        except OSError:
            self.send_error(404, "File not found")
            return None
        size = os.fstat(f.fileno()).st_size
        first, last = match.groups()
        if first == "":  # the last N bytes
            start, end = max(0, size - int(last)), size - 1
        else:
            start, end = int(first), min(int(last), size - 1) if last else size - 1
        if start >= size or start > end:
            f.close()
            self.send_response(416, "Range Not Satisfiable")
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        self.send_response(206, "Partial Content")
        self.send_header("Content-type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Last-Modified", self.date_time_string(int(os.fstat(f.fileno()).st_mtime)))
        self.end_headers()
        f.seek(start)
        self._range = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        # count the response bodies sent (server.bytes_sent), for the byte budgets of tests and `make bench`
        before = source.tell()
        if getattr(self, "_range", None) is not None:
            left = self._range
            while left > 0:
                chunk = source.read(min(64 * 1024, left))
                if not chunk:
                    break
                outputfile.write(chunk)
                left -= len(chunk)
        else:
            shutil.copyfileobj(source, outputfile)
        with self.server.count_lock:
            self.server.bytes_sent += source.tell() - before


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = BACKLOG

    def handle_error(self, request, client_address):
        """A client that went away (closed tab, cancelled download, timeout) is
        normal: no traceback. Anything else: one line, not a traceback."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        print(f"serve: a request from {client_address[0]} failed: {exc!r}", file=sys.stderr, flush=True)


def start_server(directory: Path, port: int = 0, handler_class=Handler):
    """Serve ``directory`` on 127.0.0.1 in a background thread (port 0: any free
    port); returns (server, base_url). Call server.shutdown() to stop.
    server.bytes_sent counts the bytes of the file bodies served so far.
    ``handler_class`` (a Handler subclass) lets a test fault some requests."""
    if not 0 <= port <= 65535:
        raise OSError(f"{port} is not a port number (0 to 65535)")
    handler = functools.partial(handler_class, directory=str(directory))
    server = Server(("127.0.0.1", port), handler)
    server.bytes_sent, server.count_lock = 0, threading.Lock()
    # polled every 50 ms (the default is 0.5 s), so that shutdown() returns at once
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    threading.Thread(target=precompress, args=(directory,), daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
