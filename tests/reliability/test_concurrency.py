"""Exactly once under concurrency, with real components: SMTP
over loopback, two Celery worker processes on one Redis queue, PostgreSQL.
Many mails for one game at the same instant, the same Message-ID many times,
a reply written against an older ply."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlmodel import select

from pbem.services.core import accounts, games
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound, Seat
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import PATIENCE, mail, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


def _game(hand: int = 9) -> tuple[int, list[str]]:
    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        g = tables.create(s, ann, "mini", 2, {"hand": hand}, seed=11)
        tables.join(s, bob, g.id)
        toks = [x.token for x in s.exec(select(Seat).where(Seat.game_id == g.id).order_by(Seat.seat))]
        return g.id, [f"game-{g.id}.{t}@pbem.test" for t in toks]


def _all_done(n: int):
    with unit_of_work() as s:
        rows = list(s.exec(select(Inbound)))
        out = list(s.exec(select(Outbound)))
    return len(rows) == n and all(r.status in ("done", "ignored") for r in rows) \
        and all(o.status == "sent" for o in out)


def _check_record(gid: int):
    with unit_of_work() as s:
        g = s.get(Game, gid)
        moves = list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply)))
        assert [m.ply for m in moves] == list(range(1, g.ply + 1))  # no gap, no double ply
        assert games.replay_state(s, g) == games.state_at(s, g)  # cache == replay of the record
        return g, moves


def test_a_burst_of_mails_for_one_game_and_duplicates(pg_cfg, on_redis):
    cfg = on_redis(pg_cfg)
    gid, addr = _game()
    senders = ["ann@x.test", "bob@x.test"]
    burst = [(i % 2, mail(senders[i % 2], addr[i % 2], "wait", subject=f"[pbem #{gid}] move {i}"))
             for i in range(24)]
    dup = mail("ann@x.test", addr[0], "wait", message_id="<same-everywhere@x.test>")
    with smtp_receiver(cfg), celery_worker(cfg), celery_worker(cfg):
        with ThreadPoolExecutor(12) as pool:
            codes = list(pool.map(lambda sm: send_mail(cfg, sm[1], senders[sm[0]], addr[sm[0]]),
                                  burst + [(0, dup)] * 6))
        assert codes == [250] * 30
        wait_for(lambda: _all_done(25), timeout=120)
    g, moves = _check_record(gid)
    with unit_of_work() as s:
        rows = list(s.exec(select(Inbound)))
        receipts = list(s.exec(select(Outbound).where(Outbound.kind == "reply")))
    assert len(rows) == 25  # six copies of one Message-ID: one row
    # every mail got exactly one receipt; every OK receipt is exactly one move, and vice versa
    assert len(receipts) == 25 and len({r.headers["In-Reply-To"] for r in receipts}) == 25
    ok = [r for r in receipts if "OK" in r.body_text.split("Not applied")[0] and "ERROR" not in r.body_text]
    assert len(ok) == len(moves) == g.ply >= 2
    assert len({m.inbound_id for m in moves}) == len(moves)  # no mail applied twice
    assert [m.seat for m in moves] == [i % 2 for i in range(len(moves))]  # turns kept
    for r in receipts:
        assert r in ok or "it is not your turn" in r.body_text


def test_a_reply_to_an_older_ply_gets_a_clear_answer(pg_cfg, on_redis):
    cfg = on_redis(pg_cfg)
    gid, addr = _game(hand=3)
    with unit_of_work() as s:
        hands = games.state_at(s, games.get(s, gid)).hands
    with smtp_receiver(cfg), celery_worker(cfg), celery_worker(cfg):
        assert send_mail(cfg, mail("ann@x.test", addr[0], f"play {hands[0][0]}",
                                   subject=f"Re: [pbem #{gid} ply 0] your turn"), "ann@x.test", addr[0]) == 250
        wait_for(lambda: _all_done(1), timeout=PATIENCE)
        assert send_mail(cfg, mail("bob@x.test", addr[1], f"play {hands[1][0]}",
                                   subject=f"Re: [pbem #{gid} ply 1] your turn"), "bob@x.test", addr[1]) == 250
        wait_for(lambda: _all_done(2), timeout=PATIENCE)
        # Ann answers the board of ply 0 again: Bob has played since, her position changed
        assert send_mail(cfg, mail("ann@x.test", addr[0], f"play {hands[0][1]}",
                                   subject=f"Re: [pbem #{gid} ply 0] your turn"), "ann@x.test", addr[0]) == 250
        wait_for(lambda: _all_done(3), timeout=PATIENCE)
    g, moves = _check_record(gid)
    assert g.ply == 2
    with unit_of_work() as s:
        last = list(s.exec(select(Outbound).where(Outbound.kind == "reply", Outbound.to_addr == "ann@x.test")
                           .order_by(Outbound.id)))[-1]
    assert "answers the board at ply 0" in last.body_text and "send your move again" in last.body_text
