"""What pbem's mails say: no unfilled template placeholder in any of them,
and a game that is over (finished or cancelled) is not worded as if a move
were still expected."""
import re

from tests.mailtools import CMD, after_marker, outbox, process

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")  # str.format's {addr}, {games}, ...


def placeholders(rows) -> list[str]:
    """'<subject>: {name}' for every unfilled placeholder in the mails."""
    out = []
    for o in rows:
        for part in (o.subject, o.body_text, o.body_html or "", *(o.headers or {}).values()):
            out += [f"{o.subject}: {m}" for m in PLACEHOLDER.findall(part)]
    return out


def test_the_help_for_a_mail_without_commands_is_filled_in(sqlite_cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, "\n\n> REGISTER Ann\n> quoted only\n")
    reply = outbox("ann@x.test")[-1]
    assert "no commands in it" in reply.body_text
    assert "Commands (one per line, to pbem@pbem.test)" in reply.body_text
    assert "create a game (" in reply.body_text and "spyrium" in reply.body_text
    assert placeholders([reply]) == []


def test_the_mails_that_end_a_game_do_not_ask_for_a_move(any_cfg):
    from pbem.services.core import games
    from pbem.store.db import unit_of_work
    from tests.mailtools import seat_addr, start_game

    gid = start_game(2, hand=1)
    with unit_of_work() as s:
        hands = games.state_at(s, games.get(s, gid)).hands
    process("ann@x.test", seat_addr(gid, 0), f"play {hands[0][0]}")
    before = len(outbox())
    process("p1@x.test", seat_addr(gid, 1), f"play {hands[1][0]}")  # the last move
    final = outbox()[before:]
    assert {(o.to_addr, o.kind) for o in final} == {("ann@x.test", "board"), ("p1@x.test", "reply")}
    a, b = hands[0][0], hands[1][0]
    won = "Ann wins" if a > b else "P1 wins" if b > a else "Ann and P1 share the victory"
    for o in final:
        for text in (o.body_text, o.body_html):
            assert "Reply to this mail" not in text and "with your move" not in text and "Your move" not in text
            assert f"Game #{gid} is over; it takes no more moves" in text
            assert f"/games/{gid}" in text and "NEW mini" in text
        assert f"Game #{gid} is over: {won}" in o.body_text and "Final scores:" in o.body_text
    # a reply to the final board is answered: over, and why
    process("ann@x.test", seat_addr(gid, 0), "wait")
    r = outbox("ann@x.test")[-1].body_text
    assert f"game #{gid} is over; no more moves are accepted" in r and "Reply to this mail" not in r


JINJA = re.compile(r"\{\{|\{%|%\}|\}\}")


def test_no_mail_pbem_sends_has_an_unfilled_placeholder(sqlite_cfg):
    """A tour of every kind of mail: receipts of every command and of errors,
    help texts, boards of every game, talk, notices, reminders, late notices,
    the digest, the courtesy answer, cancelled and finished games."""
    from datetime import date, timedelta

    from pbem import config
    from pbem.services.core import games
    from pbem.services.follow import messages
    from pbem.services.upkeep import sweep
    from pbem.store.db import unit_of_work
    from pbem.store.models import User, utcnow
    from tests.manage.helpers import no_outage_check
    from tests.mailtools import seat_addr, start_game

    cfg = no_outage_check(sqlite_cfg)
    gid = start_game(3, hand=2)
    ann, p1, p2 = seat_addr(gid, 0), seat_addr(gid, 1), seat_addr(gid, 2)
    with unit_of_work() as s:
        hands = games.state_at(s, games.get(s, gid)).hands
    first = date.today() + timedelta(days=3)
    for frm, to, body in [
        ("ann@x.test", CMD, "HELP\nHELP spyrium\nHELP squire\nHELP iaww\nHELP mini\nHELP chess\nGAMES"),
        ("ann@x.test", CMD, "> only a quote"), ("ann@x.test", CMD, "hello there\nJOIN\nNEW\nNEW spyrium 3 players"),
        ("nobody@x.test", CMD, "GAMES\nNEW spyrium"),
        ("ann@x.test", ann, f"play {hands[0][0]}\nSAY hello all\nSAY P1: psst\nSTATUS\nNEXT: wait"),
        ("p1@x.test", p1, "play 0\nwait"), ("p1@x.test", p1, f"IF Ann: wait THEN play {hands[1][0]}\nUNDO"),
        ("p2@x.test", p2, f"VACATION {first} {first + timedelta(days=1)}\nDISPUTE 1 was that right?\nUNDO NO"),
        ("eve@x.test", CMD, f"REGISTER Eve\nOBSERVE {gid}\nNOTIFY digest\nSTOP\nSTOP OFF"),
        ("ann@x.test", CMD, f"NEWADDRESS {gid}"),
        ("zed@x.test", CMD, "REGISTER Zed\nNEW spyrium players=2"), ("ann@x.test", CMD, "JOIN 2"),
        ("zed@x.test", CMD, "NEW squire players=3"), ("ann@x.test", CMD, "JOIN 3"), ("zed@x.test", CMD, "START 3"),
        ("zed@x.test", CMD, "NEW iaww players=1"), ("zed@x.test", CMD, "NEW mini players=3"),
        ("ann@x.test", CMD, "JOIN 5"), ("eve@x.test", CMD, "JOIN 5"), ("eve@x.test", CMD, "RESIGN 5"),
        ("zed@x.test", CMD, "CANCEL 5"), ("ann@x.test", CMD, "CANCEL 2"),
        ("p2@x.test", CMD, f"RESIGN {gid}"), ("eve@x.test", CMD, f"REPLACE {gid} 3"),
    ]:
        process(frm, to, body)
    # the clock: reminders, then the late notices; a digest
    with unit_of_work() as s:
        s.get(User, 1).notify = "digest"
    sweep.run(utcnow() + timedelta(hours=47))
    sweep.run(utcnow() + timedelta(hours=52))
    with unit_of_work() as s:
        messages.send_digests(s, utcnow() + timedelta(days=2))
    # the courtesy answer
    config.set_settings(cfg.with_(inbound_rate=1))
    for _ in range(3):
        process("zed@x.test", CMD, "what?")
    # a game to its end
    config.set_settings(cfg)
    end = start_game(2, hand=1)
    with unit_of_work() as s:
        h = games.state_at(s, games.get(s, end)).hands
    process("ann@x.test", seat_addr(end, 0), f"play {h[0][0]}")
    process("p1@x.test", seat_addr(end, 1), f"play {h[1][0]}")
    process("p1@x.test", seat_addr(end, 1), "SAY gg")

    from tests.mailtools import inbound_rows

    assert {r.status for r in inbound_rows()} == {"done", "ignored"}  # nothing crashed on the way
    sent = outbox()
    kinds = {(o.kind, o.message_id.split(".")[1]) for o in sent}
    assert {("board", "board"), ("reply", "reply"), ("notice", "notice"), ("notice", "talk")} <= kinds
    assert any(after_marker(o.body_text).startswith("Reminder:") for o in sent) and any("Late: " in o.body_text for o in sent)
    assert any("daily digest" in o.subject for o in sent) and any("set your mail aside" in o.body_text for o in sent)
    assert any("cancelled" in o.body_text for o in sent) and any("is over:" in o.body_text for o in sent)
    assert len(sent) > 60
    assert placeholders(sent) == []
    assert [o.subject for o in sent if JINJA.search(o.body_text + (o.body_html or ""))] == []
