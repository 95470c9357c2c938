"""Two sweeps at once on PostgreSQL (services/lobby/tournaments/runs.py): the tournament's row is
locked before its round is started, so a dated round starts once and each player is told once.
(Its own module: the calendar tests share one SQLite database for their module.)"""
from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from pbem.services.lobby.tournaments import season
from pbem.store.db import unit_of_work
from tests.concurrency import at_once
from pbem.store.models import Outbound, Tournament, utcnow
from tests.tournaments.test_calendar import _rounds, _stamp


def test_two_sweeps_at_once_start_a_round_once_on_postgresql(pg_cfg):
    """The sweep's tournament part run by two processes at the same moment (the lease keeps two sweeps
    apart; this checks the lock under it): the tournament's row is locked before its round is
    started, so one of them starts it and the other finds it started."""
    
    from pbem.services.core import accounts
    from pbem.services.lobby.tournaments import runs

    first = (utcnow() + timedelta(hours=1)).replace(second=0, microsecond=0)
    with unit_of_work() as s:
        people = [accounts.register(s, f"g{i}@x.test", f"G{i}", confirmed=True)[0] for i in range(4)]
        t = season.create(s, people[0], "mini", table_size=2, options={"hand": "1"}, rounds=2,
                          start=_stamp(first), every="7d")
        for u in people:
            season.join(s, u, t.id)
        tid = t.id
    results = at_once(lambda: runs.run(first + timedelta(minutes=1)))
    assert sorted(r["rounds_started"] for r in results) == [0, 1]
    assert _rounds(tid) == [1]
    with unit_of_work() as s:
        assert len(season.tables_of(s, s.get(Tournament, tid), 1)) == 2
        told = [o for o in s.exec(select(Outbound).where(Outbound.kind == "notice")) if f"#{tid}, round 1" in o.subject]
    assert sorted(o.to_addr for o in told) == [f"g{i}@x.test" for i in range(4)]  # each player told once
