"""The game page's data, without a browser: the thread in pages,
the long poll and the parts it carries, the move preview, the whole log."""
from __future__ import annotations

import re
import threading
import time

from pbem.services.core import games, seating, thread
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from tests.web.gamepage import people, played

THREADED = {"wsgi.multithread": True}  # as under gunicorn's gthread workers: a long poll may be held


def _mover(gid: int) -> int:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        return seating.seats(s, gid)[min(games.engine_for(g).to_move(games.state_at(s, g)))].user_id


def test_the_page_shows_the_newest_posts_and_moves_and_all_on_request(web):
    a, b, _ = people()
    gid, _ = played("iaww", a, b, plies=20, talk=40)
    c = web()
    c.login_as(a)
    page = c.get(f"/games/{gid}").get_data(as_text=True)
    ids = [int(x) for x in re.findall(r'<div class="post [^"]*" data-id="(\d+)">', page)]
    assert len(ids) == 30 and ids == sorted(ids, reverse=True)  # newest first
    assert 'id="older"' in page
    rows = re.findall(r"<tr[^>]*><td>(\d+)</td>", page.split('id="log"', 1)[1])
    assert len(rows) == 12 and "newest 12 of" in page
    whole = c.get(f"/games/{gid}?all=1").get_data(as_text=True)
    assert len(re.findall(r'<div class="post [^"]*" data-id="\d+">', whole)) > 30 and 'id="older"' not in whole
    # the page before the oldest shown
    older = c.get(f"/games/{gid}/thread.json?before={min(ids)}").get_json()
    assert older["posts"] and max(p["id"] for p in older["posts"]) < min(ids)


def test_a_long_poll_answers_when_a_post_arrives_and_carries_parts_only_for_a_new_ply(web):
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=3)
    c = web()
    c.login_as(a)
    first = c.get(f"/games/{gid}/thread.json").get_json()
    last, stamp = max(p["id"] for p in first["posts"]), first["stamp"]
    got = {}

    def ask():
        t = time.monotonic()
        got["r"] = c.get(f"/games/{gid}/thread.json?after={last}&stamp={stamp}&wait=20",
                         environ_overrides=THREADED).get_json()
        got["t"] = time.monotonic() - t

    th = threading.Thread(target=ask)
    th.start()
    time.sleep(1.5)
    with unit_of_work() as s:
        thread.post(s, s.get(Game, gid), s.get(User, b), "hello while you wait")
    th.join(30)
    assert got["r"]["held"] and 1.0 < got["t"] < 6, got
    assert [p["body"] for p in got["r"]["posts"]] == ["hello while you wait"] and "parts" not in got["r"]

    # a page drawn from another ply gets the parts a new ply changes, rendered for its reader
    r = c.get(f"/games/{gid}/thread.json?after=999999&stamp=0:running:0").get_json()
    assert set(r["parts"]) == {"status", "now", "drawing", "board", "move", "players", "log", "scores"}
    assert 'id="cur-ply">3<' in r["parts"]["status"]
    # nothing new: an empty answer when the wait is up; not held by a server that cannot (a sync worker)
    t = time.monotonic()
    r = c.get(f"/games/{gid}/thread.json?after=999999&stamp={r['stamp']}&wait=20").get_json()
    assert not r["held"] and r["posts"] == [] and "parts" not in r and time.monotonic() - t < 3


def test_bad_query_values_are_refused_kindly(web):
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=1)
    c = web()
    for q, word in (("wait=soon", "wait=12"), ("before=x", "before=12"), ("after=x", "after=12")):
        r = c.get(f"/games/{gid}/thread.json?{q}")
        assert r.status_code == 400 and word in r.get_data(as_text=True), q


def test_the_preview_says_what_a_move_does_or_why_not_and_changes_nothing(web):
    a, b, olga = people()
    gid, _ = played("spyrium", a, b, plies=0, talk=0)
    mover = _mover(gid)
    c = web()
    c.login_as(mover)
    ok = c.get(f"/games/{gid}/preview?text=place 4-5").get_json()
    assert ok["ok"] and ok["moves"][0]["notation"] == "place 4-5" and "worker" in ok["moves"][0]["words"]
    bad = c.get(f"/games/{gid}/preview?text=place 9-9").get_json()
    assert not bad["ok"] and "9-9" in bad["error"] and bad["examples"]
    two = c.get(f"/games/{gid}/preview", query_string={"text": "place 4-5\nplace 5-6"}).get_json()
    assert not two["ok"] and len(two["moves"]) == 1 and two["error"]  # the second cannot follow the first
    watcher = web()
    watcher.login_as(olga)
    assert "no seat" in watcher.get(f"/games/{gid}/preview?text=place 4-5").get_json()["error"]
    assert "Log in" in web().get(f"/games/{gid}/preview?text=place 4-5").get_json()["error"]
    with unit_of_work() as s:
        assert s.get(Game, gid).ply == 0
    with unit_of_work() as s:
        g = s.get(Game, gid)
        g.paused = True
        s.add(g)
    assert "paused" in c.get(f"/games/{gid}/preview?text=place 4-5").get_json()["error"]
    page = c.get(f"/games/{gid}").get_data(as_text=True)
    assert 'class="pill paused"' in page and 'id="move-form"' not in page and "Paused by an admin" in page


def test_a_poll_never_sets_the_session_cookie(web):
    """A live page's poll in flight while its player sends a move must not put back the cookie from
    before the move (the move's result, "Applied: …", is in it): the polls leave the cookie alone,
    while a page still renews it."""
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=3)
    c = web()
    c.login_as(a)
    with c.client.session_transaction() as sess:
        sess.permanent = True  # as the login link makes it (site.log_in): renewed with every answer
    first = c.get(f"/games/{gid}/thread.json").get_json()
    polls = (f"/games/{gid}/thread.json", f"/games/{gid}/view.json",
             f"/games/{gid}/thread.json?after={max(p['id'] for p in first['posts'])}&stamp={first['stamp']}")
    for path in polls:
        r = c.get(path)
        assert r.status_code == 200 and "Set-Cookie" not in r.headers, path
    assert "Set-Cookie" in c.get(f"/games/{gid}").headers
