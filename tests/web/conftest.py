"""Web fixtures: a fresh app and database per test, a test client that
carries the CSRF token like a browser does, and users made through services."""
from __future__ import annotations

import re

import pytest
from sqlmodel import select

from pbem.services.core import accounts
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound
from pbem.web import create_app
from tests.browser import chromium_browser, serving

CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


class Browser:
    """A Flask test client that fetches a page's CSRF token before posting."""

    def __init__(self, app):
        self.client = app.test_client()

    def get(self, url, **kw):
        return self.client.get(url, **kw)

    def token(self, page="/login") -> str:
        html = self.client.get(page).get_data(as_text=True)
        m = CSRF_RE.search(html)
        assert m, f"no CSRF token on {page}"
        return m.group(1)

    def post(self, url, data=None, *, page="/login", csrf=True, **kw):
        data = dict(data or {})
        if csrf:
            data["csrf_token"] = self.token(page)
        return self.client.post(url, data=data, **kw)

    def login_as(self, user_id: int):
        log_in(self.client, user_id)


def session_secret(user_id: int) -> str:
    """A new server-side session of the user (what the login link starts), as its cookie's secret."""
    from pbem.services.core import sessions
    from pbem.store.models import User

    with unit_of_work() as s:
        return sessions.start(s, s.get(User, user_id))


def log_in(client, user_id: int) -> None:
    """Log a Flask test client in as the user, with a real session row (ended by logout like any)."""
    secret = session_secret(user_id)
    with client.session_transaction() as sess:
        sess["sid"] = secret


@pytest.fixture
def app(sqlite_cfg):
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def live(sqlite_cfg):
    """The site served on loopback for a browser test: its base URL."""
    with serving(sqlite_cfg) as url:
        yield url


@pytest.fixture
def chromium():
    """Debian's Chromium, headless, driven by Playwright."""
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def web(app):
    return lambda: Browser(app)


def make_user(email: str, name: str, *, admin: bool = False) -> int:
    with unit_of_work() as s:
        u, _ = accounts.register(s, email, name, confirmed=True)
        u.is_admin = admin
        s.add(u)
        s.flush()
        return u.id


def last_link(to: str) -> str:
    with unit_of_work() as s:
        row = s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.kind == "login")
                     .order_by(Outbound.id.desc())).first()
    assert row is not None, f"no login mail to {to}"
    m = re.search(r"https?://\S+/auth/[A-Za-z0-9_\-]+", row.body_text)
    assert m, row.body_text
    return m.group(0)
