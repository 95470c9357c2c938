"""The tournament page's script in a real Chromium (pbem/web/static/tournament.js): an open page
puts in the new standings and tables when a table's game ends and when the director starts the
next round, without reloading, through its event stream; without EventSource (``?live=poll``)
it would poll instead, and without script the page reloads itself (its <noscript> refresh)."""
from __future__ import annotations

from pbem.services.core import accounts
from pbem.services.lobby.tournaments import season
from pbem.store.db import unit_of_work
from pbem.store.models import User
from tests.browser import PATIENCE_MS
from tests.tournaments.test_web import _finish
from tests.web.conftest import chromium, live  # noqa: F401 - the served site and the browser, as fixtures


def test_an_open_tournament_page_follows_its_games_without_reloading(live, chromium):  # noqa: F811
    with unit_of_work() as s:
        ids = [accounts.register(s, f"b{i}@x.test", f"B{i}", confirmed=True)[0].id for i in range(3)]
        t = season.create(s, s.get(User, ids[0]), "mini", name="Live league", table_size=3, options={"hand": "2"},
                          rounds=2, seed=5)
        for uid in ids:
            season.join(s, s.get(User, uid), t.id)
        tid = t.id
    with unit_of_work() as s:
        _t, _r, made = season.start_round(s, s.get(User, ids[0]), tid)
        gid = made[0].id

    page = chromium.new_page()
    page.goto(f"{live}/tournaments/{tid}")
    assert "(1.)" not in page.inner_text("#tournament-live")
    page.evaluate("window.stayed = true")  # gone if the page reloads
    page.wait_for_timeout(500)  # its stream is open (were it not yet, it would hear the change at once)

    _finish(gid)
    page.wait_for_selector("#tournament-live li:has-text('(1.)')", timeout=PATIENCE_MS)  # (no eval: the site's CSP)
    with unit_of_work() as s:
        season.start_round(s, s.get(User, ids[0]), tid)
    page.wait_for_selector("#round-2", timeout=PATIENCE_MS)
    assert page.evaluate("window.stayed === true")
    assert "3" in page.inner_text("#standings")  # 3-1-0 at a table of three
