"""Take-back by mail, through the whole pipeline: UNDO on a seat's
address takes the seat's last move back at once while its turn goes on and
nobody else has seen it (the receipt says what was taken back and shows the
board again); the others' board mails wait until the turn ends; otherwise
UNDO asks the others, and the receipt says why."""
from __future__ import annotations

from sqlmodel import select

from pbem.services.core import accounts
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Move, Outbound, UndoRequest
from tests.mailtools import process, seat_addr


def _game() -> int:
    """Spyrium for Ann (seat 1) and Bob, started."""
    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        g = tables.create(s, ann, "spyrium", 2, {}, seed=1)
        tables.join(s, bob, g.id)
        return g.id


def _mails(mark: int, to: str) -> list[Outbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Outbound).where(Outbound.id > mark, Outbound.to_addr == to).order_by(Outbound.id)))


def _mark() -> int:
    with unit_of_work() as s:
        return s.exec(select(Outbound.id).order_by(Outbound.id.desc())).first() or 0


def _moves(gid: int) -> list[tuple[int, int, str, bool]]:
    with unit_of_work() as s:
        return [(m.ply, m.seat, m.notation, m.undone)
                for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]


def _one_reply(mark: int) -> str:
    (reply,) = [o for o in _mails(mark, "ann@x.test") if o.kind == "reply"]
    return " ".join(reply.body_text.split())


def test_undo_inside_the_turn_takes_back_at_once_and_the_table_hears_only_the_finished_turn(sqlite_cfg):
    gid = _game()
    ann = seat_addr(gid, 0)
    mark = _mark()
    assert process("ann@x.test", ann, "event")[1] == "done"
    assert _mails(mark, "bob@x.test") == []  # the turn goes on (the event's choice): Bob waits for its end
    mark = _mark()
    assert process("ann@x.test", ann, "UNDO")[1] == "done"
    text = _one_reply(mark)
    assert "taken back at once: your move at ply 1, event" in text and "no one had to agree" in text
    assert "It is still your turn: the board below is as it was before that move" in text
    assert "Your move" in text and "Round 1" in text  # the board again, to move
    assert _mails(mark, "bob@x.test") == []  # nobody else is told
    assert _moves(gid) == [(1, 0, "event", True)]
    with unit_of_work() as s:
        assert not list(s.exec(select(UndoRequest).where(UndoRequest.game_id == gid)))
    # a move and its take-back in one mail, then the whole turn: Bob's one board tells the turn
    mark = _mark()
    assert process("ann@x.test", ann, "event\nUNDO\nevent")[1] == "done"
    assert _mails(mark, "bob@x.test") == []
    assert process("ann@x.test", ann, "adv")[1] == "done"  # (a line is read against the board the mail answers)
    assert _moves(gid)[1:] == [(2, 0, "event", True), (3, 0, "event", False), (4, 0, "adv", False)]
    (board,) = _mails(mark, "bob@x.test")
    assert board.kind == "board" and "Ann played: event; adv" in board.body_text


def test_undo_once_the_turn_has_ended_asks_the_others_and_says_why(sqlite_cfg):
    gid = _game()
    ann, bob = seat_addr(gid, 0), seat_addr(gid, 1)
    assert process("ann@x.test", ann, "event")[1] == "done"
    assert process("ann@x.test", ann, "adv")[1] == "done"
    mark = _mark()
    assert process("ann@x.test", ann, "UNDO")[1] == "done"
    text = _one_reply(mark)
    assert "asked the others to agree to take back ply 2: their consent is needed because your turn has ended" in text
    (notice,) = _mails(mark, "bob@x.test")
    assert "Ann asks to take back their move at ply 2" in " ".join(notice.body_text.split())
    assert process("bob@x.test", bob, "UNDO NO")[1] == "done"
    # Bob moves (a private step of his own turn), Ann asks: Bob has moved since; Bob takes his back himself
    assert process("bob@x.test", bob, "event")[1] == "done"
    mark = _mark()
    assert process("ann@x.test", ann, "UNDO")[1] == "done"
    assert "their consent is needed because Bob has moved since (ply 3)" in _one_reply(mark)
    mark = _mark()
    assert process("bob@x.test", bob, "UNDO")[1] == "done"
    (reply,) = [o for o in _mails(mark, "bob@x.test") if o.kind == "reply"]
    assert "taken back at once: your move at ply 3, event" in " ".join(reply.body_text.split())
    with unit_of_work() as s:  # Ann's request was about the game as it was: void now
        assert [r.status for r in s.exec(select(UndoRequest).where(UndoRequest.game_id == gid)
                                         .order_by(UndoRequest.id))] == ["refused", "void"]
