"""Helpers of the game-page browser tests: the served site with its browser
(the ``site`` fixture, imported by those modules) and the two window sizes,
games of each title a few plies in (made through the services), and a
Chromium context logged in as a user (a real server-side session, its cookie
handed to the browser)."""
from __future__ import annotations

import random

import pytest

from pbem.services.core import games, moves, thread
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import User
from tests.browser import DESKTOP, PHONE, chromium_browser, serving
from tests.web.conftest import make_user

TITLES = ("spyrium", "squire", "iaww")
SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture
def site(sqlite_cfg):
    """The site served on its own SQLite database, and Debian's Chromium: (base URL, browser)."""
    with serving(sqlite_cfg) as base, chromium_browser() as browser:
        yield base, browser


def people() -> tuple[int, int, int]:
    """Anna and Boris (players) and Olga (an observer: logged in, no seat)."""
    return (make_user("anna@example.org", "Anna"), make_user("boris@example.org", "Boris"),
            make_user("olga@example.org", "Olga"))


def played(name: str, a: int, b: int, plies: int, *, seed: int = 11, talk: int = 1,
           more: tuple[int, ...] = (), options: dict | None = None) -> tuple[int, list[int]]:
    """A game of ``name`` (Anna seat 1, Boris seat 2, then ``more``; with ``options``) ``plies`` moves
    in; returns its id and the seats to move."""
    rng = random.Random(3)
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, a), name, 2 + len(more), dict(options or {}), seed=seed)
        for u in (b, *more):
            tables.join(s, s.get(User, u), g.id)
        gid = g.id
    engine = games.engine_for(g)
    for _ in range(plies):
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            seats = sorted(engine.to_move(state))
            if not seats:
                break
            seat = seats[-1]
            move = rng.choice(engine.legal_moves(state, seat))
            res = moves.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web")
            assert res.ok, res.error
    with unit_of_work() as s:
        g = games.get(s, gid)
        for i in range(talk):
            thread.post(s, g, s.get(User, b if i % 2 == 0 else a), f"Post {i + 1}: good game so far.")
        return gid, sorted(engine.to_move(games.state_at(s, g)))


def play_first(gid: int) -> None:
    """The first seat to move plays its first legal move, through the services (as another page's
    player would): what a watching page must learn by its poll."""
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        seat = min(engine.to_move(state))
        move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
        assert moves.submit_moves(s, gid, seat, [move], source="web").ok


def context(browser, base: str, user_id: int | None, viewport: dict):
    """A browser context at ``viewport``, logged in as ``user_id`` (None: a visitor)."""
    ctx = browser.new_context(viewport=viewport)
    if user_id is not None:
        from pbem.config import settings
        from tests.web.conftest import session_secret

        value = _signer(settings().secret_key).dumps({"sid": session_secret(user_id)})
        ctx.add_cookies([{"name": "session", "value": value, "url": base}])
    return ctx


_signers: dict = {}


def _signer(secret_key: str):
    """What signs the site's session cookie with ``secret_key`` (the site's own session interface on a
    bare Flask app: making the whole site to sign one cookie was a fifth of these tests' own time)."""
    if secret_key not in _signers:
        from flask import Flask

        from pbem.web import _Site

        app = Flask("cookie")
        app.secret_key = secret_key
        _signers[secret_key] = _Site.session_interface.get_signing_serializer(app)
    return _signers[secret_key]


def page_for(browser, base: str, user_id: int | None, viewport: dict):
    page = context(browser, base, user_id, viewport).new_page()
    page.set_default_timeout(20000)
    return page
