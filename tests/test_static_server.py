"""The dev server (site_builder.serve, site_builder.static_server) under the
cases of issue 25: caching headers per kind of file, Range requests, a burst
of connections, idle sockets, clients that go away, an encoded NUL and a port
out of range: each answered by the protocol, none with a traceback."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time

import pytest

from site_builder import serve, static_server
from site_builder.static_server import IMMUTABLE, Handler, start_server
from site_builder.versioning import VERSION_FILE

BUILD = "0123456789abcdef"


@pytest.fixture
def served(tmp_path):
    site = tmp_path / "site"
    (site / "lab").mkdir(parents=True)
    (site / "index.html").write_text("<!DOCTYPE html><p>index</p>")
    (site / "lab" / "lab.js").write_text("export const x = 1;\n")
    (site / "sw.js").write_text("// the service worker\n")
    (site / "big.bin").write_bytes(bytes(range(256)) * 8192)  # 2 MiB
    (site / VERSION_FILE).write_text(json.dumps({"build": BUILD}))
    server, url = start_server(site)
    yield server, url.removeprefix("http://")
    server.shutdown()


def request(host: str, path: str, headers=None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection(host, timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/index.html", "no-cache"),
        ("/", "no-cache"),
        ("/index.html?v=" + BUILD, "no-cache"),  # a page is always revalidated
        ("/sw.js?v=" + BUILD, "no-cache"),  # the service worker too
        ("/lab/lab.js", "no-cache"),  # not versioned: revalidated
        ("/lab/lab.js?v=" + BUILD, IMMUTABLE),  # this build's file never changes
    ],
)
def test_cache_control_suits_each_kind(served, path, expected):
    _, host = served
    status, headers, _ = request(host, path)
    assert status == 200 and headers.get("cache-control") == expected, headers


def test_another_builds_url_is_gone_not_this_builds_bytes(served):
    """Issue 38 item 1: a page of build A asking for lab.js?v=A after B was swapped in
    gets 410 Gone (the page reloads), never B's lab.js inside A's HTML."""
    _, host = served
    status, headers, body = request(host, "/lab/lab.js?v=fedcba9876543210")
    assert status == 410 and b"fedcba9876543210" in body and headers.get("cache-control") != IMMUTABLE
    assert request(host, "/lab/lab.js?v=" + BUILD)[0] == 200


def test_a_link_out_of_the_site_is_not_followed(served, tmp_path):
    _, host = served
    site = tmp_path / "site"
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the web\n", encoding="utf-8")
    (site / "lab" / "secret.txt").symlink_to(secret)
    (site / "outside").symlink_to(tmp_path, target_is_directory=True)
    try:
        for path in ("/lab/secret.txt", "/outside/secret.txt"):
            status, _, body = request(host, path)
            assert status == 404 and b"not for the web" not in body, path
    finally:
        (site / "lab" / "secret.txt").unlink()
        (site / "outside").unlink()


def test_an_error_is_never_cached_as_immutable(served):
    _, host = served
    status, headers, _ = request(host, "/lab/missing.js?v=" + BUILD)
    assert status == 404 and headers.get("cache-control") != IMMUTABLE


def test_a_page_rewritten_within_the_same_second_is_not_answered_not_modified(served, tmp_path):
    """Revalidation is by ETag (size, nanosecond mtime): two builds a moment apart
    give the same Last-Modified second, and http.server alone would answer 304."""
    _, host = served
    status, headers, body = request(host, "/index.html")
    assert status == 200 and headers.get("etag")
    conditional = {"If-None-Match": headers["etag"], "If-Modified-Since": headers["last-modified"]}
    assert request(host, "/index.html", conditional)[0] == 304  # unchanged: not modified
    page = tmp_path / "site" / "index.html"
    page.write_text("<!DOCTYPE html><p>rebuilt</p>")  # same second, other bytes
    status, _, body = request(host, "/index.html", conditional)
    assert status == 200 and b"rebuilt" in body
    # the folder's URL (its index.html) too, even when the browser only has Last-Modified to ask with
    status, headers, _ = request(host, "/")
    assert status == 200 and headers.get("etag")
    assert request(host, "/", {"If-None-Match": headers["etag"]})[0] == 304
    page.write_text("<!DOCTYPE html><p>rebuilt again</p>")
    for asked in ({"If-None-Match": headers["etag"]}, {"If-Modified-Since": headers["last-modified"]}):
        status, _, body = request(host, "/", asked)
        assert status == 200 and b"rebuilt again" in body, asked


def test_range_requests(served):
    server, host = served
    whole = bytes(range(256)) * 8192
    status, headers, body = request(host, "/big.bin", {"Range": "bytes=1000-1999"})
    assert status == 206 and body == whole[1000:2000]
    assert headers["content-range"] == f"bytes 1000-1999/{len(whole)}" and headers["content-length"] == "1000"
    status, headers, body = request(host, "/big.bin", {"Range": "bytes=-10"})
    assert status == 206 and body == whole[-10:]
    status, headers, body = request(host, "/big.bin", {"Range": f"bytes={len(whole) - 5}-"})
    assert status == 206 and body == whole[-5:]
    status, headers, body = request(host, "/big.bin", {"Range": f"bytes={len(whole)}-"})
    assert status == 416 and headers["content-range"] == f"bytes */{len(whole)}" and body == b""
    status, headers, body = request(host, "/big.bin", {"Range": "bytes=0-1,5-6"})  # several ranges: the whole file
    assert status == 200 and body == whole and headers["accept-ranges"] == "bytes"


def test_a_burst_of_connections_is_queued_not_dropped(served):
    """The listen backlog holds a page's burst of requests (http.server's 5
    made 200 concurrent requests wait up to a minute for SYN retries)."""
    server, host = served
    assert server.request_queue_size >= 128
    times, failures = [], []

    def one():
        t0 = time.monotonic()
        try:
            assert request(host, "/index.html")[0] == 200
            times.append(time.monotonic() - t0)
        except Exception as exc:  # noqa: BLE001
            failures.append(repr(exc))

    threads = [threading.Thread(target=one) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and len(times) == 200
    assert max(times) < 10, f"slowest request {max(times):.1f} s"


def test_idle_connections_are_closed(served, monkeypatch):
    """A socket that sends nothing does not hold a thread for ever."""
    assert 0 < Handler.timeout <= 60  # the default idle timeout
    monkeypatch.setattr(Handler, "timeout", 0.5)
    _, host = served
    name, port = host.split(":")
    with socket.create_connection((name, int(port)), timeout=10) as s:
        t0 = time.monotonic()
        assert s.recv(1) == b""  # closed by the server
        assert time.monotonic() - t0 < 5


def test_clients_that_go_away_and_a_nul_leave_no_traceback(served, capfd):
    _, host = served
    name, port = host.split(":")
    for _ in range(5):  # ask for 2 MiB and reset the connection at once
        s = socket.create_connection((name, int(port)), timeout=10)
        s.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        s.recv(100)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    status, _, body = request(host, "/%00")
    assert status == 400 and b"NUL" in body
    status, _, _ = request(host, "/lab/%00lab.js?v=" + BUILD)
    assert status == 400
    time.sleep(0.5)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_port_out_of_range_is_named_without_a_traceback(port, capsys):
    with pytest.raises(SystemExit) as exit_info:
        serve.main(["--port", port])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "is not a port number (0 to 65535)" in err and port in err
    assert "Traceback" not in err


def test_start_server_refuses_a_port_out_of_range(tmp_path):
    with pytest.raises(OSError, match="70000 is not a port number"):
        static_server.start_server(tmp_path, 70000)
