"""The outbox rows a transaction queues are inserted as they are queued
(one Core statement each, so queueing costs one round trip), or all at once at the end of a
``batched`` block (a move's mails); the mails delivered after the commit are
exactly the rows that exist: none that a rollback of the transaction, or of
a savepoint they were queued in, took back. On SQLite and on PostgreSQL."""
from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.store import outbox as outbound
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, User


def _queue(s, to: str) -> outbound.QueuedMail:
    return outbound.queue_mail(s, to=to, subject="s", context={"paragraphs": [to]}, kind="notice")


@pytest.fixture
def delivered(monkeypatch) -> list[list[str]]:
    """What each transaction's delivery is handed."""
    got: list[list[str]] = []
    monkeypatch.setattr(outbound._Batch, "deliver", lambda self: got.append(sorted(r.to_addr for r in self.rows)))
    return got


def _stored() -> dict[str, int]:
    with unit_of_work() as s:
        return {r.to_addr: r.id for r in s.exec(select(Outbound))}


def test_queued_rows_are_stored_at_once_with_their_ids(any_cfg, delivered):
    with unit_of_work() as s:
        rows = [_queue(s, f"{k}@x.test") for k in range(3)]
        assert [r.to_addr for r in s.exec(select(Outbound).order_by(Outbound.id))] == [r.to_addr for r in rows]
    assert {r.to_addr: r.id for r in rows} == _stored()
    assert delivered == [["0@x.test", "1@x.test", "2@x.test"]]


def test_a_rollback_of_the_transaction_takes_its_mails_back(any_cfg, delivered):
    with unit_of_work() as s:
        _queue(s, "gone@x.test")
        with s.begin_nested():
            _queue(s, "gone-too@x.test")
        s.rollback()
        _queue(s, "kept@x.test")
    assert set(_stored()) == {"kept@x.test"} and delivered == [["kept@x.test"]]


def test_a_rolled_back_savepoint_takes_its_mails_with_it(any_cfg, delivered):
    with unit_of_work() as s:
        _queue(s, "before@x.test")
        try:
            with s.begin_nested():
                _queue(s, "inner@x.test")
                with s.begin_nested():
                    _queue(s, "innermost@x.test")
                raise RuntimeError("refused")
        except RuntimeError:
            pass
        with s.begin_nested():
            _queue(s, "released@x.test")
        _queue(s, "after@x.test")
    assert set(_stored()) == {"before@x.test", "released@x.test", "after@x.test"}
    assert delivered == [["after@x.test", "before@x.test", "released@x.test"]]


def test_a_failed_flush_inside_a_savepoint_keeps_the_mails_before_it(any_cfg, delivered):
    """As accounts.register does: a unique-key clash caught in a savepoint."""
    with unit_of_work() as s:
        s.add(User(email="dup@x.test", name="A"))
        s.flush()
        _queue(s, "before@x.test")
        with pytest.raises(IntegrityError):
            with s.begin_nested():
                s.add(User(email="dup@x.test", name="B"))
                s.flush()
        _queue(s, "after@x.test")
    assert set(_stored()) == {"before@x.test", "after@x.test"}
    assert delivered == [["after@x.test", "before@x.test"]]


def test_a_batched_block_inserts_its_mails_in_one_statement_less_a_rolled_back_savepoints(any_cfg, delivered):
    from tests.statements import counted

    with unit_of_work() as s:
        _queue(s, "first@x.test")  # alone, before the block
        with counted() as seen, outbound.batched(s):
            rows = [_queue(s, "a@x.test")]
            try:
                with s.begin_nested():
                    _queue(s, "gone@x.test")
                    raise RuntimeError("refused")
            except RuntimeError:
                pass
            rows.append(_queue(s, "b@x.test"))
            assert outbound.queued_count(s) == 3  # counted as queued already
        inserts = sum("INSERT INTO outbound" in x for x in seen)
        # PostgreSQL returns the ids of a many-row INSERT in order; SQLAlchemy sends SQLite one row a statement
        assert inserts == 1 if s.get_bind().dialect.name == "postgresql" else inserts == 2
    stored = _stored()
    assert set(stored) == {"first@x.test", "a@x.test", "b@x.test"}
    assert [stored[r.to_addr] for r in rows] == [r.id for r in rows] and rows[0].id < rows[1].id
    assert delivered == [["a@x.test", "b@x.test", "first@x.test"]]
