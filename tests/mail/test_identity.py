"""Identity by mail: a mail acts only for its true
sender. A seat's address acts only as that seat, in its game; account
commands trust the From only when pbem's own DKIM/SPF check says so (the
tests' DNS, tests/dnsserver.py, is a real server on loopback), else they
wait for the owner's confirmation; destructive ones always do; unknown
senders get a short fixed answer; a seat's address dies when the seat
changes hands. Every refusal says why and changes nothing."""
from __future__ import annotations

import smtplib

import pytest
from sqlmodel import select

from pbem import config
from pbem.mail import pipeline
from pbem.store.db import unit_of_work
from pbem.store.models import Confirmation, Game, Inbound, Outbound, Post, Seat, User
from tests import dnsserver
from tests.conftest import send_mail, smtp_receiver
from tests.mailtools import CMD, confirm, mail, outbox, process, seat_addr, start_game, store_inbound

FAR = "192.0.2.66"  # a server no test domain's SPF names


def forged(frm: str, to: str, body: str, *, envelope: str = "eve@evil.test", peer: str = "127.0.0.1") -> tuple[int, str]:
    """A mail whose From is ``frm`` but which Eve sent: her envelope sender
    (evil.test's own SPF passes: a pass for evil.test, not for the From) or
    a server the From's domain does not name."""
    iid = store_inbound(mail(frm, to, body), to, envelope, peer=peer)
    return iid, pipeline.process_inbound(iid)


def state() -> dict:
    """Everything a mail could change: users, seats, games, posts, confirmations."""
    with unit_of_work() as s:
        return {
            "users": sorted((u.email, u.name, u.stopped, u.notify, u.seat_senders) for u in s.exec(select(User))),
            "seats": sorted((x.game_id, x.seat, x.user_id, x.token, x.resigned, x.is_bot) for x in s.exec(select(Seat))),
            "games": sorted((g.id, g.status, g.ply) for g in s.exec(select(Game))),
            "posts": len(list(s.exec(select(Post)))),
        }


def mails_to(addr: str) -> list[Outbound]:
    return outbox(addr)


def test_a_seat_address_acts_only_as_its_seat_in_its_game(any_cfg):
    """§12: with a seat's token, REGISTER <victim> used to switch the mail's
    identity to the victim's account, and RESIGN <victim's game> was obeyed."""
    gid = start_game(2)  # Ann and P1
    process("vic@x.test", CMD, "REGISTER Victor")
    process("ann@x.test", CMD, "NEW mini players=2")
    with unit_of_work() as s:
        other = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    process("vic@x.test", CMD, f"JOIN {other}")
    before = state()
    n_vic = len(mails_to("vic@x.test"))
    _, status = forged("vic@x.test", seat_addr(gid, 1),
                       f"REGISTER Victor\nRESIGN {other}\nSTOP\nNOTIFY turn\nNEWADDRESS {other}\nJOIN {other}")
    assert status == "done"
    assert state() == before  # nothing changed: not the victim's name, seat, settings
    assert len(mails_to("vic@x.test")) == n_vic  # and the victim got nothing
    receipt = outbox("p1@x.test")[-1]  # the seat's player is answered, never the From
    body = receipt.body_text
    assert "REGISTER is an account command: send it to pbem@pbem.test from your registered address" in body
    assert f"this address acts only in game #{gid}; for game #{other}" in body
    assert "STOP is an account command" in body and "NOTIFY is an account command" in body
    assert "e.g. to pbem@pbem.test: STOP" in body
    assert "This mail came to your seat's reply address from vic@x.test" in body  # §9: the sender named


def test_a_forged_from_on_the_command_address_gets_nothing_done(any_cfg):
    """§14: on the default configuration a bare From was enough to RESIGN,
    NEWADDRESS, STOP or NOTIFY a player. Now pbem asks the owner, at the
    owner's address, and the forger hears nothing."""
    gid = start_game(2)
    before = state()
    for body in (f"RESIGN {gid}", f"NEWADDRESS {gid}", "STOP", "NOTIFY digest", "REGISTER Mallory", f"SAY hi"):
        _, status = forged("p1@x.test", CMD, body)
        assert status == "done"
    assert state() == before
    assert not outbox("eve@evil.test")
    asks = [o for o in outbox("p1@x.test") if o.kind == "confirm"]
    assert len(asks) == 5  # one per mail with a command to hold (SAY needs a game: answered as an error)
    ask = asks[0].body_text
    assert "could not check that it really came from you" in ask and f"RESIGN {gid}" in ask
    assert "reply to this mail" in ask and "/confirm/" in ask and "ignore this mail" in ask
    assert asks[0].headers["Reply-To"].startswith("confirm-")
    with unit_of_work() as s:
        assert "spf=pass smtp.mailfrom=evil.test" in s.exec(select(Inbound).order_by(Inbound.id.desc())).first().auth
    # the owner confirms the one they did send (here: STOP): only it is done
    stop_ask = next(o for o in asks if "STOP" in o.body_text)
    iid = store_inbound(mail("p1@x.test", stop_ask.headers["Reply-To"], "yes"), stop_ask.headers["Reply-To"],
                        "p1@x.test")
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        p1 = s.exec(select(User).where(User.email == "p1@x.test")).one()
        assert p1.stopped and p1.notify == "every"
        assert not s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 1)).one().resigned
    # a confirmation works once: the same address again is refused at the door, and in the pipeline
    cfg = config.settings()
    with smtp_receiver(cfg), smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=120) as c:
        c.ehlo("client.test")
        c.mail("p1@x.test")
        code, text = c.rcpt(stop_ask.headers["Reply-To"])
        assert code == 550 and b"used or expired" in text
    assert pipeline.process_inbound(iid) == "done"  # the same mail again does nothing


def test_verified_senders_act_and_destructive_commands_are_confirmed(any_cfg):
    gid = start_game(2)
    # x.test's SPF names loopback: P1's own server sends it -- verified, so STOP runs at once
    process("p1@x.test", CMD, "STOP")
    with unit_of_work() as s:
        assert s.exec(select(User).where(User.email == "p1@x.test")).one().stopped
    # RESIGN cannot be undone by mail: asked, even from a verified sender; NO cancels
    process("p1@x.test", CMD, f"RESIGN {gid}")
    ask = outbox("p1@x.test")[-1]
    assert ask.kind == "confirm" and "cannot be undone by mail" in ask.body_text
    assert len([o for o in outbox("p1@x.test") if o.kind == "reply" and f"RESIGN {gid}" in o.body_text]) == 0
    confirm("p1@x.test", "No thanks")
    assert "Cancelled, as you asked: nothing of it was done" in outbox("p1@x.test")[-1].body_text
    with unit_of_work() as s:
        assert not s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 1)).one().resigned
        assert s.exec(select(Confirmation)).one().status == "cancelled"
    # REPLACE ... VOTE too
    process("ann@x.test", CMD, f"REPLACE {gid} 2 VOTE")
    assert outbox("ann@x.test")[-1].kind == "confirm"
    confirm("ann@x.test")
    assert "seat 2 is now open to a replacement" in outbox("ann@x.test")[-1].body_text


def test_a_seat_that_changes_hands_loses_its_address(any_cfg):
    """§15: a resigned, opened or abandoned seat's old address moved and talked."""
    gid = start_game(3)
    old1, old2 = seat_addr(gid, 1), seat_addr(gid, 2)
    process("p1@x.test", CMD, f"RESIGN {gid}")  # P1 resigns: a bot plays seat 2
    confirm("p1@x.test")
    process("ann@x.test", CMD, f"REPLACE {gid} 3 VOTE")  # the table (Ann alone now) opens seat 3
    confirm("ann@x.test")
    assert "seat 3 is now open" in outbox("ann@x.test")[-1].body_text
    assert seat_addr(gid, 1) != old1 and seat_addr(gid, 2) != old2
    before = state()
    for old, who in ((old1, "p1@x.test"), (old2, "p2@x.test")):
        _, status = process(who, old, "wait\nSAY I am still here")
        assert status == "done" and "not valid any more" in outbox(who)[-1].body_text
    assert state() == before
    cfg = config.settings()
    with smtp_receiver(cfg), smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=120) as c:
        c.ehlo("client.test")
        c.mail("p1@x.test")
        assert c.rcpt(old1)[0] == 550 and c.rcpt(old2)[0] == 550


def test_unknown_senders_get_a_short_fixed_answer(any_cfg):
    """§16: the command address was an open reflector: every line of a mail
    with a forged From was echoed to that address (150 lines: 64 KB)."""
    spam = "\n".join(f"Buy cheap watches at spam{i}.example NOW" for i in range(150))
    _, status = forged("target@x.test", CMD, spam)
    assert status == "done"
    answer = outbox("target@x.test")[-1]
    assert "pbem does not know the address target@x.test" in answer.body_text
    assert "watches" not in answer.body_text and "watches" not in (answer.body_html or "")
    assert len(answer.body_text) < 1500
    # REGISTER from an address pbem cannot verify: nobody is registered until the owner confirms
    _, status = forged("target@x.test", CMD, "REGISTER Mallory\nNEW mini")
    with unit_of_work() as s:
        assert s.exec(select(User).where(User.email == "target@x.test")).first() is None
        assert not list(s.exec(select(Game)))
    ask = outbox("target@x.test")[-1]
    # the asking mail names only REGISTER <name>: nothing of the mail, which may be a forger's
    assert ask.kind == "confirm" and "REGISTER <name>" in ask.body_text and "Mallory" not in ask.body_text
    confirm("target@x.test")  # the owner of the address does want it: now it is done
    with unit_of_work() as s:
        assert s.exec(select(User).where(User.email == "target@x.test")).one().name == "Mallory"
        assert len(list(s.exec(select(Game)))) == 0  # only the REGISTER of such a mail is read: NEW was not held


def test_require_auth_drops_unverified_mail_unanswered(any_cfg):
    """§13, §16 under PBEM_REQUIRE_AUTH: a forged From, with or without an
    Authentication-Results header in our name, gets no answer and no account."""
    config.set_settings(any_cfg.with_(require_auth="dkim-or-spf"))
    gid = start_game(2)
    before, n = state(), len(outbox())
    raw = mail("p1@x.test", CMD, f"RESIGN {gid}", headers={
        "Authentication-Results": "pbem.test; spf=pass smtp.mailfrom=x.test; dkim=pass header.d=x.test"})
    iid = store_inbound(raw, CMD, "p1@x.test", peer=FAR)
    assert pipeline.process_inbound(iid) == "ignored"
    assert forged("new@x.test", CMD, "REGISTER Nobody\nNEW mini")[1] == "ignored"
    assert state() == before and len(outbox()) == n


def test_dkim_signed_mail_is_verified_whatever_server_relays_it(any_cfg):
    """A provider's DKIM signature, checked against its key in DNS, proves
    the From's domain even from a server its SPF does not name; a signature
    broken on the way proves nothing."""
    import dkim

    gid = start_game(2)
    key = dnsserver.publish_key("s1", "x.test")
    body = mail("p1@x.test", CMD, "STOP")
    signed = dkim.sign(body, b"s1", b"x.test", key, include_headers=[b"from", b"to", b"subject", b"message-id"])
    iid = store_inbound(signed + body, CMD, "bounces@relay.example", peer=FAR)
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        assert s.exec(select(User).where(User.email == "p1@x.test")).one().stopped
        assert "dkim=pass header.d=x.test" in s.get(Inbound, iid).auth
    tampered = (signed + mail("p1@x.test", CMD, "NOTIFY digest")).replace(b"STOP", b"NOTIFY digest")
    iid = store_inbound(tampered, CMD, "bounces@relay.example", peer=FAR)
    assert pipeline.process_inbound(iid) == "done"
    assert outbox("p1@x.test")[-1].kind == "confirm"
    with unit_of_work() as s:
        assert s.exec(select(User).where(User.email == "p1@x.test")).one().notify == "every"
    assert gid


def test_seats_own_refuses_other_senders_and_renews_the_address(any_cfg):
    """§9: a stranger who read a seat's address made that player's secret
    pick from another address, and the owner was not told who sent it."""
    gid = start_game(2)
    old = seat_addr(gid, 0)
    # SEATS ANY (the default): it is played, and the owner is told who sent it
    _, status = process("eve@evil.test", old, "wait")
    assert status == "done"
    receipt = outbox("ann@x.test")[-1]
    assert "from eve@evil.test, not from your registered address ann@x.test" in receipt.body_text
    assert "NEWADDRESS" in receipt.body_text and "SEATS OWN" in receipt.body_text
    assert not outbox("eve@evil.test")
    process("ann@x.test", CMD, "SEATS OWN")
    assert "only ann@x.test may use your seats' reply addresses now" in outbox("ann@x.test")[-1].body_text
    before = state()
    process("p1@x.test", seat_addr(gid, 1), "wait")  # P1's turn passes back to Ann
    before = state()
    _, status = process("eve@evil.test", old, "wait")
    assert status == "ignored"
    after = state()
    assert after["games"] == before["games"]  # nothing applied
    told = outbox("ann@x.test")[-1]
    assert "pbem refused a mail to your seat's reply address" in told.body_text and "eve@evil.test" in told.body_text
    new = seat_addr(gid, 0)
    assert new != old and told.headers["Reply-To"] == new
    # her own address, from her own server: accepted; forged as hers from elsewhere: refused too
    _, status = forged("ann@x.test", new, "wait", envelope="ann@x.test", peer=FAR)
    assert status == "ignored" and seat_addr(gid, 0) != new
    newest = seat_addr(gid, 0)
    _, status = process("ann@x.test", newest, "wait")
    assert status == "done" and state()["games"] != before["games"]


def test_a_private_message_never_goes_to_a_look_alike_name(any_cfg):
    """§17: SAY <name>: went to the first seat with that name, so a player
    who renamed himself after an opponent got the messages meant for them."""
    process("bob@x.test", CMD, "REGISTER Bob Smith")
    process("ann@x.test", CMD, "REGISTER Ann")
    process("bo@x.test", CMD, "REGISTER Bob")
    process("ann@x.test", CMD, "NEW mini players=3")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id)).first()
    process("bob@x.test", CMD, f"JOIN {gid}")
    process("bo@x.test", CMD, f"JOIN {gid}")
    with unit_of_work() as s:
        posts = len(list(s.exec(select(Post))))
    process("ann@x.test", seat_addr(gid, 0), "SAY Bob: my secret plan")
    body = outbox("ann@x.test")[-1].body_text
    assert "players of game" in body and "by seat number" in body
    with unit_of_work() as s:
        assert len(list(s.exec(select(Post)))) == posts


@pytest.mark.parametrize("rcpts", [1, 2])
def test_forged_mail_over_real_smtp_gets_nothing_done(sqlite_cfg, rcpts):
    """The attack of §12 end to end: Eve's solo game gives her a seat token;
    then a mail From the victim, with REGISTER <victim> and RESIGN <victim's
    game>, to that address, through the real receiver."""
    cfg = sqlite_cfg
    gid = start_game(2)
    process("eve@evil.test", CMD, "REGISTER Eve\nNEW mini players=1")
    with unit_of_work() as s:
        solo = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    eve_seat = seat_addr(solo, 0)
    before, to_eve = state(), len(outbox("eve@evil.test"))
    with smtp_receiver(cfg):
        raw = mail("p1@x.test", eve_seat, f"REGISTER P1\nRESIGN {gid}")
        to = [eve_seat, CMD][:rcpts]
        assert send_mail(cfg, raw, "eve@evil.test", to) == 250
    with unit_of_work() as s:  # one stored mail per recipient, so each is read for its own address
        ids = [r.id for r in s.exec(select(Inbound).where(Inbound.status == "received"))]
    assert len(ids) == rcpts
    for iid in ids:
        pipeline.process_inbound(iid)
    assert state() == before
    # Eve's own seat answers Eve, its player: both commands refused there
    assert len(outbox("eve@evil.test")) == to_eve + 1
    assert "REGISTER is an account command" in outbox("eve@evil.test")[-1].body_text
    assert "this address acts only in game" in outbox("eve@evil.test")[-1].body_text
    # on the seat address: refused (account commands); on the command address: P1 is asked, and may ignore it
    asks = [o for o in outbox("p1@x.test") if o.kind == "confirm"]
    assert len(asks) == rcpts - 1 and all("could not check that it really came from you" in o.body_text for o in asks)


def test_the_link_in_the_asking_mail_confirms_once(any_cfg):
    """The asking mail's link: its page shows what waits (a GET changes
    nothing: mail scanners fetch links), its button does what a reply does,
    once, with the same answer by mail."""
    import re

    from pbem.web import create_app

    gid = start_game(2)
    process("p1@x.test", CMD, f"RESIGN {gid}")
    ask = outbox("p1@x.test")[-1]
    link = re.search(r"https?://\S+/confirm/(\S+)", ask.body_text)
    path = "/confirm/" + link.group(1)
    app = create_app(any_cfg)
    app.config.update(WTF_CSRF_ENABLED=False)
    c = app.test_client()
    page = c.get(path)
    assert page.status_code == 200 and f"RESIGN {gid}".encode() in page.data and b"p1@x.test" in page.data
    before = state()
    assert state() == before
    for _ in range(2):  # a double click
        assert c.post(path, data={"answer": "yes"}).status_code == 200
    with unit_of_work() as s:
        rows = list(s.exec(select(Inbound).where(Inbound.peer == "web")))
    assert len(rows) == 1
    assert pipeline.process_inbound(rows[0].id) == "done"
    with unit_of_work() as s:
        assert s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 1)).one().resigned
    assert f"you have resigned from game #{gid}" in outbox("p1@x.test")[-1].body_text
    # used: the page says so, and nothing more is stored
    assert c.get(path).status_code == 404 and c.post(path, data={"answer": "yes"}).status_code == 404
    assert c.get("/confirm/" + "a" * 32).status_code == 404


def test_talk_is_capped_per_person_and_hour(any_cfg):
    """Effects capped: one person's table talk and private messages,
    by mail and by web, at most PBEM_TALK_PER_HOUR posts an hour in all games;
    a mail over the cap is answered once, and nothing over it is sent."""
    from pbem.web import create_app

    config.set_settings(any_cfg.with_(talk_per_hour=3))
    gid = start_game(3)
    ann = seat_addr(gid, 0)
    process("ann@x.test", ann, "SAY one\nSAY two")  # one post: a mail's lines to one reader are one post
    process("ann@x.test", ann, "SAY P1: three\nSAY P2: four")  # two more posts: three in the hour
    with unit_of_work() as s:
        assert len(list(s.exec(select(Post).where(Post.kind == "post")))) == 3
    n = len(outbox())
    process("ann@x.test", ann, "SAY five\nSAY P1: six\nSAY P2: seven")
    body = outbox("ann@x.test")[-1].body_text
    assert body.count("you have written 3 messages in the last hour") == 3 and "e.g. SAY" in body
    with unit_of_work() as s:
        assert len(list(s.exec(select(Post).where(Post.kind == "post")))) == 3
    assert len(outbox()) == n + 1  # the answer alone: nothing mailed to the table
    # the web's thread counts the same posts
    app = create_app(config.settings())
    app.config.update(WTF_CSRF_ENABLED=False)
    with unit_of_work() as s:
        uid = s.exec(select(User.id).where(User.email == "ann@x.test")).one()
    from tests.web.conftest import log_in

    c = app.test_client()
    log_in(c, uid)
    r = c.post(f"/games/{gid}/posts", data={"body": "eight"}, follow_redirects=True)
    assert "at most 3 an hour" in r.get_data(as_text=True)
    with unit_of_work() as s:
        assert len(list(s.exec(select(Post).where(Post.kind == "post")))) == 3
