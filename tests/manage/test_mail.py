"""The game-management mail commands in the real pipeline (stored mails),
and once end to end over real SMTP into a real Celery worker on Redis and
PostgreSQL: pre-moves, table talk, disputes, and the per-sender rate limit."""
from datetime import date, timedelta

import pytest
from sqlmodel import select

from pbem import config
from pbem.services.core import games, moves, seating
from pbem.store.db import unit_of_work
from pbem.store.models import Dispute, Game, Inbound, Move, Observer, Seat, User, Vacation
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, confirm, mail, outbox, process, seat_addr, start_game, wait_for


def run(frm, to, body, subject="hello"):
    return process(frm, to, body, subject)[1]


def last_reply(addr):
    rows = [o for o in outbox(addr) if o.kind == "reply"]
    assert rows, f"no reply to {addr}"
    return rows[-1].body_text






def hands(gid):
    with unit_of_work() as s:
        return games.state_at(s, games.get(s, gid)).hands


def test_management_commands_by_mail(sqlite_cfg):
    gid = start_game(2)
    ann, bob = seat_addr(gid, 0), seat_addr(gid, 1)
    h = hands(gid)
    # a pre-move, table talk and a private word, all in one mail from Bob
    assert run("p1@x.test", bob, f"NEXT: play {h[1][0]}\nSAY good luck!\nSAY Ann: be gentle") == "done"
    r = last_reply("p1@x.test")
    assert "will be played when your turn comes" in r and "sent to the table" in r and "sent privately to Ann" in r
    assert any("be gentle" in o.body_text for o in outbox("ann@x.test") if o.kind == "notice")
    # Ann moves: Bob's pre-move is played at once, and he is told
    run("ann@x.test", ann, "wait")
    with unit_of_work() as s:
        assert [(m.seat, m.source) for m in s.exec(select(Move).order_by(Move.ply))] == [(0, "mail"), (1, "premove")]
    assert "was applied at ply 2" in [o for o in outbox("p1@x.test") if o.kind == "notice"][-1].body_text
    # Ann takes back nothing she can't; "wait" revealed nothing, so UNDO asks Bob
    run("ann@x.test", ann, "wait")
    run("ann@x.test", ann, "UNDO")
    assert "asked the others to agree to take back ply 3" in last_reply("ann@x.test")
    run("p1@x.test", bob, "UNDO YES")
    assert "taken back" in last_reply("p1@x.test")
    with unit_of_work() as s:
        assert s.exec(select(Move).where(Move.ply == 3)).one().undone
    # bad input: a clear answer with an example, nothing stored
    run("ann@x.test", ann, "VACATION next week\nDISPUTE soon\nUNDO maybe\nREPLACE 1")
    r = last_reply("ann@x.test")
    assert r.count("ERROR") == 4 and "VACATION 2026-12-20 2026-12-27" in r and "e.g. DISPUTE" in r
    assert "e.g. UNDO YES" in r
    # a seat's address acts only in its game: REPLACE is an account command
    assert "REPLACE is an account command: send it to pbem@pbem.test" in r and "e.g. to pbem@pbem.test: REPLACE 1" in r
    run("ann@x.test", CMD, "REPLACE 1")
    assert "e.g. REPLACE 12 3" in last_reply("ann@x.test")
    # a vacation, a dispute, an observer, STOP
    first = date.today() + timedelta(days=2)
    run("ann@x.test", ann, f"VACATION {first} {first + timedelta(days=2)}\nDISPUTE 2 Bob's card was wrong")
    assert "pauses from" in last_reply("ann@x.test") and "dispute #1 about ply 2 is open" in last_reply("ann@x.test")
    run("eve@x.test", CMD, f"REGISTER Eve\nOBSERVE {gid}\nSTOP\nNOTIFY weekly\nNOTIFY turn")
    # an unknown word: what NOTIFY takes (the mail's choices first, then the chat channels'), and an example
    assert "NOTIFY does not know weekly. It takes: NOTIFY every|turn|digest" in " ".join(last_reply("eve@x.test").split())
    assert "e.g. NOTIFY LIST" in last_reply("eve@x.test") and "when it is your turn" in last_reply("eve@x.test")
    assert "you observe game" in last_reply("eve@x.test") and "Still coming" in last_reply("eve@x.test")
    with unit_of_work() as s:
        assert len(list(s.exec(select(Vacation)))) == 1 and s.get(Dispute, 1).ply == 2
        assert s.exec(select(Observer)).one() is not None
        assert s.exec(select(User).where(User.email == "eve@x.test")).one().stopped
    # Bob resigns: the seat opens, Eve takes it over and gets a fresh reply address
    run("p1@x.test", CMD, f"RESIGN {gid}")
    confirm("p1@x.test")
    run("eve@x.test", CMD, f"REPLACE {gid} 2")
    assert f"you now play seat 2 of game #{gid}" in last_reply("eve@x.test")
    assert seat_addr(gid, 1) != bob
    board = [o for o in outbox("eve@x.test") if o.kind == "board"][-1]
    assert board.headers["Reply-To"] == seat_addr(gid, 1)
    # every board offers a one-click unsubscribe that sends STOP
    # the one-click link (RFC 8058) and the mailto STOP
    assert board.headers["List-Unsubscribe"].endswith(", <mailto:pbem@pbem.test?subject=STOP&body=STOP>")
    assert board.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_burst_from_one_sender_gets_one_polite_answer(sqlite_cfg):
    config.set_settings(sqlite_cfg.with_(inbound_rate=3))
    run("ann@x.test", CMD, "REGISTER Ann")
    for i in range(6):
        run("ann@x.test", CMD, "GAMES")
    replies = [o for o in outbox("ann@x.test") if o.kind == "reply"]
    # the first GAMES is answered, and three repeats (they count), then one polite answer for the rest
    assert len(replies) == 6
    assert "set your mail aside for now" in replies[-1].body_text
    with unit_of_work() as s:
        assert [r.status for r in s.exec(select(Inbound).order_by(Inbound.id))] == ["done"] * 5 + ["ignored"] * 2
    # another sender is not affected
    run("bob@x.test", CMD, "REGISTER Bob")
    assert "welcome, Bob" in last_reply("bob@x.test")


@pytest.mark.redis
@pytest.mark.postgres
def test_premove_talk_dispute_and_rate_limit_over_smtp(pg_cfg, on_redis):
    cfg = on_redis(pg_cfg).with_(inbound_rate=1)
    config.set_settings(cfg)
    with smtp_receiver(cfg), celery_worker(cfg):
        def send(frm, to, body):
            assert send_mail(cfg, mail(frm, to, body), frm, to) == 250

        send("ann@x.test", CMD, "REGISTER Ann\nNEW mini players=2")
        gid = wait_for(lambda: _one(select(Game.id)))
        send("bob@x.test", CMD, f"REGISTER Bob\nJOIN {gid}")
        wait_for(lambda: _one(select(Game).where(Game.status == "running")))
        h = hands(gid)
        send("bob@x.test", seat_addr(gid, 1), f"NEXT: play {h[1][0]}\nSAY Ann: your move!")
        wait_for(lambda: any("your move!" in o.body_text for o in outbox("ann@x.test") if o.kind == "notice"))
        send("ann@x.test", seat_addr(gid, 0), "wait")
        wait_for(lambda: _one(select(Move).where(Move.source == "premove")))
        send("ann@x.test", seat_addr(gid, 0), "DISPUTE 2 that card was not in Bob's hand")
        wait_for(lambda: _one(select(Dispute)))
        # Ann's 3 mails did no harm (the limit is 1 here); of a burst of 4 GAMES, the first and a repeat
        # (which counts) are answered, and the other two get one polite answer between them
        for i in range(4):
            send("ann@x.test", CMD, "GAMES")
            wait_for(lambda: len([r for r in _all(select(Inbound)) if r.status in ("done", "ignored")]) == 6 + i)
        wait_for(lambda: all(o.status == "sent" for o in outbox()))
        polite = [o for o in outbox("ann@x.test") if "set your mail aside" in o.body_text]
        assert len(polite) == 1
        statuses = [r.status for r in _all(select(Inbound).where(Inbound.mail_from == "ann@x.test"))]
        assert statuses.count("ignored") == 2 and statuses.count("done") == 5
        assert "was applied at ply 2" in [o for o in outbox("bob@x.test") if o.kind == "notice"][-1].body_text
        # the periodic deadline task, run by the real worker, lets a bot play a bot-held seat
        with unit_of_work() as s:
            seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one()
            seat.is_bot = True
            s.add(seat)
        from pbem import tasks

        tasks.deadlines_sweep.delay()
        bot = wait_for(lambda: _one(select(Move).where(Move.source == "bot")))
        assert bot.seat == 0 and bot.ply == 3


def _one(q):
    with unit_of_work() as s:
        return s.exec(q).first()


def _all(q):
    with unit_of_work() as s:
        return list(s.exec(q))


def test_conditional_premove_by_mail(sqlite_cfg):
    gid = start_game(2)
    h = hands(gid)
    run("p1@x.test", seat_addr(gid, 1), f"IF Ann: wait THEN play {h[1][0]}\nIF nothing")
    r = last_reply("p1@x.test")
    assert "will be played when your turn comes" in r and "e.g. IF wait THEN play 5" in r
    run("ann@x.test", seat_addr(gid, 0), "wait")
    with unit_of_work() as s:
        assert [(m.seat, m.notation, m.source) for m in s.exec(select(Move).order_by(Move.ply))] == \
            [(0, "wait", "mail"), (1, f"play {h[1][0]}", "premove")]


def test_pre_moves_keep_a_secret_pick_secret(sqlite_cfg):
    """It's a Wonderful World, three players: seat 1 has picked, secretly. Seat 2's IF whose
    condition is 'the move before' neither meets nor names that pick (played or skipped, it would
    tell it); seat 2's NEXT, due at once, is told to the table as a secret choice, as any pick is.
    Before, the notice and receipt quoted seat 1's pick, and the boards seat 2's."""
    from pbem.engine import get_game
    from tests.manage.helpers import mails, running

    engine = get_game("iaww")
    gid, uids = running("iaww", 3, seed=3, options={})
    with unit_of_work() as s:
        g = games.get(s, gid)
        state = games.state_at(s, g)
        first = engine.format_move(state, 0, engine.legal_moves(state, 0)[0])
        theirs = [engine.format_move(state, 1, m) for m in engine.legal_moves(state, 1)]
        mine = next(m for m in theirs if m != first)
        assert moves.submit_moves(s, gid, 0, [first], source="web").ok
        addr = {x.seat: f"game-{gid}.{x.token}@pbem.test" for x in seating.seats(s, gid)}
        email = {x.seat: s.get(User, x.user_id).email for x in seating.seats(s, gid)}
    before = max((m.id for m in mails()), default=0)
    assert run(email[1], addr[1], f"IF {first} THEN {mine}") == "done"  # right, but a secret to seat 2
    with unit_of_work() as s:
        assert s.exec(select(Move).where(Move.game_id == gid)).all()[-1].seat == 0  # skipped
    told = [m.body_text for m in mails(since_id=before)]
    assert told and all(f"seat 1: {first}" not in t and "seat 1's a secret choice" in t for t in told), told
    before = max(m.id for m in mails())
    assert run(email[1], addr[1], f"NEXT: {mine}") == "done"
    sent = mails(since_id=before)
    assert not [m.to_addr for m in sent if mine in m.body_text and m.to_addr != email[1]], "seat 2's pick was told"
    assert any("played: a secret choice" in m.body_text for m in sent if m.to_addr == email[0])
