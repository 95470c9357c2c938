"""Shared setup for the game-management tests: users, a running game, the clock."""
from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from pbem import config
from pbem.services.core import accounts
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, Seat, User, utcnow


def users(s, n, admin=False):
    out = [accounts.register(s, f"p{i}@x.test", f"Player {i}", confirmed=True)[0] for i in range(n)]
    if admin:
        a = accounts.register(s, "admin@x.test", "Admin", confirmed=True)[0]
        a.is_admin = True
        s.add(a)
        out.append(a)
    return out


def running(game="mini", players=2, seed=5, options=None, **kw):
    with unit_of_work() as s:
        us = users(s, players, admin=True)
        g = tables.create(s, us[0], game, players, options if options is not None else {"hand": "3"},
                         seed=seed, **kw)
        for u in us[1:players]:
            tables.join(s, u, g.id)
        return g.id, [u.id for u in us]


def seat_row(gid, n) -> Seat:
    with unit_of_work() as s:
        return s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == n)).one()


def user(uid) -> User:
    with unit_of_work() as s:
        return s.get(User, uid)


def mails(to=None, kind=None, since_id=0) -> list[Outbound]:
    with unit_of_work() as s:
        q = select(Outbound).where(Outbound.id > since_id).order_by(Outbound.id)
        if to:
            q = q.where(Outbound.to_addr == to)
        if kind:
            q = q.where(Outbound.kind == kind)
        return list(s.exec(q))


def no_outage_check(cfg):
    """Tests drive the clock forward by days between sweeps: that must not
    look like an outage, except in the outage test."""
    new = cfg.with_(sweep_gap_s=10 ** 9)
    config.set_settings(new)
    return new


def later(**kw):
    return utcnow() + timedelta(**kw)
