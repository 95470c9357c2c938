"""The game master through the real mail pipeline and the real
Manage page: each power by the master works, is audited, posted in the thread
and mailed to the table; it is refused to a plain player and to a stranger
with a message that says who may do it, and changes nothing; site admins
keep every power; master= names the master at NEW, and MASTER hands it over."""
from datetime import timedelta

import pytest
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Game, Post, Seat, User, utcnow
from pbem.web import create_app
from tests.mailtools import CMD, outbox, process, seat_addr, start_game
from tests.web.conftest import Browser

TABLE = ("ann@x.test", "p1@x.test", "p2@x.test")


def run(frm, to, body):
    return process(frm, to, body)[1]


def reply(addr) -> str:
    rows = [o for o in outbox(addr) if o.kind == "reply"]
    assert rows, f"no reply to {addr}"
    return rows[-1].body_text


def last_id() -> int:
    rows = outbox()
    return rows[-1].id if rows else 0


def told(since: int, *addrs, kind="notice") -> dict[str, str]:
    """The mails (of ``kind``) each address got after outbox row ``since``."""
    out = {}
    for a in addrs:
        rows = [o for o in outbox(a) if o.id > since and o.kind == kind]
        assert rows, f"{a} was not told ({kind})"
        out[a] = rows[-1].body_text
    return out


def audit(gid, action) -> list[AuditLog]:
    with unit_of_work() as s:
        return list(s.exec(select(AuditLog).where(AuditLog.game_id == gid, AuditLog.action == action)))


def posts(gid) -> list[str]:
    with unit_of_work() as s:
        return [p.body for p in s.exec(select(Post).where(Post.game_id == gid).order_by(Post.id))]


def game(gid) -> Game:
    with unit_of_work() as s:
        return s.get(Game, gid)


def seat(gid, n) -> Seat:
    with unit_of_work() as s:
        return s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == n)).one()


def table_of_three():
    """A running mini game of Ann (its creator: the master), P1 and P2; Zed is registered but not seated,
    and Eve is a site admin."""
    run("zed@x.test", CMD, "REGISTER Zed")
    run("eve@x.test", CMD, "REGISTER Eve")
    with unit_of_work() as s:
        eve = s.exec(select(User).where(User.email == "eve@x.test")).one()
        eve.is_admin = True
        s.add(eve)
    gid = start_game(3)
    assert game(gid).status == "running" and seat(gid, 0).deadline_at is not None
    return gid


def test_a_plain_player_and_a_stranger_are_refused_every_power_by_mail(sqlite_cfg):
    gid = table_of_three()
    before = (game(gid).model_dump(), [seat(gid, n).model_dump() for n in range(3)], len(posts(gid)))
    for cmd in (f"DEADLINE {gid} +24h", f"DEADLINE {gid} hours=72", f"PAUSE {gid}", f"RESUME {gid}",
                f"EJECT {gid} 2", f"POLICY {gid} bot", f"ABORT {gid}", f"MASTER {gid} Zed", f"REPLACE {gid} 3 Zed"):
        for who in ("p1@x.test", "zed@x.test"):
            assert run(who, CMD, cmd) == "done"
            r = reply(who)
            assert f"only the game master of game #{gid} (Ann) or a site admin can do this" in r, (cmd, r)
            assert "nothing was changed" in r and "e.g." in r
    # P1 on his own seat's address: refused the same way
    run("p1@x.test", seat_addr(gid, 1), "PAUSE")
    assert f"only the game master of game #{gid} (Ann)" in reply("p1@x.test")
    with unit_of_work() as s:
        assert not list(s.exec(select(AuditLog).where(AuditLog.game_id == gid)))
    assert (game(gid).model_dump(), [seat(gid, n).model_dump() for n in range(3)], len(posts(gid))) == before
    # a player answering a proposal nobody made, or a stranger answering one: refused too
    run("p1@x.test", CMD, f"ABORT {gid} YES")
    assert f"nobody has proposed to end game #{gid}" in reply("p1@x.test")


def test_the_master_deadline_pause_policy_by_mail(sqlite_cfg):
    gid = table_of_three()
    due = seat(gid, 0).deadline_at
    # extend: the seat to move gets 24 hours more; audited, posted, every player mailed
    since = last_id()
    assert run("ann@x.test", CMD, f"DEADLINE {gid} +24h") == "done"
    assert f"the deadline of game #{gid} is 24 hours later" in reply("ann@x.test")
    assert seat(gid, 0).deadline_at == due + timedelta(hours=24)
    [row] = audit(gid, "deadline_changed")
    assert "extended by 24 h by Ann" in row.detail
    mails = told(since, *TABLE)
    assert all("The game master Ann has extended the deadline of Ann in game" in m for m in mails.values())
    assert "by 24 hours" in posts(gid)[-1]
    # set, in the master's time zone (UTC here); a day past is refused with the syntax
    run("ann@x.test", CMD, f"DEADLINE {gid} 2020-01-01 10:00")
    assert "has passed" in reply("ann@x.test") and f"DEADLINE {gid} +24h" in reply("ann@x.test")
    run("ann@x.test", CMD, f"DEADLINE {gid} soon")
    r = reply("ann@x.test")
    assert "DEADLINE takes +hours to extend" in r and f"DEADLINE {gid} 2026-12-20 18:00" in r
    when = (utcnow() + timedelta(days=3)).strftime("%Y-%m-%d")
    run("ann@x.test", CMD, f"DEADLINE {gid} {when} 18:00")
    assert f"{seat(gid, 0).deadline_at:%Y-%m-%d %H:%M}" == f"{when} 18:00"
    # the hours of each move
    run("ann@x.test", CMD, f"DEADLINE {gid} hours=72")
    assert game(gid).deadline_hours == 72 and len(audit(gid, "deadline_hours")) == 1
    # pause: no move is taken, the table is told; resume restarts the clock with the pause's time given back
    since = last_id()
    run("ann@x.test", seat_addr(gid, 0), "PAUSE")
    assert game(gid).paused and "is paused" in reply("ann@x.test")
    assert all("has paused game" in m for m in told(since, *TABLE).values())
    run("ann@x.test", seat_addr(gid, 0), "wait")
    assert f"game #{gid} is paused" in reply("ann@x.test") and game(gid).ply == 0
    due = seat(gid, 0).deadline_at
    with unit_of_work() as s:  # the pause began two days ago
        row = s.exec(select(AuditLog).where(AuditLog.game_id == gid, AuditLog.action == "game_paused")).one()
        row.created_at = utcnow() - timedelta(days=2)
        s.add(row)
    since = last_id()
    run("ann@x.test", CMD, f"RESUME {gid}")
    assert not game(gid).paused and len(audit(gid, "game_resumed")) == 1
    gained = seat(gid, 0).deadline_at - due
    assert timedelta(days=2) <= gained < timedelta(days=2, minutes=5)
    assert all("has resumed game" in m for m in told(since, *TABLE).values())
    run("ann@x.test", seat_addr(gid, 0), "wait")
    assert game(gid).ply == 1
    # the no-move policy
    since = last_id()
    run("ann@x.test", CMD, f"POLICY {gid} abandon after=2")
    assert (game(gid).policy, game(gid).abandon_after) == ("abandon", 2)
    assert all("when a deadline passes" in m for m in told(since, *TABLE).values())
    run("ann@x.test", CMD, f"POLICY {gid} sometimes")
    assert "the no-move policy is one of wait, bot, abandon" in reply("ann@x.test")
    assert game(gid).policy == "abandon" and len(audit(gid, "policy_changed")) == 1


def test_the_master_ejects_and_seats_a_player_and_hands_over_by_mail(sqlite_cfg):
    gid = table_of_three()
    since = last_id()
    run("ann@x.test", CMD, f"EJECT {gid} P2")
    assert f"seat 3 of game #{gid} is open to a replacement" in reply("ann@x.test")
    s3 = seat(gid, 2)
    assert s3.open_for_replacement and s3.is_bot
    assert "seat 3 (P2) ejected by Ann" in audit(gid, "seat_ejected")[0].detail
    assert all("has ejected P2 from seat 3" in m for m in told(since, *TABLE).values())
    # the seat's new reply address never reaches its former player, then or later (a replaced player
    # must not act for the seat)
    since = last_id()
    run("ann@x.test", CMD, f"POLICY {gid} bot")
    assert told(since, "ann@x.test", "p1@x.test") and not [o for o in outbox("p2@x.test") if o.id > since]
    new_address = seat_addr(gid, 2)
    assert not [o for o in outbox("p2@x.test") if new_address in (o.body_text + str(o.headers))]
    run("ann@x.test", CMD, f"EJECT {gid} 3")
    assert "has no player to eject" in reply("ann@x.test")
    run("ann@x.test", CMD, f"REPLACE {gid} 3 Nobody Here")
    assert "nobody is registered as 'Nobody Here'" in reply("ann@x.test")
    since = last_id()
    run("ann@x.test", CMD, f"REPLACE {gid} 3 Zed")
    assert "Zed now plays seat 3" in reply("ann@x.test")
    assert seat(gid, 2).user_id is not None and not seat(gid, 2).is_bot
    assert len(audit(gid, "seat_assigned")) == 1
    boards = [o for o in outbox("zed@x.test") if o.id > since and o.kind == "board"]
    assert boards and "has given seat 3" in boards[-1].body_text
    # the master hands the role to P1: Ann is refused from then on, P1 may
    run("ann@x.test", CMD, f"MASTER {gid} Nobody Here")
    assert "nobody is registered as" in reply("ann@x.test") and "MASTER" in reply("ann@x.test")
    since = last_id()
    run("ann@x.test", CMD, f"MASTER {gid} P1")
    assert "P1 is now the game master" in reply("ann@x.test")
    assert all("P1 is now the game master" in m for m in told(since, *TABLE[:2], "zed@x.test").values())
    run("ann@x.test", CMD, f"PAUSE {gid}")
    assert f"only the game master of game #{gid} (P1) or a site admin" in reply("ann@x.test")
    run("p1@x.test", CMD, f"PAUSE {gid}")
    assert game(gid).paused


def test_ending_by_agreement_and_an_admins_powers_by_mail(sqlite_cfg):
    gid = table_of_three()
    since = last_id()
    run("ann@x.test", CMD, f"ABORT {gid} the rules were misread")
    assert "are asked to agree" in reply("ann@x.test") and len(audit(gid, "abort_proposed")) == 1
    assert all(f"ABORT {gid} YES" in m for m in told(since, *TABLE).values())
    run("zed@x.test", CMD, f"ABORT {gid} YES")
    assert f"only the players of game #{gid} answer" in reply("zed@x.test")
    run("p1@x.test", CMD, f"ABORT {gid} NO")
    assert "goes on" in reply("p1@x.test") and game(gid).status == "running"
    run("p1@x.test", CMD, f"ABORT {gid} YES")
    assert f"nobody has proposed to end game #{gid}" in reply("p1@x.test")
    run("ann@x.test", CMD, f"ABORT {gid}")
    run("p1@x.test", seat_addr(gid, 1), "ABORT YES")
    assert "waited for" in reply("p1@x.test") and game(gid).status == "running"
    since = last_id()
    run("p2@x.test", CMD, f"ABORT {gid} YES")
    assert "has ended" in reply("p2@x.test")
    g = game(gid)
    assert g.status == "aborted" and g.outcome is None and seat(gid, 0).deadline_at is None
    assert len(audit(gid, "game_aborted")) == 1 and "stopped without a result" in posts(gid)[-1]
    assert all("Every player agreed to end it" in m and "was stopped before its end" in m
               for m in told(since, *TABLE).values())
    run("ann@x.test", seat_addr(gid, 0), "wait")
    assert "is over" in reply("ann@x.test")
    # an admin, in another game: every power, and the end at once with a reason
    gid2 = start_game(3)
    run("eve@x.test", CMD, f"PAUSE {gid2}")
    assert game(gid2).paused and "The site admin Eve has paused" in told(0, "p1@x.test")["p1@x.test"]
    run("eve@x.test", CMD, f"RESUME {gid2}\nDEADLINE {gid2} +2d\nPOLICY {gid2} bot\nEJECT {gid2} 2\n"
                           f"REPLACE {gid2} 2 Zed\nMASTER {gid2} P2")
    r = reply("eve@x.test")
    assert "ERROR" not in r, r
    assert (game(gid2).policy, game(gid2).master_id) == ("bot", seat(gid2, 2).user_id)
    run("ann@x.test", CMD, f"ABORT {gid2} NOW no reason needed")
    assert "only an admin can do this" in reply("ann@x.test") and game(gid2).status == "running"
    run("eve@x.test", CMD, f"ABORT {gid2} NOW")
    assert "needs a reason" in reply("eve@x.test")
    since = last_id()
    run("eve@x.test", CMD, f"ABORT {gid2} NOW the table asked for it")
    assert game(gid2).status == "aborted"
    assert all("the table asked for it" in m for m in told(since, "ann@x.test", "p2@x.test", "zed@x.test").values())


def test_new_names_the_master(sqlite_cfg):
    run("ann@x.test", CMD, "REGISTER Ann")
    run("bea@x.test", CMD, "REGISTER Bea Kovacs")
    run("ann@x.test", CMD, "NEW mini players=2 master=Nobody Known")
    r = reply("ann@x.test")
    assert "nobody is registered as 'Nobody Known'" in r and "NEW mini master=Anna K." in r
    with unit_of_work() as s:
        assert not list(s.exec(select(Game)))
    run("ann@x.test", CMD, "NEW mini players=2 master=Bea Kovacs")
    assert "Its game master is Bea Kovacs" in reply("ann@x.test")
    with unit_of_work() as s:
        g = s.exec(select(Game)).one()
        bea = s.exec(select(User).where(User.email == "bea@x.test")).one()
        assert g.master_id == bea.id and g.creator_id != bea.id
    run("bea@x.test", CMD, f"POLICY {g.id} bot")
    assert game(g.id).policy == "bot"
    run("ann@x.test", CMD, f"POLICY {g.id} wait")
    assert f"only the game master of game #{g.id} (Bea Kovacs)" in reply("ann@x.test")
    run("ann@x.test", CMD, f"MASTER {g.id}")
    assert "is Bea Kovacs" in reply("ann@x.test")


# ---------------------------------------------------------------- the Manage page


@pytest.fixture
def app(sqlite_cfg):
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    return app


def browser(app, email) -> Browser:
    b = Browser(app)
    with unit_of_work() as s:
        uid = s.exec(select(User).where(User.email == email)).one().id
    b.login_as(uid)
    return b


def act(b: Browser, gid, **data):
    url = f"/games/{gid}/manage"
    return b.post(url, data, page=url, follow_redirects=True)


def test_the_master_on_the_manage_page(app):
    gid = table_of_three()
    url = f"/games/{gid}/manage"
    ann, p1, zed, eve = (browser(app, e) for e in ("ann@x.test", "p1@x.test", "zed@x.test", "eve@x.test"))
    page = ann.get(url).get_data(as_text=True)
    assert 'id="game-master"' in page and "Game master: Ann" in page
    for b in (p1, zed):
        html = b.get(url).get_data(as_text=True)
        assert 'id="game-master"' not in html and "Game master: Ann" in html
    # refused to a player and a stranger, with who may do it; nothing changes
    for b in (p1, zed):
        for data in ({"action": "master-pause"}, {"action": "master-deadline", "text": "+24h"},
                     {"action": "master-eject", "seat": "2", "confirm": "yes"}, {"action": "master-policy",
                     "text": "bot"}, {"action": "master-abort"}, {"action": "master-handover", "to": "Zed"},
                     {"action": "master-hours", "after": "72"}, {"action": "abort-now", "reason": "x",
                                                                 "confirm": "yes"}):
            r = act(b, gid, **data)
            assert r.status_code == 400, data
            text = r.get_data(as_text=True)
            assert f"only the game master of game #{gid} (Ann) or a site admin" in text or \
                "only an admin can do this" in text, data
    with unit_of_work() as s:
        assert not list(s.exec(select(AuditLog).where(AuditLog.game_id == gid)))
    g = game(gid)
    assert not g.paused and g.policy == "wait" and g.master_id is None
    # the master: each power through the page's forms
    due = seat(gid, 0).deadline_at
    since = last_id()
    r = act(ann, gid, action="master-deadline", text="+12h")
    assert "12 hours later" in r.get_data(as_text=True)
    assert seat(gid, 0).deadline_at == due + timedelta(hours=12)
    assert all("extended the deadline" in m for m in told(since, *TABLE).values())
    act(ann, gid, action="master-hours", after="24")
    assert game(gid).deadline_hours == 24
    act(ann, gid, action="master-pause")
    assert game(gid).paused and "Resume the game" in ann.get(url).get_data(as_text=True)
    act(ann, gid, action="master-resume")
    assert not game(gid).paused
    r = act(ann, gid, action="master-eject", seat="3")
    assert r.status_code == 400 and "needs a confirmation" in r.get_data(as_text=True)
    assert not seat(gid, 2).open_for_replacement
    act(ann, gid, action="master-eject", seat="3", confirm="yes")
    assert seat(gid, 2).open_for_replacement
    act(ann, gid, action="master-seat", seat="3", to="Zed")
    assert not seat(gid, 2).open_for_replacement and not seat(gid, 2).is_bot
    act(ann, gid, action="master-policy", text="abandon", after="4")
    assert (game(gid).policy, game(gid).abandon_after) == ("abandon", 4)
    for action in ("deadline_changed", "deadline_hours", "game_paused", "game_resumed", "seat_ejected",
                   "seat_assigned", "policy_changed"):
        assert len(audit(gid, action)) == 1, action
    # ending by agreement: the master proposes, each player answers on the page
    act(ann, gid, action="master-abort", reason="we lost the thread")
    html = p1.get(url).get_data(as_text=True)
    assert 'id="abort"' in html and "1 of 3 have" in html and "we lost the thread" in html
    act(p1, gid, action="abort-yes")
    zed_html = act(zed, gid, action="abort-yes").get_data(as_text=True)
    assert "the game has ended" in zed_html and game(gid).status == "aborted"
    # hand over, then the old master is refused; an admin keeps every power
    gid2 = start_game(3)
    act(ann, gid2, action="master-handover", to="P1")
    assert game(gid2).master_id == seat(gid2, 1).user_id and len(audit(gid2, "master_changed")) == 1
    r = act(ann, gid2, action="master-pause")
    assert r.status_code == 400 and f"(P1) or a site admin" in r.get_data(as_text=True) and not game(gid2).paused
    act(eve, gid2, action="master-pause")
    assert game(gid2).paused
    act(eve, gid2, action="abort-now", reason="abandoned table", confirm="yes")
    assert game(gid2).status == "aborted" and "abandoned table" in audit(gid2, "game_aborted")[0].detail


def test_a_pause_over_a_dispute_is_lifted_by_an_admin_only(sqlite_cfg):
    from pbem.services.referee import disputes

    gid = table_of_three()
    run("ann@x.test", seat_addr(gid, 0), "wait")
    run("p1@x.test", seat_addr(gid, 1), "DISPUTE 1 that wait was not allowed")
    with unit_of_work() as s:
        eve = s.exec(select(User).where(User.email == "eve@x.test")).one()
        d = disputes.set_pause(s, eve, 1, True, "looking into it")
        assert d.game_id == gid
    run("ann@x.test", CMD, f"RESUME {gid}")
    assert "only a site admin resumes it" in reply("ann@x.test") and game(gid).paused
    run("ann@x.test", CMD, f"PAUSE {gid}")
    assert f"game #{gid} is already paused" in reply("ann@x.test")
    run("eve@x.test", CMD, f"RESUME {gid}")
    assert not game(gid).paused and "The site admin Eve has resumed" in told(0, "p1@x.test")["p1@x.test"]


def test_a_disputes_end_leaves_the_masters_own_pause(sqlite_cfg):
    """The master paused the game; an admin paused it over a dispute too. Closing the dispute lifts the
    dispute's pause only: the game stays paused until the master resumes it."""
    from pbem.services.referee import disputes

    gid = table_of_three()
    run("ann@x.test", seat_addr(gid, 0), "wait")
    run("ann@x.test", CMD, f"PAUSE {gid}")
    run("p1@x.test", seat_addr(gid, 1), "DISPUTE 1 that wait was not allowed")
    with unit_of_work() as s:
        eve = s.exec(select(User).where(User.email == "eve@x.test")).one()
        disputes.set_pause(s, eve, 1, True, "looking into it")
        disputes.reject(s, eve, 1, "the wait stands")
    assert game(gid).paused
    run("ann@x.test", CMD, f"RESUME {gid}")
    assert not game(gid).paused
