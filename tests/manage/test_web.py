"""The management page and the admin disputes queue over the Flask app and a
real database: actions by players, refusals that change nothing, and a
dispute resolved by rollback from the console."""
from datetime import date, timedelta

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.engine.base import replay
from pbem.services.core import games, moves
from pbem.services.referee import disputes
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Dispute, Move, Post, User, Vacation
from pbem.web import create_app
from tests.manage.helpers import mails, running, user
from tests.web.conftest import log_in


@pytest.fixture
def app(sqlite_cfg):
    app = create_app(sqlite_cfg)
    app.config.update(TESTING=True, WTF_CSRF_ENABLED=False)
    return app


def login(app, uid):
    c = app.test_client()
    log_in(c, uid)
    return c


def _play(gid, seat, text):
    with unit_of_work() as s:
        assert moves.submit_moves(s, gid, seat, [text], source="web").ok


def test_players_manage_a_game_on_the_web(app):
    gid, uids = running(players=2)
    url = f"/games/{gid}/manage"
    assert app.test_client().get(url).status_code == 401
    ann, bob = login(app, uids[0]), login(app, uids[1])
    page = ann.get(url)
    assert page.status_code == 200 and b"Player 0 \xe2\x80\x94 to move" in page.data
    # table talk, public and private; escaped
    r = ann.post(url, data={"action": "say", "text": "<b>hi</b> all"}, follow_redirects=True)
    assert b"sent to the table" in r.data and b"&lt;b&gt;hi&lt;/b&gt; all" in r.data
    ann.post(url, data={"action": "say", "to": "2", "text": "psst"})
    assert b"psst" in bob.get(url).data
    eve = login(app, uids[2])  # the admin is not seated: does not see the private word
    assert b"psst" not in eve.get(url).data and b"hi" in eve.get(url).data
    # undo: Ann asks, Bob agrees; the move stays in the log, marked
    _play(gid, 0, "wait")
    r = ann.post(url, data={"action": "undo"}, follow_redirects=True)
    assert b"asked the others to agree to take back ply 1" in r.data
    r = bob.post(url, data={"action": "undo-yes"}, follow_redirects=True)
    assert b"the moves are taken back" in r.data and b'class="undone"' in r.data
    # a bad vacation is refused with the reason and an example; nothing is stored
    r = ann.post(url, data={"action": "vacation", "starts": "soon", "ends": "later"})
    assert r.status_code == 400 and b"YYYY-MM-DD" in r.data and b"for example 2026-12-20 2026-12-27" in r.data
    assert b"VACATION 2026" not in r.data  # the example is worded for the web, not for mail
    first = date.today() + timedelta(days=1)
    r = ann.post(url, data={"action": "vacation", "starts": str(first), "ends": str(first + timedelta(days=2))},
                 follow_redirects=True)
    assert b"your clock pauses" in r.data
    # a dispute, a pre-move, and a refused admin action by a player
    r = bob.post(url, data={"action": "dispute", "ply": "1", "text": "the undo was a mistake"}, follow_redirects=True)
    assert b"dispute #1 about ply 1 is open" in r.data
    r = bob.post(url, data={"action": "next", "text": "wait"}, follow_redirects=True)
    assert b"kept for your next turn" in r.data
    r = bob.post(url, data={"action": "force", "seat": "1", "text": "wait", "reason": "x"})
    assert r.status_code == 400 and b"only an admin" in r.data
    with unit_of_work() as s:
        assert len(list(s.exec(select(Vacation)))) == 1 and s.get(Dispute, 1).user_id == uids[1]
        assert not list(s.exec(select(AuditLog).where(AuditLog.action == "force_move")))
    # Ann moves; Bob's pre-move follows at once
    _play(gid, 0, "wait")
    with unit_of_work() as s:
        assert [(m.seat, m.source) for m in s.exec(select(Move).where(Move.undone == False))] == \
            [(0, "web"), (1, "premove")]  # noqa: E712
    # Bob resigns; the (unseated) admin takes over his seat; the page records who played
    assert b"you have resigned" in bob.post(url, data={"action": "resign", "confirm": "yes"}, follow_redirects=True).data
    r = eve.post(url, data={"action": "replace", "seat": "2"}, follow_redirects=True)
    assert b"you now play seat 2" in r.data
    assert b"seat 2: Player 1 from ply 0 to 3" in r.data and b"seat 2: Admin from ply 3" in r.data


def test_with_csrf_on_a_post_without_the_token_changes_nothing(sqlite_cfg):
    app = create_app(sqlite_cfg)
    gid, uids = running(players=2)
    c = login(app, uids[0])
    r = c.post(f"/games/{gid}/manage", data={"action": "say", "text": "hello"})
    assert r.status_code == 400 and b"security token" in r.data
    with unit_of_work() as s:
        assert not list(s.exec(select(Post).where(Post.kind == "post")))


def test_admin_resolves_a_dispute_by_rollback_from_the_console(app):
    gid, uids = running(players=2, seed=9)
    with unit_of_work() as s:
        h = games.state_at(s, games.get(s, gid)).hands
    played = [(0, f"play {h[0][0]}"), (1, f"play {h[1][0]}"), (0, "wait")]
    for seat, text in played:
        _play(gid, seat, text)
    with unit_of_work() as s:
        d = disputes.open_dispute(s, s.get(User, uids[1]), gid, 2, "I played the wrong card by mistake")
    assert login(app, uids[1]).get("/admin/disputes").status_code == 403
    admin = login(app, uids[2])
    q = admin.get("/admin/disputes")
    assert q.status_code == 200 and b"I played the wrong card by mistake" in q.data
    page = admin.get(f"/admin/disputes/{d.id}")
    assert page.status_code == 200
    text = page.data.decode()
    before, after = text.split('id="before"')[1].split('id="after"')
    assert "Player 1 to move" in before and "Player 0 to move" in after  # public boards (the seats named), no hands
    assert "Your hand" not in text
    # a bad list is refused and changes nothing
    r = admin.post(f"/admin/disputes/{d.id}", data={"action": "rollback", "ply": "1", "text": "2 wait",
                                                    "reason": "misclick", "confirm": "yes"})
    assert r.status_code == 400 and b"is not &#39;&lt;seat&gt;: &lt;move&gt;&#39;" in r.data
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 3
    corrected = [(1, f"play {h[1][1]}"), (0, "wait")]
    r = admin.post(f"/admin/disputes/{d.id}", data={
        "action": "rollback", "ply": "1", "reason": "misclick, agreed by Ann", "confirm": "yes",
        "text": "\n".join(f"{seat + 1}: {m}" for seat, m in corrected)}, follow_redirects=True)
    assert r.status_code == 200 and b"Resolution: rollback to ply 1: misclick, agreed by Ann" in r.data
    engine = get_game("mini")
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert games.state_at(s, g) == replay(engine, 2, g.seed, g.options, [played[0], *corrected])
        assert g.ply == 5 and s.get(Dispute, d.id).status == "resolved"
    for uid in uids[:2]:
        assert "Reason: misclick, agreed by Ann" in mails(user(uid).email, "board")[-1].body_text


@pytest.mark.postgres
def test_two_management_actions_on_one_game_at_once_queue_instead_of_deadlocking(pg_cfg):
    """Found by the scan (several wapiti processes at once): a pre-move stored by the web page
    (an insert that takes a key-share lock on the game row) and then applied (FOR UPDATE on that
    row), while another transaction did the same, deadlocked in PostgreSQL: a 500. The page now
    locks the game first, as the mail pipeline does, so the second action waits for the first."""
    import threading
    import time

    from pbem.services.turns import premoves

    pg_cfg.var_dir.mkdir(parents=True, exist_ok=True)  # the embedded broker's file lives there
    app = create_app(pg_cfg)
    app.config.update(WTF_CSRF_ENABLED=False)
    gid, uids = running(players=2)  # seat 0 to move
    holding, errors = threading.Event(), []

    def other_transaction():  # the same action by mail or another tab: store a pre-move, then apply it
        try:
            with unit_of_work() as s:
                g = games.get(s, gid)
                premoves.add(s, g, s.get(User, uids[0]), "wait")
                holding.set()
                time.sleep(1.0)  # the page's request runs into the game row meanwhile
                premoves.apply_due(s, g)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=other_transaction)
    t.start()
    assert holding.wait(10)
    r = login(app, uids[0]).post(f"/games/{gid}/manage", data={"action": "next", "text": "wait"})
    t.join(30)
    assert errors == [] and r.status_code == 302, (errors, r.status_code)
    with unit_of_work() as s:
        assert [m.notation for m in s.exec(select(Move).where(Move.game_id == gid))] == ["wait"]
        assert [p.status for p in premoves.pending_for(s, gid)] == ["pending"]  # the page's, for the next turn
