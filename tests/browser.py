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
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@contextmanager
def serving(cfg, ssl_context=None):
    """The app of ``cfg`` on its web port, in a thread, for the length of the block."""
    from werkzeug.serving import make_server

    from pbem.web import create_app

    server = make_server("127.0.0.1", cfg.web_port, create_app(cfg), threaded=True, ssl_context=ssl_context)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield cfg.base_url
    finally:
        server.shutdown()
        t.join(10)


@contextmanager
def chromium_browser():
    """Headless Debian Chromium (skips the test when it is not installed: scripts/test installs it)."""
    import pytest

    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (scripts/test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


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
