"""Named leases in the database: one process holds a lease until
it expires, renewing it while it lives; another takes it over only once it
has expired. The same on SQLite (BEGIN IMMEDIATE serialises the writers) and
PostgreSQL (the conditional UPDATE locks the row): no Redis, no extra
service, and a holder that dies is replaced after the lease's time."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, or_, update
from sqlalchemy.exc import IntegrityError

from pbem.store.db import unit_of_work
from pbem.store.models import Lease, utcnow


def acquire(name: str, holder: str, ttl_s: float) -> bool:
    """Take or renew the lease ``name`` for ``holder`` for ``ttl_s`` seconds. True if ``holder`` holds
    it now; False if another holder's lease has not expired."""
    now = utcnow()
    until = now + timedelta(seconds=ttl_s)
    with unit_of_work() as s:
        res = s.exec(update(Lease).where(Lease.name == name, or_(Lease.holder == holder, Lease.expires_at < now))
                     .values(holder=holder, expires_at=until))
        if res.rowcount == 1:
            return True
        if s.get(Lease, name) is not None:
            return False
        try:
            with s.begin_nested():
                s.add(Lease(name=name, holder=holder, expires_at=until))
                s.flush()
            return True
        except IntegrityError:  # another process made it first
            return False


def release(name: str, holder: str) -> None:
    """Give the lease up (a beat that stops): another may take it at once."""
    with unit_of_work() as s:
        s.exec(delete(Lease).where(Lease.name == name, Lease.holder == holder))


def holder_of(name: str) -> tuple[str, object] | None:
    with unit_of_work() as s:
        row = s.get(Lease, name)
        return (row.holder, row.expires_at) if row is not None else None
