"""Deadlines: each human seat to move has a clock (services/core/clocks.py); a periodic
sweep (Celery beat, reading the database: services/upkeep/sweep.py) reminds at 24 h and 4 h,
tells the table who is late and applies the game's no-move policy. Every function takes
``now``: the task passes the real time, tests drive the clock."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import bindparam, exists, or_, update
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _, lazy_gettext, lazy_ngettext
from pbem.store import memo
from pbem.store.models import AuditLog, Game, Seat, SweepState

from ..core import clocks, games, lang, notices, notify, reliability, seating
from ..core.clocks import LATE, REMINDERS, aware, clock_due
from . import bots

log = logging.getLogger("pbem.deadlines")

MAX_BOT_MOVES_PER_SWEEP = 200  # a chain of bot seats still ends within one sweep
AGAIN = timedelta(minutes=1)  # a bot's owed move not played yet: asked again this much later
LATER = timedelta(hours=1)  # a seat on vacation, a paused game, a game the sweep failed on: looked at again
OUTAGE_BATCH = 500  # games extended per transaction after an outage


# ---------------------------------------------------------------- after an outage


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
            # the hours are written with a decimal ("2.5", "1.0"), which reads as a plural in every language
            # (as 2 does: "2,5 часа"), so the form is 2's
            s.add_all(notices.post(game_id=gid, value=lazy_ngettext(
                "pbem was unavailable for about %(num)s hour; every deadline in this game has been extended by "
                "that much.",
                "pbem was unavailable for about %(num)s hours; every deadline in this game has been extended by "
                "that much.", 2, num=f"{hours:.1f}")) for gid in ids)
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


def sweep_game(s: Session, game_id: int, now: datetime) -> dict:
    """One game's deadlines at ``now``. Returns what it did; under "owed", the
    bot moves it leaves to :func:`sweep_one` -- [(seat, why: "holds", "late"
    or "abandoned", bots.why)] -- since a searching bot must not think
    while the game is locked. Every seat leaves with the time the sweep must
    look at it again (seats.due_at; None: not until its clock changes)."""
    done = {"reminders": 0, "late": 0, "bot_moves": 0, "abandoned": 0, "owed": []}
    g = games.get(s, game_id, lock=True)
    if g.status != "running" or g.paused:
        # a game that ended has no clock; a paused one is looked at again later (its end sets the clocks anew)
        again = None if g.status != "running" else now + LATER
        for seat in seating.seats(s, g.id):
            if seat.due_at is not None:
                seat.due_at = again
                s.add(seat)
        return done
    grace = timedelta(minutes=settings().deadline_grace_minutes)
    engine = games.engine_for(g)
    to_move = engine.to_move(games.state_at(s, g))
    for seat in seating.seats(s, g.id):
        due = _sweep_seat(s, g, seat, seat.seat in to_move, now, grace, done)
        if aware(seat.due_at) != due:
            seat.due_at = due
            s.add(seat)
    return done


def _sweep_seat(s: Session, g: Game, seat: Seat, moves: bool, now: datetime, grace: timedelta,
                done: dict) -> datetime | None:
    """What one seat (``moves``: to move) is owed at ``now``: a reminder, the late notice and the policy,
    a bot's move. Returns when the sweep must look at it again."""
    if not moves:
        return None
    if seat.is_bot:
        done["owed"].append((seat.seat, "holds"))
        return now + AGAIN  # asked again should its move be lost
    if seat.deadline_at is None:
        clocks.start_clock(s, g, seat, now)
        return seat.due_at
    if clocks.on_vacation(s, g, seat, now):
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
    seat.missed += 1
    s.add(seat)
    reliability.count(s, seat.user_id, "turns_late")  # once per deadline: below, it is marked late or renewed
    done["late"] += 1
    who = seating.names(s, g.id)[seat.seat]
    ply, missed = g.ply, seat.missed
    late = clocks.late_text(who, ply, missed)
    if g.policy == "bot":
        seat.reminded = LATE  # told once; the sweep plays the stand-in's move (and again if it was lost)
        s.add(seat)
        return seat.seat, "late"
    if g.policy == "abandon" and seat.missed >= g.abandon_after:
        seating._close(s, g, seat, "abandoned")
        seating._open(s, g, seat)  # a bot plays it, open to a replacement; its old reply address dies
        seat.abandoned = True
        s.add(seat)
        reliability.count(s, seat.user_id, "games_left")
        s.add(AuditLog(game_id=g.id, action="seat_abandoned",
                       detail=f"seat {seat.seat + 1} ({who}) after {seat.missed} missed deadlines"))
        done["abandoned"] += 1
        s.add(notices.post(game_id=g.id, value=lazy_gettext(
            "%(late)s The seat is abandoned: a bot plays it until a replacement takes it (REPLACE %(id)d %(seat)d).",
            late=late, id=g.id, seat=seat.seat + 1)))
        return seat.seat, "abandoned"
    if g.policy == "abandon":
        clocks.start_clock(s, g, seat, now)  # a new full deadline for the next attempt
        after = g.abandon_after
        text = lambda: _("%(late)s After %(count)d the seat is abandoned; a new deadline runs now.",  # noqa: E731
                         late=lang.text(late), count=after)
    else:
        seat.reminded = LATE
        s.add(seat)
        text = lambda: _("%(late)s The game waits for %(who)s or for an admin.",  # noqa: E731
                         late=lang.text(late), who=who)
    s.add(notices.post(game_id=g.id, value=text))
    notify.queue_notice(s, g, lazy_gettext("late: %(who)s", who=who), text)
    return None


# the game's row, locked, unless another sweep holds it (PostgreSQL's SKIP LOCKED; SQLite has one
# writer at a time and no FOR UPDATE)
_CLAIM = select(Game.id).where(Game.id == bindparam("game_id")).with_for_update(of=Game, skip_locked=True)
# whether a seat of the game is still due: asked in a statement of its own once the row is locked, since
# a statement sees what was committed when it began, and the lock may have been waited out past a sweep
# that committed its new due times meanwhile (one statement would still see the seat due)
_STILL_DUE = select(exists().where(Seat.game_id == bindparam("game_id"), Seat.due_at <= bindparam("now")))


def claim(s: Session, gid: int, now: datetime, *, due: bool = True) -> bool:
    """Whether this transaction takes the due game ``gid`` for its sweep: it locks the game's row, unless
    another sweep holds it (that one sweeps it), and (``due``) the game still has a seat due at ``now``
    (else another sweep has just swept it: every seat it swept is due later). Several sweeps walking the
    same due games so share them, and none sweeps a game twice."""
    if s.exec(_CLAIM, params={"game_id": gid}).first() is None:
        return False
    if due and not s.exec(_STILL_DUE, params={"game_id": gid, "now": now}).one():
        return False
    s.info.setdefault(memo.LOCKED, set()).add(gid)  # sweep_game's lock is this one
    return True


def sweep_one(gid: int, now: datetime, total: dict) -> None:
    """One due game, if this sweep claims it (:func:`claim`): its deadlines, then the bot moves they owe,
    played with no lock held (or handed to the bot workers). A game the sweep fails on is looked at
    again after LATER."""
    from pbem.store.db import unit_of_work

    try:
        for _round in range(MAX_BOT_MOVES_PER_SWEEP):
            with unit_of_work() as s:
                # after a bot's move, the game may be due again and another sweep may have taken it
                # meanwhile: it carries on, this one stops
                if not claim(s, gid, now, due=_round == 0):
                    return
                done = sweep_game(s, gid, now)
            owed = done.pop("owed")
            for k, v in done.items():
                total[k] += v
            if not owed:
                break
            if settings().bot_queue:  # the bot workers play them (the sweep asks again if one is lost)
                for seat, why in owed:
                    bots.enqueue_stand_in(gid, seat, why)
                break
            # the bot thinks with no lock held and plays in its own transaction; then the game is
            # swept again (the position changed: the next seat may be a bot, or late too)
            if not any(bots.stand_in(gid, seat, why, now) is not None for seat, why in owed):
                break
            total["bot_moves"] += 1
        total["games"] += 1
    except Exception:
        log.exception("deadline sweep failed for game %s", gid)
        with unit_of_work() as s:
            s.exec(update(Seat).where(Seat.game_id == gid, Seat.due_at <= now).values(due_at=now + LATER)
                   .execution_options(synchronize_session=False))
