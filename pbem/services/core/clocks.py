"""Clocks: each human seat to move has a deadline, worked out from when its clock started, the
game's hours per move and day mask, the player's time zone and their vacation days. What the
deadline sweep does when a deadline comes near or passes is services/turns/deadlines.py's; every
function here that depends on the time takes ``now``."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import bindparam, event, update
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm.attributes import get_history, set_committed_value
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import lazy_ngettext
from pbem.store.models import AuditLog, Game, Seat, User, Vacation, utcnow

from . import games, seating

REMINDERS = ((1, timedelta(hours=24)), (2, timedelta(hours=4)))  # (stage, before the deadline)
LATE = 3  # a seat's ``reminded`` once the sweep has told the table it is late


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
    the sweep itself: services/turns/deadlines._sweep_seat)."""
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
    UPDATE on the transaction's connection (no ORM flush for them: this runs
    after every move),
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
    be lost (the sweep reads only what is due, so that its cost does not grow
    with the games stored)."""
    engine = games.engine_for(g)
    to_move = engine.to_move(state) if g.status == "running" else frozenset()
    clocks, dues = [], []
    for seat in seating.seats(s, g.id):
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
    for seat in seating.seats(s, g.id):
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


def late_text(who: str, ply: int, missed: int):
    """What the table is told of a seat that missed its deadline (the sweep's notice, the stand-in
    bot's board mails)."""
    return lazy_ngettext("%(who)s has missed the deadline at ply %(ply)d (%(num)d missed so far).",
                         "%(who)s has missed the deadline at ply %(ply)d (%(num)d missed so far).", missed, who=who,
                         ply=ply)
