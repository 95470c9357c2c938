"""A site with something on every page, for the browser tests of the pages
other than the game page: three people and an admin, a running
Spyrium game with a few moves, an open dispute and one settled by a
rollback, a finished game, mail in the outbox, and a received mail that
failed the pipeline. Built through the services, as people would."""
from __future__ import annotations

import random
from dataclasses import dataclass

from pbem.services.core import accounts, games, moves, notify
from pbem.services.lobby import tables
from pbem.services.referee import disputes
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Outbound, User


@dataclass
class Site:
    anna: int  # created the game, seat 1
    boris: int  # seat 2
    cleo: int  # in no game of these
    admin: int
    game: int  # running Spyrium, a few plies in
    finished: int  # a finished mini game of Anna and Boris
    open_dispute: int
    settled_dispute: int
    inbound: int  # failed the pipeline
    mail: int  # a board mail to Anna
    tournament: int = 0  # Anna directs it; Boris and Cleo play its round 1


def _users(s):
    out = []
    for email, name in (("anna@example.org", "Anna"), ("boris@example.org", "Boris"),
                        ("cleo@example.org", "Cleo"), ("admin@example.org", "Ada Admin")):
        u, _ = accounts.register(s, email, name, confirmed=True)
        out.append(u)
    out[3].is_admin = True
    s.add(out[3])
    s.flush()
    return out


def _play(gid: int, plies: int, rng: random.Random) -> None:
    for _ in range(plies):
        with unit_of_work() as s:
            g = games.get(s, gid)
            engine = games.engine_for(g)
            state = games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            move = engine.format_move(state, seat, rng.choice(engine.legal_moves(state, seat)))
            assert moves.submit_moves(s, gid, seat, [move], source="web").ok


def build() -> Site:
    rng = random.Random(7)
    with unit_of_work() as s:
        anna, boris, cleo, admin = _users(s)
        ids = [u.id for u in (anna, boris, cleo, admin)]
        g = tables.create(s, anna, "spyrium", 2, {}, seed=3)
        tables.join(s, boris, g.id)
        gid = g.id
        f = tables.create(s, anna, "mini", 2, {"hand": "1"}, seed=2)
        tables.join(s, boris, f.id)
        fid = f.id
    _play(gid, 4, rng)
    _play(fid, 2, rng)
    with unit_of_work() as s:
        anna, boris, cleo, admin = (s.get(User, i) for i in ids)
        assert games.get(s, fid).status == "finished"
        notify.queue_boards(s, games.get(s, gid), "Game has started.")
        d1 = disputes.open_dispute(s, anna, gid, 2, "The market showed the wrong card <b>twice</b>")
        d2 = disputes.open_dispute(s, boris, gid, 3, "I meant the other space")
        d1_id, d2_id = d1.id, d2.id
    with unit_of_work() as s:
        admin = s.get(User, ids[3])
        g = games.get(s, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g, 2)
        seat = sorted(engine.to_move(state))[0]
        move = engine.format_move(state, seat, engine.legal_moves(state, seat)[-1])
        disputes.rollback(s, admin, d2_id, gid, 2, [(seat, move)], "agreed by both players")
    with unit_of_work() as s:
        row = Inbound(message_id="<failed-1@example.net>", mail_from="stranger@example.net", rcpt_to="pbem@pbem.test", status="failed", attempts=3,
                      error="Traceback (most recent call last):\n  RuntimeError: the database went away " + "x" * 200,
                      raw=b"From: stranger@example.net\r\nTo: pbem@pbem.test\r\nSubject: STATUS\r\n\r\nSTATUS 1\r\n")
        s.add(row)
        s.flush()
        inbound = row.id
        from sqlmodel import select

        mail = s.exec(select(Outbound).where(Outbound.to_addr == "anna@example.org")
                      .order_by(Outbound.id.desc())).first().id
    with unit_of_work() as s:
        from pbem.services.lobby.tournaments import season

        anna, boris, cleo = (s.get(User, i) for i in ids[:3])
        t = season.create(s, anna, "mini", name="Club league", table_size=2, options={"hand": "1"}, rounds=2, seed=4)
        for u in (boris, cleo):
            season.join(s, u, t.id)
        season.start_round(s, anna, t.id)
        tid = t.id
    return Site(*ids, game=gid, finished=fid, open_dispute=d1_id, settled_dispute=d2_id, inbound=inbound, mail=mail,
                tournament=tid)
