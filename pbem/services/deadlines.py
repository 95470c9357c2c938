"""Deadlines: each seat to move has a clock; a periodic sweep (Celery beat,
reading the database) reminds at 24 h and 4 h, tells the table who is late
and applies the game's no-move policy. Every function takes ``now``: the
task passes the real time, tests drive the clock."""
from __future__ import annotations

import logging
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import bindparam, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _, lazy_gettext
from pbem.store.models import AuditLog, Game, Post, Seat, SweepState, User, Vacation

from . import games

log = logging.getLogger("pbem.deadlines")

REMINDERS = ((1, timedelta(hours=24)), (2, timedelta(hours=4)))
LATE = 3
MAX_BOT_MOVES_PER_SWEEP = 200  # a chain of bot seats still ends within one sweep


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
                                                                          "reminded")}))


def _set_clocks(s: Session, clocks: list[tuple[Seat, datetime | None, datetime | None]]) -> None:
    """Seats' clocks (seat, started, deadline), written at once by one Core
    UPDATE on the transaction's connection (no ORM flush for them; issue 9),
    and the objects told what the rows now hold. A seat not yet in the
    database is set on the object."""
    params = []
    for seat, started, deadline in clocks:
        values = {"clock_started_at": started, "deadline_at": deadline, "reminded": 0}
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
    clock (a fresh one if it just moved or was not to move); the others none."""
    engine = games.engine_for(g)
    to_move = engine.to_move(state) if g.status == "running" else frozenset()
    clocks = []
    for seat in games.seats(s, g.id):
        if seat.seat in to_move and not seat.is_bot:
            if seat.deadline_at is None or seat.seat in moved:
                clocks.append((seat, now, compute_deadline(s, g, seat, now)))  # read before any seat changes
        elif seat.deadline_at is not None or seat.clock_started_at is not None:
            clocks.append((seat, None, None))
    _set_clocks(s, clocks)


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
        if seat.deadline_at is None or not gap:
            continue
        seat.deadline_at = aware(seat.deadline_at) + gap
        if seat.clock_started_at is not None:
            seat.clock_started_at = aware(seat.clock_started_at) + gap
        seat.reminded = 0
        s.add(seat)
    s.flush()
    refresh(s, g, games.state_at(s, g), now)


def on_vacation(s: Session, g: Game, seat: Seat, now: datetime) -> bool:
    user = _user(s, seat)
    today = aware(now).astimezone(zone(user.timezone if user else "UTC")).date()
    return today in vacation_days(s, g.id, seat.user_id)


# ---------------------------------------------------------------- the sweep


def extend_after_outage(s: Session, now: datetime) -> timedelta:
    """Record this sweep; if the previous one is longer ago than the sweep gap
    (the service was down, or the clock jumped), push every running deadline
    back by the whole gap so no mass of forced moves follows."""
    row = s.exec(select(SweepState).where(SweepState.name == "deadlines").with_for_update()).first()
    if row is None:
        s.add(SweepState(name="deadlines", last_run_at=now))
        s.flush()
        return timedelta(0)
    last = aware(row.last_run_at)
    gap = now - last
    row.last_run_at = max(last, now)
    s.add(row)
    if gap <= timedelta(seconds=settings().sweep_gap_s):
        return timedelta(0)
    running = select(Seat).join(Game, Game.id == Seat.game_id).where(
        Game.status == "running", Seat.deadline_at.is_not(None))
    touched: set[int] = set()
    for seat in s.exec(running):
        seat.deadline_at = aware(seat.deadline_at) + gap
        if seat.clock_started_at is not None:
            seat.clock_started_at = aware(seat.clock_started_at) + gap
        s.add(seat)
        touched.add(seat.game_id)
    hours = gap.total_seconds() / 3600
    s.add(AuditLog(action="outage_extension", detail=f"sweep gap of {hours:.1f} h: {len(touched)} game(s) extended"))
    for gid in sorted(touched):
        s.add(Post(game_id=gid, kind="notice", source="system",
                   body=f"pbem was unavailable for about {hours:.1f} hours; every deadline in this game "
                        f"has been extended by that much."))
    s.flush()
    log.warning("deadline sweep gap %.1f h: extended %d game(s)", hours, len(touched))
    return gap


def late_text(who: str, ply: int, missed: int):
    return lazy_gettext("%(who)s has missed the deadline at ply %(ply)d (%(missed)d missed so far).", who=who,
                        ply=ply, missed=missed)


def sweep_game(s: Session, game_id: int, now: datetime) -> dict:
    """One game's deadlines at ``now``. Returns what it did; under "owed", the
    bot moves it leaves to :func:`run` -- [(seat, why: "holds", "late" or
    "abandoned", services/bots.why)] -- since a searching bot must not think
    while the game is locked."""
    from . import notify

    done = {"reminders": 0, "late": 0, "bot_moves": 0, "abandoned": 0, "owed": []}
    g = games.get(s, game_id, lock=True)
    if g.status != "running" or g.paused:
        return done
    grace = timedelta(minutes=settings().deadline_grace_minutes)
    engine = games.engine_for(g)
    to_move = engine.to_move(games.state_at(s, g))
    for seat in games.seats(s, g.id):
        if seat.seat not in to_move:
            continue
        if seat.is_bot:
            done["owed"].append((seat.seat, "holds"))
            continue
        if seat.deadline_at is None:
            start_clock(s, g, seat, now)
            continue
        if on_vacation(s, g, seat, now):
            continue
        deadline = aware(seat.deadline_at)
        left = deadline - now
        if now > deadline + grace:
            if seat.reminded < LATE:
                owed = _late(s, g, seat, now, done)
                if owed:
                    done["owed"].append(owed)
            elif g.policy == "bot":  # told late already; its stand-in's move is still owed (lost, or outrun)
                done["owed"].append((seat.seat, "late"))
            continue
        for stage, before in reversed(REMINDERS):
            if left <= before and seat.reminded < stage and left > timedelta(0):
                notify.queue_reminder(s, g, seat, deadline, now)
                seat.reminded = stage
                s.add(seat)
                done["reminders"] += 1
                break
    return done


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


def run(now: datetime) -> dict:
    """The whole sweep: outage check, then each running game in its own
    transaction (one broken game never blocks the others)."""
    from pbem.store.db import unit_of_work

    total = {"reminders": 0, "late": 0, "bot_moves": 0, "abandoned": 0, "extended_s": 0, "games": 0}
    with unit_of_work() as s:
        total["extended_s"] = int(extend_after_outage(s, now).total_seconds())
        ids = list(s.exec(select(Game.id).where(Game.status == "running", Game.paused == False)  # noqa: E712
                          .order_by(Game.id)))
    from . import bots as bot_service

    for gid in ids:
        try:
            for _round in range(MAX_BOT_MOVES_PER_SWEEP):
                with unit_of_work() as s:
                    done = sweep_game(s, gid, now)
                owed = done.pop("owed")
                for k, v in done.items():
                    total[k] += v
                if not owed:
                    break
                if settings().bot_queue:  # the bot workers play them (the next sweep asks again if one is lost)
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
    try:
        from . import messages

        with unit_of_work() as s:
            total["digests"] = messages.send_digests(s, now)
    except Exception:
        log.exception("digest failed")
    try:
        from . import channels

        with unit_of_work() as s:
            total["channel_digests"] = channels.send_digests(s, now)
    except Exception:
        log.exception("chat channels' digest failed")
    return total
