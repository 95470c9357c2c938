"""Reading replies, through the real SMTP receiver and a real Celery worker:
replies written the way real clients write them, to mails pbem really sent,
in real games of the three games. Each case checks what was applied, what
was ignored and what was answered, and that nothing quoted ran again."""
from __future__ import annotations

from datetime import datetime, timezone
from email.message import EmailMessage

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound, Post, Seat, User
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests import mailclients as mc
from tests.mailtools import CMD, PATIENCE, outbox, process, wait_for

WHEN = datetime(2026, 11, 23, 10, 0, tzinfo=timezone.utc)


# ---------------------------------------------------------------- what clients write (tests/mailclients.py)


def _orig(row: Outbound) -> mc.Original:
    return mc.Original.from_outbound(row, CMD, sent=WHEN)


def _player(email: str) -> mc.Player:
    return mc.Player(email.split("@")[0].capitalize(), email)


def gmail(orig: Outbound, frm: str, reply: str, loc: str = "en") -> bytes:
    """Gmail (web): multipart/alternative, top-posted, '>' quote and gmail_quote HTML."""
    return mc.gmail(_orig(orig), _player(frm), mc.Answer(reply.split("\n")), loc=loc, seed=orig.message_id + reply)


def outlook_html(orig: Outbound, frm: str, reply: str, variant: str, charset: str = "windows-1252",
                 loc: str = "en") -> bytes:
    """Outlook's HTML-only replies: the quoted mail as siblings after the
    header block (desktop's divRplyFwdMsg, OWA's appendonsend + x_ ids,
    classic's '-----Original Message-----' paragraph)."""
    return mc.outlook_html(_orig(orig), _player(frm), mc.Answer(reply.split("\n")), loc=loc, variant=variant,
                           charset=charset, seed=variant + reply)  # a Message-ID of its own


def thunderbird_bottom(orig: Outbound, frm: str, reply: str, charset: str) -> bytes:
    """Thunderbird in Russian: bottom-posted, format=flowed, a '-- ' signature."""
    return mc.thunderbird(_orig(orig), _player(frm), mc.Answer(reply.split("\n")), loc="ru", style="bottom",
                          charset=charset, signature=["Анна, Москва"], seed=orig.message_id + charset)


def iphone(orig: Outbound, frm: str, reply: str, loc: str = "en") -> bytes:
    """iOS Mail: flowed text, smart punctuation, the phone's signature, then
    the attribution and a '>' quote."""
    return mc.apple(_orig(orig), _player(frm), mc.Answer(reply.split("\n")), loc=loc, iphone=True, smart=True,
                    seed=orig.message_id + reply)


# ---------------------------------------------------------------- the table


def _table(game: str, players: int) -> int:
    names = ["Ann", "Bob", "Cy", "Dee", "Eve"][:players]
    for n in names:
        process(f"{n.lower()}@x.test", CMD, f"REGISTER {n}")
    process("ann@x.test", CMD, f"NEW {game} players={players}")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    for n in names[1:]:
        process(f"{n.lower()}@x.test", CMD, f"JOIN {gid}")
    return gid


def _latest(to: str, kind: str, gid: int | None = None) -> Outbound:
    rows = [o for o in outbox(to) if o.kind == kind and (gid is None or o.game_id == gid)]
    assert rows, (to, kind)
    return rows[-1]


def _send(cfg, raw: bytes, frm: str, rcpt: str) -> Inbound:
    """One client's mail through the receiver, as a client sends it (CRLF lines); back once the worker has
    read it. A database may hold many mails before it: the wait reads the rows after the newest one before
    the sending, not all of them."""
    with unit_of_work() as s:
        before = s.exec(select(Inbound.id).order_by(Inbound.id.desc())).first() or 0
    raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # on the wire, as a client sends it
    assert send_mail(cfg, raw, frm, rcpt) == 250

    def read():
        with unit_of_work() as s:
            row = s.exec(select(Inbound).where(Inbound.id > before).order_by(Inbound.id)).first()
        return row if row is not None and row.status != "received" else None

    row = wait_for(read, timeout=PATIENCE)
    assert row.status == "done", (row.status, row.error)
    return row


def _receipt(frm: str) -> Outbound:
    return wait_for(lambda: next((o for o in reversed(outbox(frm)) if o.kind == "reply"), None))


def _state(gid: int):
    with unit_of_work() as s:
        g = games.get(s, gid)
        return g, games.state_at(s, g)


def _legal(gid: int, seat: int) -> list[str]:
    g, st = _state(gid)
    engine = get_game(g.game)
    return [engine.format_move(st, seat, m) for m in engine.legal_moves(st, seat)]


def _mover(gid: int) -> tuple[int, str, Outbound]:
    """A seat that must move now (the lowest), its player's address and the latest board they got."""
    g, st = _state(gid)
    seat = min(get_game(g.game).to_move(st))
    who = _seat_email(gid, seat)
    return seat, who, _latest(who, "board", gid)


def _seat_email(gid: int, seat: int) -> str:
    with unit_of_work() as s:
        u = s.exec(select(User).join(Seat, Seat.user_id == User.id)
                   .where(Seat.game_id == gid, Seat.seat == seat)).one()
        return u.email


@pytest.fixture
def loop(sqlite_cfg):
    cfg = sqlite_cfg.with_(inbound_rate=10_000)
    from pbem import config

    config.set_settings(cfg)
    with smtp_receiver(cfg), celery_worker(cfg):
        yield cfg


# ---------------------------------------------------------------- 1. quoted text is never run again


def test_outlook_html_replies_to_a_receipt_never_rerun_the_quoted_commands(loop):
    cfg = loop
    process("dan@x.test", CMD, "REGISTER Dan\nNEW spyrium players=3\nGAMES")
    receipt = _latest("dan@x.test", "reply")
    assert "NEW spyrium players=3" in receipt.body_html
    for variant, reply in (("desktop", "REGISTER Daniel\nDanke!"), ("owa", "GAMES"), ("classic", "STATUS")):
        _send(cfg, outlook_html(receipt, "dan@x.test", reply, variant), "dan@x.test", CMD)
        answer = _receipt("dan@x.test")
        assert "ERROR" not in answer.body_text, (variant, answer.body_text)
    with unit_of_work() as s:
        assert len(list(s.exec(select(Game)))) == 1  # the quoted NEW made no second game
        user = s.exec(select(User).where(User.email == "dan@x.test")).one()
        assert user.name == "Daniel" and not user.stopped  # the quoted REGISTER Dan did not run after


def test_outlook_html_reply_on_a_seat_applies_the_move_and_no_quoted_line(loop):
    cfg = loop
    gid = _table("squire", 3)
    seat, who, board = _mover(gid)
    move = _legal(gid, seat)[0]
    _send(cfg, outlook_html(board, who, f"Hallo zusammen,\n{move}\nDanke!", "desktop", "utf-8", loc="de"), who,
          board.headers["Reply-To"])
    receipt = _receipt(who)
    with unit_of_work() as s:
        moves = list(s.exec(select(Move).where(Move.game_id == gid)))
    assert [m.notation for m in moves] == [move], receipt.body_text
    assert "ERROR" not in receipt.body_text and "| Danke!" in receipt.body_text


def test_quoted_say_and_if_lines_are_not_run(loop):
    cfg = loop
    gid = _table("spyrium", 3)
    seat, who, board = _mover(gid)
    addr = board.headers["Reply-To"]
    # a receipt of a SAY, quoted by Outlook under the reply: the SAY is not sent again
    process(who, addr, "SAY good luck, everyone!")
    say_receipt = _latest(who, "reply", gid)
    with unit_of_work() as s:
        posts = len(list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "post"))))
    move = _legal(gid, seat)[0]
    _send(cfg, outlook_html(say_receipt, who, move, "owa", "utf-8"), who, addr)
    with unit_of_work() as s:
        assert len(list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "post")))) == posts
        assert [m.notation for m in s.exec(select(Move).where(Move.game_id == gid))] == [move]
    # a quoted help line "if it completes ..." in a plain-text quote without '>' (Outlook plain text)
    nxt, who2, board2 = _mover(gid)
    raw = EmailMessage()
    raw["From"], raw["To"], raw["Subject"] = who2, board2.headers["Reply-To"], "RE: " + board2.subject
    raw["In-Reply-To"] = raw["References"] = board2.message_id
    raw.set_content(f"{_legal(gid, nxt)[0]}\n\n-----Original Message-----\nFrom: pbem\nSent: Monday\n\n"
                    "if it completes floor 3, take a token\nIF Ann: pass THEN pass\n" + board2.body_text)
    _send(cfg, raw.as_bytes(), who2, board2.headers["Reply-To"])
    with unit_of_work() as s:
        from pbem.store.models import PreMove

        assert list(s.exec(select(PreMove).where(PreMove.game_id == gid))) == []
        assert len(list(s.exec(select(Move).where(Move.game_id == gid)))) == 2


# ---------------------------------------------------------------- 2. talk around moves, 3. bottom-posting, 4. flowed


def test_talk_around_moves_never_sinks_the_turn_and_is_never_the_reason(loop):
    cfg = loop
    gid = _table("iaww", 3)
    engine = get_game("iaww")
    chatter = {0: ("Hi all,", "Thanks!", "Ann"), 1: ("Ой, понятно.", "Von meinem iPhone gesendet"), 2: ("Gracias",)}
    locale = {0: "en", 1: "de", 2: "es"}  # Gmail's attribution line in each player's language
    for seat in range(3):
        who = _seat_email(gid, seat)
        board = _latest(who, "board", gid)
        pick = next(m for m in _legal(gid, seat) if m.startswith("pick"))
        lines = [chatter[seat][0], pick, *chatter[seat][1:]]
        _send(cfg, gmail(board, who, "\n".join(lines), locale[seat]), who, board.headers["Reply-To"])
        receipt = _receipt(who)
        assert "ERROR" not in receipt.body_text and "not your turn" not in receipt.body_text, receipt.body_text
    with unit_of_work() as s:
        assert len(list(s.exec(select(Move).where(Move.game_id == gid)))) == 3  # every pick counted
    # a seat that is not to move, writing only "Thanks!", is told no move was found, not "not your turn"
    g, st = _state(gid)
    idle = next((x for x in range(3) if x not in engine.to_move(st)), None)
    if idle is not None:
        who = _seat_email(gid, idle)
        board = _latest(who, "board", gid)
        _send(cfg, gmail(board, who, "Thanks!"), who, board.headers["Reply-To"])
        body = _receipt(who).body_text
        assert "not your turn" not in body and "no move or command" in body and "| Thanks!" in body


def test_bottom_posted_russian_thunderbird_flowed_koi8r_and_iphone_smart_punctuation(loop):
    cfg = loop
    gid = _table("spyrium", 3)
    for charset in ("KOI8-R", "windows-1251"):
        seat, who, board = _mover(gid)
        move = _legal(gid, seat)[-1]
        long = f"Привет всем! Сейчас подумаю, что здесь лучше всего сделать, и напишу ход ниже.\n{move}"
        _send(cfg, thunderbird_bottom(board, who, long, charset), who,
              board.headers["Reply-To"])
        body = _receipt(who).body_text
        assert "ERROR" not in body and "OK" in body, body
    # iPhone: smart punctuation and "DONE."-style trailing full stops, flowed with DelSp
    seat, who, board = _mover(gid)
    move = _legal(gid, seat)[0]
    _send(cfg, iphone(board, who, f"That’s it: “{move}” is mine.\n{move}.", loc="fr"), who,
          board.headers["Reply-To"])
    body = _receipt(who).body_text
    with unit_of_work() as s:
        assert len(list(s.exec(select(Move).where(Move.game_id == gid)))) == 3, body


def test_squire_typographic_quotes_and_a_long_flowed_line(loop):
    cfg = loop
    gid = _table("squire", 3)
    seat, who, board = _mover(gid)
    quoted_move = next((m for m in _legal(gid, seat) if '"' in m), _legal(gid, seat)[0])
    typographic = quoted_move.replace('"', "“", 1).replace('"', "”", 1)
    _send(cfg, iphone(board, who, f"{typographic}\n\nCheers"), who, board.headers["Reply-To"])
    body = _receipt(who).body_text
    with unit_of_work() as s:
        assert [m.notation for m in s.exec(select(Move).where(Move.game_id == gid))] == [quoted_move], body


# ---------------------------------------------------------------- 6. a reply to table talk is table talk


def test_replies_to_table_talk_are_talk_and_private_stays_private(loop):
    cfg = loop
    gid = _table("spyrium", 3)
    ann_addr = _latest("ann@x.test", "board", gid).headers["Reply-To"]
    process("ann@x.test", ann_addr, "SAY Who is up for a rematch after this one?")
    talk = _latest("bob@x.test", "notice", gid)
    assert ".talk." in talk.message_id
    bob_addr = talk.headers["Reply-To"]
    _send(cfg, gmail(talk, "bob@x.test", "Ha! I can read that, Ann. Count me in."),
          "bob@x.test", bob_addr)
    with unit_of_work() as s:
        posts = list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "post").order_by(Post.id)))
    assert posts[-1].body == "Ha! I can read that, Ann. Count me in." and posts[-1].to_seat is None
    assert "not your turn" not in _receipt("bob@x.test").body_text
    with unit_of_work() as s:
        assert list(s.exec(select(Move).where(Move.game_id == gid))) == []
    # a private message: the reply goes back to its author alone
    process("ann@x.test", ann_addr, "SAY Bob: shall we gang up on Cy?")
    pm = _latest("bob@x.test", "notice", gid)
    before_cy = len(outbox("cy@x.test"))
    _send(cfg, gmail(pm, "bob@x.test", "Deal."), "bob@x.test", bob_addr)
    with unit_of_work() as s:
        post = list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "post").order_by(Post.id)))[-1]
        ann_seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == post.user_id)).first()
    assert post.body == "Deal." and post.to_seat is not None
    assert _seat_email(gid, post.to_seat) == "ann@x.test" and ann_seat is not None
    assert len(outbox("cy@x.test")) == before_cy  # Cy never hears of it
