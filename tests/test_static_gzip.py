"""The static server's compression (site_builder/static_server.py): text and
WebAssembly go gzipped to a client that accepts it, byte for byte the file once
decoded, with their own ETag; the models, ranges and clients without gzip get
the file as it is."""

from __future__ import annotations

import gzip
import os
import urllib.error
import urllib.request

import pytest

from site_builder import static_server
from site_builder.static_server import accepts_gzip, start_server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    (site / "page.html").write_text("<p>" + "attention " * 500 + "</p>", encoding="utf-8")
    (site / "runtime.wasm").write_bytes(b"\0asm" + bytes(range(256)) * 40)
    (site / "model.onnx").write_bytes(b"onnx" * 2000)
    (site / "tiny.js").write_text("export const x = 1;\n", encoding="utf-8")
    server, url = start_server(site)
    yield site, url
    server.shutdown()


def get(url, **headers):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), b""


@pytest.mark.parametrize("name", ["page.html", "runtime.wasm"])
def test_text_and_webassembly_go_gzipped_when_accepted(served, name):
    site, url = served
    status, headers, body = get(f"{url}/{name}", **{"Accept-Encoding": "br, gzip;q=0.8"})
    assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == (site / name).read_bytes() and len(body) < (site / name).stat().st_size
    assert int(headers["Content-Length"]) == len(body) and headers["ETag"].endswith('-gz"')
    assert get(f"{url}/{name}", **{"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]})[0] == 304
    plain = get(f"{url}/{name}")
    assert "Content-Encoding" not in plain[1] and plain[2] == (site / name).read_bytes()
    assert plain[1]["ETag"] != headers["ETag"]  # another representation, another validator
    assert get(f"{url}/{name}", **{"If-None-Match": headers["ETag"]})[0] == 200


def test_models_small_files_ranges_and_refusals_go_as_they_are(served):
    site, url = served
    for name in ("model.onnx", "tiny.js"):
        _, headers, body = get(f"{url}/{name}", **{"Accept-Encoding": "gzip"})
        assert "Content-Encoding" not in headers and body == (site / name).read_bytes()
    status, headers, body = get(f"{url}/page.html", **{"Accept-Encoding": "gzip", "Range": "bytes=0-9"})
    assert status == 206 and "Content-Encoding" not in headers and body == (site / "page.html").read_bytes()[:10]
    _, headers, _ = get(f"{url}/page.html", **{"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in headers


def test_a_file_is_compressed_once_per_version_and_a_hard_link_shares_it(tmp_path, monkeypatch):
    """The cache key is the file (device, inode) and its version (size, time):
    a hard link (the tests' copies of the site) is not compressed again; two
    files with the same size and time, or a file rewritten, are their own."""
    calls = []
    compress = gzip.compress
    monkeypatch.setattr(static_server.gzip, "compress", lambda data, **kw: calls.append(1) or compress(data, **kw))
    a, b, link = tmp_path / "a.wasm", tmp_path / "b.wasm", tmp_path / "link.wasm"
    a.write_bytes(b"\0asm" + bytes(range(256)) * 9)
    b.write_bytes(b"\0asm" + bytes(reversed(range(256))) * 9)
    os.utime(b, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns))
    os.link(a, link)
    got = {p.name: gzip.decompress(static_server.gzipped(str(p), p.stat())) for p in (a, link, b)}
    assert got == {"a.wasm": a.read_bytes(), "link.wasm": a.read_bytes(), "b.wasm": b.read_bytes()}
    assert len(calls) == 2  # a (and its link) once, b once
    b.unlink()
    b.write_bytes(b"\0asm" + bytes(range(128)) * 20)  # a new file at the same path, another size
    assert gzip.decompress(static_server.gzipped(str(b), b.stat())) == b.read_bytes() and len(calls) == 3


def test_accept_encoding_parsing():
    assert accepts_gzip("gzip") and accepts_gzip("deflate, GZIP;q=0.5") and accepts_gzip("*")
    assert not accepts_gzip(None) and not accepts_gzip("br") and not accepts_gzip("gzip; q=0")
