"""Input no browser sends, found by the scan of the running site (docs/RELIABILITY.md §6):
a NUL character in a form field or the query string. PostgreSQL refuses NUL in text columns,
so each of these was a 500 (an unhandled DataError); now the site answers 400 and changes
nothing. Run on PostgreSQL, where it failed."""
from __future__ import annotations

import pytest
from sqlmodel import func, select

from pbem.services.core import accounts
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, LoginToken, Outbound, Post, User
from pbem.web import create_app
from tests.web.conftest import Browser

pytestmark = pytest.mark.postgres


@pytest.fixture
def site(pg_cfg):
    pg_cfg.var_dir.mkdir(parents=True, exist_ok=True)  # the embedded broker's file lives there
    with unit_of_work() as s:
        ann, _ = accounts.register(s, "ann@example.org", "Ann", confirmed=True)
        ben, _ = accounts.register(s, "ben@example.org", "Ben", confirmed=True)
        g = tables.create(s, ann, "spyrium", 2, seed=7)
        tables.join(s, ben, g.id)
        mine = tables.create(s, ann, "squire", 3, seed=8)  # open, Ann's: she may invite
        ids = (ann.id, g.id, mine.id)
    browser = Browser(create_app(pg_cfg))
    browser.login_as(ids[0])
    return browser, ids[1], ids[2]


def _counts():
    with unit_of_work() as s:
        return [s.exec(select(func.count()).select_from(t)).one() for t in (Post, Outbound, AuditLog, User, LoginToken)]


# (route, form, a page with a CSRF token of the session) — the fields the scan's 500s came from
CASES = [
    ("/games/{gid}/posts", {"body": "good luck\x00"}, "/games/{gid}"),
    ("/games/{gid}/manage", {"action": "say", "text": "hello\x00", "to": ""}, "/games/{gid}"),
    ("/games/{gid}/manage", {"action": "resign", "reason": "bye\x00", "confirm": "yes"}, "/games/{gid}"),
    ("/games/{mine}/invite", {"email": "cid\x00@example.org"}, "/games/{mine}"),
    ("/login", {"email": "ann\x00@example.org"}, "/login"),
    ("/signup", {"email": "dan@example.org", "name": "Dan\x00"}, "/signup"),
]


@pytest.mark.parametrize("route,form,page", CASES, ids=[f"{c[0]} {sorted(c[1])}" for c in CASES])
def test_a_nul_in_a_form_field_is_refused_and_changes_nothing(site, route, form, page):
    browser, gid, mine = site
    url, page = route.format(gid=gid, mine=mine), page.format(gid=gid, mine=mine)
    before = _counts()
    r = browser.post(url, form, page=page)
    assert r.status_code == 400, (r.status_code, r.get_data(as_text=True)[:300])
    assert "NUL character" in r.get_data(as_text=True)
    assert _counts() == before
    # the same form without the NUL goes through
    clean = {k: v.replace("\x00", "") for k, v in form.items()}
    assert browser.post(url, clean, page=page).status_code in (200, 302, 303)


@pytest.mark.parametrize("url", ["/games/{gid}/board?ply=1%00", "/games/{gid}/thread.json?after=%00",
                                 "/login?next=/me%00", "/rules/spyrium%00"])
def test_a_nul_in_the_address_is_refused(site, url):
    browser, gid, _ = site
    r = browser.get(url.format(gid=gid))
    assert r.status_code == 400 and "NUL character" in r.get_data(as_text=True)


def test_a_move_to_a_game_that_does_not_exist_is_a_404(site):
    """Before, the move form took the 404 for a system error: logged, and 'internal error' flashed."""
    browser, gid, _ = site
    r = browser.post(f"/games/{gid + 1000}/move", {"text": "pass", "ply": "0"}, page=f"/games/{gid}")
    assert r.status_code == 404
