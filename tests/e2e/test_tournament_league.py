"""A league by mail from end to end, through the real SMTP receiver and a real Celery worker: a
Swiss league of nine players at tables of three (Spyrium, the cheapest of the three to play by
bots: about ninety plies a game), made, entered and started by mail, over three rounds, to its final
standings and the archive. Once on the embedded default (SQLite and the database as the broker), once
on PostgreSQL with Redis.

The tables are played by bots standing in: the director, each table's game master, hands the seats
to bots by mail (EJECT), and the worker's bot task plays them to the end, as it plays a bot seat after
any change. Two things go wrong on purpose. In round 1 one table is late: its seats are handed over
only once the other two have finished, and the director's START is refused, naming its game, until it
ends; then round 2 starts. In round 2 a player leaves (TOURNAMENT LEAVE, held until they confirm it):
a bot plays their seat to the end of that game, which they forfeit, no later table seats them, and the
standings say they left. The test measures each database's run and prints it."""
from __future__ import annotations

import re
import time
import uuid

import pytest
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Outbound, Seat, Tournament, TournamentEntry, TournamentTable
from tests.conftest import REDIS_BASE, celery_worker, installed, make_settings, pg_installed, send_mail, smtp_receiver
from tests.mailtools import CMD, mail, outbox, wait_for

DIRECTOR = "dora@x.test"
PLAYERS = tuple(f"p{i}@x.test" for i in range(1, 10))
LEAVER = PLAYERS[8]
PLAYING: list[float] = []  # seconds the worker's bots took over each batch of tables
LIMIT_S = 90.0  # about a minute a database, with room for a busy two-core machine


@pytest.fixture(params=["sqlite", "postgres"])
def loop(request, tmp_path):
    over = dict(inbound_rate=10_000, smtpd_rate_per_ip=0, smtpd_rate_per_sender=0)
    if request.param == "sqlite":
        with installed(make_settings(tmp_path, **over)) as cfg, smtp_receiver(cfg), celery_worker(cfg):
            yield cfg
        return
    import redis

    from pbem import config, tasks

    prefix = f"pbem-test-{uuid.uuid4().hex[:10]}:"
    with pg_installed(tmp_path, **over) as pg:
        cfg = pg.with_(broker_url=f"{REDIS_BASE}/0", broker_prefix=prefix)
        config.set_settings(cfg)
        tasks.configure(cfg)
        try:
            with smtp_receiver(cfg), celery_worker(cfg):
                yield cfg
        finally:
            r = redis.Redis.from_url(f"{REDIS_BASE}/0")
            keys = list(r.scan_iter(match=prefix + "*", count=1000))
            if keys:
                r.delete(*keys)


def _send(cfg, frm: str, body: str, to: str = CMD, **kw) -> None:
    """One mail through the SMTP receiver; back once the worker has processed it."""
    with unit_of_work() as s:
        before = s.exec(select(Inbound.id).order_by(Inbound.id.desc())).first() or 0
    raw = mail(frm, to, body, **kw).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    assert send_mail(cfg, raw, frm, to) == 250

    def done():
        with unit_of_work() as s:
            row = s.exec(select(Inbound).where(Inbound.id > before).order_by(Inbound.id)).first()
        return row if row is not None and row.status not in ("received", "processing") else None

    row = wait_for(done, timeout=60)
    assert row.status == "done", (row.status, row.error)


def _say(cfg, frm: str, body: str) -> str:
    """A command mailed from ``frm``: the text of pbem's reply to it."""
    before = len([o for o in outbox(frm) if o.kind == "reply"])
    _send(cfg, frm, body)
    replies = wait_for(lambda: [o for o in outbox(frm) if o.kind == "reply"][before:] or None, timeout=30)
    return replies[-1].body_text


def _tables(tid: int, number: int) -> list[TournamentTable]:
    with unit_of_work() as s:
        return list(s.exec(select(TournamentTable).where(TournamentTable.tournament_id == tid,
                                                         TournamentTable.round == number)
                           .order_by(TournamentTable.number)))


def _to_bots(cfg, tables: list[TournamentTable]) -> None:
    """The director hands every human seat of these tables to a bot (one mail of EJECT lines), and the
    worker plays them to the end (:func:`_play_out`)."""
    lines = []
    with unit_of_work() as s:
        for row in tables:
            for seat in s.exec(select(Seat).where(Seat.game_id == row.game_id).order_by(Seat.seat)):
                if not seat.is_bot:
                    lines.append(f"EJECT {row.game_id} {seat.seat + 1}")
    if lines:
        answer = _say(cfg, DIRECTOR, "\n".join(lines))
        assert answer.count("a bot plays it meanwhile") == len(lines), answer
    _play_out(tables)


def _play_out(tables: list[TournamentTable], timeout: float = 120.0) -> None:
    """The worker plays the tables' bot seats to the end -- those the director ejected and the seat of
    the player who left (resigned: its bot plays as soon as it is to move, as any bot seat's) -- through
    its bot task, as after any change of a game with bots. It is sent again each time the game has
    moved (a bot's own move is followed only by the loop that made it, which stops after so many plies)
    or has stood still for a second (the task does nothing when no bot is to move)."""
    from pbem.celery_app import enqueue_bot_move

    began = time.monotonic()
    sent: dict[int, tuple[int, float]] = {}  # game -> (its ply, when) at the last sending
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        running = 0
        with unit_of_work() as s:
            for row in tables:
                g = s.get(Game, row.game_id)
                if g.status != "running":
                    continue
                running += 1
                ply, when = sent.get(g.id, (-1, 0.0))
                if ply == g.ply and time.monotonic() - when < 1.0:
                    continue  # its tasks are on their way
                sent[g.id] = (g.ply, time.monotonic())
                enqueue_bot_move(g.id)
        if not running:
            PLAYING.append(time.monotonic() - began)
            return
        time.sleep(0.2)
    raise AssertionError(f"the tables did not finish within {timeout:.0f} s")


def _finished(tables: list[TournamentTable]) -> bool:
    with unit_of_work() as s:
        return all(s.get(Game, r.game_id).status == "finished" for r in tables)


def test_a_nine_player_league_by_mail_to_its_archive(loop, capsys):
    cfg = loop
    PLAYING.clear()
    started = time.monotonic()
    for i, addr in enumerate((DIRECTOR, *PLAYERS)):
        assert "ERROR" not in _say(cfg, addr, f"REGISTER {'Dora' if i == 0 else f'P{i}'}")
    answer = _say(cfg, DIRECTOR, "TOURNAMENT NEW spyrium players=3 rounds=3 name=Mail league")
    tid = int(re.search(r"tournament #(\d+)", answer).group(1))
    assert "is open for entry" in answer
    for addr in PLAYERS:
        assert "you have entered" in _say(cfg, addr, f"TOURNAMENT JOIN {tid}")

    # round 1, with a late table: START is refused until it ends
    assert "has started at 3 tables" in _say(cfg, DIRECTOR, f"TOURNAMENT START {tid}")
    first = _tables(tid, 1)
    with unit_of_work() as s:  # every player has their table's board, headed by the tournament's round
        boards = {o.to_addr for o in s.exec(select(Outbound).where(Outbound.kind == "board"))
                  if f"Tournament #{tid}, round 1" in o.body_text}
    assert boards == set(PLAYERS)
    *early, late = first
    _to_bots(cfg, early)
    assert not _finished([late])
    refused = _say(cfg, DIRECTOR, f"TOURNAMENT START {tid}")
    assert "still being played" in refused and f"#{late.game_id}" in refused and "e.g." in refused
    assert len(_tables(tid, 2)) == 0
    _to_bots(cfg, [late])
    assert "round 2 of tournament" in _say(cfg, DIRECTOR, f"TOURNAMENT START {tid}")

    # round 2: a player leaves, once they confirm it; a bot plays their seat to the end
    _send(cfg, LEAVER, f"TOURNAMENT LEAVE {tid}")
    ask = wait_for(lambda: [o for o in outbox(LEAVER) if o.kind == "confirm"] or None)[-1]
    assert f"TOURNAMENT LEAVE {tid}" in ask.body_text
    with unit_of_work() as s:
        assert s.exec(select(TournamentEntry).where(TournamentEntry.left_round.is_not(None))).first() is None
    replies = len([o for o in outbox(LEAVER) if o.kind == "reply"])
    _send(cfg, LEAVER, "yes", to=ask.headers["Reply-To"], subject="Re: " + ask.subject,
          headers={"In-Reply-To": ask.message_id})
    said = wait_for(lambda: [o for o in outbox(LEAVER) if o.kind == "reply"][replies:] or None)[-1].body_text
    assert "a bot plays your seat" in said
    second = _tables(tid, 2)
    _to_bots(cfg, second)

    # round 3 without the leaver; then no fourth round, the close and the final standings
    assert "round 3 of tournament" in _say(cfg, DIRECTOR, f"TOURNAMENT START {tid}")
    third = _tables(tid, 3)
    with unit_of_work() as s:
        left = s.exec(select(TournamentEntry).where(TournamentEntry.tournament_id == tid,
                                                    TournamentEntry.left_round.is_not(None))).one()
    assert left.left_round == 2 and sum(len(r.players) for r in third) == 8
    assert all(left.user_id not in r.players for r in third)
    _to_bots(cfg, third)
    assert "every round" in _say(cfg, DIRECTOR, f"TOURNAMENT START {tid}")
    final = _say(cfg, DIRECTOR, f"TOURNAMENT CLOSE {tid}")
    assert "its final standings are below" in final and final.count(" won)") == 9
    standings = _say(cfg, PLAYERS[0], f"TOURNAMENT STANDINGS {tid}")
    lines = [ln for ln in standings.splitlines() if re.match(r"\s*\d+\. ", ln)]
    assert len(lines) == 9 and sum("— left" in ln for ln in lines) == 1
    assert any(ln.split(". ", 1)[1].startswith("P9:") and "— left" in ln for ln in lines)
    with unit_of_work() as s:
        t = s.get(Tournament, tid)
        assert t.status == "finished"
        tables = list(s.exec(select(TournamentTable).where(TournamentTable.tournament_id == tid)))
        assert len(tables) == 9 and all(s.get(Game, r.game_id).status == "finished" for r in tables)
    took = time.monotonic() - started

    # the archive lists the finished league; its page has the final standings and every table's record
    from pbem.web import create_app

    app = create_app(cfg)
    app.config["TESTING"] = True
    web = app.test_client()
    html = web.get("/archive").get_data(as_text=True)
    assert f'id="archived-tournament-{tid}"' in html and "Mail league" in html
    page = web.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Final standings" in page and "(left)" in page
    assert all(f"/games/{r.game_id}/record.json" in page for r in tables)
    assert web.get(f"/games/{tables[0].game_id}/record.json").status_code == 200
    with capsys.disabled():
        with unit_of_work() as s:
            plies = sum(s.get(Game, r.game_id).ply for r in tables)
        print(f"\n  league of nine by mail on {cfg.database_url.split(':', 1)[0]}: {took:.1f} s, of which "
              f"{sum(PLAYING):.1f} s the bots' {plies} plies at 9 tables; {len(outbox())} mails sent")
    assert took < LIMIT_S, took
