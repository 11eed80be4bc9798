"""Versioned URLs: a returning learner runs one build, never a mix of two.

The build id is a hash of every file of the finished site. Each reference to
a site file from a page, a script or a stylesheet of the site gets ``?v=<id>``
(``stamp``), so that an HTML page (always revalidated) names exactly the
scripts, styles, widgets and data of its own build, and a cached copy of
another build's file can never be taken for this one's. Scripts that compose
URLs at run time (the widget loader, the lab) read the id from their own URL
(web/core/version.js). The site's version.json holds the id for the server
(site_builder.static_server: long-lived caching of the current build's URLs)
and for the page, which compares it with its own to tell that the site was
rebuilt under it.

Vendored libraries are referenced with the id but their own files are left as
published. Pages are not stamped: their URLs stay the ones to bookmark.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from pathlib import Path

from common.publish import MARKER

VERSION_FILE = "version.json"
STAMPED_FILES = (".html", ".js", ".mjs", ".css")  # the files whose references get the id (vendor/ excepted)
# A quoted (or CSS url(...)) relative path to a site file of a kind that a page loads.
_REFERENCE = re.compile(
    r"""(?P<open>["']|url\()(?P<path>(?:\./|\.\./)*[A-Za-z0-9_][\w.\-/]*\.(?:js|mjs|css|json|svg|png|woff2?|ttf))"""
    r"""(?P<close>["')])"""
)
ID_LENGTH = 16


def build_id(site: Path) -> str:
    """A hash of every file of ``site`` (paths and contents), the marker and
    version.json left out: equal for equal builds, different when any file differs."""
    digest = hashlib.sha256(Path(__file__).read_bytes())  # how the files are stamped is part of the build
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if rel in (MARKER, VERSION_FILE):
            continue
        digest.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:ID_LENGTH]


def stamp_text(text: str, rel: str, exists, build: str) -> str:
    """``text`` (the file ``rel`` of the site) with ``?v=<build>`` after every
    relative reference to a site file that ``exists(path)`` confirms."""
    folder = posixpath.dirname(rel)

    def add(match: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(folder, match["path"]))
        if target.startswith("../") or not exists(target):
            return match[0]
        return f"{match['open']}{match['path']}?v={build}{match['close']}"

    return _REFERENCE.sub(add, text)


def stamp(site: Path) -> str:
    """Stamp every page, script and stylesheet of ``site`` (vendor/ left as
    published) with its build id; write version.json; return the id."""
    build = build_id(site)
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    for rel in sorted(files):
        if rel.endswith(STAMPED_FILES) and not rel.startswith("vendor/"):
            path = site / rel
            text = path.read_text(encoding="utf-8")
            stamped = stamp_text(text, rel, (files - {VERSION_FILE}).__contains__, build)  # read fresh: never stamped
            if stamped != text:
                path.write_text(stamped, encoding="utf-8")
    (site / VERSION_FILE).write_text(json.dumps({"build": build}) + "\n", encoding="utf-8")
    return build
