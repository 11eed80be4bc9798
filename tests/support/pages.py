"""Page helpers for the browser tests: a watch on console errors and requests
leaving the origin, a copy of the site made of links, waits for a promise and
for the service worker's cache."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from urllib.parse import urlparse, urlsplit

from common.settings import SITE_ONNX
from site_builder.static_server import Handler


class Recorded(Handler):
    """Records the path of every file it serves (server.served; start_server(...,
    handler_class=Recorded), then set server.served = [])."""

    def send_head(self):
        self.server.served.append(urlsplit(self.path).path)
        return super().send_head()


def assert_only_update_check(server, before: int, served: int, site: Path) -> None:
    """Since a Recorded server stood at ``before`` bytes and ``served`` requests,
    nothing came over the network but, at most, the browser's own update check of
    the service worker's script, which Playwright's offline emulation does not
    cover (offline for real, it fails harmlessly)."""
    assert set(server.served[served:]) <= {"/sw.js"}, server.served[served:]
    assert server.bytes_sent - before <= (site / "sw.js").stat().st_size


class PageWatch:
    """Collects console errors, page errors and requests leaving the origin."""

    def __init__(self, page, origin: str):
        self.page, self.origin = page, origin
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", self._request)

    def _request(self, req):
        u = urlparse(req.url)
        if u.scheme in ("data", "blob", "about"):
            return
        if f"{u.scheme}://{u.netloc}" != self.origin:
            self.outside.append(req.url)

    def assert_clean(self):
        assert not self.errors, f"console errors: {self.errors}"
        assert not self.outside, f"requests outside the origin: {self.outside}"


def link_file(source, target) -> None:
    """``target`` as a hard link to ``source`` (a copy across file systems). Not a
    symlink: the static server answers a link that leads out of the site as missing."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def linked_site(site_dir: Path, root: Path, skip=()) -> Path:
    """root/site: a copy of the built site made of hard links (link_file), except
    the onnx/ files named in ``skip`` (the caller writes its own version of those).
    Replace a file rather than write into it: a hard link shares the build's bytes."""
    site, onnx = root / "site", (site_dir / SITE_ONNX).resolve()

    def ignore(folder, names):
        return [n for n in names if n in skip] if Path(folder).resolve() == onnx else []

    shutil.copytree(site_dir, site, copy_function=link_file, ignore=ignore)
    return site


def wait_for_promise(page, fn: str, arg=None, timeout_s: float = 30, what: str = "") -> None:
    """Poll the async function ``fn`` (JavaScript source) in ``page`` until it
    resolves to a truthy value. (Playwright's wait_for_function does not await
    a promise: a pending one is truthy, so it returns at once.)"""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(fn, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what or fn}")
        page.wait_for_timeout(200)


def wait_for_precache(page, build: str) -> None:
    """Wait until the service worker has precached the whole course of ``build``
    (its marker file, the last it stores, is in that build's shell cache)."""
    wait_for_promise(
        page,
        """async ([name, key]) => (await caches.has(name))
            && (await (await caches.open(name)).match(location.origin + key)) !== undefined""",
        [f"attention-course-shell-{build}", f"/sw-precached.txt?v={build}"],
        120,
        "the precache marker",
    )


def build_of(site: Path) -> str:
    """The build id of a built site (site_builder.versioning)."""
    return json.loads((site / "version.json").read_text(encoding="utf-8"))["build"]


def wait_kept(page, build: str, paths, timeout_s: float = 60) -> None:
    """Wait until the service worker's cache of ``build`` holds each path: a
    page under its path, any other file under its path and ?v=<build>."""
    for path in paths:
        key = path if path.endswith((".html", "/")) else f"{path}?v={build}"
        wait_for_promise(
            page,
            """async ([name, key]) => (await caches.has(name))
                && (await (await caches.open(name)).match(location.origin + key)) !== undefined""",
            [f"attention-course-shell-{build}", key],
            timeout_s,
            f"{key} in the offline cache of build {build}",
        )
