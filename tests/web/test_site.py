"""Flask test-client tests for every route and permission: a fresh app and
database per test (SQLite file), real services, real outbox rows."""
from __future__ import annotations

import json
import re
from datetime import date, timedelta

from sqlmodel import select

from pbem.services.core import games, seating
from pbem.services.lobby import tables
from pbem.services.identity.auth import hash_token
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Game, Inbound, LoginToken, Move, Outbound, User, Vacation
from tests.mailtools import mail, store_inbound
from tests.web.conftest import CSRF_RE, last_link, make_user


def _path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def _game(creator_id: int, name: str, others: list[int], seed: int = 7, **options) -> int:
    with unit_of_work() as s:
        me = s.get(User, creator_id)
        g = tables.create(s, me, name, 1 + len(others), options, seed=seed)
        for uid in others:
            tables.join(s, s.get(User, uid), g.id)
        return g.id


def _ply(gid: int) -> int:
    with unit_of_work() as s:
        return s.get(Game, gid).ply


# ---------------------------------------------------------------- public pages


def test_public_pages_explain_the_service_and_each_game(web):
    b = web()
    home = b.get("/").get_data(as_text=True)
    for title in ("Spyrium", "Squire", "It&#39;s a Wonderful World"):
        assert title in home
    for name, word in (("spyrium", "place 4-5"), ("squire", "<table>"), ("iaww", "<code>")):
        r = b.get(f"/rules/{name}")
        assert r.status_code == 200
        html = r.get_data(as_text=True)
        assert "The rules in short" in html and word in html  # the notation file, rendered
    assert b.get("/rules/chess").status_code == 404
    health = b.get("/healthz")  # no beat runs here: up, and saying it is not healthy (tests/ops_health)
    assert health.status_code == 503 and health.json["database"] == {"ok": True}
    assert b.get("/static/site.css").status_code == 200


# ---------------------------------------------------------------- accounts


def test_sign_up_confirm_and_log_in_by_one_time_link(web):
    b = web()
    r = b.post("/signup", {"email": "Anna@Example.org"}, page="/signup")
    assert r.status_code == 200 and "Check your mail" in r.get_data(as_text=True)
    link = last_link("anna@example.org")
    token = link.rsplit("/", 1)[1]
    with unit_of_work() as s:
        assert list(s.exec(select(User))) == []  # no account, and no name, until the owner opens the link
        rows = list(s.exec(select(LoginToken)))
        # only the hash is stored
        assert [t.token_hash for t in rows] == [hash_token(token)] and token not in json.dumps(
            [t.model_dump(mode="json") for t in rows])
    # GET only shows the form (mail scanners fetch links): the token is not spent
    r = b.get(_path(link))
    assert r.status_code == 200 and 'name="name"' in r.get_data(as_text=True)
    assert b.get("/me").status_code == 302
    r = b.post(_path(link), {"name": "Anna K."}, page=_path(link))
    assert r.status_code == 302 and r.headers["Location"].endswith("/me")
    assert "Anna K." in b.get("/me").get_data(as_text=True)
    with unit_of_work() as s:
        assert s.exec(select(User).where(User.email == "anna@example.org")).one().confirmed
    # single use: a second browser cannot reuse it
    other = web()
    assert other.get(_path(link)).status_code == 400
    r = other.post(_path(link), page="/login")
    assert r.status_code == 400 and "already used or expired" in r.get_data(as_text=True)
    assert other.get("/me").status_code == 302
    # log out, then log in with a fresh link
    b.post("/logout")
    assert b.get("/me").status_code == 302
    r = b.post("/login", {"email": "anna@example.org"}, page="/login")
    assert r.status_code == 200
    link2 = last_link("anna@example.org")
    assert link2 != link and "login link" in _outbox("anna@example.org")[-1].subject
    assert 'name="name"' not in b.get(_path(link2)).get_data(as_text=True)
    assert b.post(_path(link2), page="/login").status_code == 302
    assert b.get("/me").status_code == 200


def _outbox(to):
    with unit_of_work() as s:
        return list(s.exec(select(Outbound).where(Outbound.to_addr == to).order_by(Outbound.id)))


def test_login_links_expire_and_unknown_addresses_get_the_same_answer(web):
    uid = make_user("bo@example.org", "Bo")
    b = web()
    unknown = b.post("/login", {"email": "nobody@example.org"}, page="/login")
    assert unknown.status_code == 200 and "Check your mail" in unknown.get_data(as_text=True)
    # the address's owner, and only they, learn that it has no account: by a sign-up link
    assert [m.subject for m in _outbox("nobody@example.org")] == ["pbem: your sign-up link"]
    r = b.post("/login", {"email": "not an address"}, page="/login")
    assert r.status_code == 400 and "not an e-mail address" in r.get_data(as_text=True)
    known = b.post("/login", {"email": "bo@example.org"}, page="/login")
    assert _page_text(known, "bo@example.org") == _page_text(unknown, "nobody@example.org")
    link = last_link("bo@example.org")
    with unit_of_work() as s:
        t = s.exec(select(LoginToken).where(LoginToken.user_id == uid)).one()
        t.expires_at = t.created_at - timedelta(seconds=1)
        s.add(t)
    r = b.post(_path(link), page="/login")
    assert r.status_code == 400 and b.get("/me").status_code == 302


def _page_text(r, email: str) -> str:
    """A page's <main> with the address it names taken out (and its CSRF token)."""
    html = r.get_data(as_text=True).replace(email, "<address>")
    return CSRF_RE.sub("", html.split("<main>")[1].split("</main>")[0])


def test_login_mails_are_rate_limited_without_saying_so(web):
    """Past three links to an address in 15 minutes nothing is sent, and the page is the one every
    address gets (before, it said 'we have already sent 3 login mails': only to a known address)."""
    make_user("cy@example.org", "Cy")
    b = web()
    pages = [b.post("/login", {"email": addr}, page="/login") for addr in ["cy@example.org"] * 4 + ["new@example.org"]]
    assert [p.status_code for p in pages] == [200] * 5
    assert len({_page_text(p, addr) for p, addr in zip(pages, ["cy@example.org"] * 4 + ["new@example.org"])}) == 1
    assert "at most 3 links to one address in 15 minutes" in pages[0].get_data(as_text=True)
    assert len(_outbox("cy@example.org")) == 3


def test_bad_sign_up_is_refused_and_stores_nothing(web):
    b = web()
    r = b.post("/signup", {"email": "x@@example.org"}, page="/signup")
    assert r.status_code == 400 and "not an e-mail address" in r.get_data(as_text=True)
    assert "anna@example.org" in r.get_data(as_text=True)  # a legal example
    b.post("/signup", {"email": "x@example.org"}, page="/signup")
    link = _path(last_link("x@example.org"))
    r = b.post(link, {"name": "<b>x</b>"}, page=link)
    assert r.status_code == 400 and "without &#39;&lt;&#39;" in r.get_data(as_text=True)
    assert 'name="name"' in r.get_data(as_text=True)  # asked again on the same link: nothing was spent
    with unit_of_work() as s:
        assert list(s.exec(select(User))) == []
        assert [t.used_at for t in s.exec(select(LoginToken))] == [None]


def test_profile_and_vacation(web):
    uid = make_user("di@example.org", "Di")
    b = web()
    b.login_as(uid)
    assert b.get("/profile").status_code == 200
    r = b.post("/profile", {"name": "Diana", "mail_format": "text", "notify": "turn",
                            "timezone": "Europe/Moscow"}, page="/profile")
    assert r.status_code == 302
    r = b.post("/profile", {"name": "Diana", "mail_format": "text", "notify": "turn",
                            "timezone": "Mars/Olympus"}, page="/profile")
    assert r.status_code == 400 and "unknown time zone" in r.get_data(as_text=True)
    with unit_of_work() as s:
        u = s.get(User, uid)
        assert (u.name, u.mail_format, u.notify, u.timezone) == ("Diana", "text", "turn", "Europe/Moscow")
    # who may use her seats' reply addresses (SEATS OWN by mail)
    assert "only this address (mail from any other is refused" in b.get("/profile").get_data(as_text=True)
    form = {"name": "Diana", "mail_format": "text", "notify": "turn", "timezone": "Europe/Moscow"}
    assert b.post("/profile", {**form, "seat_senders": "own"}, page="/profile").status_code == 302
    r = b.post("/profile", {**form, "seat_senders": "nobody"}, page="/profile")
    assert r.status_code == 400 and "reply addresses: &#39;any&#39; or &#39;own&#39;" in r.get_data(as_text=True)
    with unit_of_work() as s:
        assert s.get(User, uid).seat_senders == "own"
    d0 = date.today() + timedelta(days=3)
    b.post("/profile/vacation", {"starts_on": str(d0), "ends_on": str(d0 + timedelta(days=5))}, page="/profile")
    assert "no open or running games" in b.get("/profile").get_data(as_text=True)
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, uid), "spyrium", 2)
        gid = g.id
    b.post("/profile/vacation", {"starts_on": str(d0), "ends_on": str(d0 + timedelta(days=5))}, page="/profile")
    r = b.post("/profile/vacation", {"starts_on": str(d0), "ends_on": str(d0 - timedelta(days=1))}, page="/profile")
    assert "the last day comes before the first" in b.get("/profile").get_data(as_text=True)
    with unit_of_work() as s:
        v = s.exec(select(Vacation)).all()
        assert [(x.user_id, x.game_id, x.starts_on) for x in v] == [(uid, gid, d0)]


# ---------------------------------------------------------------- CSRF and permissions


def test_every_post_route_enforces_csrf(app, web):
    uid = make_user("ad@example.org", "Admin", admin=True)
    b = web()
    b.login_as(uid)
    posts = [r for r in app.url_map.iter_rules() if "POST" in r.methods]
    assert len(posts) >= 12
    # the one exception: the one-click unsubscribe (RFC 8058), POSTed by mailbox providers; its token
    # is the authority, and without a good one it is refused and changes nothing
    no_csrf = {"/unsubscribe/<token>"}
    for rule in posts:
        url = re.sub(r"<(?:[^:>]+:)?[^>]+>", "1", rule.rule)
        r = b.post(url, {"x": "1"}, csrf=False)
        if rule.rule in no_csrf:
            assert r.status_code == 404 and "This link does not work" in r.get_data(as_text=True), rule.rule
            continue
        assert r.status_code == 400 and "security token" in r.get_data(as_text=True), rule.rule
    # and a forged token is refused too
    r = b.client.post("/lobby/new", data={"csrf_token": "forged", "game": "spyrium", "players": "2"})
    assert r.status_code == 400
    with unit_of_work() as s:
        assert list(s.exec(select(Game))) == []


def test_session_cookie_flags(web):
    make_user("ck@example.org", "Ck")
    b = web()
    b.post("/login", {"email": "ck@example.org"}, page="/login")
    r = b.post(_path(last_link("ck@example.org")), page="/login")
    cookie = r.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_admin_routes_refuse_non_admins(web):
    gid = _game(make_user("p1@example.org", "P1"), "spyrium", [make_user("p2@example.org", "P2")])
    user = make_user("u@example.org", "U")
    admin = make_user("a@example.org", "A", admin=True)
    iid = store_inbound(mail("p1@example.org", "pbem@pbem.test", "HELP"), "pbem@pbem.test")
    anon, plain, root = web(), web(), web()
    plain.login_as(user)
    root.login_as(admin)
    for url in ("/admin", f"/admin/games/{gid}", f"/admin/inbound/{iid}"):
        assert anon.get(url).status_code == 302
        assert plain.get(url).status_code == 403
        assert root.get(url).status_code == 200
    for url in (f"/admin/inbound/{iid}/redrive", f"/admin/inbound/{iid}/discard"):
        assert plain.post(url, page="/login").status_code == 403
    assert "Admin" not in plain.get("/").get_data(as_text=True).split("<main>")[0]
    assert "Admin" in root.get("/").get_data(as_text=True).split("<main>")[0]


def test_admin_redrives_and_discards_failed_mail(web):
    make_user("p1@example.org", "P1")
    admin = make_user("a@example.org", "A", admin=True)
    ids = [store_inbound(mail("p1@example.org", "pbem@pbem.test", "HELP"), "pbem@pbem.test") for _ in range(2)]
    with unit_of_work() as s:
        for i in ids:
            row = s.get(Inbound, i)
            row.status, row.error = "failed", "OperationalError: database is locked (game-1.abcdefghijklmnopqrstuvwx)"
            s.add(row)
    root = web()
    root.login_as(admin)
    html = root.get("/admin").get_data(as_text=True)
    assert "database is locked" in html and "abcdefghijklmnop" not in html  # tokens redacted
    root.post(f"/admin/inbound/{ids[0]}/redrive", page="/admin")
    root.post(f"/admin/inbound/{ids[1]}/discard", {"reason": "spam", "confirm": "yes"}, page="/admin")
    with unit_of_work() as s:
        assert s.get(Inbound, ids[0]).status == "done"
        assert s.get(Inbound, ids[1]).status == "discarded"
        acts = [(a.action, a.detail) for a in s.exec(select(AuditLog).order_by(AuditLog.id))]
        # the redrive answered the HELP
        assert any(o.kind == "reply" for o in s.exec(select(Outbound).where(Outbound.to_addr == "p1@example.org")))
    assert acts == [("inbound.redrive", f"inbound #{ids[0]}"), ("inbound.discard", f"inbound #{ids[1]}: spam")]
    # discarding something that is not failed changes nothing
    root.post(f"/admin/inbound/{ids[0]}/discard", {"confirm": "yes"}, page="/admin")
    with unit_of_work() as s:
        assert s.get(Inbound, ids[0]).status == "done"


def test_logged_out_posts_go_to_login_and_change_nothing(web):
    gid = _game(make_user("p1@example.org", "P1"), "spyrium", [make_user("p2@example.org", "P2")])
    anon = web()
    for url in ("/lobby/new", f"/games/{gid}/join", f"/games/{gid}/move", f"/games/{gid}/posts", "/profile"):
        r = anon.post(url, {"text": "place 1-2", "body": "hi"})
        assert r.status_code == 302 and "/login" in r.headers["Location"], url
    assert _ply(gid) == 0
    # logged-out visitors see the public board and thread
    assert anon.get(f"/games/{gid}").status_code == 200
    assert anon.get(f"/games/{gid}/view.json").json["viewer_seat"] is None
    assert anon.get("/games/999").status_code == 404


# ---------------------------------------------------------------- lobby, game page


def test_lobby_create_invite_join_start_and_dashboard(web):
    a, b_, c = (make_user(f"{n}@example.org", n.title()) for n in ("ann", "ben", "cat"))
    ann, ben, cat = web(), web(), web()
    ann.login_as(a), ben.login_as(b_), cat.login_as(c)
    assert "Create Squire" in ann.get("/lobby").get_data(as_text=True)
    r = ann.post("/lobby/new", {"game": "squire", "players": "3", "opt_side": "world", "deadline_hours": "24",
                                "policy": "bot", "day_mask": "no-weekends"}, page="/lobby")
    gid = int(r.headers["Location"].rsplit("/", 1)[1])
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert (g.game, g.players, g.options["side"], g.deadline_hours, g.policy, g.day_mask) == (
            "squire", 3, "world", 24, "bot", "no-weekends")
    # bad options: a clear error, nothing created
    r = ann.post("/lobby/new", {"game": "squire", "players": "9", "deadline_hours": "24"}, page="/lobby")
    assert "was not created" in ann.get("/lobby").get_data(as_text=True)
    with unit_of_work() as s:
        assert len(list(s.exec(select(Game)))) == 1
    ann.post(f"/games/{gid}/invite", {"email": "friend@example.org"}, page=f"/games/{gid}")
    inv = _outbox("friend@example.org")
    assert len(inv) == 1 and f"/games/{gid}" in inv[0].body_text and "Ann, a player of game" in inv[0].body_text
    assert inv[0].subject == f"pbem: an invitation to play Squire (game #{gid})"  # nothing a user typed
    assert "Join" in ben.get("/lobby").get_data(as_text=True)
    ben.post(f"/games/{gid}/join", page="/lobby")
    # only the creator starts
    ben.post(f"/games/{gid}/start", page=f"/games/{gid}")
    assert "only the creator" in ben.get(f"/games/{gid}").get_data(as_text=True)
    ann.post(f"/games/{gid}/start", page=f"/games/{gid}")
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.status == "running" and g.players == 2
        # every player, the one who started it too: the board mail carries each seat's reply address
        boards = list(s.exec(select(Outbound).where(Outbound.kind == "board", Outbound.game_id == gid)))
        assert sorted(o.to_addr for o in boards) == ["ann@example.org", "ben@example.org"]
    with unit_of_work() as s:  # Squire draws its seating (RULES.md §3.3)
        first = next(x.user_id for x in seating.seats(s, gid) if x.seat == 0)
    mover, other = (ann, ben) if first == a else (ben, ann)
    dash = mover.get("/me").get_data(as_text=True)
    assert f"Squire #{gid}" in dash and "your move" in dash
    assert "your move" not in other.get("/me").get_data(as_text=True)
    assert "no games yet" in cat.get("/me").get_data(as_text=True)


def test_move_by_clicking_a_legal_move_and_a_bad_move(web):
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    gid = _game(a, "spyrium", [b_])
    ann, ben = web(), web()
    ann.login_as(a), ben.login_as(b_)
    page = ann.get(f"/games/{gid}").get_data(as_text=True)
    legal = re.findall(r'class="mv" type="submit" name="pick" value="([^"]+)"', page)
    assert "place 4-5" in legal
    assert 'class="mv"' not in ben.get(f"/games/{gid}").get_data(as_text=True)  # not Ben's turn
    # a bad move: the reason and legal examples, nothing applied
    ann.post(f"/games/{gid}/move", {"text": "place 9-9", "ply": "0"}, page=f"/games/{gid}")
    html = ann.get(f"/games/{gid}").get_data(as_text=True)
    assert "&#39;place 9-9&#39;" in html and "e.g. place" in html
    assert _ply(gid) == 0
    # Ben cannot move out of turn
    ben.post(f"/games/{gid}/move", {"text": "place 4-5", "ply": "0"}, page=f"/games/{gid}")
    assert "not your turn" in ben.get(f"/games/{gid}").get_data(as_text=True)
    assert _ply(gid) == 0
    # a click on a legal move picks it: the move box holds it, with what it does; nothing is sent
    html = ann.get(f"/games/{gid}?pick=place+4-5").get_data(as_text=True)
    assert ">place 4-5</textarea>" in html and 'class="preview ok"' in html and _ply(gid) == 0
    preview = ann.get(f"/games/{gid}/preview?text=place+9-9").get_json()
    assert not preview["ok"] and "9-9" in preview["error"] and preview["examples"] and _ply(gid) == 0
    assert "not your turn" in ben.get(f"/games/{gid}/preview?text=place+4-5").get_json()["error"]
    ann.post(f"/games/{gid}/move", {"text": "place 4-5", "ply": "0"}, page=f"/games/{gid}")
    html = ann.get(f"/games/{gid}").get_data(as_text=True)
    assert "Applied: place 4-5" in html
    with unit_of_work() as s:
        m = s.exec(select(Move).where(Move.game_id == gid)).one()
        assert (m.ply, m.seat, m.notation, m.source, m.user_id) == (1, 0, "place 4-5", "web", a)
        boards = list(s.exec(select(Outbound).where(Outbound.kind == "board", Outbound.game_id == gid)))
        assert [o.to_addr for o in boards] == ["ben@example.org"]  # the others get their board mail
    # the log shows notation and source; history: ply 0 and 1 both viewable
    assert re.search(r"<td><code>place 4-5</code></td><td>web</td>", html)
    assert ann.get(f"/games/{gid}/view.json?ply=0").json["ply"] == 0
    assert ann.get(f"/games/{gid}/view.json?ply=1").json["ply"] == 1
    assert ann.get(f"/games/{gid}/view.json?ply=5").status_code == 400
    assert ann.get(f"/games/{gid}/board?ply=0").status_code == 200
    # a reply against an old ply where the position changed is refused as stale
    ben.post(f"/games/{gid}/move", {"text": "place 1-2", "ply": "1"}, page=f"/games/{gid}")
    assert _ply(gid) == 2
    # the thread carries the moves
    posts = ann.get(f"/games/{gid}/thread.json").json["posts"]
    assert [(p["kind"], p["body"], p["author"]) for p in posts] == [("move", "place 4-5", "Ann"),
                                                                     ("move", "place 1-2", "Ben")]
    # the admin sees the log and the position before and after any move
    root = web()
    root.login_as(make_user("root@example.org", "Root", admin=True))
    html = root.get(f"/admin/games/{gid}?ply=2").get_data(as_text=True)
    assert "Around ply 2" in html and "Before (ply 1)" in html and "place 1-2" in html


def test_observers_cannot_move(web):
    a, b_, c = (make_user(f"{n}@example.org", n) for n in ("ann", "ben", "cat"))
    gid = _game(a, "spyrium", [b_])
    cat = web()
    cat.login_as(c)
    cat.post(f"/games/{gid}/move", {"text": "place 4-5"}, page=f"/games/{gid}")
    assert "observers cannot move" in cat.get(f"/games/{gid}").get_data(as_text=True)
    assert _ply(gid) == 0


def test_thread_posts_private_messages_and_polling(web):
    a, b_, c = (make_user(f"{n}@example.org", n.title()) for n in ("ann", "ben", "cat"))
    gid = _game(a, "spyrium", [b_, c])
    ann, ben, cat = web(), web(), web()
    ann.login_as(a), ben.login_as(b_), cat.login_as(c)
    ann.post(f"/games/{gid}/posts", {"body": "Good luck, all!"}, page=f"/games/{gid}")
    ann.post(f"/games/{gid}/posts", {"body": "Ben, ally with me?", "to_seat": "1"}, page=f"/games/{gid}")
    ann.post(f"/games/{gid}/posts", {"body": "   "}, page=f"/games/{gid}")
    assert "the message is empty" in ann.get(f"/games/{gid}").get_data(as_text=True)
    seen = {n: [p["body"] for p in w.get(f"/games/{gid}/thread.json").json["posts"]]
            for n, w in (("ann", ann), ("ben", ben), ("cat", cat), ("anon", web()))}
    assert seen["ann"] == seen["ben"] == ["Good luck, all!", "Ben, ally with me?"]
    assert seen["cat"] == seen["anon"] == ["Good luck, all!"]
    assert "ally with me" not in cat.get(f"/games/{gid}").get_data(as_text=True)
    first = ben.get(f"/games/{gid}/thread.json").json["posts"][0]["id"]
    assert [p["body"] for p in ben.get(f"/games/{gid}/thread.json?after={first}").json["posts"]] == [
        "Ben, ally with me?"]


# ---------------------------------------------------------------- hidden information and escaping


def test_hidden_information_never_reaches_another_seat(web):
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    for name, secret in (("iaww", lambda v: [c["inst"] for c in v["you"]["hand"]]),
                         ("squire", lambda v: [m["id"] + " " + m["offer"] for m in v["seats"][v["seat"]]["hand"]])):
        gid = _game(a, name, [b_])
        with unit_of_work() as s:  # Squire draws its seating (RULES.md §3.3): ask where Ann sits
            g = s.get(Game, gid)
            sa = seating.seat_of(s, gid, a).seat
            v0, v1 = games.view_for(s, g, sa), games.view_for(s, g, 1 - sa)
        mine = secret(v0)
        assert mine
        ann, ben, anon = web(), web(), web()
        ann.login_as(a), ben.login_as(b_)
        assert any(x.split(" ")[0] in ann.get(f"/games/{gid}/view.json").get_data(as_text=True) for x in mine)
        for who in (ben, anon):
            for url in (f"/games/{gid}", f"/games/{gid}/view.json", f"/games/{gid}/view.json?ply=0",
                        f"/games/{gid}/board?ply=0", f"/games/{gid}/thread.json"):
                body = who.get(url).get_data(as_text=True)
                for x in mine:
                    part = x.split(" ", 1)[-1] if name == "squire" else x
                    assert part not in body, (name, url, part)
        if name == "iaww":  # card names of Ann's hand that Ben does not hold
            theirs = {c["name"] for c in v1["you"]["hand"]}
            only_ann = [c["name"] for c in v0["you"]["hand"] if c["name"] not in theirs]
            page = ben.get(f"/games/{gid}").get_data(as_text=True)
            assert only_ann and not any(n in page for n in only_ann)


def test_html_in_names_posts_and_notation_is_escaped(web):
    evil = make_user("ev@example.org", "Eve")
    with unit_of_work() as s:  # a name that slipped in before validation existed
        u = s.get(User, evil)
        u.name = "<script>alert(1)</script>"
        s.add(u)
    a = make_user("ann@example.org", "Ann")
    gid = _game(evil, "spyrium", [a])
    ev = web()
    ev.login_as(evil)
    ev.post(f"/games/{gid}/posts", {"body": "<img src=x onerror=alert(2)>"}, page=f"/games/{gid}")
    ev.post(f"/games/{gid}/move", {"text": "<b onmouseover=alert(3)>", "ply": "0"}, page=f"/games/{gid}")
    for url in (f"/games/{gid}", "/lobby", "/me"):
        html = ev.get(url).get_data(as_text=True)
        assert "<script>alert(1)" not in html and "<img src=x" not in html and "<b onmouseover" not in html
    html = ev.get(f"/games/{gid}").get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    admin = web()
    admin.login_as(make_user("root@example.org", "Root", admin=True))
    for url in ("/admin", f"/admin/games/{gid}"):
        assert "<script>alert(1)" not in admin.get(url).get_data(as_text=True)


def test_the_outbox_is_behind_login_on_every_configuration(sqlite_cfg):
    """Embedded default or relay alike: a visitor is sent to log in, a user reads their own mail,
    an admin all of it (more in tests/web/test_secrecy.py)."""
    from pbem.web import create_app
    from tests.web.conftest import Browser

    for n, cfg in enumerate((sqlite_cfg, sqlite_cfg.with_(smtp_url="smtp://127.0.0.1:1"))):
        app = create_app(cfg)
        anon, plain, root = Browser(app), Browser(app), Browser(app)
        plain.login_as(make_user(f"u{n}@example.org", f"U{n}"))  # names are unique: one per account
        root.login_as(make_user(f"a{n}@example.org", f"A{n}", admin=True))
        r = anon.get("/outbox")
        assert r.status_code == 302 and "/login?next=/outbox" in r.headers["Location"]
        assert plain.get("/outbox").status_code == 200
        assert root.get("/outbox").status_code == 200


def test_times_show_in_the_users_time_zone(web):
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    with unit_of_work() as s:
        u = s.get(User, b_)
        u.timezone = "Asia/Tokyo"
        s.add(u)
    gid = _game(a, "spyrium", [b_])
    ann, ben = web(), web()
    ann.login_as(a), ben.login_as(b_)
    ann.post(f"/games/{gid}/posts", {"body": "hello"}, page=f"/games/{gid}")
    assert ann.get(f"/games/{gid}/thread.json").json["posts"][0]["at"].endswith(" UTC")
    assert ben.get(f"/games/{gid}/thread.json").json["posts"][0]["at"].endswith(" JST")


def test_access_log_never_shows_a_login_token(app, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="werkzeug"):
        logging.getLogger("werkzeug").info('%s - - [%s] "%s" 200 -', "127.0.0.1", "now",
                                           "GET /auth/kA3aEYXlN9Se5Wfvy8Uq99uvnrXNUYvMVcnqbsT6nv8 HTTP/1.1")
    assert "kA3aEYXl" not in caplog.text and "/auth/<token>" in caplog.text


def test_the_site_links_to_the_game_management_pages(sqlite_cfg):
    from pbem.web import create_app
    from tests.web.conftest import Browser

    a, b_ = make_user("ann@example.org", "Ann", admin=True), make_user("ben@example.org", "Ben")
    gid = _game(a, "spyrium", [b_])
    br = Browser(create_app(sqlite_cfg))
    br.login_as(a)
    assert f'href="/games/{gid}/manage"' in br.get(f"/games/{gid}").get_data(as_text=True)
    assert 'href="/admin/disputes"' in br.get("/admin").get_data(as_text=True)
    assert br.get(f"/games/{gid}/manage").status_code == 200
    assert br.get("/admin/disputes").status_code == 200


def test_two_sign_ups_for_one_address_at_once(pg_cfg):
    """Found by the scan (parallel wapiti processes): two sign-ups for the same new address at the
    same moment both saw no account, both inserted one, and the second died on the unique index (a
    500). A sign-up makes no account any more (the link does), and an account made meanwhile by
    another transaction (here: the mail's REGISTER) is simply there: one account, one link."""
    import threading
    import time

    from pbem.services.core import accounts
    from pbem.web import create_app
    from tests.web.conftest import Browser

    pg_cfg.var_dir.mkdir(parents=True, exist_ok=True)  # the embedded broker's file lives there
    browser = Browser(create_app(pg_cfg))
    holding, errors = threading.Event(), []

    def other_sign_up():  # the first request (a double click), still in its transaction
        try:
            with unit_of_work() as s:
                accounts.register(s, "dan@example.org", "Dan")
                holding.set()
                time.sleep(1.0)  # the second request inserts meanwhile, and waits on the unique index
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=other_sign_up)
    t.start()
    assert holding.wait(10)
    r = browser.post("/signup", {"email": "dan@example.org", "name": "Dan"}, page="/signup")
    t.join(30)
    assert errors == [] and r.status_code == 200 and 'id="sent"' in r.get_data(as_text=True), \
        (errors, r.status_code)
    with unit_of_work() as s:
        assert len(list(s.exec(select(User).where(User.email == "dan@example.org")))) == 1
        assert len(list(s.exec(select(LoginToken)))) == 1  # the second request's link, for that one account


def test_the_same_flow_on_postgresql(pg_cfg):
    """Row locks and compare-and-set behave on PostgreSQL as on SQLite."""
    from pbem.web import create_app
    from tests.web.conftest import Browser

    pg_cfg.var_dir.mkdir(parents=True, exist_ok=True)  # the embedded broker's file lives there
    app = create_app(pg_cfg)
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    ann, ben = Browser(app), Browser(app)
    ann.login_as(a), ben.login_as(b_)
    r = ann.post("/lobby/new", {"game": "iaww", "players": "2", "deadline_hours": "48"}, page="/lobby")
    gid = int(r.headers["Location"].rsplit("/", 1)[1])
    ben.post(f"/games/{gid}/join", page="/lobby")
    legal = {}
    for who, br in (("ann", ann), ("ben", ben)):
        legal[who] = re.findall(r'class="mv" type="submit" name="pick" value="([^"]+)"',
                                br.get(f"/games/{gid}").get_data(as_text=True))
        assert legal[who], who  # the draft is simultaneous: both pick at once
    # a digit that is not ASCII is no card number: the engine's answer, nothing applied
    ann.post(f"/games/{gid}/move", {"text": "pick \u00b2", "ply": "0"}, page=f"/games/{gid}")
    page = ann.get(f"/games/{gid}").get_data(as_text=True)
    assert "no card is called &#39;²&#39;" in page, re.findall(r'class="flash[^>]*>[^<]*', page)
    assert _ply(gid) == 0
    ann.post(f"/games/{gid}/move", {"text": legal["ann"][0], "ply": "0"}, page=f"/games/{gid}")
    ben.post(f"/games/{gid}/move", {"text": legal["ben"][-1], "ply": "0"}, page=f"/games/{gid}")
    page = ben.get(f"/games/{gid}").get_data(as_text=True)
    if _ply(gid) == 1:  # Ann's pick changed what Ben sees: his page was stale, nothing applied
        assert "has moved on to ply 1" in page, re.findall(r'class="flash[^>]*>[^<]*', page)
        ben.post(f"/games/{gid}/move", {"text": legal["ben"][-1], "ply": "1"}, page=f"/games/{gid}")
    ben.post(f"/games/{gid}/posts", {"body": "gl hf"}, page=f"/games/{gid}")
    assert _ply(gid) == 2
    posts = ann.get(f"/games/{gid}/thread.json").json["posts"]
    assert [p["kind"] for p in posts] == ["move", "move", "post"]
    # Ben's pick is in no page of Ann's until the picks are revealed by the engine's own view
    assert ann.get(f"/games/{gid}/view.json").json["viewer_seat"] == 0


def test_a_simultaneous_pick_stays_secret_until_the_step_is_revealed(web):
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    gid = _game(a, "iaww", [b_], seed=3)
    ann, ben, anon = web(), web(), web()
    ann.login_as(a), ben.login_as(b_)
    mine = re.findall(r'class="mv" type="submit" name="pick" value="([^"]+)"', ann.get(f"/games/{gid}").get_data(as_text=True))
    theirs = re.findall(r'class="mv" type="submit" name="pick" value="([^"]+)"', ben.get(f"/games/{gid}").get_data(as_text=True))
    pick = next(m for m in mine if m not in theirs)
    ann.post(f"/games/{gid}/move", {"text": pick, "ply": "0"}, page=f"/games/{gid}")
    assert _ply(gid) == 1
    card = pick.split(" ", 1)[1]
    assert pick in ann.get(f"/games/{gid}").get_data(as_text=True)  # Ann sees her own choice
    for who in (ben, anon):
        for url in (f"/games/{gid}", f"/games/{gid}/thread.json", f"/games/{gid}/view.json"):
            assert card not in who.get(url).get_data(as_text=True), url
    assert "secret choice" in ben.get(f"/games/{gid}").get_data(as_text=True)
    with unit_of_work() as s:
        mail_to_ben = s.exec(select(Outbound).where(Outbound.to_addr == "ben@example.org")).one()
        assert card not in mail_to_ben.body_text and "secret choice" in mail_to_ben.body_text
    # Ben picks too: the step is revealed, both picks are public
    ben_pick = theirs[0]
    ben.post(f"/games/{gid}/move", {"text": ben_pick, "ply": "1"}, page=f"/games/{gid}")
    assert _ply(gid) == 2
    posts = anon.get(f"/games/{gid}/thread.json").json["posts"]
    assert [p["body"] for p in posts] == [pick, ben_pick]


def test_a_pick_by_mail_is_secret_in_the_other_seats_board_mail(web):
    from pbem.store.addresses import seat_address
    from pbem.mail.pipeline import process_inbound
    from pbem.store.models import Seat

    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    gid = _game(a, "iaww", [b_], seed=3)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        state = games.state_at(s, g)
        engine = games.engine_for(g)
        theirs = {engine.format_move(state, 1, m) for m in engine.legal_moves(state, 1)}
        pick = next(engine.format_move(state, 0, m) for m in engine.legal_moves(state, 0)
                    if engine.format_move(state, 0, m) not in theirs)
        token = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one().token
    to = seat_address(gid, token, "pbem.test")
    iid = store_inbound(mail("ann@example.org", to, pick, subject=f"Re: [pbem #{gid} ply 0]"), to)
    assert process_inbound(iid) == "done"
    assert _ply(gid) == 1
    with unit_of_work() as s:
        to_ben = s.exec(select(Outbound).where(Outbound.to_addr == "ben@example.org")).one()
    card = pick.split(" ", 1)[1]
    assert card not in to_ben.body_text and "secret choice" in to_ben.body_text
    assert card not in web().get(f"/games/{gid}/thread.json").get_data(as_text=True)


def test_a_solo_scenario_starts_at_once(web):
    a = make_user("ann@example.org", "Ann")
    ann = web()
    ann.login_as(a)
    r = ann.post("/lobby/new", {"game": "iaww", "players": "1", "opt_scenario": "S1", "deadline_hours": "48"},
                 page="/lobby")
    gid = int(r.headers["Location"].rsplit("/", 1)[1])
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert (g.status, g.players, g.options["scenario"]) == ("running", 1, "S1")
    html = ann.get(f"/games/{gid}").get_data(as_text=True)
    assert 'class="mv"' in html and "you are seat 1" in html
