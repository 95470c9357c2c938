"""Secrecy, the web's part: what each person may see and do on the site.
Each test fails on the code before the fix (c3af06e) and passes after; a
fresh app and database per test, real services, the Flask test client."""
from __future__ import annotations

import re

import pytest
from sqlmodel import select

from pbem.services.core import games, seating
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, LoginToken, Move, Outbound, User
from tests.web.conftest import last_link, make_user


def _path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


# ---------------------------------------------------------------- after login, only our own pages


@pytest.mark.parametrize("target", [
    "/%09/evil.example", "/%0a/evil.example", "/%0d%0a/evil.example", "//evil.example", "/\\evil.example",
    "/%5cevil.example", "https://evil.example/", "/%20/evil.example", "/%e2%80%8b/evil.example",
    "/games/1%0aSet-Cookie:%20x=1", "/%7f/evil.example", "javascript:alert(1)", "",
])
def test_login_never_sends_a_user_off_the_site(web, target):
    """The target of ``next`` is a path of this site or nothing: the login link lands on the
    dashboard, never on another host (a browser drops tabs and newlines: /<TAB>/evil.example was
    //evil.example) and never on a 500 after the one-time token is spent (a newline in it)."""
    make_user("ann@example.org", "Ann")
    b = web()
    assert b.get(f"/login?next={target}").status_code == 200
    r = b.post(f"/login?next={target}", {"email": "ann@example.org"}, page="/login")
    assert r.status_code == 200
    link = last_link("ann@example.org")
    r = b.post(_path(link), page=_path(link))
    assert r.status_code == 302, r.status_code
    assert r.headers["Location"] == "/me", r.headers["Location"]
    with unit_of_work() as s:  # the token is spent: the user is logged in, on our page
        assert all(t.used_at is not None for t in s.exec(select(LoginToken)))
    assert b.get("/me").status_code == 200


def test_login_keeps_a_same_site_next(web):
    make_user("ann@example.org", "Ann")
    b = web()
    b.post("/login?next=/games/3/manage?x=1", {"email": "ann@example.org"}, page="/login")
    link = last_link("ann@example.org")
    r = b.post(_path(link), page=_path(link))
    assert r.headers["Location"] == "/games/3/manage?x=1"


def test_safe_next_by_itself():
    from pbem.web.visitor import safe_next

    for good in ("/", "/me", "/games/12?ply=3", "/games/1/manage#log", "/a%2Fb"):
        assert safe_next(good) == good
    for bad in (None, "", "me", "//x", "/\t/x", "/\n/x", "/\r\n/x", "/\\x", "/ /x", "/\x00", "/\u200b/x",
                "/\u00e9", "http://x/", "/" + "a" * 3000, 5):
        assert safe_next(bad) is None, bad


# ---------------------------------------------------------------- helpers


def _game(creator_id: int, name: str, others: list[int], seed: int = 3, **options) -> int:
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, creator_id), name, 1 + len(others), options, seed=seed)
        for uid in others:
            tables.join(s, s.get(User, uid), g.id)
        return g.id


def _legal(browser, gid) -> list[str]:
    return re.findall(r'class="mv" type="submit" name="pick" value="([^"]+)"',
                      browser.get(f"/games/{gid}").get_data(as_text=True))


def _ply(gid: int) -> int:
    with unit_of_work() as s:
        return s.get(Game, gid).ply


# ---------------------------------------------------------------- the manage page


def test_the_manage_page_keeps_a_pick_secret_until_the_reveal(web):
    """Ann's It's a Wonderful World pick is hers until Ben picks too: the management page's
    "Table talk" and "Move log" show that she chose, not what, to Ben, to a logged-in stranger
    and to an admin who does not play; Ann sees her own pick; after the reveal everyone does."""
    a, b_, c = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben"), \
        make_user("cat@example.org", "Cat")
    root = make_user("root@example.org", "Root", admin=True)
    gid = _game(a, "iaww", [b_])
    ann, ben, cat, admin = web(), web(), web(), web()
    ann.login_as(a), ben.login_as(b_), cat.login_as(c), admin.login_as(root)
    mine, theirs = _legal(ann, gid), _legal(ben, gid)
    pick = next(m for m in mine if m not in theirs)
    card = pick.split(" ", 1)[1]
    ann.post(f"/games/{gid}/move", {"text": pick, "ply": "0"}, page=f"/games/{gid}")
    assert _ply(gid) == 1
    url = f"/games/{gid}/manage"
    assert card in ann.get(url).get_data(as_text=True)
    for who in (ben, cat, admin):
        page = who.get(url).get_data(as_text=True)
        assert card not in page and "secret" in page, page[page.find('id="thread"'):][:800]
    for url2 in (f"/admin/games/{gid}", "/admin"):  # the admin console too
        assert card not in admin.get(url2).get_data(as_text=True)
    ben.post(f"/games/{gid}/move", {"text": theirs[0], "ply": "1"}, page=f"/games/{gid}")
    assert _ply(gid) == 2
    for who in (ben, cat, admin):
        assert card in who.get(url).get_data(as_text=True)


# ---------------------------------------------------------------- private posts follow the person


def _app_for(cfg):
    from pbem.web import create_app
    from tests.web.conftest import Browser

    cfg.var_dir.mkdir(parents=True, exist_ok=True)  # the embedded broker's file lives there
    app = create_app(cfg)

    def browser(uid=None):
        b = Browser(app)
        if uid is not None:
            b.login_as(uid)
        return b
    return browser


def _thread_bodies(b, gid) -> list[str]:
    return [p["body"] for p in b.get(f"/games/{gid}/thread.json").json["posts"] if p["kind"] == "post"]


def test_a_replacement_does_not_read_the_private_posts_sent_to_the_player_before(any_cfg):
    """Ann writes privately to Ben; Ben resigns and Dan takes his seat. Dan reads nothing meant
    for Ben (page, thread.json, manage page); Ben, no longer seated, still reads what was sent
    to him, and Ann sees it addressed to Ben, not to Dan. What Ann writes to the seat now is Dan's."""
    from pbem.services.core import thread
    from pbem.services.lobby import seats

    browser = _app_for(any_cfg)
    a, b_, c, d = (make_user(f"{n}@example.org", n.title()) for n in ("ann", "ben", "cy", "dan"))
    gid = _game(a, "mini", [b_, c], seed=5, hand=3)
    with unit_of_work() as s:
        g = games.get(s, gid)
        ben_seat = seating.seat_of(s, gid, b_).seat
        thread.post(s, g, s.get(User, a), "for Ben only", to_seat=ben_seat)
        thread.post(s, g, s.get(User, b_), "Ben to Ann, privately", to_seat=seating.seat_of(s, gid, a).seat)
    with unit_of_work() as s:
        seats.resign(s, s.get(User, b_), gid)
    with unit_of_work() as s:
        seats.take(s, s.get(User, d), games.get(s, gid), ben_seat + 1)
    with unit_of_work() as s:
        thread.post(s, games.get(s, gid), s.get(User, a), "for Dan now", to_seat=ben_seat)
    ann, ben, dan, cy = browser(a), browser(b_), browser(d), browser(c)
    assert _thread_bodies(dan, gid) == ["for Dan now"]
    for url in (f"/games/{gid}", f"/games/{gid}/manage"):
        page = dan.get(url).get_data(as_text=True)
        assert "for Ben only" not in page and "Ben to Ann" not in page and "for Dan now" in page
    assert _thread_bodies(ben, gid) == ["for Ben only", "Ben to Ann, privately"]
    assert _thread_bodies(cy, gid) == []
    posts = {p["body"]: p for p in ann.get(f"/games/{gid}/thread.json").json["posts"]}
    assert posts["for Ben only"]["to"] == "Ben" and posts["for Dan now"]["to"] == "Dan"
    assert posts["Ben to Ann, privately"]["author"] == "Ben"


# ---------------------------------------------------------------- only players write in a game


def _posts_and_mail() -> tuple[int, int]:
    from sqlalchemy import func

    from pbem.store.models import Outbound, Post

    with unit_of_work() as s:
        return (s.exec(select(func.count()).select_from(Post).where(Post.kind == "post")).one(),
                s.exec(select(func.count()).select_from(Outbound).where(Outbound.kind != "login")).one())


def test_strangers_observers_and_resigned_players_do_not_write_in_a_game(sqlite_cfg):
    """A logged-in stranger, an observer and a player who resigned are refused, with the
    reason, on the game page (to the table and privately) and on the manage page (SAY, which
    mails the table); nothing is stored or mailed. A player, the creator and an admin write."""
    from pbem.services.follow import messages
    from pbem.services.lobby import seats

    browser = _app_for(sqlite_cfg)
    a, b_, c, o, d = (make_user(f"{n}@example.org", n.title()) for n in ("ann", "ben", "cy", "olga", "dirk"))
    root = make_user("root@example.org", "Root", admin=True)
    gid = _game(a, "mini", [b_, c], seed=5, hand=3)
    with unit_of_work() as s:
        messages.observe(s, s.get(User, o), games.get(s, gid))
        seats.resign(s, s.get(User, c), gid)
    page, manage = f"/games/{gid}", f"/games/{gid}/manage"
    for uid, why in ((d, "only the players of game"), (o, "only the players of game"),
                     (c, "you resigned from game")):
        before = _posts_and_mail()
        b = browser(uid)
        assert "Only the players of this game write" in b.get(page).get_data(as_text=True)
        assert 'value="say"' not in b.get(manage).get_data(as_text=True)
        r = b.post(f"/games/{gid}/posts", {"body": "hello, table"}, page=page, follow_redirects=True)
        assert why in r.get_data(as_text=True)
        r = b.post(f"/games/{gid}/posts", {"body": "psst", "to_seat": "0"}, page=page, follow_redirects=True)
        assert why in r.get_data(as_text=True)
        for to in ("", "1", "Ann"):
            r = b.post(manage, {"action": "say", "to": to, "text": "listen to me"})
            assert r.status_code == 400 and why in r.get_data(as_text=True), (uid, to)
        assert _posts_and_mail() == before, uid
    with unit_of_work() as s:  # by mail too (the same service)
        with pytest.raises(Exception, match="only the players of game"):
            messages.say(s, s.get(User, d), games.get(s, gid), "SAY hi")
    # who may: a seated player, the game's creator, an admin who does not play
    for uid in (b_, a, root):
        b = browser(uid)
        r = b.post(manage, {"action": "say", "to": "", "text": f"from {uid}"}, follow_redirects=True)
        assert "sent to the table" in r.get_data(as_text=True)
    assert _posts_and_mail()[0] == 3


# ---------------------------------------------------------------- a misspelt recipient


ADDRESSED = {  # what each SAY does at a table of Ann (seat 1), Bob (seat 2) and Cy Young (seat 3)
    "Bob: my secret plan": (1, "my secret plan"),
    "bob: my secret plan": (1, "my secret plan"),
    "2: my secret plan": (1, "my secret plan"),
    "seat 2: my secret plan": (1, "my secret plan"),
    "@Bob: my secret plan": (1, "my secret plan"),
    "Cy: first names do": (2, "first names do"),
    "cy young: full names too": (2, "full names too"),
    "2: 5 coins for your card?": (1, "5 coins for your card?"),
    "all: Bbo: this is for everyone": (None, "Bbo: this is for everyone"),
    "Ha: I can read that": (None, "Ha: I can read that"),
    "PS: and good luck": (None, "PS: and good luck"),
    "good news: I built it": (None, "good news: I built it"),
    "Hi all: ready?": (None, "Hi all: ready?"),
    "meet at 10:30 tomorrow": (None, "meet at 10:30 tomorrow"),
    "10:30 is fine": (None, "10:30 is fine"),
    "see https://example.org/rules": (None, "see https://example.org/rules"),
    "Кстати: хороший ход": (None, "Кстати: хороший ход"),
    "well played\nBob: that was close": (None, "well played\nBob: that was close"),
}
REFUSED = {  # misspelt or unknown recipients: nothing is sent, and the answer says to whom one can write
    "Bbo: my secret plan": "did you mean Bob?",
    "bbo: my secret plan": "did you mean Bob?",
    "Anne: my secret plan": "did you mean Ann?",
    "Robert: my secret plan": "it looks like a name",
    "Mary Jane: my secret plan": "it looks like a name",
    "@zed: my secret plan": "is called 'zed'",
    "7: my secret plan": "has seats 1 to 3",
}


def _table_of_three():
    a, b_, c = make_user("ann@example.org", "Ann"), make_user("bob@example.org", "Bob"), \
        make_user("cy@example.org", "Cy Young")
    return _game(a, "mini", [b_, c], seed=5, hand=3), (a, b_, c)


def test_a_private_message_goes_to_a_seat_of_the_table_or_nowhere(sqlite_cfg):
    """SAY <who>: <text> (by mail and by the manage page): '<who>' is a recipient when it names a
    seat or a player of the table, plain talk when it is no name at all; a name that is nobody's
    (a misspelling, another name) is refused with the names one can write to, nothing stored or
    mailed. Before, 'Bbo: my secret plan' went to the whole table."""
    from pbem.services.follow import messages
    from pbem.services.core.errors import UserError

    gid, (a, b_, c) = _table_of_three()
    for text, (seat, body) in ADDRESSED.items():
        with unit_of_work() as s:
            p = messages.say(s, s.get(User, a), games.get(s, gid), text)
            assert (p.to_seat, p.body) == (seat, body), text
    for text, why in REFUSED.items():
        before = _posts_and_mail()
        with unit_of_work() as s:
            with pytest.raises(UserError) as e:
                messages.say(s, s.get(User, a), games.get(s, gid), text)
        said = e.value.describe()
        assert why in said, (text, said)
        if not text.startswith("7"):
            assert "2 Bob, 3 Cy Young" in said and "1 Ann" not in said and "'all:'" in said, said
        assert _posts_and_mail() == before, text


def test_the_manage_page_to_field_names_a_recipient_or_is_refused(sqlite_cfg):
    """On the manage page whatever is in "To" must name a seat, a player or 'everyone'."""
    browser = _app_for(sqlite_cfg)
    gid, (a, b_, c) = _table_of_three()
    ann, bob, cy = browser(a), browser(b_), browser(c)
    url = f"/games/{gid}/manage"
    for to in ("Bbo", "bbo", "xyz", "Robert", "9"):
        before = _posts_and_mail()
        r = ann.post(url, {"action": "say", "to": to, "text": "my secret plan"})
        page = r.get_data(as_text=True)
        assert r.status_code == 400 and ("nothing was sent" in page or "has seats 1 to 3" in page), (to, page)
        assert _posts_and_mail() == before, to
    for to in ("Bob", "bob", "2"):
        r = ann.post(url, {"action": "say", "to": to, "text": f"plan via {to}"}, follow_redirects=True)
        assert "sent privately" in r.get_data(as_text=True)
        assert f"plan via {to}" in bob.get(url).get_data(as_text=True)
        assert f"plan via {to}" not in cy.get(url).get_data(as_text=True)
    r = ann.post(url, {"action": "say", "to": "everyone", "text": "Bbo: hi all"}, follow_redirects=True)
    assert "sent to the table" in r.get_data(as_text=True) and "Bbo: hi all" in cy.get(url).get_data(as_text=True)


# ---------------------------------------------------------------- who reads the outbox


def _mail_ids(to: str) -> list[int]:
    from pbem.store.models import Outbound

    with unit_of_work() as s:
        return list(s.exec(select(Outbound.id).where(Outbound.to_addr == to)))


def test_a_board_mail_on_the_outbox_page_shows_its_picture(sqlite_cfg):
    """A board mail carries its picture as an inline part named by Content-ID; the outbox page
    (where a player reads mail that was held, and an admin any mail) shows it in the mail's place."""
    browser = _app_for(sqlite_cfg)
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    gid = _game(a, "squire", [b_])
    with unit_of_work() as s:
        from pbem.services.core import notify

        notify.queue_boards(s, games.get(s, gid), "The game has started.")
    with unit_of_work() as s:
        row = s.exec(select(Outbound).where(Outbound.to_addr == "ann@example.org", Outbound.kind == "board",
                                            Outbound.picture_key.is_not(None)).order_by(Outbound.id.desc())).first()
        assert row is not None and 'src="cid:' in row.body_html
        row_id = row.id
    page = browser(a).get(f"/outbox/{row_id}").get_data(as_text=True)
    assert "data:image/png;base64,iVBORw0KGgo" in page and "cid:board-" not in page


@pytest.mark.parametrize("relay", [False, True], ids=["embedded", "relay"])
def test_the_outbox_shows_each_user_their_own_mail_and_visitors_nothing(sqlite_cfg, relay):
    """The outbox holds login links, boards and reply addresses. A visitor gets the login page
    for /outbox and every /outbox/<id>; Ann reads her own mail and no one else's (another's id
    answers 404 like a missing one); an admin reads all. Before, on the embedded default, a
    stranger asked for a login link to Ann's address and read it off the public outbox."""
    cfg = sqlite_cfg.with_(smtp_url="smtp://127.0.0.1:1") if relay else sqlite_cfg
    browser = _app_for(cfg)
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    root = make_user("root@example.org", "Root", admin=True)
    gid = _game(a, "iaww", [b_])
    with unit_of_work() as s:  # boards with each seat's hand and reply address
        from pbem.services.core import notify

        notify.queue_boards(s, games.get(s, gid), "The game has started.")
    stranger = browser()
    stranger.post("/login", {"email": "ann@example.org"})  # a login link to Ann, asked by anyone
    link = last_link("ann@example.org")
    token = link.rsplit("/", 1)[1]
    ann_mail, ben_mail = _mail_ids("ann@example.org"), _mail_ids("ben@example.org")
    assert ann_mail and ben_mail
    for url in ["/outbox"] + [f"/outbox/{i}" for i in ann_mail + ben_mail + [9999]]:
        r = stranger.get(url)
        assert r.status_code == 302 and "/login?next=" in r.headers["Location"], url
        assert token not in r.get_data(as_text=True)
    ann, admin = browser(a), browser(root)
    listing = ann.get("/outbox").get_data(as_text=True)
    assert "ben@example.org" not in listing and "ann@example.org" in listing
    assert token in ann.get(f"/outbox/{max(ann_mail)}").get_data(as_text=True)
    for i in ben_mail + [9999]:
        assert ann.get(f"/outbox/{i}").status_code == 404
    listing = admin.get("/outbox").get_data(as_text=True)
    assert "ben@example.org" in listing and "ann@example.org" in listing
    assert admin.get(f"/outbox/{ben_mail[0]}").status_code == 200
    # a stranger who logs in has an outbox of their own and reads nobody else's
    cat = browser(make_user("cat@example.org", "Cat"))
    assert "ann@example.org" not in cat.get("/outbox").get_data(as_text=True)
    assert all(cat.get(f"/outbox/{i}").status_code == 404 for i in ann_mail)
    page = browser().post("/login", {"email": "nobody@example.org"}).get_data(as_text=True)
    assert ("pbem outbox --to" in page) is not relay  # where the mail of the embedded default is


def test_the_operator_reads_the_mail_and_makes_admins_on_the_command_line(sqlite_cfg):
    from click.testing import CliRunner

    from pbem.cli import main

    make_user("ann@example.org", "Ann")
    browser = _app_for(sqlite_cfg)
    browser().post("/login", {"email": "ann@example.org"})
    link = last_link("ann@example.org")
    res = CliRunner().invoke(main, ["outbox", "--to", "Ann@Example.org"])
    assert res.exit_code == 0 and link in res.output, res.output
    res = CliRunner().invoke(main, ["outbox"])
    assert res.exit_code == 0 and "pbem: your login link" in res.output and link not in res.output
    res = CliRunner().invoke(main, ["admin", "ann@example.org"])
    assert res.exit_code == 0 and "Ann <ann@example.org> is an administrator" in res.output
    res = CliRunner().invoke(main, ["admin", "zed@example.org"])
    assert res.exit_code == 1 and "no account has the address 'zed@example.org'" in res.output
    with unit_of_work() as s:
        assert s.exec(select(User).where(User.email == "ann@example.org")).one().is_admin


def test_no_page_shows_a_seats_reply_address(sqlite_cfg):
    """Pages get seats without their secret reply tokens (visibility.seats)."""
    browser = _app_for(sqlite_cfg)
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    root = make_user("root@example.org", "Root", admin=True)
    gid = _game(a, "mini", [b_], seed=5, hand=3)
    with unit_of_work() as s:
        tokens = [x.token for x in seating.seats(s, gid)]
    pages = [(browser(uid), url) for uid in (a, b_, root, None)
             for url in (f"/games/{gid}", f"/games/{gid}/manage", f"/games/{gid}/view.json",
                         f"/games/{gid}/thread.json", "/me", "/lobby")]
    pages += [(browser(root), f"/admin/games/{gid}"), (browser(root), "/admin")]
    for b, url in pages:
        body = b.get(url).get_data(as_text=True)
        assert not any(t in body for t in tokens), url


def test_a_player_who_resigned_no_longer_moves_for_the_seat(sqlite_cfg):
    """After RESIGN a bot plays the seat: the game page's move form refuses its former player (it
    took the move for the bot's seat and answered a wrong one with the seat's legal moves, its hand)."""
    from pbem.services.lobby import seats

    browser = _app_for(sqlite_cfg)
    a, b_ = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    gid = _game(a, "iaww", [b_])
    with unit_of_work() as s:
        seats.resign(s, s.get(User, b_), gid)
    ben = browser(b_)
    for text in ("zzz", "auto"):
        r = ben.post(f"/games/{gid}/move", {"text": text, "ply": "0"}, page=f"/games/{gid}", follow_redirects=True)
        page = r.get_data(as_text=True)
        assert "You resigned from game" in page and "e.g." not in page, page[:2000]
    assert _ply(gid) == 0
