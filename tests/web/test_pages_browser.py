"""Every page but the game page, in headless Chromium at 1280×900
and 390×844: no page scrolls sideways on a phone, axe-core finds no serious
or critical violation, and every page has the site's header and a way back.
Destructive buttons ask first."""
from __future__ import annotations

import pytest

from tests.browser import DESKTOP, PHONE, axe, chromium_browser, serving, sideways
from tests.web.conftest import session_secret
from tests.web.pages import build

pytestmark = pytest.mark.browser


def _cookie(app_secret_key, base, uid):
    from flask import Flask

    app = Flask("cookie")
    app.secret_key = app_secret_key
    value = app.session_interface.get_signing_serializer(app).dumps({"sid": session_secret(uid)})
    return {"name": "session", "value": value, "url": base}


def pages(site):
    """(who, path, expected status, what it is) for every page but the game page."""
    g, d = site.game, site
    return [
        (None, "/", 200, "home"),
        (None, "/lobby", 200, "lobby, visitor"),
        ("anna", "/lobby", 200, "lobby, logged in"),
        *[(None, f"/rules/{n}", 200, f"rules of {n}") for n in ("spyrium", "squire", "iaww")],
        *[(None, f"/rules/{n}/cards", 200, f"cards of {n}") for n in ("spyrium", "squire", "iaww")],
        (None, "/rules/spyrium/cards?q=zzz", 200, "a card search that finds nothing"),
        (None, "/signup", 200, "sign-up"),
        (None, "/login", 200, "login"),
        (None, "/auth/no-such-login-token-xxxxxxxxxxxx", 400, "a dead login link"),
        (None, "/confirm/no-such-confirmation-xxxxxxxxxx", 404, "a dead confirmation link"),
        ("anna", "/profile", 200, "profile"),
        ("anna", "/me", 200, "my games"),
        ("anna", "/outbox", 200, "outbox"),
        ("anna", f"/outbox/{d.mail}", 200, "a mail of the outbox"),
        ("anna", f"/games/{g}/history", 200, "history"),
        ("boris", f"/games/{g}/manage", 200, "manage, player"),
        ("anna", f"/games/{g}/manage", 200, "manage, creator"),
        ("cleo", f"/games/{g}/manage", 200, "manage, onlooker"),
        ("admin", f"/games/{g}/manage", 200, "manage, admin"),
        ("admin", "/admin/disputes", 200, "disputes queue"),
        ("admin", f"/admin/disputes/{d.open_dispute}", 200, "an open dispute"),
        ("admin", f"/admin/disputes/{d.settled_dispute}", 200, "a settled dispute"),
        ("admin", "/admin", 200, "admin console"),
        ("admin", f"/admin/games/{g}", 200, "admin game"),
        ("admin", f"/admin/games/{g}?ply=2", 200, "admin game around a ply"),
        ("admin", f"/admin/inbound/{d.inbound}", 200, "admin inbound"),
        ("anna", f"/games/{g}/board?ply=abc", 400, "error 400"),
        (None, f"/games/{g}/manage", 401, "error 401"),
        ("anna", "/admin", 403, "error 403"),
        ("anna", "/no-such-page", 404, "error 404"),
        (None, "/tournaments", 200, "tournaments, visitor"),
        ("anna", "/tournaments", 200, "tournaments, with the form that makes one"),
        ("anna", f"/tournaments/{d.tournament}", 200, "a tournament, its director"),
        ("boris", f"/tournaments/{d.tournament}", 200, "a tournament, a player"),
        (None, f"/tournaments/{d.tournament}/players/{d.boris}", 200, "a player's season in a tournament"),
    ]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """One site, served, and one Chromium for the module (Playwright's sync API runs once per process)."""
    from tests.conftest import installed, make_settings

    with installed(make_settings(tmp_path_factory.mktemp("pages"))) as cfg, serving(cfg) as base, \
            chromium_browser() as browser:
        yield cfg, base, browser, build()


@pytest.fixture(scope="module")
def measured(env):
    cfg, base, browser, site = env
    contexts = {}  # a context for each reader, its window set to each size in turn (one per size started more renderers)
    out = []
    for size_name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        for page in contexts.values():
            page.set_viewport_size(size)
        for who, path, status, what in pages(site):
            if who not in contexts:
                ctx = browser.new_context(viewport=size)
                if who:
                    ctx.add_cookies([_cookie(cfg.secret_key, base, getattr(site, who))])
                contexts[who] = ctx.new_page()
            page = contexts[who]
            resp = page.goto(base + path)
            out.append({"who": who, "path": path, "what": what, "size": size_name, "status": resp.status,
                        "want": status, "sideways": sideways(page), "axe": axe(page),
                        "header": page.locator("header.top").count(), "main": page.locator("main").count(),
                        "header_text": page.inner_text("header.top") if page.locator("header.top").count()
                        else ""})
    for page in contexts.values():
        page.context.close()
    return site, out


def test_every_page_answers_as_expected(measured):
    _, rows = measured
    bad = [(r["what"], r["status"]) for r in rows if r["status"] != r["want"]]
    assert not bad, "\n".join(map(str, bad))


def test_no_page_scrolls_sideways_on_a_phone(measured):
    _, rows = measured
    bad = [(r["what"], r["size"], r["sideways"]) for r in rows if r["sideways"] != 0]
    assert not bad, "\n".join(map(str, bad))


def test_axe_finds_nothing_serious_or_critical(measured):
    _, rows = measured
    bad = sorted({(r["what"], v) for r in rows for v in r["axe"]})
    assert not bad, f"{len(bad)} violations:\n" + "\n".join(map(str, bad[:80]))


def test_every_page_has_the_site_header_and_a_main(measured):
    _, rows = measured
    bad = sorted({r["what"] for r in rows if r["header"] != 1 or r["main"] != 1})
    assert not bad, "\n".join(bad)


def test_error_pages_know_who_is_logged_in(measured):
    _, rows = measured
    for r in rows:
        if r["who"] == "anna" and r["status"] >= 400:
            assert "Anna" in r["header_text"], r["what"]


def test_destructive_buttons_ask_first(env, measured):
    """Resign and Vote to open do nothing on a click alone: the box next to them must be ticked."""
    from pbem.store.db import unit_of_work
    from pbem.store.models import Seat
    from sqlmodel import select

    cfg, base, browser, site = env  # after the pages are measured: this resigns a seat
    ctx = browser.new_context(viewport=PHONE)
    ctx.add_cookies([_cookie(cfg.secret_key, base, site.boris)])
    page = ctx.new_page()
    page.goto(f"{base}/games/{site.game}/manage")
    page.get_by_role("button", name="Resign").click()
    page.wait_for_timeout(300)
    assert page.url.endswith("/manage") and "you have resigned" not in page.inner_text("main")
    page.locator("summary", has_text="Vote to open seat 1").click()
    page.get_by_role("button", name="Vote to open seat 1").click()
    page.wait_for_timeout(300)
    with unit_of_work() as s:
        seats = list(s.exec(select(Seat).where(Seat.game_id == site.game)))
        assert not any(x.resigned or x.open_for_replacement for x in seats)
    page.locator("#act-resign").get_by_role("checkbox").check()
    page.get_by_role("button", name="Resign").click()
    page.wait_for_selector("text=you have resigned")
    assert sideways(page) == 0
