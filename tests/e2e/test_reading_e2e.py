"""Issue 16's cases through the real SMTP receiver and a real Celery worker:
replies written the way real clients write them, to mails pbem really sent,
in real games of the three games. Each case checks what was applied, what
was ignored and what was answered, and that nothing quoted ran again."""
from __future__ import annotations

import textwrap
from email.message import EmailMessage
from email.mime.text import MIMEText
from email.utils import format_datetime
from datetime import datetime, timezone

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.services import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound, Post, Seat, User
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, outbox, process, wait_for

WHEN = datetime(2026, 11, 23, 10, 0, tzinfo=timezone.utc)


# ---------------------------------------------------------------- what clients write


def _headers(m, orig: Outbound, frm: str, to: str) -> None:
    m["From"] = frm
    m["To"] = to
    m["Subject"] = "Re: " + orig.subject
    m["Date"] = format_datetime(WHEN)
    m["In-Reply-To"] = orig.message_id
    m["References"] = orig.message_id


def _flow(text: str, width: int = 72) -> str:
    """format=flowed (RFC 3676) as Thunderbird and Apple Mail write it: long
    lines broken at spaces with a trailing space, stuffed where needed."""
    out = []
    for line in text.split("\n"):
        prefix = ""
        while line.startswith(">"):
            prefix += ">"
            line = line[1:].lstrip(" ") if line[1:2] == " " else line[1:]
        lead = (prefix + " ") if prefix else ""
        if not prefix and (line.startswith((" ", ">")) or line.startswith("From ")):
            line = " " + line
        if line == "-- " or len(lead + line) <= width:
            out.append(lead + line)
            continue
        pieces = textwrap.wrap(line, width - len(lead), break_long_words=False, drop_whitespace=False)
        out.extend(lead + p if p.endswith(" ") or i == len(pieces) - 1 else lead + p
                   for i, p in enumerate(pieces))
    return "\n".join(out)


def gmail(orig: Outbound, frm: str, reply: str, attribution: str) -> bytes:
    """Gmail web: multipart/alternative, top-posted, '>' quote and gmail_quote HTML."""
    m = EmailMessage()
    _headers(m, orig, frm, orig.headers.get("Reply-To") or CMD)
    quoted = "\n".join("> " + ln if ln else ">" for ln in orig.body_text.split("\n"))
    m.set_content(f"{reply}\n\n{attribution}\n\n{quoted}\n")
    body = "".join(f"<div>{ln}</div>" if ln else "<div><br></div>" for ln in reply.split("\n"))
    m.add_alternative(f'<div dir="ltr">{body}</div><br><div class="gmail_quote"><div dir="ltr" '
                      f'class="gmail_attr">{attribution}<br></div><blockquote class="gmail_quote" style="margin:0 '
                      f'0 0 .8ex">{orig.body_html}</blockquote></div>', subtype="html")
    return m.as_bytes()


def outlook_html(orig: Outbound, frm: str, reply: str, variant: str, charset: str = "windows-1252") -> bytes:
    """Outlook's HTML-only replies: the quoted mail as siblings after the
    header block (desktop's divRplyFwdMsg, OWA's appendonsend + x_ ids,
    classic's '-----Original Message-----' paragraph)."""
    body = "".join(f'<p class="MsoNormal">{ln or "&nbsp;"}</p>' for ln in reply.split("\n"))
    if variant == "desktop":
        html = (f'<html><body lang="DE"><div class="WordSection1">{body}<div id="mail-editor-reference-message-'
                f'container"><div class="ms-outlook-mobile-reference-message skipProofing"><hr style="display:'
                f'inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri">'
                f'<b>Von:</b> pbem &lt;pbem@pbem.test&gt;<br><b>Gesendet:</b> Montag, 23. November 2026 10:00<br>'
                f'<b>An:</b> Ann<br><b>Betreff:</b> {orig.subject}</font><div>&nbsp;</div></div>{orig.body_html}'
                f'</div></div></div></body></html>')
    elif variant == "owa":
        html = (f'<html><body><div style="font-family:Aptos">{body}</div><div id="appendonsend"></div>'
                f'<hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg" dir="ltr"><b>From:</b> pbem'
                f'<br><b>Sent:</b> Monday, November 23, 2026 10:00 AM<br><b>To:</b> Ann<br><b>Subject:</b> '
                f'{orig.subject}</div><div>{orig.body_html.replace("class=", "class=x_")}</div></body></html>')
    else:  # classic desktop (Word), plain rule and header paragraph
        html = (f'<html><body><div class=WordSection1>{body}<p class=MsoNormal>-----Original Message-----<br>'
                f'From: pbem [mailto:pbem@pbem.test]<br>Sent: Monday, November 23, 2026 10:00 AM<br>To: Ann<br>'
                f'Subject: {orig.subject}</p><p class=MsoNormal>&nbsp;</p>{orig.body_html}</div></body></html>')
    m = MIMEText(html, "html", charset)
    _headers(m, orig, frm, orig.headers.get("Reply-To") or CMD)
    return m.as_bytes()


def thunderbird_bottom(orig: Outbound, frm: str, reply: str, attribution: str, charset: str) -> bytes:
    """Thunderbird's default: bottom-posted, format=flowed, the attribution
    above the '>' quote, a '-- ' signature."""
    quoted = "\n".join("> " + ln if ln else ">" for ln in orig.body_text.split("\n"))
    text = _flow(f"{attribution}\n{quoted}\n\n{reply}\n\n-- \nАнна, Москва")
    text = text.encode(charset, "replace").decode(charset)  # what the charset cannot hold becomes '?'
    m = MIMEText(text, "plain", charset)
    m.set_param("format", "flowed")
    _headers(m, orig, frm, orig.headers.get("Reply-To") or CMD)
    return m.as_bytes()


def iphone(orig: Outbound, frm: str, reply: str, signature: str) -> bytes:
    """iOS Mail: flowed text, smart punctuation, the phone's signature, then
    the attribution and a '>' quote."""
    quoted = "\n".join("> " + ln if ln else ">" for ln in orig.body_text.split("\n"))
    text = _flow(f"{reply}\n\n{signature}\n\nOn 23 Nov 2026, at 10:00, pbem <{CMD}> wrote:\n\n{quoted}")
    m = MIMEText(text, "plain", "utf-8")
    m.set_param("format", "flowed")
    m.set_param("delsp", "yes")
    _headers(m, orig, frm, orig.headers.get("Reply-To") or CMD)
    return m.as_bytes()


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
    with unit_of_work() as s:
        before = len(list(s.exec(select(Inbound.id))))
    raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # on the wire, as a client sends it
    assert send_mail(cfg, raw, frm, rcpt) == 250
    row = wait_for(lambda: _done_after(before), timeout=60)
    assert row.status == "done", (row.status, row.error)
    return row


def _done_after(before: int):
    with unit_of_work() as s:
        rows = list(s.exec(select(Inbound).order_by(Inbound.id)))[before:]
    return rows[0] if rows and rows[0].status not in ("received",) else None


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
        _send(cfg, outlook_html(receipt, "Dan <dan@x.test>", reply, variant), "dan@x.test", CMD)
        answer = _receipt("dan@x.test")
        assert "ERROR" not in answer.body_text, (variant, answer.body_text)
    with unit_of_work() as s:
        assert len(list(s.exec(select(Game)))) == 1  # the quoted NEW made no second game
        user = s.exec(select(User).where(User.email == "dan@x.test")).one()
        assert user.name == "Daniel" and not user.stopped  # the quoted REGISTER Dan did not run after


def test_outlook_html_reply_on_a_seat_applies_the_move_and_no_quoted_line(loop):
    cfg = loop
    gid = _table("squire", 3)
    g, st = _state(gid)
    seat = min(get_game("squire").to_move(st))
    who = _seat_email(gid, seat)
    board = _latest(who, "board", gid)
    move = _legal(gid, seat)[0]
    _send(cfg, outlook_html(board, who, f"Hallo zusammen,\n{move}\nDanke!", "desktop", "utf-8"), who,
          board.headers["Reply-To"])
    receipt = _receipt(who)
    with unit_of_work() as s:
        moves = list(s.exec(select(Move).where(Move.game_id == gid)))
    assert [m.notation for m in moves] == [move], receipt.body_text
    assert "ERROR" not in receipt.body_text and "| Danke!" in receipt.body_text


def test_quoted_say_and_if_lines_are_not_run(loop):
    cfg = loop
    gid = _table("spyrium", 3)
    g, st = _state(gid)
    seat = min(get_game("spyrium").to_move(st))
    who = _seat_email(gid, seat)
    board = _latest(who, "board", gid)
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
    nxt = min(get_game("spyrium").to_move(_state(gid)[1]))
    who2 = _seat_email(gid, nxt)
    board2 = _latest(who2, "board", gid)
    raw = EmailMessage()
    _headers(raw, board2, who2, board2.headers["Reply-To"])
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
    attribution = {0: "On Mon, 23 Nov 2026 at 10:00, pbem <x@pbem.test> wrote:",
                   1: "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb pbem <x@pbem.test>:",
                   2: "El lun, 23 nov 2026 a las 10:00, pbem (<x@pbem.test>) escribió:"}
    for seat in range(3):
        who = _seat_email(gid, seat)
        board = _latest(who, "board", gid)
        pick = next(m for m in _legal(gid, seat) if m.startswith("pick"))
        lines = [chatter[seat][0], pick, *chatter[seat][1:]]
        _send(cfg, gmail(board, who, "\n".join(lines), attribution[seat]), who, board.headers["Reply-To"])
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
        _send(cfg, gmail(board, who, "Thanks!", "On Mon, pbem wrote:"), who, board.headers["Reply-To"])
        body = _receipt(who).body_text
        assert "not your turn" not in body and "no move or command" in body and "| Thanks!" in body


def test_bottom_posted_russian_thunderbird_flowed_koi8r_and_iphone_smart_punctuation(loop):
    cfg = loop
    gid = _table("spyrium", 3)
    for charset in ("koi8-r", "windows-1251"):
        g, st = _state(gid)
        seat = min(get_game("spyrium").to_move(st))
        who = _seat_email(gid, seat)
        board = _latest(who, "board", gid)
        move = _legal(gid, seat)[-1]
        long = f"Привет всем! Сейчас подумаю, что здесь лучше всего сделать, и напишу ход ниже.\n{move}"
        _send(cfg, thunderbird_bottom(board, who, long, "23.11.2026 10:00, pbem пишет:", charset), who,
              board.headers["Reply-To"])
        body = _receipt(who).body_text
        assert "ERROR" not in body and "OK" in body, body
    # iPhone: smart punctuation and "DONE."-style trailing full stops, flowed with DelSp
    g, st = _state(gid)
    seat = min(get_game("spyrium").to_move(st))
    who = _seat_email(gid, seat)
    board = _latest(who, "board", gid)
    move = _legal(gid, seat)[0]
    _send(cfg, iphone(board, who, f"That’s it: “{move}” is mine.\n{move}.", "Envoyé de mon iPhone"), who,
          board.headers["Reply-To"])
    body = _receipt(who).body_text
    with unit_of_work() as s:
        assert len(list(s.exec(select(Move).where(Move.game_id == gid)))) == 3, body


def test_squire_typographic_quotes_and_a_long_flowed_line(loop):
    cfg = loop
    gid = _table("squire", 3)
    engine = get_game("squire")
    g, st = _state(gid)
    seat = min(engine.to_move(st))
    who = _seat_email(gid, seat)
    board = _latest(who, "board", gid)
    quoted_move = next((m for m in _legal(gid, seat) if '"' in m), _legal(gid, seat)[0])
    typographic = quoted_move.replace('"', "“", 1).replace('"', "”", 1)
    _send(cfg, iphone(board, who, f"{typographic}\n\nCheers", "Sent from my iPhone"), who, board.headers["Reply-To"])
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
    _send(cfg, gmail(talk, "bob@x.test", "Ha! I can read that, Ann. Count me in.", "On Mon, Ann wrote:"),
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
    _send(cfg, gmail(pm, "bob@x.test", "Deal.", "On Mon, Ann wrote:"), "bob@x.test", bob_addr)
    with unit_of_work() as s:
        post = list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "post").order_by(Post.id)))[-1]
        ann_seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == post.user_id)).first()
    assert post.body == "Deal." and post.to_seat is not None
    assert _seat_email(gid, post.to_seat) == "ann@x.test" and ann_seat is not None
    assert len(outbox("cy@x.test")) == before_cy  # Cy never hears of it
