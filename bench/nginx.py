"""The built site behind a real nginx, as a static host would serve it: Debian's
nginx with its stock mime.types, the site under a sub-path (/course/), running
as the current user on a free port from a config written into a temporary
folder. For the deploy test (tests/test_nginx_host.py) and the page figures of
`make bench`, which measure the site as a learner's host serves it, not as the
project's own server (site_builder/static_server.py) does.

``compress=False`` is Debian's stock http block (`gzip on`, which compresses
text/html only); ``compress=True`` adds the gzip_types and gzip_comp_level the README recommends
(scripts, styles, JSON, SVG and the runtime's .wasm)."""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

NGINX = Path("/usr/sbin/nginx")
MIME_TYPES = Path("/etc/nginx/mime.types")
SUB_PATH = "/course/"
# README "Publishing the site": what to compress beyond Debian's default (text/html)
# and how hard: nginx defaults to level 1; 6 sends a deck page about a fifth smaller, for little CPU
GZIP_LEVEL = 6
GZIP_TYPES = "text/css text/javascript application/javascript application/json image/svg+xml application/wasm"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config(site: Path, folder: Path, port: int, compress: bool, extra: str = "") -> str:
    temp = {name: folder / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    gzip = f"gzip on;\n    gzip_comp_level {GZIP_LEVEL};\n    gzip_types {GZIP_TYPES};" if compress else "gzip on;"
    return f"""worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    include {MIME_TYPES};
    default_type application/octet-stream;
    sendfile on;
    log_format timed '$msec $request_time $status $bytes_sent "$request_uri" "$sent_http_content_type"';
    access_log {folder}/access.log timed;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    {gzip}
    server {{
        listen 127.0.0.1:{port};
        location {SUB_PATH} {{
            alias {site.resolve()}/;
        }}
        {extra}
    }}
}}
"""


@dataclass
class Host:
    """A running nginx: its base URL (ending in /course/) and its access log."""

    url: str
    log: Path

    def requests(self) -> list[dict]:
        """Every request answered so far: when it started and ended (s since the epoch),
        status, bytes sent (headers and body, as they went over the wire), path and content type."""
        out = []
        if self.log.exists():
            for line in self.log.read_text(encoding="utf-8").splitlines():
                m = LOG_LINE.match(line)
                if m:
                    end = float(m[1])
                    out.append(
                        {
                            "start": end - float(m[2]),
                            "end": end,
                            "status": int(m[3]),
                            "bytes": int(m[4]),
                            "path": m[5],
                            "type": m[6],
                        }
                    )
        return out


LOG_LINE = re.compile(r'^([\d.]+) ([\d.]+) (\d+) (\d+) "([^"]*)" "([^"]*)"$')


@contextlib.contextmanager
def serve(site: Path, compress: bool = False, extra: str = ""):
    """Yield a Host (its .url ends in /course/) while nginx serves the site;
    ``extra``: more directives for the server block (a test's misconfigured location)."""
    if not NGINX.exists() or not MIME_TYPES.exists():
        raise RuntimeError(f"nginx not found ({NGINX}, {MIME_TYPES}): install Debian's nginx-light")
    if not (site / "index.html").exists():
        raise RuntimeError(f"no built site at {site} (run `make site`)")
    folder = Path(tempfile.mkdtemp(prefix="course-nginx-"))
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(config(site, folder, port, compress, extra), encoding="utf-8")
    proc = subprocess.Popen(
        [str(NGINX), "-e", str(folder / "error.log"), "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"nginx exited ({proc.returncode}): {proc.stderr.read().decode(errors='replace')}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not listen on {port} within 20 s")
            time.sleep(0.1)
        yield Host(f"http://127.0.0.1:{port}{SUB_PATH}", folder / "access.log")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
