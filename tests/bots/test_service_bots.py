"""Bots in stored games: BOT <game-id> by mail, add_bot, the bot's turn
through games.submit_moves (source "bot"), and the pbem.bot_move task run by
a real Celery worker after a human's move commits."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.services.core import accounts, games, moves as moves_service, seating
from pbem.services.lobby import tables
from pbem.services.turns import bots
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Move, Outbound, Seat
from tests.conftest import celery_worker
from tests.mailtools import mail, outbox, store_inbound, wait_for

CMD = "pbem@pbem.test"


def _users():
    with unit_of_work() as s:
        ann, _ = accounts.register(s, "ann@x.test", "Ann", confirmed=True)
        bob, _ = accounts.register(s, "bob@x.test", "Bob", confirmed=True)
        return ann, bob


def test_add_bot_then_a_whole_game_with_a_human(any_cfg):
    ann, bob = _users()
    with unit_of_work() as s:
        gid = tables.create(s, ann, "spyrium", 3, seed=5).id
    with unit_of_work() as s, pytest.raises(UserError, match="only the creator of game"):
        bots.add_bot(s, bob, gid)
    with unit_of_work() as s:
        g, seat, started = bots.add_bot(s, ann, gid)
        assert (seat.seat, seat.is_bot, started) == (1, True, False)
    with unit_of_work() as s:
        g, seat, started = bots.add_bot(s, ann, gid)
        assert (seat.seat, started, g.status) == (2, True, "running")
        assert seating.names(s, gid) == ["Ann", "Bot 2", "Bot 3"]
    with unit_of_work() as s, pytest.raises(UserError, match="is not open"):
        bots.add_bot(s, ann, gid)
    with unit_of_work() as s:
        assert len(seating.seats(s, gid)) == 3  # the refused BOT changed nothing

    from pbem.engine import get_game

    engine = get_game("spyrium")
    for _ in range(400):
        played = bots.play_bots(gid)
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status == "finished":
                break
            state = games.state_at(s, g)
            assert engine.to_move(state) == {0}, played  # the bots have played up to Ann
            text = engine.format_move(state, 0, engine.legal_moves(state, 0)[0])
            assert moves_service.submit_moves(s, gid, 0, [text], source="web").ok
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.status == "finished" and g.outcome is not None
        moves = list(s.exec(select(Move).where(Move.game_id == gid)))
        assert {m.source for m in moves if m.seat in (1, 2)} == {"bot"}
        assert {m.source for m in moves if m.seat == 0} == {"web"}
        # the record replays to the cached state: bot moves are ordinary moves
        assert engine.to_json(games.replay_state(s, g)) == g.state_json
        to = {o.to_addr for o in s.exec(select(Outbound))}
    assert to == {"ann@x.test"}  # bots get no mail
    assert any(o.kind == "board" for o in outbox("ann@x.test"))


def test_a_resigned_seat_is_played_at_once_by_the_bot_that_holds_it(sqlite_cfg):
    """A player who resigns leaves their seat to a bot until a replacement takes it: that bot plays
    as soon as the seat is to move, as a seat's bot does, not one move per deadline sweep."""
    from pbem.engine import get_game
    from pbem.services.lobby import seats

    ann, bob = _users()
    with unit_of_work() as s:
        cat, _ = accounts.register(s, "cat@x.test", "Cat", confirmed=True)
        gid = tables.create(s, ann, "spyrium", 3, seed=5).id
        tables.join(s, bob, gid)
        tables.join(s, cat, gid)
    with unit_of_work() as s:
        assert games.get(s, gid).status == "running"
        seats.resign(s, bob, gid)  # seat 2
    engine = get_game("spyrium")
    for _ in range(6):  # the humans move; after each, the resigned seat's bot has played whenever it was due
        played = bots.play_bots(gid)
        with unit_of_work() as s:
            g = games.get(s, gid)
            to_move = engine.to_move(games.state_at(s, g))
            assert 1 not in to_move, played
            seat = min(to_move)
            state = games.state_at(s, g)
            text = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
            assert moves_service.submit_moves(s, gid, seat, [text], source="web").ok
    with unit_of_work() as s:
        assert {m.source for m in s.exec(select(Move).where(Move.game_id == gid, Move.seat == 1))} == {"bot"}


def test_bot_command_by_mail(sqlite_cfg):
    from pbem.mail.pipeline import process_inbound

    _users()
    iid = store_inbound(mail("ann@x.test", CMD, "NEW mini players=3"), CMD, "ann@x.test")
    assert process_inbound(iid) == "done"
    with unit_of_work() as s:
        gid = s.exec(select(Game.id)).one()
    # a stranger to the game may not add bots; nothing changes
    iid = store_inbound(mail("bob@x.test", CMD, f"BOT {gid}"), CMD, "bob@x.test")
    process_inbound(iid)
    reply = outbox("bob@x.test")[-1].body_text
    assert "only the creator of game" in reply
    iid = store_inbound(mail("ann@x.test", CMD, "BOT"), CMD, "ann@x.test")
    process_inbound(iid)
    assert "BOT needs a game number" in outbox("ann@x.test")[-1].body_text
    assert "e.g. BOT 12" in outbox("ann@x.test")[-1].body_text
    with unit_of_work() as s:
        assert len(seating.seats(s, gid)) == 1
    iid = store_inbound(mail("ann@x.test", CMD, f"BOT {gid}\nBOT {gid}"), CMD, "ann@x.test")
    process_inbound(iid)
    reply = [o for o in outbox("ann@x.test") if o.kind == "reply"][-1].body_text
    assert f"a bot has seat 2 in game #{gid}; 1 seat(s) left" in reply
    assert f"a bot has seat 3 in game #{gid}; the game is full and has started" in reply
    with unit_of_work() as s:
        assert [x.is_bot for x in s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat))] == \
            [False, True, True]
        assert games.get(s, gid).status == "running"


def test_worker_plays_the_bot_after_a_human_move(sqlite_cfg):
    ann, _ = _users()
    with unit_of_work() as s:
        gid = tables.create(s, ann, "mini", 2, seed=3).id
    with unit_of_work() as s:
        bots.add_bot(s, ann, gid)
    with celery_worker(sqlite_cfg):
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            engine = games.engine_for(g)
            assert engine.to_move(state) == {0}
            text = engine.format_move(state, 0, engine.legal_moves(state, 0)[0])
            assert moves_service.submit_moves(s, gid, 0, [text], source="web").ok
        # the after-commit hook enqueued pbem.bot_move; the worker answers for seat 2
        bot_move = wait_for(lambda: _move(gid, 2))
        assert bot_move.source == "bot" and bot_move.seat == 1
        board = wait_for(lambda: [o for o in outbox("ann@x.test") if o.kind == "board" and "Bot 2 played" in
                                  o.body_text])
        assert board


def _move(gid: int, ply: int):
    with unit_of_work() as s:
        return s.exec(select(Move).where(Move.game_id == gid, Move.ply == ply)).first()
