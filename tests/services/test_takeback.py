"""Take-back inside one's own turn, on SQLite and PostgreSQL: a
seat takes its last move back at once while it is still to move, no other
seat has moved since or been mailed the position, and the move revealed
nothing (services/referee/undo.takeback); otherwise UNDO asks the others, saying why.
In every game of pbem: the test game, Spyrium, Squire and It's a Wonderful
World."""
from __future__ import annotations

from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import accounts, games, moves, notify, seating, visibility
from pbem.services.lobby import tables
from pbem.services.referee import undo
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Move, Outbound, Post, Seat, Snapshot, UndoRequest, User

import pytest


def _users(n: int, tag: str) -> list[int]:
    with unit_of_work() as s:
        return [accounts.register(s, f"{tag}{i}@x.test", f"{tag.title()}{i}", confirmed=True)[0].id for i in range(n)]


def _game(name: str, uids: list[int], seed: int = 1, **options) -> int:
    with unit_of_work() as s:
        users = [s.get(User, u) for u in uids]
        g = tables.create(s, users[0], name, len(users), options, seed=seed)
        for u in users[1:]:
            tables.join(s, u, g.id)
        return g.id


def _user_of(gid: int, seat: int) -> int:
    with unit_of_work() as s:
        return s.exec(select(Seat.user_id).where(Seat.game_id == gid, Seat.seat == seat)).one()


def _play(gid: int, seat: int, *texts: str, source: str = "web") -> moves.SubmitResult:
    """A player's moves, and the table's board mails after them, as the web and the mail pipeline send them."""
    with unit_of_work() as s:
        res = moves.submit_moves(s, gid, seat, list(texts), source=source, user_id=_user_of(gid, seat))
        assert res.ok, res.error
        g = games.get(s, gid)
        if res.applied and not res.replaced:
            notify.announce_moves(s, g, seat, seating.names(s, gid)[seat], res.applied[0].ply)
        return res


def _check(gid: int, seat: int) -> undo.TakeBack:
    with unit_of_work() as s:
        return undo.takeback(s, games.get(s, gid), seat)


def _take(gid: int, seat: int, ply: int | None = None):
    with unit_of_work() as s:
        m = undo.take_back(s, s.get(User, _user_of(gid, seat)), gid, ply=ply)
        return m.ply, m.notation, m.superseded_by


def _consistent(gid: int) -> None:
    """The cached state is the record replayed, and every snapshot agrees with it."""
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        assert engine.to_json(games.replay_state(s, g)) == engine.to_json(games.state_at(s, g))
        for snap in s.exec(select(Snapshot).where(Snapshot.game_id == gid)):
            assert engine.to_json(games.replay_state(s, g, snap.ply)) == snap.state_json, snap.ply


def _boards_to(email: str) -> int:
    with unit_of_work() as s:
        return len(list(s.exec(select(Outbound).where(Outbound.to_addr == email, Outbound.kind == "board"))))


def _email(uid: int) -> str:
    with unit_of_work() as s:
        return s.get(User, uid).email


# ---------------------------------------------------------------- the test game


def test_mini_solo_a_wait_is_taken_back_a_played_card_is_not(any_cfg):
    """Alone at the table: a `wait` keeps the turn and reveals nothing (taken back at once, the
    clock untouched, the record and caches agree); a `play` shows a card from the hand (not)."""
    (uid,) = _users(1, "solo")
    gid = _game("mini", [uid], seed=3)
    _play(gid, 0, "wait")
    with unit_of_work() as s:
        deadline = s.exec(select(Seat.deadline_at).where(Seat.game_id == gid)).one()
    assert _check(gid, 0).allowed
    assert _take(gid, 0) == (1, "wait", None)
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert games.state_at(s, g).waits == 0 and g.ply == 1
        assert s.exec(select(Seat.deadline_at).where(Seat.game_id == gid)).one() == deadline
        assert [(m.ply, m.undone) for m in s.exec(select(Move).where(Move.game_id == gid))] == [(1, True)]
        notes = [p.body for p in s.exec(select(Post).where(Post.game_id == gid, Post.kind == "notice"))]
        assert any("took back their move at ply 1 (wait)" in b for b in notes)
    _consistent(gid)
    assert _check(gid, 0).code == "nothing_to_undo"
    with unit_of_work() as s:
        card = games.state_at(s, games.get(s, gid)).hands[0][0]
    _play(gid, 0, f"play {card}")  # the next move gets ply 2: plies keep counting up
    tb = _check(gid, 0)
    assert not tb.allowed and tb.code == "revealed" and "ply 2" in tb.reason


def test_mini_two_players_the_turn_passes_with_each_move(any_cfg):
    """Every move of the test game ends the turn: the board goes to the other player, and UNDO
    asks for consent, saying why."""
    ann, bob = _users(2, "duo")
    gid = _game("mini", [ann, bob], seed=3)
    _play(gid, 0, "wait")
    assert _boards_to(_email(bob)) == 1  # the turn passed: Bob was told at once
    tb = _check(gid, 0)
    assert tb.code == "turn_ended" and not tb.allowed
    with unit_of_work() as s:
        out = undo.undo_last(s, s.get(User, ann), gid)
        assert out.taken is None and out.request is not None and not out.done and out.why == "your turn has ended"
        with pytest.raises(UserError, match="no longer be taken back at once: your turn has ended"):
            undo.take_back(s, s.get(User, ann), gid)
    with unit_of_work() as s:  # the request answered: Bob refuses
        undo.vote(s, s.get(User, bob), gid, False)
    _play(gid, 1, "wait")
    assert _check(gid, 1).code == "turn_ended"
    tb = _check(gid, 0)  # Ann's turn again: Bob's move is the last one
    assert tb.code == "moved_since" and tb.reason == "Duo1 has moved since (ply 2)"


# ---------------------------------------------------------------- Spyrium: a decision still pending


def test_spyrium_an_event_with_its_choice_pending_is_taken_back_and_the_table_never_hears_of_it(any_cfg):
    uids = _users(2, "spy")
    gid = _game("spyrium", uids, seed=1)
    with unit_of_work() as s:
        before = games.engine_for(games.get(s, gid)).to_json(games.state_at(s, games.get(s, gid)))
    _play(gid, 0, "event")  # the event's choice (adv or score) is still to make: the turn goes on
    assert _boards_to(_email(uids[1])) == 0  # held while the turn goes on
    assert _check(gid, 0).allowed and _check(gid, 1).code == "nothing_to_undo"
    with pytest.raises(UserError, match="not your last move"):
        _take(gid, 0, ply=7)
    assert _take(gid, 0, ply=1)[:2] == (1, "event")
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert games.engine_for(g).to_json(games.state_at(s, g)) == before
    _consistent(gid)
    assert _boards_to(_email(uids[1])) == 0
    # the turn played to its end: one board to Bob, telling the whole turn
    _play(gid, 0, "event")
    _play(gid, 0, "adv")
    assert _boards_to(_email(uids[1])) == 1
    with unit_of_work() as s:
        row = s.exec(select(Outbound).where(Outbound.to_addr == _email(uids[1]))).all()[-1]
        assert "played: event; adv" in row.body_text
    assert _check(gid, 0).code == "turn_ended"


def test_a_position_mailed_to_another_player_is_seen(any_cfg):
    """A board mailed to someone else (here an observer's, and any event's board) makes the moves
    so far seen; a reminder to the seat to move alone does not."""
    uids = _users(3, "seen")
    gid = _game("spyrium", uids[:2], seed=1)
    _play(gid, 0, "event")
    with unit_of_work() as s:
        g = games.get(s, gid)
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one()
        notify.queue_reminder(s, g, seat, seat.deadline_at)
    assert _check(gid, 0).allowed
    with unit_of_work() as s:
        from pbem.services.follow import messages

        g = games.get(s, gid)
        messages.observe(s, s.get(User, uids[2]), g)
        notify.queue_observers(s, g, "an observer's board")
    tb = _check(gid, 0)
    assert tb.code == "seen" and "mailed to the other players" in tb.reason
    with unit_of_work() as s:  # UNDO now asks Bob
        out = undo.undo_last(s, s.get(User, uids[0]), gid)
        assert out.taken is None and out.request.ply == 1 and "mailed" in out.why


def test_a_take_back_voids_an_open_undo_request(any_cfg):
    uids = _users(2, "void")
    gid = _game("spyrium", uids, seed=1)
    _play(gid, 0, "event")
    _play(gid, 0, "adv")
    _play(gid, 1, "event")
    with unit_of_work() as s:  # Ann asks to take back her adv (Bob has moved since)
        out = undo.undo_last(s, s.get(User, uids[0]), gid)
        assert out.request is not None and out.why.endswith("has moved since (ply 3)")
    assert _take(gid, 1)[:2] == (3, "event")
    with unit_of_work() as s:
        assert s.exec(select(UndoRequest.status).where(UndoRequest.game_id == gid)).one() == "void"


# ---------------------------------------------------------------- Squire: a turn of several steps


def test_squire_the_steps_of_a_turn_are_taken_back_one_by_one_until_a_draw(any_cfg):
    uids = _users(2, "sq")
    gid = _game("squire", uids, seed=1)
    _play(gid, 0, 'board fox "Sir Fox"')
    _play(gid, 1, 'board eagle "Sir Eagle"')
    other = _email(_user_of(gid, 1))
    mailed = _boards_to(other)
    _play(gid, 0, "start London")  # the first step of the turn: still to move, nothing drawn
    assert _boards_to(other) == mailed
    assert _take(gid, 0)[:2] == (3, "start London")
    _play(gid, 0, "start London")
    # the sale draws from the supply and ends the turn (seat 1 holds the exhibition token), so the
    # order's unsaid answer to the offers question is "offers none": the table is told at once
    res = _play(gid, 0, "sell")
    assert [a.notation for a in res.applied] == ["sell", "offers none"]
    assert _boards_to(other) == mailed + 1
    assert _check(gid, 0).code == "turn_ended"
    _play(gid, 1, "start London")
    _play(gid, 1, "buy")  # a draw: revealed
    tb = _check(gid, 1)
    assert tb.code == "revealed" and "ply 8" in tb.reason
    _play(gid, 1, "cell F1C1")  # after the draw: private again
    assert _check(gid, 1).allowed
    assert _take(gid, 1)[:2] == (9, "cell F1C1")
    assert _check(gid, 1).code == "revealed"  # the draw before it stays
    _consistent(gid)


# ---------------------------------------------------------------- It's a Wonderful World: secret orders


def test_iaww_a_secret_choice_of_an_unfinished_order_is_withdrawn_and_nobody_else_learns_of_it(any_cfg):
    uids = _users(2, "ww")
    gid = _game("iaww", uids, seed=19)
    engine = get_game("iaww")
    with unit_of_work() as s:
        while engine.to_json(games.state_at(s, games.get(s, gid)))["phase"] == "draft":
            for seat in (0, 1):
                assert moves.submit_moves(s, gid, seat, ["pick 1"], source="web").ok
    with unit_of_work() as s:
        g = games.get(s, gid)
        cards = [c["id"] for c in games.view_for(s, g, 0)["you"]["to_plan"]]
        start = g.ply
    _play(gid, 0, f"C {cards[0]}")
    _play(gid, 0, f"C {cards[1]}")
    assert _check(gid, 0).allowed
    ply, notation, superseded = _take(gid, 0)
    assert (ply, notation, superseded) == (start + 2, f"C {cards[1]}", start + 2)
    with unit_of_work() as s:
        g = games.get(s, gid)
        theirs = visibility.moves(s, g, visibility.Viewer(seat=1))
        assert ply not in [m.ply for m in theirs]  # no trace for the other player
        assert ply not in [p.ply for p in visibility.posts(s, g, visibility.Viewer(seat=1))]
        mine = [p.body for p in visibility.posts(s, g, visibility.Viewer(seat=0)) if p.ply == ply]
        assert mine == [f"C {cards[1]} (taken back)"]
        assert not list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "notice",
                                                  Post.body.contains("took back"))))
        assert visibility.on_file(s, g, 0).notations == (f"C {cards[0]}",)
    _consistent(gid)
    # Bob moves: Ann's choice before it is no longer hers alone to take back
    _play(gid, 1, "auto")
    tb = _check(gid, 0)
    assert tb.code == "moved_since" and tb.reason.startswith("Ww1 has moved since")
    # the step is revealed when Ann's order is finished too: nothing of it comes back at once
    _play(gid, 0, "auto")
    assert not _check(gid, 0).allowed
