"""Deadlines: each seat to move has a clock; a periodic sweep (Celery beat,
reading the database) reminds at 24 h and 4 h, tells the table who is late
and applies the game's no-move policy. Every function takes ``now``: the
task passes the real time, tests drive the clock."""
from __future__ import annotations

import logging
import os
import socket
import time as clock
import uuid
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import bindparam, event, or_, update
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm.attributes import get_history, set_committed_value
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _, lazy_gettext
from pbem.store import leases
from pbem.store.models import AuditLog, Game, Post, Seat, SweepState, User, Vacation, utcnow

from . import games

log = logging.getLogger("pbem.deadlines")

REMINDERS = ((1, timedelta(hours=24)), (2, timedelta(hours=4)))
LATE = 3
MAX_BOT_MOVES_PER_SWEEP = 200  # a chain of bot seats still ends within one sweep
# issue 27: the sweep reads only the seats due (seats.due_at), a batch of them at a time, each game in its
# own transaction; one sweep at a time (the lease "deadlines"), for at most SWEEP_BUDGET of its period
DUE_BATCH = 200
SWEEP_BUDGET = 0.8
AGAIN = timedelta(minutes=1)  # a bot's owed move not played yet: asked again this much later
LATER = timedelta(hours=1)  # a seat on vacation, a paused game, a game the sweep failed on: looked at again
OUTAGE_BATCH = 500  # games extended per transaction after an outage


def aware(dt: datetime | None) -> datetime | None:
    """Datetimes read back from SQLite may be naive; they are all UTC."""
    if dt is None or dt.tzinfo is not None:
        return dt
    return dt.replace(tzinfo=timezone.utc)


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def is_counted(day: date, day_mask: str, paused_days: set[date]) -> bool:
    if day in paused_days:
        return False
    return not (day_mask == "no-weekends" and day.weekday() >= 5)


def deadline_from(start: datetime, hours: int, *, day_mask: str = "", tz: str = "UTC",
                  paused_days: set[date] = frozenset()) -> datetime:
    """``hours`` of clock time from ``start``, counting only the player's local
    days that the day mask allows and that are not vacation days."""
    z = zone(tz)
    t = aware(start)
    left = timedelta(hours=hours)
    for _day in range(3660):  # at most ten years of skipped days
        if left <= timedelta(0):
            return t
        local = t.astimezone(z)
        midnight = datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=z).astimezone(timezone.utc)
        if is_counted(local.date(), day_mask, paused_days):
            step = min(left, midnight - t)
            t, left = t + step, left - step
        else:
            t = midnight
    return t


_VACATIONS = select(Vacation.game_id, Vacation.starts_on, Vacation.ends_on).where(  # built once: one per move
    Vacation.user_id == bindparam("user_id"))


def vacation_days(s: Session, game_id: int, user_id: int | None) -> set[date]:
    if user_id is None:
        return set()
    days: set[date] = set()
    # a Core select on the transaction's connection: no autoflush (pending seat changes do not affect
    # it: they flush later, together; a vacation is flushed when declared) and no ORM rows
    rows = s.connection().execute(_VACATIONS, {"user_id": user_id}).all()
    for v in rows:
        if v.game_id not in (None, game_id):
            continue
        d = v.starts_on
        while d <= v.ends_on:
            days.add(d)
            d += timedelta(days=1)
    return days


def _user(s: Session, seat: Seat) -> User | None:
    return s.get(User, seat.user_id) if seat.user_id else None


def compute_deadline(s: Session, g: Game, seat: Seat, started: datetime | None = None) -> datetime | None:
    """The deadline of a clock started at ``started`` (default: the seat's own)."""
    started = seat.clock_started_at if started is None else started
    if started is None:
        return None
    user = _user(s, seat)
    return deadline_from(started, g.deadline_hours, day_mask=g.day_mask,
                         tz=user.timezone if user else "UTC", paused_days=vacation_days(s, g.id, seat.user_id))


_SEATS = Seat.__table__
_SET_CLOCK = (update(_SEATS).where(_SEATS.c.id == bindparam("seat_id"))  # built once: after every move
              .values(**{k: bindparam(k, type_=_SEATS.c[k].type) for k in ("clock_started_at", "deadline_at",
                                                                          "reminded", "due_at")}))
_SET_DUE = (update(_SEATS).where(_SEATS.c.id == bindparam("seat_id"))
            .values(due_at=bindparam("due_at", type_=_SEATS.c.due_at.type)))


def clock_due(deadline: datetime | None, reminded: int) -> datetime | None:
    """When the sweep must next look at a human seat whose clock runs to ``deadline`` and that has had
    ``reminded`` of its reminders: the next reminder's time, or the deadline and its grace (then it is
    late); None without a clock or once told late (a late seat under the policy "bot" is asked again by
    the sweep itself: :func:`_sweep_seat`)."""
    if deadline is None or reminded >= LATE:
        return None
    deadline = aware(deadline)
    for stage, before in REMINDERS:
        if reminded < stage:
            return deadline - before
    return deadline + timedelta(minutes=settings().deadline_grace_minutes)


@event.listens_for(OrmSession, "before_flush")
def _keep_due(s, _context, _instances) -> None:
    """Every change of a seat's clock (its deadline, its reminders, a seat that a bot takes over) made
    through the ORM anywhere -- a game master's new deadline, a vacation, a pause's end, a replacement
    -- sets when the sweep must look at it next, unless the change set that itself."""
    for seat in (*s.new, *s.dirty):
        if not isinstance(seat, Seat):
            continue
        if seat in s.dirty and (get_history(seat, "due_at").has_changes() or not any(
                get_history(seat, k).has_changes() for k in ("deadline_at", "reminded", "is_bot"))):
            continue
        if seat in s.new and seat.due_at is not None:
            continue
        # a bot seat is looked at by the next deadline sweep (is it to move? it decides); a human one by
        # its clock
        seat.due_at = utcnow() if seat.is_bot else clock_due(seat.deadline_at, seat.reminded)


def _set_clocks(s: Session, clocks: list[tuple[Seat, datetime | None, datetime | None]]) -> None:
    """Seats' clocks (seat, started, deadline), written at once by one Core
    UPDATE on the transaction's connection (no ORM flush for them; issue 9),
    and the objects told what the rows now hold. A seat not yet in the
    database is set on the object."""
    params = []
    for seat, started, deadline in clocks:
        values = {"clock_started_at": started, "deadline_at": deadline, "reminded": 0,
                  "due_at": clock_due(deadline, 0)}
        if seat.id is None or seat not in s:
            for k, v in values.items():
                setattr(seat, k, v)
            s.add(seat)
            continue
        params.append({"seat_id": seat.id, **values})
        for k, v in values.items():
            set_committed_value(seat, k, v)
    if params:
        s.connection().execute(_SET_CLOCK, params)


def start_clock(s: Session, g: Game, seat: Seat, now: datetime) -> None:
    _set_clocks(s, [(seat, now, compute_deadline(s, g, seat, now))])


def refresh(s: Session, g: Game, state, now: datetime, moved: set[int] = frozenset()) -> None:
    """After the position changed: every human seat to move has a running
    clock (a fresh one if it just moved or was not to move); the others none.
    A bot seat to move is due to the sweep at once, should its worker's task
    be lost (issue 27: the sweep reads only what is due)."""
    engine = games.engine_for(g)
    to_move = engine.to_move(state) if g.status == "running" else frozenset()
    clocks, dues = [], []
    for seat in games.seats(s, g.id):
        if seat.seat in to_move and not seat.is_bot:
            if seat.deadline_at is None or seat.seat in moved:
                clocks.append((seat, now, compute_deadline(s, g, seat, now)))  # read before any seat changes
        elif seat.deadline_at is not None or seat.clock_started_at is not None:
            clocks.append((seat, None, None))  # its due time goes with it
            if seat.is_bot and seat.seat in to_move:  # a bot took it over
                dues.append((seat, now))
                continue
        if seat.is_bot and seat.seat in to_move:
            if seat.due_at is None or seat.seat in moved:
                dues.append((seat, now))
        elif seat.is_bot and seat.due_at is not None:
            dues.append((seat, None))
    _set_clocks(s, clocks)
    _set_due(s, dues)  # after the clocks: a bot's due time is its own


def _set_due(s: Session, dues: list[tuple[Seat, datetime | None]]) -> None:
    """Seats' due times, written by one Core UPDATE (as :func:`_set_clocks`)."""
    params = []
    for seat, due in dues:
        if seat.id is None or seat not in s:
            seat.due_at = due
            s.add(seat)
            continue
        params.append({"seat_id": seat.id, "due_at": due})
        set_committed_value(seat, "due_at", due)
    if params:
        s.connection().execute(_SET_DUE, params)


def recompute(s: Session, g: Game, seat: Seat) -> None:
    """After a vacation changed: the same clock, the new paused days."""
    if seat.clock_started_at is not None:
        seat.deadline_at = compute_deadline(s, g, seat)
        seat.reminded = 0
        s.add(seat)


def paused_since(s: Session, g: Game) -> datetime | None:
    """When the game's current pause began: the latest pause in its audit log (a dispute's or the
    game master's)."""
    row = s.exec(select(AuditLog.created_at).where(AuditLog.game_id == g.id,
                                                   AuditLog.action.in_(("pause", "game_paused")))
                 .order_by(AuditLog.id.desc())).first()
    return aware(row) if row is not None else None


def resume_clocks(s: Session, g: Game, now: datetime) -> None:
    """After a pause: each clock that ran is moved on by the time the pause took (no clock ran meanwhile,
    so nobody is late for it), and a seat to move without a clock gets a fresh one."""
    since = paused_since(s, g)
    gap = now - since if since is not None and since < now else timedelta(0)
    for seat in games.seats(s, g.id):
        if seat.deadline_at is None:
            continue
        if gap:
            seat.deadline_at = aware(seat.deadline_at) + gap
            if seat.clock_started_at is not None:
                seat.clock_started_at = aware(seat.clock_started_at) + gap
            seat.reminded = 0
        seat.due_at = clock_due(seat.deadline_at, seat.reminded)  # the sweep set it aside while paused
        s.add(seat)
    s.flush()
    refresh(s, g, games.state_at(s, g), now)


def on_vacation(s: Session, g: Game, seat: Seat, now: datetime) -> bool:
    user = _user(s, seat)
    today = aware(now).astimezone(zone(user.timezone if user else "UTC")).date()
    return today in vacation_days(s, g.id, seat.user_id)


# ---------------------------------------------------------------- the sweep


def extend_after_outage(now: datetime) -> timedelta:
    """Record this sweep; if the previous one is longer ago than the sweep gap
    (the service was down, or the clock jumped), push every running deadline
    back by the whole gap so no mass of forced moves follows. The extension
    goes game by game in batches of OUTAGE_BATCH games, each in its own short
    transaction, its progress kept in sweep_state (gap_from, gap_until,
    gap_cursor): a sweep that dies midway is continued by the next one, and
    no game is extended twice. Returns the gap (zero when none)."""
    from pbem.store.db import unit_of_work

    while True:
        with unit_of_work() as s:
            row = s.exec(select(SweepState).where(SweepState.name == "deadlines").with_for_update()).first()
            if row is None:
                s.add(SweepState(name="deadlines", last_run_at=now))
                return timedelta(0)
            unfinished = row.gap_from is not None  # a sweep died extending: finish that first, then look
            gap = timedelta(0)
            if not unfinished:
                last = aware(row.last_run_at)
                row.last_run_at = max(last, now)
                if now - last > timedelta(seconds=settings().sweep_gap_s):
                    gap = now - last
                    row.gap_from, row.gap_until, row.gap_cursor = last, now, 0
                    hours = gap.total_seconds() / 3600
                    s.add(AuditLog(action="outage_extension",
                                   detail=f"sweep gap of {hours:.1f} h: every running deadline extended"))
                    log.warning("deadline sweep gap %.1f h: extending every running deadline", hours)
                s.add(row)
        if not (unfinished or gap):
            return gap
        _extend_pending()
        if not unfinished:
            return gap


def _extend_pending() -> int:
    """Extend the games of the outage under way, if any, a batch at a time: the seats whose clock was
    running when the outage was found (started before its end: a clock started since is new) get the
    gap added, and each game a notice. Returns the number of games extended."""
    from pbem.store.db import unit_of_work

    extended = 0
    while True:
        with unit_of_work() as s:
            row = s.exec(select(SweepState).where(SweepState.name == "deadlines").with_for_update()).first()
            if row is None or row.gap_from is None:
                return extended
            since, until = aware(row.gap_from), aware(row.gap_until)
            gap = until - since
            running = (Seat.game_id > row.gap_cursor, Seat.deadline_at.is_not(None),
                       or_(Seat.clock_started_at.is_(None), Seat.clock_started_at < until))
            ids = list(s.exec(select(Seat.game_id).join(Game, Game.id == Seat.game_id)
                              .where(Game.status == "running", *running)
                              .group_by(Seat.game_id).order_by(Seat.game_id).limit(OUTAGE_BATCH)))
            if not ids:
                row.gap_from = row.gap_until = row.gap_cursor = None
                s.add(row)
                return extended
            _shift(s, ids, running[1:], gap)
            hours = gap.total_seconds() / 3600
            s.add_all(Post(game_id=gid, kind="notice", source="system",
                           body=f"pbem was unavailable for about {hours:.1f} hours; every deadline in this "
                                f"game has been extended by that much.") for gid in ids)
            row.gap_cursor = ids[-1]
            s.add(row)
            extended += len(ids)


def _shift(s: Session, ids: list[int], running: tuple, gap: timedelta) -> None:
    """The clocks of these games' seats that ran when the outage was found, moved on by ``gap``: one
    UPDATE on PostgreSQL; on SQLite (which keeps times as text) seat by seat."""
    if s.get_bind().dialect.name == "postgresql":
        s.exec(update(Seat).where(Seat.game_id.in_(ids), *running)
               .values(deadline_at=Seat.deadline_at + gap, clock_started_at=Seat.clock_started_at + gap,
                       due_at=Seat.due_at + gap)  # NULL stays NULL
               .execution_options(synchronize_session=False))
        return
    for seat in s.exec(select(Seat).where(Seat.game_id.in_(ids), *running)):
        seat.deadline_at = aware(seat.deadline_at) + gap
        if seat.clock_started_at is not None:
            seat.clock_started_at = aware(seat.clock_started_at) + gap
        if seat.due_at is not None:
            seat.due_at = aware(seat.due_at) + gap
        s.add(seat)


def late_text(who: str, ply: int, missed: int):
    return lazy_gettext("%(who)s has missed the deadline at ply %(ply)d (%(missed)d missed so far).", who=who,
                        ply=ply, missed=missed)


def sweep_game(s: Session, game_id: int, now: datetime) -> dict:
    """One game's deadlines at ``now``. Returns what it did; under "owed", the
    bot moves it leaves to :func:`run` -- [(seat, why: "holds", "late" or
    "abandoned", services/bots.why)] -- since a searching bot must not think
    while the game is locked. Every seat leaves with the time the sweep must
    look at it again (seats.due_at; None: not until its clock changes)."""
    done = {"reminders": 0, "late": 0, "bot_moves": 0, "abandoned": 0, "owed": []}
    g = games.get(s, game_id, lock=True)
    if g.status != "running" or g.paused:
        # a game that ended has no clock; a paused one is looked at again later (its end sets the clocks anew)
        again = None if g.status != "running" else now + LATER
        for seat in games.seats(s, g.id):
            if seat.due_at is not None:
                seat.due_at = again
                s.add(seat)
        return done
    grace = timedelta(minutes=settings().deadline_grace_minutes)
    engine = games.engine_for(g)
    to_move = engine.to_move(games.state_at(s, g))
    for seat in games.seats(s, g.id):
        due = _sweep_seat(s, g, seat, seat.seat in to_move, now, grace, done)
        if aware(seat.due_at) != due:
            seat.due_at = due
            s.add(seat)
    return done


def _sweep_seat(s: Session, g: Game, seat: Seat, moves: bool, now: datetime, grace: timedelta,
                done: dict) -> datetime | None:
    """What one seat (``moves``: to move) is owed at ``now``: a reminder, the late notice and the policy,
    a bot's move. Returns when the sweep must look at it again."""
    from . import notify

    if not moves:
        return None
    if seat.is_bot:
        done["owed"].append((seat.seat, "holds"))
        return now + AGAIN  # asked again should its move be lost
    if seat.deadline_at is None:
        start_clock(s, g, seat, now)
        return seat.due_at
    if on_vacation(s, g, seat, now):
        return now + LATER
    deadline = aware(seat.deadline_at)
    left = deadline - now
    if now > deadline + grace:
        if seat.reminded < LATE:
            owed = _late(s, g, seat, now, done)
            if owed:
                done["owed"].append(owed)
            if seat.is_bot or seat.reminded < LATE:  # abandoned to a bot, or a new clock (policy "abandon")
                return now + AGAIN if seat.is_bot else aware(seat.due_at)
        elif g.policy == "bot":  # told late already; its stand-in's move is still owed (lost, or outrun)
            done["owed"].append((seat.seat, "late"))
        return now + AGAIN if g.policy == "bot" else None  # "wait": nothing more until the player moves
    for stage, before in reversed(REMINDERS):
        if left <= before and seat.reminded < stage and left > timedelta(0):
            notify.queue_reminder(s, g, seat, deadline, now)
            seat.reminded = stage
            s.add(seat)
            done["reminders"] += 1
            break
    return clock_due(deadline, seat.reminded)


def _late(s: Session, g: Game, seat: Seat, now: datetime, done: dict) -> tuple | None:
    """The deadline (and grace) has passed: tell the table, apply the policy.
    Returns the bot move it owes -- (seat, why) -- or None."""
    from . import lang, notify, reliability

    seat.missed += 1
    s.add(seat)
    reliability.count(s, seat.user_id, "turns_late")  # once per deadline: below, it is marked late or renewed
    done["late"] += 1
    who = games.names(s, g.id)[seat.seat]
    ply, missed = g.ply, seat.missed
    late = late_text(who, ply, missed)
    if g.policy == "bot":
        seat.reminded = LATE  # told once; the sweep plays the stand-in's move (and again if it was lost)
        s.add(seat)
        return seat.seat, "late"
    if g.policy == "abandon" and seat.missed >= g.abandon_after:
        from .seats import _close, _open

        _close(s, g, seat, "abandoned")
        _open(s, g, seat)  # a bot plays it, open to a replacement; its old reply address dies
        seat.abandoned = True
        s.add(seat)
        reliability.count(s, seat.user_id, "games_left")
        s.add(AuditLog(game_id=g.id, action="seat_abandoned",
                       detail=f"seat {seat.seat + 1} ({who}) after {seat.missed} missed deadlines"))
        done["abandoned"] += 1
        s.add(Post(game_id=g.id, kind="notice", source="system",
                   body=f"{lang.english(late)} The seat is abandoned: a bot plays it until a replacement takes it "
                        f"(REPLACE {g.id} {seat.seat + 1})."))
        return seat.seat, "abandoned"
    if g.policy == "abandon":
        start_clock(s, g, seat, now)  # a new full deadline for the next attempt
        after = g.abandon_after
        text = lambda: _("%(late)s After %(count)d the seat is abandoned; a new deadline runs now.",  # noqa: E731
                         late=lang.text(late), count=after)
    else:
        seat.reminded = LATE
        s.add(seat)
        text = lambda: _("%(late)s The game waits for %(who)s or for an admin.",  # noqa: E731
                         late=lang.text(late), who=who)
    s.add(Post(game_id=g.id, kind="notice", source="system", body=lang.english(text)))
    notify.queue_notice(s, g, lazy_gettext("late: %(who)s", who=who), text)
    return None


def run(now: datetime, budget_s: float | None = None) -> dict:
    """The whole sweep: the outage check, then the games with a seat due
    (seats.due_at <= now, by its index: nothing else is read), oldest due
    first, a batch at a time, each game in its own transaction (one broken
    game never blocks the others), then the digests. One sweep at a time
    (the lease "deadlines"): a copy started while another runs returns at
    once. It stops after ``budget_s`` (default: SWEEP_BUDGET of its period),
    leaving what is still due to the next one."""
    from pbem.store.db import unit_of_work

    cfg = settings()
    total = {"reminders": 0, "late": 0, "bot_moves": 0, "abandoned": 0, "extended_s": 0, "games": 0}
    budget = cfg.deadlines_every_s * SWEEP_BUDGET if budget_s is None else budget_s
    holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    ttl = max(4 * cfg.deadlines_every_s, 120.0)
    if not leases.acquire("deadlines", holder, ttl):
        log.info("deadline sweep: another sweep runs; this one stops")
        return {**total, "skipped": 1}
    try:
        total["extended_s"] = int(extend_after_outage(now).total_seconds())
        started = clock.monotonic()
        seen: set[int] = set()
        while clock.monotonic() - started < budget:
            with unit_of_work() as s:
                due = s.exec(select(Seat.game_id).where(Seat.due_at <= now).order_by(Seat.due_at)
                             .limit(DUE_BATCH)).all()
            ids = [gid for gid in dict.fromkeys(due) if gid not in seen]
            if not ids:
                break
            seen.update(ids)
            for gid in ids:
                _sweep_one(gid, now, total)
            leases.acquire("deadlines", holder, ttl)
        total["digests"] = _digests(now, "mail")
        total["channel_digests"] = _digests(now, "channels")
    finally:
        leases.release("deadlines", holder)
    return total


def _sweep_one(gid: int, now: datetime, total: dict) -> None:
    """One due game: its deadlines, then the bot moves they owe, played with no lock held (or handed to
    the bot workers). A game the sweep fails on is looked at again after LATER."""
    from pbem.store.db import unit_of_work

    from . import bots as bot_service

    try:
        for _round in range(MAX_BOT_MOVES_PER_SWEEP):
            with unit_of_work() as s:
                done = sweep_game(s, gid, now)
            owed = done.pop("owed")
            for k, v in done.items():
                total[k] += v
            if not owed:
                break
            if settings().bot_queue:  # the bot workers play them (the sweep asks again if one is lost)
                for seat, why in owed:
                    bot_service.enqueue_stand_in(gid, seat, why)
                break
            # the bot thinks with no lock held and plays in its own transaction; then the game is
            # swept again (the position changed: the next seat may be a bot, or late too)
            if not any(bot_service.stand_in(gid, seat, why, now) is not None for seat, why in owed):
                break
            total["bot_moves"] += 1
        total["games"] += 1
    except Exception:
        log.exception("deadline sweep failed for game %s", gid)
        with unit_of_work() as s:
            s.exec(update(Seat).where(Seat.game_id == gid, Seat.due_at <= now).values(due_at=now + LATER)
                   .execution_options(synchronize_session=False))


def _digests(now: datetime, which: str) -> int:
    """The daily digests, mail or chat channels, in bounded batches of their own transactions."""
    try:
        if which == "mail":
            from . import messages

            return messages.send_all_digests(now)
        from . import channels

        return channels.send_all_digests(now)
    except Exception:
        log.exception("%s digest failed", which)
        return 0
