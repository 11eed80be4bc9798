"""Firefox and WebKit for the cross-engine tests (tests/test_engines.py), with
what Debian packages (Playwright's own builds of these engines cannot be
downloaded here):

- Firefox: Debian's ``firefox-esr`` over WebDriver BiDi, through puppeteer-core
  (tests/firefox_bridge.mjs, a Node process this module talks to in JSON lines);
- WebKit: WebKitGTK's MiniBrowser in automation mode, through Debian's
  ``webkit2gtk-driver`` (WebKitWebDriver) and Selenium, on a virtual display
  (``xvfb-run``).

Both give the same small page object, enough for the lab helpers of
tests/support/lab.py: ``goto``, ``reload``, ``evaluate(function_source,
arg)`` and ``wait_for_function``. Values cross as JSON (typed arrays as
arrays). Neither driver reports page errors in the same way (WebKitWebDriver has
no log at all), so the tests serve a copy of the site whose pages first load
``/engine-watch.js``, which records errors, failed loads and console errors in
``window.__engineErrors`` (``page_problems``)."""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from support.pages import link_file

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "tests" / "firefox_bridge.mjs"
FIREFOX = os.environ.get("FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = os.environ.get("MINIBROWSER") or next(
    iter(
        sorted(glob.glob("/usr/lib/*/webkit2gtk-4.1/MiniBrowser"))
        + sorted(glob.glob("/usr/lib/*/webkitgtk-6.0/MiniBrowser"))
    ),
    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
)
INSTALL = (
    "apt-get install firefox-esr webkit2gtk-driver xvfb xauth, and `make test` installs the npm and Python packages"
)

WATCH_SCRIPT = """(() => {
  const errors = [];
  window.__engineErrors = errors;
  addEventListener('error', (e) => {
    const t = e.target;
    if (t && t !== window && (t.src || t.href)) errors.push(`failed to load ${t.src || t.href}`);
    else errors.push(`${e.message} (${e.filename}:${e.lineno})`);
  }, true);
  addEventListener('unhandledrejection', (e) => errors.push(`unhandled rejection: ${e.reason?.message ?? e.reason}`));
  const consoleError = console.error;
  console.error = function (...args) {
    errors.push(args.map(String).join(' '));
    return consoleError.apply(this, args);
  };
})();
"""
PROBLEMS = """() => ({
  watched: Array.isArray(window.__engineErrors), errors: window.__engineErrors || [],
  outside: performance.getEntriesByType('resource').map((e) => e.name)
    .filter((u) => !u.startsWith(location.origin + '/') && !/^(data|blob|about):/.test(u)),
})"""


def watched_site(site_dir: Path, root: Path) -> Path:
    """root/site: the built site with every HTML page loading /engine-watch.js
    first (a classic script, before any of the page's own); every other file a
    hard link to the build's (support.pages.link_file)."""
    site, site_dir = root / "site", site_dir.resolve()
    for folder, _, files in os.walk(site_dir):
        rel = Path(folder).relative_to(site_dir)
        (site / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            source = Path(folder) / name
            if name.endswith(".html"):
                html = source.read_text(encoding="utf-8")
                head = html.index("<head>") + len("<head>")
                html = html[:head] + '<script src="/engine-watch.js"></script>' + html[head:]
                (site / rel / name).write_text(html, encoding="utf-8")
            else:
                link_file(source, site / rel / name)
    (site / "engine-watch.js").write_text(WATCH_SCRIPT, encoding="utf-8")
    return site


def _expression(script: str, arg) -> str:
    """A JavaScript expression resolving to the JSON of {ok, value} or {ok, error}
    for ``(script)(arg)``; typed arrays become arrays."""
    return f"""(async () => {{
      try {{
        const value = await ({script})({json.dumps(arg)});
        return JSON.stringify({{ok: true, value: value === undefined ? null : value}},
                              (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v));
      }} catch (err) {{
        return JSON.stringify({{ok: false, error: String(err && err.message || err)}});
      }}
    }})()"""


def _result(text: str):
    out = json.loads(text)
    if not out["ok"]:
        raise RuntimeError(out["error"])
    return out["value"]


class EnginePage:
    """What the tests use of a page; ``run_expression`` is the engine's."""

    engine = ""

    def evaluate(self, script: str, arg=None):
        """(script)(arg) in the page, awaited; raises RuntimeError with the page's message if it throws."""
        return _result(self.run_expression(_expression(script, arg)))

    def wait_for_function(self, expression: str, arg=None, timeout_s: float = 60):
        """Waits until ``expression`` (JavaScript, may use ``arg``) is truthy."""
        message = json.dumps(f"timed out after {timeout_s} s waiting for: {expression}")
        self.evaluate(
            f"""async (arg) => {{
              const end = Date.now() + {int(timeout_s * 1000)};
              while (!(await (async () => ({expression}))())) {{
                if (Date.now() > end) throw new Error({message});
                await new Promise((r) => setTimeout(r, 50));
              }}
              return true;
            }}""",
            arg,
        )

    def problems(self) -> dict:
        return self.evaluate(PROBLEMS)

    def assert_clean(self):
        """No page error, failed load or console error since the page loaded, and no request outside the origin."""
        p = self.problems()
        assert p["watched"], f"{self.engine}: the page did not load /engine-watch.js (not the watched site?)"
        assert not p["errors"], f"{self.engine}: page errors: {p['errors']}"
        assert not p["outside"], f"{self.engine}: requests outside the origin: {p['outside']}"


# ---------------------------------------------------------------- Firefox


class FirefoxPage(EnginePage):
    engine = "firefox"

    def __init__(self, browser: Firefox, page: int):
        self.browser, self.page = browser, page

    def goto(self, url: str):
        self.browser.request("goto", page=self.page, url=url)

    def reload(self):
        self.browser.request("reload", page=self.page)

    def run_expression(self, expression: str) -> str:
        return self.browser.request("evaluate", page=self.page, expression=expression)

    def close(self):
        self.browser.request("close", page=self.page)


class Firefox:
    """firefox-esr under tests/firefox_bridge.mjs; ``new_page()`` opens a tab."""

    def __init__(self):
        missing = [p for p in (FIREFOX, ROOT / "node_modules" / "puppeteer-core") if not Path(p).exists()]
        if missing or not shutil.which("node"):
            raise RuntimeError(
                f"Firefox cannot be driven: missing {', '.join(map(str, missing)) or 'node'} ({INSTALL})"
            )
        self.process = subprocess.Popen(
            ["node", str(BRIDGE), FIREFOX], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.sent = 0
        self.version = self._answer(0)

    def _answer(self, id_: int):
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the Firefox bridge ended (exit code {self.process.wait()}); see its output above")
        out = json.loads(line)
        assert out["id"] == id_, out
        if not out["ok"]:
            raise RuntimeError(out["error"])
        return out["value"]

    def request(self, op: str, **fields):
        self.sent += 1
        self.process.stdin.write(json.dumps({"id": self.sent, "op": op, **fields}) + "\n")
        self.process.stdin.flush()
        return self._answer(self.sent)

    def new_page(self) -> FirefoxPage:
        return FirefoxPage(self, self.request("open"))

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# ---------------------------------------------------------------- WebKit


class WebKitPage(EnginePage):
    """One MiniBrowser window of the WebDriver session; each call first switches to it."""

    engine = "webkit"

    def __init__(self, browser: WebKit, handle: str):
        self.browser, self.driver, self.handle = browser, browser.driver, handle

    def _focus(self):
        if self.driver.current_window_handle != self.handle:
            self.driver.switch_to.window(self.handle)
        return self.driver

    def goto(self, url: str):
        self._navigate(lambda driver: driver.get(url))

    def reload(self):
        self._navigate(lambda driver: driver.refresh())

    def _navigate(self, go):
        """WebKitWebDriver may answer a navigation that a service worker serves
        before the new document is in: wait until the old one (marked) is gone."""
        driver = self._focus()
        driver.execute_script("window.__engineOldDocument = true;")
        go(driver)
        self.wait_for_function("!window.__engineOldDocument && document.readyState === 'complete'", timeout_s=120)

    def run_expression(self, expression: str) -> str:
        script = f"const done = arguments[arguments.length - 1]; ({expression}).then(done);"
        return self._focus().execute_async_script(script)

    def close(self):
        """The session's first window stays (closing it would end the session), on a blank page."""
        if self.handle == self.browser.first_window:
            self._focus().get("about:blank")
            self.browser.first_window_free = True
        else:
            self._focus().close()
            self.driver.switch_to.window(self.browser.first_window)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebKit:
    """WebKitWebDriver on a virtual display (xvfb-run), one Selenium session of MiniBrowser."""

    def __init__(self):
        missing = [p for p in (WEBKIT_DRIVER, MINIBROWSER) if not Path(p).exists()]
        if missing or not shutil.which("xvfb-run"):
            raise RuntimeError(f"WebKit cannot be driven: missing {', '.join(missing) or 'xvfb-run'} ({INSTALL})")
        try:
            from selenium import webdriver
            from selenium.webdriver.remote.client_config import ClientConfig
            from selenium.webdriver.remote.remote_connection import RemoteConnection
            from selenium.webdriver.webkitgtk.options import Options
        except ImportError as exc:
            raise RuntimeError(f"WebKit cannot be driven: {exc} ({INSTALL})") from exc
        port = _free_port()
        command = ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", WEBKIT_DRIVER, f"--port={port}"]
        self.process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL)
        try:
            self._wait_for(port)
            options = Options()
            options.binary_location = MINIBROWSER
            options.add_argument("--automation")
            connection = RemoteConnection(client_config=ClientConfig(remote_server_addr=f"http://127.0.0.1:{port}"))
            self.driver = webdriver.Remote(command_executor=connection, options=options)
        except BaseException:
            self._stop_driver()
            raise
        self.driver.set_script_timeout(900)
        self.driver.set_window_size(1280, 900)
        self.first_window, self.first_window_free = self.driver.current_window_handle, True
        self.version = f"WebKitGTK {self.driver.capabilities.get('browserVersion')}"

    def _wait_for(self, port: int, timeout_s: float = 30):
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"WebKitWebDriver ended at start (exit code {self.process.returncode})")
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"WebKitWebDriver did not listen on port {port} within {timeout_s} s")

    def new_page(self) -> WebKitPage:
        if self.first_window_free:
            self.driver.switch_to.window(self.first_window)
            self.first_window_free = False
        else:
            self.driver.switch_to.new_window("window")
        return WebKitPage(self, self.driver.current_window_handle)

    def _stop_driver(self):
        """Ends xvfb-run's process group: the driver and its Xvfb."""
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass

    def close(self):
        try:
            self.driver.quit()
        finally:
            self._stop_driver()


def launch(engine: str):
    return {"firefox": Firefox, "webkit": WebKit}[engine]()
