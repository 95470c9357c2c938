"""Private games on the web: creating a private or a password game in the lobby, joining
with the password, invitations accepted and declined, a player removed by the creator before the
start, and the lobby and the game's pages showing a private game only to those who may see it."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Game, Invitation, JoinAttempt, Outbound, Seat, User
from tests.web.conftest import make_user


def _outbox(to: str) -> list[Outbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Outbound).where(Outbound.to_addr == to).order_by(Outbound.id)))


def seated(gid: int) -> list[str]:
    with unit_of_work() as s:
        rows = s.exec(select(Seat, User).join(User, User.id == Seat.user_id).where(Seat.game_id == gid)
                      .order_by(Seat.seat)).all()
        return [u.name for _, u in rows]


@pytest.fixture
def people(web):
    ids = {n: make_user(f"{n}@example.org", n.title()) for n in ("ann", "ben", "cat", "dan")}
    out = {}
    for n, uid in ids.items():
        out[n] = web()
        out[n].login_as(uid)
    out["visitor"] = web()
    return out


def create(b, access: str, password: str = "") -> int:
    r = b.post("/lobby/new", {"game": "squire", "players": "3", "deadline_hours": "48", "policy": "wait",
                              "day_mask": "", "access": access, "password": password}, page="/lobby")
    assert r.status_code == 303, r.get_data(as_text=True)
    return int(r.headers["Location"].rsplit("/", 1)[1])


def page(b, url: str) -> str:
    return b.get(url).get_data(as_text=True)


def test_private_game_lobby_page_and_join_for_visitor_stranger_and_invitee(people):
    ann, ben, cat, visitor = people["ann"], people["ben"], people["cat"], people["visitor"]
    public = create(ann, "public")
    gid = create(ann, "private")
    with unit_of_work() as s:
        assert s.get(Game, gid).access == "private"
    ann.post(f"/games/{gid}/invite", {"email": "cat@example.org"}, page=f"/games/{gid}")
    # the visitor and the stranger see the public game only, and the private game's pages are not there
    for who in (visitor, ben):
        lobby = page(who, "/lobby")
        assert f'id="open-{public}"' in lobby and f'id="open-{gid}"' not in lobby
        assert who.get(f"/games/{gid}").status_code == 404
        assert who.get(f"/games/{gid}/view.json").status_code == 404
    # a stranger's join is refused, and nothing changes
    r = ben.post(f"/games/{gid}/join", page="/lobby")
    assert r.status_code == 303
    assert "is private: only the people its players invite may join it" in page(ben, "/lobby")
    assert seated(gid) == ["Ann"]
    # the invitee sees it in the lobby (with the invitation) and on its page
    lobby = page(cat, "/lobby")
    assert f'id="open-{gid}"' in lobby and f'id="invitation-{gid}"' in lobby
    assert 'id="accept"' in page(cat, f"/games/{gid}")
    # and so does the creator
    assert f'id="open-{gid}"' in page(ann, "/lobby")


def test_password_game_join_refused_without_and_with_a_wrong_password(people):
    ann, ben = people["ann"], people["ben"]
    gid = create(ann, "password", "heron7")
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.access == "password" and "heron7" not in g.password_hash
    lobby = page(ben, "/lobby")
    assert f'id="open-{gid}"' in lobby and 'name="password"' in lobby
    ben.post(f"/games/{gid}/join", {}, page="/lobby")
    shown = page(ben, f"/games/{gid}")
    assert f"Game #{gid} needs a password to join: type it in the Password field next to Join" in shown
    ben.post(f"/games/{gid}/join", {"password": "Heron7"}, page="/lobby")
    assert f"That is not the password of game #{gid}, so you have not joined" in page(ben, f"/games/{gid}")
    assert seated(gid) == ["Ann"]
    with unit_of_work() as s:  # the failed tries are kept though the page's transaction refused the join
        assert len(s.exec(select(JoinAttempt).where(JoinAttempt.game_id == gid)).all()) == 2
    ben.post(f"/games/{gid}/join", {"password": "heron7"}, page="/lobby")
    assert f"You have seat 2 in game #{gid}." in page(ben, f"/games/{gid}")
    assert seated(gid) == ["Ann", "Ben"]


def test_password_guessing_on_the_web_is_refused_after_ten_tries(people):
    ann, ben = people["ann"], people["ben"]
    gid = create(ann, "password", "heron7")
    for i in range(tables.MAX_TRIES):
        ben.post(f"/games/{gid}/join", {"password": f"guess{i}"}, page="/lobby")
    ben.post(f"/games/{gid}/join", {"password": "heron7"}, page="/lobby")
    assert "a wrong password 10 times in the last hour" in page(ben, f"/games/{gid}")
    assert seated(gid) == ["Ann"]


def test_invitations_accepted_and_declined_on_the_web(people):
    ann, ben, cat, dan = people["ann"], people["ben"], people["cat"], people["dan"]
    gid = create(ann, "private")
    for who in ("ben", "cat"):
        ann.post(f"/games/{gid}/invite", {"email": f"{who}@example.org"}, page=f"/games/{gid}")
    invited = _outbox("ben@example.org")[-1].body_text
    assert f"ACCEPT {gid}" in invited and f"DECLINE {gid}" in invited
    assert f'id="invitation-{gid}"' in page(ben, "/me")  # on My games too
    ben.post(f"/games/{gid}/accept", page="/me")
    assert f"You have seat 2 in game #{gid}." in page(ben, f"/games/{gid}")
    cat.post(f"/games/{gid}/decline", page="/lobby")
    lobby = page(cat, "/lobby")
    assert f"You have declined the invitation to game #{gid}" in lobby and f'id="invitation-{gid}"' not in lobby
    told = [o for o in _outbox("ann@example.org") if o.kind == "notice"][-1]
    assert f"Cat has declined your invitation to game #{gid}" in told.body_text
    with unit_of_work() as s:
        rows = dict(s.exec(select(Invitation.email, Invitation.status).where(Invitation.game_id == gid)).all())
    assert rows == {"ben@example.org": "accepted", "cat@example.org": "declined"}
    # someone not invited has nothing to accept
    dan.post(f"/games/{gid}/accept", page="/lobby")
    assert f"you have no invitation to game #{gid} to answer" in page(dan, "/lobby")
    assert seated(gid) == ["Ann", "Ben"]


def test_the_creator_removes_a_player_before_the_start_on_the_web(people, web):
    ann, ben, cat = people["ann"], people["ben"], people["cat"]
    gid = create(ann, "public")
    ben.post(f"/games/{gid}/join", page="/lobby")
    cat.post(f"/games/{gid}/join", page="/lobby")  # the game (3 seats) is full now and starts
    gid = create(ann, "public")
    ben.post(f"/games/{gid}/join", page="/lobby")
    shown = page(ann, f"/games/{gid}")
    assert 'id="remove-2"' in shown and 'id="remove-1"' not in shown  # not the creator herself
    assert 'id="remove-2"' not in page(ben, f"/games/{gid}")
    ben.post(f"/games/{gid}/remove", {"seat": "1"}, page=f"/games/{gid}")
    assert f"only the creator of game #{gid} removes players from it" in page(ben, f"/games/{gid}")
    ann.post(f"/games/{gid}/remove", {"seat": "2"}, page=f"/games/{gid}")
    assert f"Ben is no longer in game #{gid} and is told so by mail." in page(ann, f"/games/{gid}")
    assert seated(gid) == ["Ann"]
    told = [o for o in _outbox("ben@example.org") if o.kind == "notice"][-1].body_text
    assert f"has removed you from it before it started" in told
    # an admin may too (audited); a started game's players are not removed
    admin = web()
    admin.login_as(make_user("root@example.org", "Root", admin=True))
    cat.post(f"/games/{gid}/join", page="/lobby")
    admin.post(f"/games/{gid}/remove", {"seat": "2"}, page=f"/games/{gid}")
    assert seated(gid) == ["Ann"]
    with unit_of_work() as s:
        assert s.exec(select(AuditLog.action).where(AuditLog.game_id == gid)).all() == ["remove_player"]
    started = gid - 1
    ann.post(f"/games/{started}/remove", {"seat": "2"}, page=f"/games/{started}")
    assert "a player is removed only before the start" in page(ann, f"/games/{started}")
    assert sorted(seated(started)) == ["Ann", "Ben", "Cat"]  # (Squire draws the seating at the start)
