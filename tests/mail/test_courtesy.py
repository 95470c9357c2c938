"""The courtesy limit (pipeline.rate_limit) counts mail that did harm --
error answers and repeats -- not normal play; every mail it sets aside is
kept with a status that says so, and the sender gets one answer per window
saying how many did harm and when reading resumes."""
from datetime import datetime, timedelta, timezone

from sqlalchemy import update
from sqlmodel import select

from pbem import config
from pbem.services.core import games, seating
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Move, User
from tests.mailtools import CMD, outbox, process, seat_addr, start_game
from tests.services.test_memo import Statements


def limit(cfg, n: int):
    config.set_settings(cfg.with_(inbound_rate=n))


def rows(sender: str) -> list[tuple[str, str | None]]:
    with unit_of_work() as s:
        return [(r.status, r.courtesy) for r in s.exec(select(Inbound).where(Inbound.mail_from == sender)
                                                       .order_by(Inbound.id))]


def replies(addr: str) -> list[str]:
    return [o.body_text for o in outbox(addr) if o.kind == "reply"]


def hands(gid):
    with unit_of_work() as s:
        return games.state_at(s, games.get(s, gid)).hands


def test_normal_play_never_counts(any_cfg):
    """A table answering step after step: the same 'wait' again and again on
    the seat's address, and commands, far past the limit."""
    gid = start_game(2, hand=9)
    limit(any_cfg, 2)
    ann, bob = seat_addr(gid, 0), seat_addr(gid, 1)
    for _ in range(5):
        assert process("ann@x.test", ann, "wait")[1] == "done"  # a repeat that applied is play
        assert process("p1@x.test", bob, "wait")[1] == "done"
    for body in ("STATUS", "GAMES", "SAY nice", "HELP mini"):
        assert process("ann@x.test", ann, body)[1] == "done"
    with unit_of_work() as s:
        assert len(s.exec(select(Move)).all()) == 10
    assert rows("ann@x.test")[-9:] == [("done", None)] * 9 and rows("p1@x.test")[-5:] == [("done", None)] * 5
    assert not [r for r in replies("ann@x.test") if "set your mail aside" in r]


def test_errors_count_and_later_mail_is_set_aside_with_one_answer(any_cfg):
    gid = start_game(2)
    limit(any_cfg, 3)
    ann = seat_addr(gid, 0)
    process("ann@x.test", ann, "play 0")  # not in her hand
    process("ann@x.test", CMD, "JOINN 5")  # no such command
    process("ann@x.test", ann, "")  # nothing to read
    assert rows("ann@x.test")[-3:] == [("done", "error")] * 3
    before = len(outbox())
    t0 = datetime.now(timezone.utc)
    # the limit is reached: even a good move is set aside now, unread, and answered once
    for body in (f"play {hands(gid)[0][0]}", "wait", "STATUS"):
        assert process("ann@x.test", ann, body)[1] == "ignored"
    assert rows("ann@x.test")[-3:] == [("ignored", "aside-told"), ("ignored", "aside"), ("ignored", "aside")]
    new = outbox()[before:]
    assert len(new) == 1 and new[0].to_addr == "ann@x.test"
    told = new[0].body_text
    assert "pbem has set your mail aside for now: 3 of your mails within 10 minutes could not be used " \
           "(3 with errors, 0 repeats)" in told
    resume = (t0 + timedelta(minutes=10)).strftime("%H:%M")
    later = (t0 + timedelta(minutes=10, seconds=30)).strftime("%H:%M")
    assert f"any you send before {resume} UTC" in told or f"any you send before {later} UTC" in told
    assert "kept but not read: nothing in them is applied" in told
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 0
        results = [r.result for r in s.exec(select(Inbound).where(Inbound.status == "ignored").order_by(Inbound.id))]
    assert results[0].startswith("set aside unread (courtesy limit: 3 of your mails within 10 minutes did harm")
    assert "answered: reading resumes at" in results[0]
    assert all("the sender was answered once for this window" in r for r in results[1:])
    # another sender is not affected
    assert process("p1@x.test", CMD, "GAMES")[1] == "done"


def test_repeated_questions_count_but_repeated_play_does_not(sqlite_cfg):
    limit(sqlite_cfg, 3)
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, "NEW mini players=3")
    process("ann@x.test", CMD, "NEW mini players=3")  # a second table: the same words, and play
    process("ann@x.test", CMD, "GAMES\nSTATUS 1")
    process("ann@x.test", CMD, "games \n status   1")  # the same text, whatever the case and spacing
    process("ann@x.test", f"game-1.{'a' * 32}@pbem.test", "GAMES\nSTATUS 1")  # another address: not the same
    process("ann@x.test", CMD, "Games\nSTATUS 1")
    process("ann@x.test", CMD, "REGISTER Ann")
    assert rows("ann@x.test") == [("done", None)] * 4 + [("done", "repeat"), ("done", "error"), ("done", "repeat"),
                                                        ("ignored", "aside-told")]
    assert "(1 with errors, 2 repeats)" in replies("ann@x.test")[-1]
    with unit_of_work() as s:
        from pbem.store.models import Game

        assert len(s.exec(select(Game)).all()) == 2


def test_reading_resumes_when_the_harm_leaves_the_window(sqlite_cfg):
    gid = start_game(2)
    limit(sqlite_cfg, 2)
    ann = seat_addr(gid, 0)
    process("ann@x.test", ann, "play 0")
    process("ann@x.test", ann, "play 10")
    assert process("ann@x.test", ann, "wait")[1] == "ignored"
    told = replies("ann@x.test")[-1]
    # the first error leaves the window: one harmful mail is left, under the limit of 2
    with unit_of_work() as s:
        first = s.exec(select(Inbound).where(Inbound.courtesy == "error").order_by(Inbound.id)).first()
        at = first.received_at.replace(tzinfo=timezone.utc) if first.received_at.tzinfo is None else first.received_at
        assert f"before {(at + timedelta(minutes=10)):%H:%M} UTC" in told
        s.exec(update(Inbound).where(Inbound.id == first.id).values(received_at=at - timedelta(minutes=11)))
    assert process("ann@x.test", ann, "wait")[1] == "done"
    assert "OK" in replies("ann@x.test")[-1]
    # the set-aside mail's text is no repeat of what is read once reading resumes
    assert rows("ann@x.test")[-1] == ("done", None)


def test_a_stranger_gets_one_answer_and_the_rest_are_kept(sqlite_cfg):
    limit(sqlite_cfg, 2)
    for body in ("hello", "is this the game?", "hello?", "HELP", "please"):
        process("zed@x.test", CMD, body)
    assert rows("zed@x.test") == [("done", "error")] * 2 + [("ignored", "aside-told")] + [("ignored", "aside")] * 2
    assert len(outbox("zed@x.test")) == 3 and "set your mail aside" in outbox("zed@x.test")[-1].body_text


def test_the_limit_costs_one_statement_per_mail(any_cfg):
    gid = start_game(2)
    ann = seat_addr(gid, 0)
    process("ann@x.test", ann, "play 0")
    # the board pictures' look at the mail waiting (once a quarter second per process, not per mail, so
    # that a burst of mail does not read the outbox once per mail) has just been taken: this mail's own statements are counted
    import time

    from pbem.store import outbox

    outbox._backlog_seen = (time.monotonic() + 60, 0, 0)
    with Statements() as st:
        process("ann@x.test", ann, "wait")
    # the receiver's insert aside: the sender check reads the row once before the transaction (is the mail
    # one whose sender matters? it is not: a seat that takes any sender), then the pipeline reads the table
    # twice: the row's lock and the count
    assert st.count("inbound") == 3


def test_a_wonderful_world_table_plays_far_past_the_limit(sqlite_cfg):
    """A busy table: three players answering draft picks, planning and
    production steps, one mail per decision, at the default limit (20 in
    ten minutes): every mail is read."""
    from pbem.demo import mail_safe
    from pbem.engine import get_game

    assert sqlite_cfg.inbound_rate == 20
    process("ann@x.test", CMD, "REGISTER Ann\nNEW iaww players=3")
    process("bob@x.test", CMD, "REGISTER Bob\nJOIN 1")
    process("cy@x.test", CMD, "REGISTER Cy\nJOIN 1")
    engine = get_game("iaww")
    who = {}
    with unit_of_work() as s:
        for seat in seating.seats(s, 1):
            who[seat.seat] = s.get(User, seat.user_id).email
    sent = {w: 0 for w in who.values()}
    while min(sent.values()) <= 25:
        with unit_of_work() as s:
            g = games.get(s, 1)
            state = games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            move = mail_safe(engine, state, seat, engine.legal_moves(state, seat)[0])
        assert process(who[seat], seat_addr(1, seat), move)[1] == "done", move
        sent[who[seat]] += 1
    with unit_of_work() as s:
        assert games.get(s, 1).ply == sum(sent.values())
    for w in who.values():
        assert {r for r in rows(w)} == {("done", None)}
