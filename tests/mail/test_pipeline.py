"""The pipeline over stored mails (no SMTP here; see tests/e2e for that):
commands, receipts, per-seat boards, idempotency, loop hygiene, shunting."""

import re

from sqlmodel import select

from pbem.mail import pipeline
from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Move
from tests.mailtools import CMD, confirm, inbound_rows, mail, outbox, seat_addr, start_game, store_inbound
from tests.mailtools import process as run




def last_to(addr):
    rows = outbox(addr)
    assert rows, f"no mail to {addr}"
    return rows[-1]






def test_register_new_join_start_and_boards(sqlite_cfg):
    _, status = run("Ann <ann@x.test>", CMD, "REGISTER Ann\nGAMES")
    assert status == "done"
    r = last_to("ann@x.test")
    assert "welcome, Ann" in r.body_text and "No open games" in r.body_text
    gid = start_game(2)
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.status == "running"
        hands = games.state_at(s, g).hands
    # each seat got a board with its own hand only, from its own reply address
    for seat, who in ((0, "ann@x.test"), (1, "p1@x.test")):
        board = [o for o in outbox(who) if o.kind == "board"][-1]
        assert f"Your hand: {' '.join(map(str, hands[seat]))}" in board.body_text
        other = hands[1 - seat]
        assert f"Your hand: {' '.join(map(str, other))}" not in board.body_text or other == hands[seat]
        assert board.headers["Reply-To"] == seat_addr(gid, seat)
        assert board.subject == f"[pbem #{gid}] Mini (test game)"  # one conversation per game
        assert board.body_html and "<table" in board.body_html
        # the CSS is inlined; only what cannot be (the @media rule for a phone's margins) stays in <style>
        kept = re.findall(r"<style[^>]*>(.*?)</style>", board.body_html, re.S)
        assert all(block.strip().startswith("@media") for block in kept), kept
        assert 'style="' in board.body_html


def test_move_by_mail_receipt_and_table_mails(sqlite_cfg):
    gid = start_game(2)
    with unit_of_work() as s:
        card = games.state_at(s, games.get(s, gid)).hands[0][0]
    before = len(outbox("p1@x.test"))
    _, status = run("ann@x.test", seat_addr(gid, 0), f"PLAY {card}\n\n-- \nAnn\n\n> old board",
                    subject=f"Re: [pbem #{gid} ply 0] Mini")
    assert status == "done"
    receipt = last_to("ann@x.test")
    assert receipt.kind == "reply" and "OK" in receipt.body_text and "ply 1" in receipt.body_text
    assert "Ignored: 3 quoted or signature line(s)" in receipt.body_text
    assert receipt.headers["In-Reply-To"].startswith("<t")
    other = outbox("p1@x.test")[before:]
    assert len(other) == 1 and f"Ann played: play {card}" in other[0].body_text
    with unit_of_work() as s:
        assert [m.notation for m in s.exec(select(Move))] == [f"play {card}"]


def test_bad_move_gets_a_clear_answer_and_changes_nothing(sqlite_cfg):
    gid = start_game(2)
    run("ann@x.test", seat_addr(gid, 0), "play 0\nwait")
    r = last_to("ann@x.test")
    assert "ERROR" in r.body_text and "you hold no 0" in r.body_text and "e.g." in r.body_text
    assert "Not applied (after the error above):\n> wait" in r.body_text
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 0
    run("p1@x.test", seat_addr(gid, 1), "wait")
    assert "it is not your turn" in last_to("p1@x.test").body_text


def test_same_message_id_twice_applies_once(sqlite_cfg):
    gid = start_game(1)
    raw = mail("ann@x.test", seat_addr(gid, 0), "wait", message_id="<same@client.test>")
    first = store_inbound(raw, seat_addr(gid, 0), "ann@x.test")
    assert store_inbound(raw, seat_addr(gid, 0), "ann@x.test") is None  # the receiver dedups
    assert pipeline.process_inbound(first) == "done"
    assert pipeline.process_inbound(first) == "done"  # a redelivered task does nothing
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 1


def test_loop_hygiene(sqlite_cfg):
    gid = start_game(1)
    n = len(outbox())
    cases = [
        {"Auto-Submitted": "auto-replied"},
        {"Precedence": "bulk"},
        {"X-PBEM-Loop": "pbem.test"},
    ]
    for headers in cases:
        _, status = run("ann@x.test", seat_addr(gid, 0), "wait", headers=headers)
        assert status == "ignored"
    assert run("MAILER-DAEMON@x.test", CMD, "bounce")[1] == "ignored"
    assert run("pbem@pbem.test", CMD, "HELP")[1] == "ignored"
    iid = store_inbound(mail("ann@x.test", CMD, "HELP"), CMD, mail_from="")
    assert pipeline.process_inbound(iid) == "ignored"
    assert len(outbox()) == n
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 0
    # what we send is recognisable as ours
    assert all(o.headers["X-PBEM-Loop"] == "pbem.test" and o.headers["Auto-Submitted"].startswith("auto-")
               for o in outbox())


def test_crashing_mail_is_kept_and_redrivable(sqlite_cfg, monkeypatch):
    gid = start_game(1)
    boom = RuntimeError("simulated crash in a step")

    def crash(ctx):
        raise boom

    monkeypatch.setattr(pipeline, "STEPS", [pipeline.parse_mime, crash])
    iid, status = run("ann@x.test", seat_addr(gid, 0), "wait")
    assert status == "failed"
    row = [r for r in inbound_rows() if r.id == iid][0]
    assert "simulated crash" in row.error and row.raw
    assert pipeline.process_inbound(iid) == "failed"  # not retried on its own
    monkeypatch.undo()
    assert pipeline.process_inbound(iid, redrive=True) == "done"
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 1
        assert s.get(Inbound, iid).error is None


def test_commands_errors_and_help(sqlite_cfg):
    run("zed@x.test", CMD, "NEW mini")  # an unknown sender: a short fixed answer, nothing of the mail echoed
    body = last_to("zed@x.test").body_text
    assert "pbem does not know the address zed@x.test" in body and "REGISTER <your name>" in body
    assert "NEW mini" not in body.split("-##", 1)[1]
    run("zed@x.test", CMD, "register Zed\nnew chess\nNEW mini players=x\nJOIN 999\nSTART\nhello there\nHELP")
    body = last_to("zed@x.test").body_text
    assert "no game called 'chess'" in body
    assert "players and deadline are numbers" in body
    assert "there is no game #999" in body
    assert "START needs a game number" in body and "e.g. START 12" in body
    # talk on the command address is listed as ignored, not refused (a reply often carries chatter); a typo is refused
    assert "'hello there' is not a command" not in body and "| hello there" in body
    assert "REGISTER <name>" in body  # HELP text
    run("zed@x.test", CMD, "GAMSE")
    assert "'GAMSE' is not a command. Did you mean GAMES?" in last_to("zed@x.test").body_text
    run("zed@x.test", CMD, "")
    assert "no commands in it" in last_to("zed@x.test").body_text
    assert "{addr}" not in last_to("zed@x.test").body_text and "REGISTER <name>" in last_to("zed@x.test").body_text


def test_status_resign_and_wrong_token(sqlite_cfg):
    gid = start_game(2)
    run("ann@x.test", CMD, f"STATUS {gid}")
    assert f"game #{gid}: Ann to move (ply 0)" in last_to("ann@x.test").body_text
    bad = f"game-{gid}.{'a' * 32}@pbem.test"
    iid = store_inbound(mail("ann@x.test", bad, "wait"), bad, "ann@x.test")
    assert pipeline.process_inbound(iid) == "done"
    assert "not valid any more" in last_to("ann@x.test").body_text
    old = seat_addr(gid, 1)
    run("p1@x.test", CMD, f"RESIGN {gid}")
    ask = last_to("p1@x.test")  # it cannot be undone: pbem asks first, and nothing happens until then
    assert ask.kind == "confirm" and f"RESIGN {gid}" in ask.body_text and "reply to this mail" in ask.body_text
    assert "P1 has resigned" not in last_to("ann@x.test").body_text
    confirm("p1@x.test")
    assert f"you have resigned from game #{gid}" in last_to("p1@x.test").body_text
    assert "P1 has resigned" in last_to("ann@x.test").body_text
    # the seat's address stops working for the player who left: a bot plays the seat, and what it
    # is dealt is not theirs to read in a receipt (before, the mail moved for the bot and got the board)
    assert seat_addr(gid, 1) != old
    iid = store_inbound(mail("p1@x.test", old, "STATUS"), old, "p1@x.test")
    assert pipeline.process_inbound(iid) == "done"
    answer = last_to("p1@x.test").body_text
    assert "not valid any more" in answer and "=== pbem board" not in answer


def test_html_only_mail_is_read(sqlite_cfg):
    from email.message import EmailMessage

    gid = start_game(1)
    m = EmailMessage()
    m["From"], m["To"], m["Subject"], m["Message-ID"] = "ann@x.test", seat_addr(gid, 0), "x", "<h1@c.test>"
    m.set_content("<html><body><div>wait</div><blockquote>old board</blockquote></body></html>", subtype="html")
    iid = store_inbound(m.as_bytes(), seat_addr(gid, 0), "ann@x.test")
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 1
