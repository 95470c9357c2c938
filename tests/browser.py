"""Shared by the browser tests: Debian's Chromium driven by Playwright, the
app served on loopback, and axe-core (from npm, package.json) run in a page.

A page's accessibility is checked with :func:`axe`: the violations of the
given impacts ("serious", "critical" by default), each as "rule: target"."""
from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# how long a browser test waits for what it expects (Playwright's expect) before it fails: long,
# because a wait ends as soon as what it waits for is there, and a busy machine is slow to get there
PATIENCE_MS = 60_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@contextmanager
def serving(cfg, ssl_context=None):
    """The app of ``cfg`` on its web port, in a thread, for the length of the block."""
    from werkzeug.serving import make_server

    from pbem.web import create_app

    server = make_server("127.0.0.1", cfg.web_port, create_app(cfg), threaded=True, ssl_context=ssl_context)
    # the server looks for shutdown() between waits for a request: at the default half second a test's
    # end waited a quarter of a second on average for it
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        yield cfg.base_url
    finally:
        server.shutdown()
        t.join(10)
        server.server_close()  # its listening socket, not left to the garbage collector


class _Shared:
    """This process's one Chromium (Playwright's driver and the browser start once: that was
    seconds per test), and the event loop Playwright's sync API runs it on."""

    playwright = None
    browser = None
    loop = None

    @classmethod
    def get(cls):
        import asyncio

        if cls.browser is not None and cls.browser.is_connected():
            asyncio._set_running_loop(cls.loop)  # as it stands during any block of Playwright's sync API
            return cls.browser
        cls.stop()
        from playwright.sync_api import expect, sync_playwright

        expect.set_options(timeout=PATIENCE_MS)
        cls.playwright = sync_playwright().start()
        cls.loop = asyncio.get_running_loop()
        cls.browser = cls.playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        return cls.browser

    @classmethod
    def pause(cls) -> None:
        """Between tests no event loop runs in the main thread, as if Playwright had stopped."""
        import asyncio

        if cls.loop is not None:
            asyncio._set_running_loop(None)

    @classmethod
    def stop(cls) -> None:
        import asyncio

        browser, pw, cls.browser, cls.playwright = cls.browser, cls.playwright, None, None
        if pw is None:
            return
        asyncio._set_running_loop(cls.loop)
        try:
            if browser is not None:
                browser.close()
        except Exception:  # noqa: BLE001 - a browser that died is gone already; the driver still stops
            pass
        finally:
            pw.stop()
            cls.loop = None
            asyncio._set_running_loop(None)


class _Contexts:
    """The shared Chromium as one test sees it: what the test opens (contexts, pages with their
    context) is closed at the end of its block, so the next test starts with nothing of this one."""

    def __init__(self, browser):
        self._browser = browser
        self._opened = []

    def new_context(self, **kw):
        ctx = self._browser.new_context(**kw)
        self._opened.append(ctx)
        return ctx

    def new_page(self, **kw):
        page = self._browser.new_page(**kw)
        self._opened.append(page.context)
        return page

    def close(self) -> None:
        while self._opened:
            ctx = self._opened.pop()
            try:
                # each page leaves its site first, which ends its live stream (an open event stream
                # to the served site once kept a context's close waiting for good); a page that
                # cannot leave within seconds is closed all the same
                for page in list(ctx.pages):
                    try:
                        page.goto("about:blank", timeout=5000)
                    except Exception:  # noqa: BLE001 - a page closed or crashed meanwhile
                        pass
                ctx.close()
            except Exception:  # noqa: BLE001 - closed already (by the test, or with a crashed browser)
                pass

    def __getattr__(self, name):
        return getattr(self._browser, name)


@contextmanager
def chromium_browser():
    """Headless Debian Chromium (skips the test when it is not installed: scripts/test installs it):
    the process's one browser, each block with contexts of its own, closed at its end. Nested
    blocks (a module's and a test's) share it too. The browser ends with the process's tests
    (``stop_chromium``, tests/conftest.py)."""
    import pytest

    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (scripts/test installs it)")
    outer = _Shared.loop is not None and _running_loop() is _Shared.loop
    view = _Contexts(_Shared.get())
    try:
        yield view
    finally:
        try:
            view.close()
        finally:
            if not outer:
                _Shared.pause()


def _running_loop():
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def stop_chromium() -> None:
    """End this process's Chromium and Playwright's driver, if they were started."""
    _Shared.stop()


def axe(page, impacts=("serious", "critical")) -> list[str]:
    """axe-core's violations on the page as it stands, of the given impacts."""
    if not AXE.exists():
        raise AssertionError(f"{AXE} is missing: run npm install (scripts/test does)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):  # evaluated by the driver: the page's CSP allows it
        page.evaluate("() => { " + AXE.read_text(encoding="utf-8") + "\n; return typeof window.axe; }")
    result = page.evaluate("async () => JSON.stringify(await axe.run(document, {resultTypes: ['violations']}))")
    out = []
    for v in json.loads(result)["violations"]:
        if v.get("impact") in impacts:
            for node in v["nodes"]:
                out.append(f"{v['id']} ({v['impact']}): {' '.join(map(str, node['target']))} -- {v['help']}")
    return out


def sideways(page) -> int:
    """How far the page scrolls sideways (0: it fits the viewport's width)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
