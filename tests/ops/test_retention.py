"""Retention: old processed mail, sent outbox rows and the
snapshots of finished games are pruned, by batches; the move log, the posts
and the game record stay, and every game still replays."""
from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import exists, update
from sqlmodel import func, select

from pbem import config
from pbem.store.db import unit_of_work
from pbem.store.models import (Bounce, Confirmation, Game, Inbound, Move, Notification, Outbound, Picture, Post, Seat,
                               Snapshot, User, utcnow)


def play_by_mail(gid: int, plies: int | None = None) -> int:
    """Play the game on by mail, each move a mail from its seat's player to the seat's address, through
    the pipeline. Returns the moves sent."""
    from pbem.bench.env import playout
    from pbem.mail import pipeline
    from tests.mailtools import mail, store_inbound

    sent = 0
    for seat, text in playout(gid, plies, seed=gid):
        with unit_of_work() as s:
            row = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one()
            frm = s.get(User, row.user_id).email
            to = f"game-{gid}.{row.token}@{config.settings().domain}"
        iid = store_inbound(mail(frm, to, text), to, frm)
        assert pipeline.process_inbound(iid) == "done"
        sent += 1
    return sent


def _count(model, *where) -> int:
    with unit_of_work() as s:
        return s.exec(select(func.count()).select_from(model).where(*where)).one()


def _age(days: int) -> None:
    """Everything so far happened ``days`` ago."""
    then = utcnow() - timedelta(days=days)
    with unit_of_work() as s:
        s.exec(update(Inbound).values(received_at=then))
        s.exec(update(Outbound).values(created_at=then, sent_at=then, status="sent"))
        s.exec(update(Game).values(updated_at=then))
        s.exec(update(Picture).values(created_at=then))
        s.exec(update(Notification).values(created_at=then, sent_at=then, status="sent"))


def test_prune_keeps_the_record_and_what_is_recent(any_cfg):
    from pbem.services.core import games
    from pbem.services.upkeep.retention import prune
    from tests.mailtools import CMD, ann_and_bob, process

    config.set_settings(any_cfg.with_(snapshot_every=2, prune_batch=7, http_allow=("127.0.0.1/32",)))
    process("ann@x.test", CMD, "REGISTER Ann\nNOTIFY ADD json://127.0.0.1:9/hook")  # chat notifications too
    finished, _ = ann_and_bob()
    running, _ = ann_and_bob()
    play_by_mail(finished)
    play_by_mail(running, 3)
    process("ann@x.test", CMD, "GAMES")  # a mail no move points to
    with unit_of_work() as s:
        assert s.get(Game, finished).status == "finished" and s.get(Game, running).status == "running"
    snaps_running = _count(Snapshot, Snapshot.game_id == running)
    assert _count(Snapshot, Snapshot.game_id == finished) > 0
    moves, posts, inbound = _count(Move), _count(Post), _count(Inbound)
    referenced = _count(Inbound, Inbound.id.in_(select(Move.inbound_id)))
    assert referenced > 0 and inbound > referenced

    assert prune().as_dict() == {"inbound_deleted": 0, "inbound_emptied": 0, "outbound_deleted": 0,
                                 "notifications_deleted": 0, "snapshots_deleted": 0, "pictures_deleted": 0,
                                 "secrets_unsealed": 0, "bodies_dropped": 0, "more": False}  # all of it is new
    _age(100)
    fresh_id, _ = process("bob@x.test", CMD, "GAMES")  # today's mail stays
    queued = _count(Outbound, Outbound.status == "queued")
    pictures = _count(Picture)
    fresh_pictures = _count(Picture, Picture.created_at > utcnow() - timedelta(days=1))
    done = prune()
    assert pictures > fresh_pictures and done.pictures_deleted == pictures - fresh_pictures  # the board drawings
    assert _count(Picture) == fresh_pictures  # of delivered mail go; today's stay
    assert done.inbound_deleted == inbound - referenced
    assert done.inbound_emptied == referenced
    assert done.snapshots_deleted > 0
    assert done.notifications_deleted > 0 and _count(Notification) == 0  # the chat notifications sent
    assert _count(Snapshot, Snapshot.game_id == finished) == 0
    assert _count(Snapshot, Snapshot.game_id == running) == snaps_running  # a running game keeps its own
    assert _count(Outbound, Outbound.status == "sent", Outbound.created_at < utcnow() - timedelta(days=90)) == 0
    assert _count(Outbound, Outbound.status == "queued") == queued
    assert _count(Move) == moves and _count(Post) == posts  # the record and the thread stay
    with unit_of_work() as s:
        assert s.get(Inbound, fresh_id) is not None
        kept = list(s.exec(select(Inbound).where(Inbound.id.in_(select(Move.inbound_id)))))
        assert len(kept) == referenced and all(r.raw == b"" and r.mail_from for r in kept)
        for gid in (finished, running):
            g = s.get(Game, gid)
            engine = games.engine_for(g)
            assert json.dumps(engine.to_json(games.state_at(s, g)), sort_keys=True) == \
                json.dumps(engine.to_json(games.replay_state(s, g)), sort_keys=True)
            for ply in range(g.ply + 1):  # any earlier position still shows
                games.view_for(s, g, None, ply)
    assert prune().as_dict() == {"inbound_deleted": 0, "inbound_emptied": 0, "outbound_deleted": 0,
                                 "notifications_deleted": 0, "snapshots_deleted": 0, "pictures_deleted": 0,
                                 "secrets_unsealed": 0, "bodies_dropped": 0, "more": False}  # once is enough


def test_zero_days_keeps_everything(sqlite_cfg):
    from pbem.services.upkeep.retention import prune
    from tests.mailtools import CMD, process

    config.set_settings(sqlite_cfg.with_(keep_inbound_days=0, keep_outbox_days=0, keep_snapshots_days=0,
                                         keep_mail_bodies_days=0))
    process("ann@x.test", CMD, "REGISTER Ann")
    _age(1000)
    assert not any(prune().as_dict().values())
    assert _count(Inbound) == 1 and _count(Outbound) >= 1


def test_bad_retention_settings_are_clear_errors():
    import pytest

    from pbem.config import load_settings

    for value in ("0.5", "-1", "ninety"):
        with pytest.raises(ValueError, match=r"PBEM_KEEP_OUTBOX_DAYS=.*whole number of days \(0 = keep forever\) "
                                             r"is needed, e\.g\. PBEM_KEEP_OUTBOX_DAYS=90"):
            load_settings({"PBEM_KEEP_OUTBOX_DAYS": value})
    with pytest.raises(ValueError, match="PBEM_BEAT_LEASE_S='0': a positive number is needed"):
        load_settings({"PBEM_BEAT_LEASE_S": "0"})
    assert load_settings({"PBEM_KEEP_OUTBOX_DAYS": "0"}).keep_outbox_days == 0


def test_a_bounce_keeps_the_mails_it_names(any_cfg):
    """A bounce names the mail that reported it and the outbox row that bounced: the inbound row stays,
    its raw text emptied, and so does the outbox row (a delete of either failed on the foreign key)."""
    from pbem.services.identity import deliverability
    from pbem.services.upkeep.retention import prune
    from tests.mailtools import CMD, process

    iid, _ = process("ann@x.test", CMD, "REGISTER Ann")
    with unit_of_work() as s:
        oid = s.exec(select(Outbound.id).where(Outbound.to_addr == "ann@x.test")).first()
        deliverability.record(s, "ann@x.test", "soft", status="4.2.2", outbound_id=oid, inbound_id=iid)
    process("bob@x.test", CMD, "REGISTER Bob")
    _age(100)
    done = prune()
    assert (done.inbound_emptied, done.inbound_deleted) == (1, 1) and done.outbound_deleted >= 1
    with unit_of_work() as s:
        assert s.get(Inbound, iid).raw == b"" and s.get(Outbound, oid) is not None


def test_every_pick_and_delete_of_prune_uses_an_index(pg_cfg):
    """At some thousands of rows of history, with ANALYZE run and the planner free to choose, every
    statement prune runs reads the big tables by an index (its cost must not grow with what is stored):
    a pick is served by its index, oldest first; the mails emptied by earlier runs are not in the one
    retention reads; a delete of a mail finds the moves that point to it by theirs."""
    from pbem.bench.history import fill, plans
    from pbem.services.upkeep.retention import prune
    from pbem.store.db import get_engine

    config.set_settings(pg_cfg.with_(prune_max_s=3600.0, prune_max_rows=10 ** 7))  # one run does it all
    eng = get_engine()
    with eng.begin() as conn:
        fill(conn, games=20_000, emptied=6000, day=3000, recent=30_000, moves=200_000, now=utcnow())
    with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("ANALYZE")
    old = utcnow() - timedelta(days=90)
    kept = exists().where(Move.inbound_id == Inbound.id) | exists().where(Bounce.inbound_id == Inbound.id) | \
        exists().where(Confirmation.inbound_id == Inbound.id)
    day = (Inbound.status.in_(("done", "ignored")), Inbound.received_at < old, Inbound.raw != b"")
    emptied, deleted = _count(Inbound, *day, kept), _count(Inbound, *day, ~kept)
    assert emptied > 1000 and deleted > 500
    outbound = _count(Outbound, Outbound.created_at < old) - 4  # the bounced ones (fill: 1 per 1000 mails + 1)
    recent = _count(Inbound, Inbound.received_at >= old)

    with plans(eng) as got:
        done = prune()
    assert (done.inbound_emptied, done.inbound_deleted, done.outbound_deleted) == (emptied, deleted, outbound)
    assert done.notifications_deleted > 1000 and done.snapshots_deleted > 30
    assert _count(Inbound, *day) == 0 and _count(Inbound, Inbound.received_at >= old) == recent
    plan = "\n\n".join(got.values())
    for table in ("moves", "inbound", "outbound", "notifications", "snapshots", "games"):
        assert f"Seq Scan on {table} " not in plan + " ", plan
    for index in ("ix_inbound_unpruned", "ix_moves_inbound_id", "ix_outbound_status_created", "ix_outbound_bodies_kept",
                  "ix_notifications_status_created", "ix_games_status_updated", "ix_snapshots_game_id"):
        assert index in plan, index


def test_a_sent_mail_keeps_its_bodies_for_days_then_what_proves_it(sqlite_cfg):
    """A sent board mail is stored packed, and read back whole; after keep_mail_bodies_days its text and
    HTML go and what proves it stays: recipient, subject, headers, the Message-ID that names its game and
    ply, its drawing's view key and the SHA-256 of the bodies, which the outbox page shows in their place."""
    from pbem.services.core import notify
    from pbem.services.core import games as core_games
    from pbem.services.upkeep.retention import prune
    from pbem.store.models import body_digest
    from tests.web.conftest import make_user
    from tests.web.test_secrecy import _app_for, _game

    browser = _app_for(sqlite_cfg)
    a, b = make_user("ann@example.org", "Ann"), make_user("ben@example.org", "Ben")
    gid = _game(a, "squire", [b])
    with unit_of_work() as s:
        notify.queue_boards(s, core_games.get(s, gid), "The game has started.")
    with unit_of_work() as s:
        row = s.exec(select(Outbound).where(Outbound.to_addr == "ann@example.org", Outbound.kind == "board")
                     .order_by(Outbound.id.desc())).first()
        text, html, headers, mid = row.body_text, row.body_html, dict(row.headers), row.message_id
        assert "Ann" in text and html.startswith("<") and row.body_sha256 == body_digest(text, html)
        stored = s.connection().exec_driver_sql("SELECT length(body_text) + length(body_html) FROM outbound "
                                                "WHERE id = ?", (row.id,)).scalar()
        assert stored * 3 < len(text.encode()) + len(html.encode())  # packed: a third or less
        row_id = row.id
    _age(20)
    assert prune().bodies_dropped >= 2  # Ann's and Ben's, and any other sent mail
    assert prune().bodies_dropped == 0  # once is enough: the rows left the index retention reads
    with unit_of_work() as s:
        row = s.get(Outbound, row_id)
        assert (row.body_text, row.body_html, row.body_sha256) == ("", None, body_digest(text, html))
        assert row.headers == headers and row.message_id == mid and f".{gid}.0." in mid
        assert row.bodies_dropped_at is not None and row.status == "sent"
    page = browser(a).get(f"/outbox/{row_id}").get_data(as_text=True)
    assert body_digest(text, html) in page and "no longer kept" in page and "<iframe" not in page
    _age(100)
    assert prune().outbound_deleted >= 2  # the row itself goes at keep_outbox_days, as before


def test_a_backlog_is_pruned_in_bounded_runs_each_going_on_where_the_last_stopped(sqlite_cfg):
    """Months of rows at once (the first run after an upgrade): each run does at most prune_max_rows rows,
    in batches of their own short transactions, says that it stopped (``more``), and the next goes on from
    the oldest left, until none is; a run out of time stops the same way."""
    from sqlalchemy import insert

    from pbem.services.upkeep.retention import prune

    config.set_settings(sqlite_cfg.with_(prune_batch=40, prune_max_rows=300))
    now = utcnow()
    rows = [dict(message_id=f"<m{i}@x>", to_addr="ann@x.test", subject="s", body_text="board " * 200,
                 body_html=None, headers={}, kind="board", status="sent", attempts=1, next_attempt_at=now,
                 created_at=now - timedelta(days=100 if i < 250 else 20, minutes=i)) for i in range(700)]
    with unit_of_work() as s:
        s.execute(insert(Outbound), rows)
    runs = []
    while True:
        done = prune()
        runs.append((done.outbound_deleted, done.bodies_dropped, done.more))
        if not done.more:
            break
        assert done.outbound_deleted + done.bodies_dropped == 300
    assert runs == [(250, 50, True), (0, 300, True), (0, 100, False)]
    assert _count(Outbound) == 450 and _count(Outbound, Outbound.bodies_dropped_at.is_(None)) == 0
    config.set_settings(sqlite_cfg.with_(prune_max_s=1e-9))
    assert prune().more  # out of time before its first batch: the next run does it
