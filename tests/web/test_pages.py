"""The pages other than the game page, through the Flask test
client: error pages, the web wording of examples, the rules page for
players, the result of a finished game, confirmations, the start mail of
the last to join, and the record a rollback leaves."""
from __future__ import annotations

import re

from sqlmodel import select

from pbem.services.core import accounts, games, moves
from pbem.services.lobby import tables
from pbem.services.referee import disputes
from pbem.store.db import unit_of_work
from pbem.store.models import Dispute, Game, Outbound, Post, Seat, User
from tests.web.conftest import make_user


def _login(web, uid):
    b = web()
    b.login_as(uid)
    return b


# ---------------------------------------------------------------- error pages


def test_error_pages_are_the_sites_and_know_who_is_logged_in(web):
    ann = make_user("ann@example.org", "Ann")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ann), "mini", 1, {"hand": "1"})
        gid = g.id
    visitor, b = web(), _login(web, ann)
    r = visitor.get(f"/games/{gid}/manage")
    text = r.get_data(as_text=True)
    assert r.status_code == 401 and "Log in first" in text and "password" not in text
    assert '<header class="top">' in text
    r = b.get(f"/games/{gid}/board?ply=abc")
    text = r.get_data(as_text=True)
    assert r.status_code == 400 and "ply is a whole number" in text and "Nothing was changed" in text
    assert "Ann" in text.split("</header>")[0]  # the header of the logged-in person
    for url, status in (("/no-such-page", 404), ("/admin", 403), (f"/games/{gid}/board?ply=99", 400)):
        r = b.get(url)
        head = r.get_data(as_text=True).split("</header>")[0]
        assert r.status_code == status and "Ann" in head and "Log in" not in head, url
    r = b.client.put("/lobby")
    assert r.status_code == 405 and "Not allowed here" in r.get_data(as_text=True)


def test_the_favicon(web):
    r = web().get("/favicon.ico")
    assert r.status_code == 200 and r.mimetype == "image/vnd.microsoft.icon" and r.data[:4] == b"\x00\x00\x01\x00"


# ---------------------------------------------------------------- words for the web


def test_examples_are_worded_for_the_web_not_for_mail(web):
    from pbem.web.wording import web_text

    ann = make_user("ann@example.org", "Ann")
    b = _login(web, ann)
    r = b.post("/profile", {"name": "", "mail_format": "html", "notify": "every", "timezone": "UTC"},
               page="/profile", follow_redirects=True)
    text = r.get_data(as_text=True)
    assert "REGISTER" not in text
    # a flash made from a UserError: the mail command becomes what the site offers
    assert web_text("game #3 is over\n  e.g. STATUS 3") == "game #3 is over (see the game's page)"
    assert web_text("bad name\n  e.g. REGISTER Anna K.") == "bad name (for example Anna K.)"
    r = b.post("/games/999/join", {}, page="/lobby", follow_redirects=True)
    text = r.get_data(as_text=True)
    assert "e.g." not in text and "GAMES" not in text


def test_the_rules_page_speaks_to_players(web):
    for name in ("spyrium", "squire", "iaww"):
        text = web().get(f"/rules/{name}").get_data(as_text=True)
        assert "Notes for the moderator" not in text and "RULES.md" not in text, name
        assert "<pre>" not in text  # each example block can be reached by keyboard (it may scroll)
    assert '<pre tabindex="0">' in web().get("/rules/squire").get_data(as_text=True)


# ---------------------------------------------------------------- my games


def test_a_finished_game_shows_its_winner_and_scores(web):
    ann, ben = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ann), "mini", 2, {"hand": "1"}, seed=2)
        tables.join(s, s.get(User, ben), g.id)
        gid = g.id
    for seat in (0, 1):
        with unit_of_work() as s:
            g = games.get(s, gid)
            engine = games.engine_for(g)
            st = games.state_at(s, g)
            mover = sorted(engine.to_move(st))[0]
            move = engine.format_move(st, mover, [m for m in engine.legal_moves(st, mover) if m.kind == "play"][0])
            assert moves.submit_moves(s, gid, mover, [move], source="web").ok
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.status == "finished"
        out = g.outcome
    names = {0: "Ann", 1: "Ben"}
    text = _login(web, ann).get("/me").get_data(as_text=True)
    row = text.split(f"#{gid}</a>")[1].split("</tr>")[0]
    for seat, score in enumerate(out["scores"]):
        assert f"{names[seat]} {score}" in row
    if 0 in out["winners"]:
        assert "you won" in row
    else:
        assert "won by <b>Ben" in row


# ---------------------------------------------------------------- the last to join


def test_the_last_to_join_on_the_web_gets_the_start_mail_with_a_reply_address(web):
    ann, ben = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    with unit_of_work() as s:
        gid = tables.create(s, s.get(User, ann), "mini", 2, {"hand": "2"}).id
    b = _login(web, ben)
    b.post(f"/games/{gid}/join", {}, page="/lobby")
    with unit_of_work() as s:
        assert s.get(Game, gid).status == "running"
        token = s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == ben)).one().token
        mails = list(s.exec(select(Outbound).where(Outbound.to_addr == "ben@example.org",
                                                   Outbound.game_id == gid)))
    assert mails and "has started" in mails[0].body_text
    assert any(token in (m.headers.get("Reply-To", "") + m.body_text) for m in mails)


def test_the_last_to_join_by_mail_gets_the_start_mail_with_a_reply_address(sqlite_cfg):
    from tests.mailtools import seat_addr, start_game

    gid = start_game(players=2)
    addr = seat_addr(gid, 1)
    with unit_of_work() as s:
        mails = list(s.exec(select(Outbound).where(Outbound.to_addr == "p1@x.test", Outbound.game_id == gid)))
    assert mails and any(addr in m.headers.get("Reply-To", "") for m in mails)


# ---------------------------------------------------------------- confirmations


def test_resign_without_its_confirmation_changes_nothing(web):
    ann, ben = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ann), "mini", 2, {"hand": "3"})
        tables.join(s, s.get(User, ben), g.id)
        gid = g.id
    b = _login(web, ben)
    page = b.get(f"/games/{gid}/manage").get_data(as_text=True)
    form = page.split('id="act-resign"')[1].split("</form>")[0]
    assert re.search(r'<input type="checkbox" name="confirm" value="yes" required>', form)
    r = b.post(f"/games/{gid}/manage", {"action": "resign"}, page=f"/games/{gid}/manage")
    assert r.status_code == 400 and "needs a confirmation" in r.get_data(as_text=True)
    with unit_of_work() as s:
        assert not s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == ben)).one().resigned
    r = b.post(f"/games/{gid}/manage", {"action": "resign", "confirm": "yes"}, page=f"/games/{gid}/manage",
               follow_redirects=True)
    assert "you have resigned" in r.get_data(as_text=True)


def test_a_player_renews_the_seats_reply_address_on_the_web(web):
    """NEWADDRESS without mail: the player who fears their seat's address has leaked renews it from the
    game's page (a form with its CSRF token, like every other); the old address stops working, and the
    player is mailed from the new one. Without the token, nothing changes."""
    ann, ben = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ann), "mini", 2, {"hand": "3"})
        tables.join(s, s.get(User, ben), g.id)
        gid = g.id

    def token() -> str:
        with unit_of_work() as s:
            return s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == ben)).one().token

    old = token()
    b = _login(web, ben)
    assert 'id="act-newaddress"' in b.get(f"/games/{gid}/manage").get_data(as_text=True)
    r = b.post(f"/games/{gid}/manage", {"action": "newaddress"}, csrf=False)
    assert r.status_code == 400 and token() == old
    r = b.post(f"/games/{gid}/manage", {"action": "newaddress"}, page=f"/games/{gid}/manage", follow_redirects=True)
    assert "your seat has a new reply address" in r.get_data(as_text=True)
    new = token()
    assert new != old
    with unit_of_work() as s:
        mails = list(s.exec(select(Outbound).where(Outbound.to_addr == "ben@example.org", Outbound.game_id == gid)))
    assert any(new in m.headers.get("Reply-To", "") and "renewed" in m.body_text for m in mails)
    assert not any(old in m.headers.get("Reply-To", "") for m in mails if "renewed" in m.body_text)
    # a stranger (not seated) cannot renew anybody's
    c = _login(web, make_user("cy@example.org", "Cy"))
    r = c.post(f"/games/{gid}/manage", {"action": "newaddress"}, page=f"/games/{gid}/manage")
    assert r.status_code == 400 and token() == new


# ---------------------------------------------------------------- the record of a rollback


def test_a_rollback_keeps_the_disputed_position_and_credits_the_seats_player(web):
    ann, ben = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    admin = make_user("ada@example.org", "Ada", admin=True)
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ann), "mini", 2, {"hand": "3"}, seed=5)
        tables.join(s, s.get(User, ben), g.id)
        gid = g.id
        engine = games.engine_for(g)
    played = []
    for _ in range(2):
        with unit_of_work() as s:
            g = games.get(s, gid)
            st = games.state_at(s, g)
            seat = sorted(engine.to_move(st))[0]
            move = engine.format_move(st, seat, [m for m in engine.legal_moves(st, seat) if m.kind == "play"][0])
            assert moves.submit_moves(s, gid, seat, [move], source="web").ok
            played.append((seat, move))
    with unit_of_work() as s:
        d = disputes.open_dispute(s, s.get(User, ann), gid, 2, "Ben played the wrong card")
        did = d.id
    b = _login(web, admin)
    page = b.get(f"/admin/disputes/{did}").get_data(as_text=True)
    before, after = (page.split('id="before"')[1].split('id="after"')[0],
                     page.split('id="after"')[1].split('id="log"')[0])
    assert before != after
    seat = played[1][0]
    r = b.post(f"/admin/disputes/{did}", {"action": "rollback", "ply": "1", "text": f"{seat + 1}: wait",
                                          "reason": "agreed by both", "confirm": "yes"},
               page=f"/admin/disputes/{did}", follow_redirects=True)
    assert r.status_code == 200 and "rolled back" in r.get_data(as_text=True)
    page = b.get(f"/admin/disputes/{did}").get_data(as_text=True)
    before2, after2 = (page.split('id="before"')[1].split('id="after"')[0],
                       page.split('id="after"')[1].split('id="log"')[0])
    assert (before2, after2) == (before, after)  # the record of what was disputed stands
    assert 'id="correction"' in page and "wait" in page.split('id="correction"')[1].split("</p>")[0]
    with unit_of_work() as s:
        assert s.get(Dispute, did).status == "resolved"
        fixed = s.exec(select(Post).where(Post.game_id == gid, Post.kind == "move", Post.ply == 3)).one()
        assert fixed.user_id == ben and fixed.source == "admin"  # the seat's player's move, entered by an admin
    manage = _login(web, ann).get(f"/games/{gid}/manage").get_data(as_text=True)
    thread = manage.split('id="thread"')[1].split("</ul>")[0]
    line3 = [li for li in thread.split("<li") if "ply 3:" in li][0]
    assert "Ben" in line3 and "corrected by Ada" in line3
    line2 = [li for li in thread.split("<li") if "ply 2:" in li][0]
    assert "undone" in line2
