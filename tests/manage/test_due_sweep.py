"""The deadline sweep reads only what is due: every seat carries
when the sweep must next look at it (seats.due_at), kept by every change of
its clock wherever it is made; the sweep reads the due seats by their index,
a batch at a time, one sweep at a time; an outage's extension goes game by
game in batches and is continued, never repeated, after a crash; digests
read only the users due."""
from datetime import datetime, timedelta, timezone

from sqlalchemy import event
from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import accounts, clocks, games, moves, seating
from pbem.services.follow import messages, notifications
from pbem.services.lobby import seats, tables
from pbem.services.referee import master
from pbem.services.turns import deadlines, vacations
from pbem.services.upkeep import sweep
from pbem.store import leases
from pbem.store.db import get_engine, unit_of_work
from pbem.store.models import AuditLog, Post, Seat, SweepState, User, utcnow
from tests.manage.helpers import no_outage_check, running, seat_row

GRACE = timedelta(minutes=60)


def _expected(s, gid: int) -> dict[int, object]:
    """What each seat's due time must be, from the game as it stands."""
    g = games.get(s, gid)
    to_move = games.engine_for(g).to_move(games.state_at(s, g)) if g.status == "running" else frozenset()
    out = {}
    for seat in seating.seats(s, gid):
        if seat.seat not in to_move:
            out[seat.seat] = None
        elif seat.is_bot:
            out[seat.seat] = "set"
        else:
            out[seat.seat] = clocks.clock_due(seat.deadline_at, seat.reminded)
    return out


def _check(gid: int) -> None:
    with unit_of_work() as s:
        want = _expected(s, gid)
        got = {x.seat: clocks.aware(x.due_at) for x in seating.seats(s, gid)}
    for seat, due in want.items():
        if due == "set":
            assert got[seat] is not None, f"bot seat {seat} to move is not due"
        else:
            assert got[seat] == due, f"seat {seat}: due {got[seat]}, expected {due}"


def _play(gid, seat, text):
    with unit_of_work() as s:
        res = moves.submit_moves(s, gid, seat, [text], source="web")
    assert res.ok, res.error


def test_every_change_of_a_clock_keeps_the_seat_due_when_the_sweep_must_act(any_cfg):
    no_outage_check(any_cfg)
    gid, uids = running(players=2, seed=11, options={"hand": "3"}, policy="wait", deadline_hours=48)
    engine = get_game("mini")
    _check(gid)
    with unit_of_work() as s:
        state = games.state_at(s, games.get(s, gid))
    mover = next(iter(engine.to_move(state)))
    _play(gid, mover, f"play {state.hands[mover][0]}")
    _check(gid)
    with unit_of_work() as s:  # a game master's new deadline
        admin = s.get(User, uids[2])
        master.set_deadline(s, admin, games.get(s, gid), "+24h")
    _check(gid)
    with unit_of_work() as s:  # a vacation moves the deadline on
        g = games.get(s, gid)
        for seat in seating.seats(s, gid):
            today = utcnow().date()
            vacations.declare(s, s.get(User, seat.user_id), g, today + timedelta(days=1), today + timedelta(days=2),
                              today=today)
    _check(gid)
    with unit_of_work() as s:  # a pause, and its end
        master.pause(s, s.get(User, uids[2]), games.get(s, gid))
    with unit_of_work() as s:
        master.resume(s, s.get(User, uids[2]), games.get(s, gid))
    _check(gid)
    # the reminders and the late notice: after each, due at the next thing to do, then never (policy "wait")
    deadline = clocks.aware(seat_row(gid, 1 - mover).deadline_at)
    for at in (deadline - timedelta(hours=23), deadline - timedelta(hours=3), deadline + GRACE + timedelta(seconds=1)):
        sweep.run(at)
        _check(gid)
    assert seat_row(gid, 1 - mover).reminded == clocks.LATE and seat_row(gid, 1 - mover).due_at is None
    # the seat is opened to a replacement: a bot plays it, due at once
    with unit_of_work() as s:
        seats.resign(s, s.get(User, uids[1 - mover]), gid)
    _check(gid)


def test_a_sweep_with_nothing_due_costs_the_same_for_3_or_30_running_games(any_cfg):
    no_outage_check(any_cfg)
    counts = []
    made = 0
    for n in (3, 30):
        while made < n:
            _game(made, policy="bot")
            made += 1
        now = utcnow()  # every deadline is two days ahead: no reminder is due yet
        sweep.run(now)
        statements = []
        listen = lambda *a, **k: statements.append(a[2])  # noqa: E731
        event.listen(get_engine(), "before_cursor_execute", listen)
        try:
            done = sweep.run(now)
        finally:
            event.remove(get_engine(), "before_cursor_execute", listen)
        assert done["games"] == 0 and done["reminders"] == 0
        counts.append(len(statements))
        assert not any("FROM games" in q and "status" in q for q in statements), statements
    assert counts[0] == counts[1], counts


def test_the_due_games_are_swept_a_batch_at_a_time_until_none_is_due(sqlite_cfg, monkeypatch):
    no_outage_check(sqlite_cfg)
    monkeypatch.setattr(sweep, "DUE_BATCH", 2)
    gids = [_game(i, deadline_hours=24) for i in range(5)]
    at = max(_deadline(gid) for gid in gids) - timedelta(hours=3)  # every seat to move owes its 4 h reminder
    done = sweep.run(at)
    assert done["games"] == 5 and done["reminders"] == 5
    assert sweep.run(at)["games"] == 0  # each is due next at its deadline and grace
    # a sweep out of time leaves the rest to the next one, oldest due first
    late = max(_deadline(gid) for gid in gids) + GRACE + timedelta(minutes=1)
    assert sweep.run(late, budget_s=0)["games"] == 0
    assert sweep.run(late)["late"] == 5


def test_one_sweep_at_a_time(sqlite_cfg):
    no_outage_check(sqlite_cfg)
    gid, _ = running(players=2, policy="wait", deadline_hours=24)
    deadline = clocks.aware(seat_row(gid, 0).deadline_at or seat_row(gid, 1).deadline_at)
    assert leases.acquire("deadlines", "another sweep", 300)
    done = sweep.run(deadline - timedelta(hours=3))
    assert done.get("skipped") == 1 and done["reminders"] == 0
    leases.release("deadlines", "another sweep")
    assert sweep.run(deadline - timedelta(hours=3))["reminders"] >= 1


def test_an_outage_extends_game_by_game_and_a_dead_sweep_is_continued_not_repeated(any_cfg, monkeypatch):
    cfg = any_cfg.with_(sweep_gap_s=600)
    from pbem import config

    config.set_settings(cfg)
    monkeypatch.setattr(deadlines, "OUTAGE_BATCH", 2)
    gids = [_game(i, deadline_hours=24) for i in range(5)]
    before = {gid: {x.seat: clocks.aware(x.deadline_at) for x in _seats(gid)} for gid in gids}
    t0 = utcnow()
    sweep.run(t0)
    # a sweep found a 3-hour gap and died after extending the first two games: the state it left
    gap = timedelta(hours=3)
    with unit_of_work() as s:
        row = s.get(SweepState, "deadlines")
        row.gap_from, row.gap_until, row.gap_cursor = t0, t0 + gap, gids[1]
        row.last_run_at = t0 + gap
        s.add(row)
        for seat in s.exec(select(Seat).where(Seat.game_id.in_(gids[:2]), Seat.deadline_at.is_not(None))):
            seat.deadline_at = clocks.aware(seat.deadline_at) + gap
            s.add(seat)
    done = sweep.run(t0 + gap + timedelta(seconds=30))
    assert done["extended_s"] == 0  # no new gap: the one under way is finished
    for gid in gids:
        for seat in _seats(gid):
            if before[gid][seat.seat] is not None:
                assert clocks.aware(seat.deadline_at) == before[gid][seat.seat] + gap, (gid, seat.seat)
    with unit_of_work() as s:
        row = s.get(SweepState, "deadlines")
        assert row.gap_from is None and row.gap_cursor is None
        notices = [p.game_id for p in s.exec(select(Post).where(Post.body.contains("was unavailable")))]
    assert sorted(notices) == gids[2:]
    # a whole outage, found by the sweep itself: every game once, in batches of two
    later = t0 + gap + timedelta(days=1)
    done = sweep.run(later)
    assert done["extended_s"] > 600
    with unit_of_work() as s:
        notices = [p.game_id for p in s.exec(select(Post).where(Post.body.contains("was unavailable")))]
        assert s.exec(select(AuditLog).where(AuditLog.action == "outage_extension")).first() is not None
    assert sorted(notices) == sorted(gids[2:] + gids)


def _game(i: int, **kw) -> int:
    """A running two-player game of its own players."""
    with unit_of_work() as s:
        us = [accounts.register(s, f"g{i}-{k}@x.test", f"Player {i}-{k}", confirmed=True)[0] for k in range(2)]
        g = tables.create(s, us[0], "mini", 2, {"hand": "3"}, seed=i, **kw)
        tables.join(s, us[1], g.id)
        return g.id


def _deadline(gid: int) -> datetime:
    return min(clocks.aware(x.deadline_at) for x in _seats(gid) if x.deadline_at is not None)


def _seats(gid: int) -> list[Seat]:
    with unit_of_work() as s:
        return list(seating.seats(s, gid))


def test_a_digest_is_due_at_the_users_hour_and_only_the_due_users_are_read(sqlite_cfg):
    no_outage_check(sqlite_cfg)
    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        assert ann.digest_due_at is None  # mail at every move: no digest
        ann.notify, ann.timezone, ann.digest_hour = "digest", "Europe/Rome", 8
        bob.notify = "digest"
        s.add_all([ann, bob])
    with unit_of_work() as s:
        ann, bob = s.get(User, ann.id), s.get(User, bob.id)
        assert clocks.aware(ann.digest_due_at) == notifications.EARLIEST  # looked at until the first one
        sent = datetime(2026, 11, 28, 7, 0, 30, tzinfo=timezone.utc)  # 08:00:30 in Rome
        ann.digest_sent_at = bob.digest_sent_at = sent
        s.add_all([ann, bob])
    with unit_of_work() as s:
        ann, bob = s.get(User, ann.id), s.get(User, bob.id)
        assert clocks.aware(ann.digest_due_at) == datetime(2026, 11, 29, 7, 0, tzinfo=timezone.utc)
        assert clocks.aware(bob.digest_due_at) == sent + timedelta(days=1)
        for user, due in ((ann, ann.digest_due_at), (bob, bob.digest_due_at)):
            at = clocks.aware(due)
            assert notifications.digest_due(user, sent, at) and not notifications.digest_due(user, sent, at - timedelta(seconds=1))
    # a sweep before either is due reads no user; at Ann's hour, Ann's is sent (its due time moves a day on)
    assert messages.send_all_digests(sent + timedelta(hours=23, minutes=59)) == 0
    assert messages.send_all_digests(datetime(2026, 11, 29, 7, 0, tzinfo=timezone.utc)) == 0  # no game: no mail
    with unit_of_work() as s:
        ann = s.get(User, ann.id)
        assert clocks.aware(ann.digest_due_at) == datetime(2026, 11, 30, 7, 0, tzinfo=timezone.utc)
        assert clocks.aware(s.get(User, bob.id).digest_due_at) == sent + timedelta(days=1)
        ann.notify = "every"
        s.add(ann)
    with unit_of_work() as s:
        assert s.get(User, ann.id).digest_due_at is None


def test_only_a_bot_seat_to_move_is_played_again_by_the_sweep(sqlite_cfg):
    """A bot's move whose task was lost is played by the deadline sweep, which reads the bot seats due;
    a bot seat not to move is set aside and never read again until the position changes."""
    no_outage_check(sqlite_cfg)
    now = utcnow()
    idle, owed = _game(1, policy="wait"), _game(2, policy="wait")
    with unit_of_work() as s:  # a bot takes the seat that is not to move in one, the seat to move in the other
        for gid, moving in ((idle, False), (owed, True)):
            g = games.get(s, gid)
            to_move = games.engine_for(g).to_move(games.state_at(s, g))
            seat = next(x for x in seating.seats(s, gid) if (x.seat in to_move) == moving)
            seats.resign(s, s.get(User, seat.user_id), gid)
            ply = g.ply
    done = sweep.run(now + timedelta(minutes=2))  # the workers had no task: the sweep plays it
    assert done["bot_moves"] >= 1 and done["games"] == 2
    with unit_of_work() as s:
        assert games.get(s, owed).ply > ply
    _check(idle)
    _check(owed)
    assert seat_row(idle, next(x.seat for x in _seats(idle) if x.is_bot)).due_at is None


def test_two_sweeps_at_once_share_the_due_games_and_sweep_each_once(pg_cfg):
    """On PostgreSQL the sweep's helpers (PBEM_DEADLINE_SWEEPERS) walk the same due games at once: each
    game is claimed by one of them (its row locked, SKIP LOCKED, and still due), so each seat gets its
    reminder once and each late seat's stand-in plays once: no move is applied twice."""
    from sqlalchemy import func

    from tests.concurrency import at_once

    from pbem.store.models import Move, Outbound

    no_outage_check(pg_cfg)
    gids = [_game(i, deadline_hours=24, policy="bot") for i in range(10)]

    def two_sweeps(at) -> list[dict]:
        results = at_once(lambda: sweep.run_part(at, budget_s=600), timeout=600)
        assert len(results) == 2
        return results

    with unit_of_work() as s:
        mails, moves_before = (s.exec(select(func.count()).select_from(m)).one() for m in (Outbound, Move))
    # each seat to move owes its 4 h reminder: ten games due, each swept by one sweeper, one mail each
    got = two_sweeps(max(_deadline(gid) for gid in gids) - timedelta(hours=3))
    assert sum(r["games"] for r in got) == 10 and sum(r["reminders"] for r in got) == 10
    with unit_of_work() as s:
        assert s.exec(select(func.count()).select_from(Outbound)).one() - mails == 10
    # then every one is late: the stand-ins play (and the seats after them, whose new clocks the sweep's
    # time has passed too, until each game ends or stops); never two moves at one ply
    late = max(_deadline(gid) for gid in gids) + GRACE + timedelta(minutes=1)
    got = two_sweeps(late)
    assert sum(r["games"] for r in got) >= 10
    with unit_of_work() as s:
        assert s.exec(select(func.count()).select_from(Move)).one() - moves_before == \
            sum(r["bot_moves"] for r in got) >= 10
        assert s.exec(select(Move.game_id, Move.ply).group_by(Move.game_id, Move.ply)
                      .having(func.count() > 1)).all() == []
