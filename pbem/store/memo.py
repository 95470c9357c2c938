"""What one transaction has already read, so that one mail does not ask the
database the same question several times (round trips, not Python, bound
the pipeline: docs/PERFORMANCE.md §3).

Two memos live in ``Session.info`` and die with the transaction:

* ``SEATS``: a game's seat rows (with their users loaded into the identity
  map). The rows are the session's own objects, so changes made through the
  session show at once; only the membership of the list could go stale, and
  it is dropped whenever seats are added or deleted (flush or bulk DML);
* ``LOCKED``: the games whose row this transaction holds with
  ``SELECT … FOR UPDATE``. A second lock of the same row in the same
  transaction would return what the session already has.

Both are cleared at the end of every transaction, savepoints included (a
rolled-back savepoint releases the row locks taken inside it)."""
from __future__ import annotations

from functools import cache
from itertools import chain

from sqlalchemy import event
from sqlalchemy.orm import Session

SEATS = "pbem.seats"
LOCKED = "pbem.locked"


@cache  # the Seat model, imported at its first use and kept (not an import at every call)
def _seat_class():
    from pbem.store.models import Seat

    return Seat


def pending_seat_change(session: Session) -> bool:
    """A seat added or deleted in the session but not flushed yet (asked before every read of a
    game's seats: a dozen times a mail)."""
    new, deleted = session.new, session.deleted
    if not new and not deleted:
        return False
    seat = _seat_class()
    return any(isinstance(o, seat) for o in chain(new, deleted))


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _flush_context) -> None:
    if SEATS in session.info and pending_seat_change(session):  # still the pre-flush lists here
        session.info.pop(SEATS, None)


@event.listens_for(Session, "do_orm_execute")
def _bulk_dml(state) -> None:
    if SEATS in state.session.info and (state.is_update or state.is_delete):
        mapper = state.bind_mapper
        if mapper is None or mapper.class_ is _seat_class():
            state.session.info.pop(SEATS, None)


@event.listens_for(Session, "after_transaction_end")
def _transaction_end(session: Session, transaction) -> None:
    if transaction.nested or transaction.parent is None:  # not the inner bracket every flush makes
        session.info.pop(SEATS, None)
        session.info.pop(LOCKED, None)
