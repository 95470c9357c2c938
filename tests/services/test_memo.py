"""The per-transaction memos (pbem/store/memo.py): a game's seats are read
once per transaction and a game row is locked once, but what the transaction
itself changes always shows, and nothing survives the transaction."""
from __future__ import annotations

from sqlalchemy import event, update
from sqlmodel import select

from pbem.services.core import accounts, games, seating
from pbem.services.lobby import tables
from pbem.store.db import get_engine, unit_of_work
from pbem.store.models import Seat


class Statements:
    """Counts the SQL statements sent while active."""

    def __init__(self):
        self.seen: list[str] = []

    def __enter__(self):
        event.listen(get_engine(), "before_cursor_execute", self._on)
        return self

    def __exit__(self, *exc):
        event.remove(get_engine(), "before_cursor_execute", self._on)

    def _on(self, _conn, _cur, statement, *_a):
        self.seen.append(statement)

    def count(self, table: str) -> int:
        return sum(1 for st in self.seen if f"FROM {table}" in st and st.lstrip().upper().startswith("SELECT"))


def _game(players: int = 3, join: int = 2) -> int:
    with unit_of_work() as s:
        users = [accounts.register(s, f"u{i}@x.test", f"User {i}", confirmed=True)[0] for i in range(players)]
        g = tables.create(s, users[0], "spyrium", players, seed=5)
        for u in users[1:join]:
            tables.join(s, u, g.id)
        return g.id


def test_seats_are_read_once_per_transaction_with_their_users(any_cfg):
    gid = _game()
    with unit_of_work() as s, Statements() as st:
        first = seating.seats(s, gid)
        again = seating.seats(s, gid)
        names = seating.names(s, gid)
        mine = seating.seat_of(s, gid, first[1].user_id)
    assert [x.seat for x in first] == [0, 1] and [x.id for x in again] == [x.id for x in first]
    assert names == ["User 0", "User 1"] and mine.id == first[1].id
    assert st.count("seats") == 1 and st.count("users") == 0  # the users came with the seats, in one join


def test_a_seat_added_in_the_transaction_shows_at_once(any_cfg):
    gid = _game(players=3, join=2)
    with unit_of_work() as s:
        assert len(seating.seats(s, gid)) == 2
        newcomer = accounts.register(s, "late@x.test", "Late", confirmed=True)[0]
        s.add(Seat(game_id=gid, seat=2, user_id=newcomer.id, token=seating.new_token()))  # not flushed yet
        assert [x.seat for x in seating.seats(s, gid)] == [0, 1, 2]
        assert seating.names(s, gid)[2] == "Late"


def test_renumbered_and_renamed_seats_show_in_the_memo(any_cfg):
    gid = _game()
    with unit_of_work() as s:
        rows = seating.seats(s, gid)
        rows[0].seat, rows[1].seat = 11, 10  # what the random seating does, in the session
        seating.seats(s, gid)[0].user_id  # noqa: B018 - the memo is in use
        user = s.get(accounts.User, rows[0].user_id)
        user.name = "Renamed"
        assert [x.seat for x in seating.seats(s, gid)] == [10, 11]
        assert seating.names(s, gid) == ["User 1", "Renamed"]


def test_a_bulk_update_of_seats_drops_the_memo(any_cfg):
    gid = _game()
    with unit_of_work() as s, Statements() as st:
        seating.seats(s, gid)
        s.exec(update(Seat).where(Seat.game_id == gid).values(missed=Seat.missed + 1)
               .execution_options(synchronize_session=False))
        assert all(x.missed == 1 for x in seating.seats(s, gid))
        assert st.count("seats") == 2


def test_nothing_survives_the_transaction(any_cfg):
    gid = _game()
    with unit_of_work() as s:
        seating.seats(s, gid)
        games.get(s, gid, lock=True)
        s.commit()  # a new transaction begins in the same session
        with Statements() as st:
            seating.seats(s, gid)
            games.get(s, gid, lock=True)
        assert st.count("seats") == 1 and st.count("games") == 1


def test_a_game_is_locked_once_per_transaction_and_again_after_a_savepoint(any_cfg):
    gid = _game()
    with unit_of_work() as s, Statements() as st:
        g = games.get(s, gid, lock=True)
        assert games.get(s, gid, lock=True) is g
        assert st.count("games") == 1
        try:
            with s.begin_nested():  # row locks taken in a rolled-back savepoint are gone with it
                raise RuntimeError("refused")
        except RuntimeError:
            pass
        assert games.get(s, gid, lock=True) is g
        assert st.count("games") == 2
        if get_engine().dialect.name == "postgresql":  # SQLite locks the whole database at BEGIN instead
            assert sum(1 for x in st.seen if "FOR UPDATE" in x) == 2


def test_seat_by_token_and_token_check_agree(any_cfg):
    gid = _game()
    with unit_of_work() as s:
        seat = seating.seats(s, gid)[1]
        token = seat.token
    with unit_of_work() as s:
        assert seating.seat_by_token(s, gid, token.upper()).id == seat.id  # MTAs may fold the case
        assert seating.token_senders(s, gid, token) is not None and seating.token_senders(s, gid, token.upper()) is not None
        assert seating.token_senders(s, gid, token[:-1] + ("a" if token[-1] != "a" else "b")) is None
        assert seating.seat_by_token(s, gid, "") is None and seating.token_senders(s, gid, "") is None
        assert s.exec(select(Seat).where(Seat.token == token)).one().game_id == gid
