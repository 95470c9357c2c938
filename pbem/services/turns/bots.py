"""Bot players in stored games: "add a bot to the next seat" and the bot's
turn. The bot itself is the engine's pure ``pbem.engine.bots.choose``; this
module only seats it and submits its moves through ``moves.submit_moves``
like any player (source "bot"), one move per transaction."""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Callable

from sqlmodel import Session, select

from pbem.engine import bots as engine_bots
from pbem.i18n import _, lazy_gettext
from pbem.store.models import Game, Seat, User

from ..core import clocks, games, lang, lifecycle, moves, notify, seating, visibility
from ..core.errors import Forbidden, UserError

log = logging.getLogger("pbem.bots")

MAX_BOT_PLIES = 2000  # per call of play_bots; far above a whole game


def _bot_user(s: Session, game_id: int, seat: int) -> User:
    email = f"bot-{game_id}-{seat + 1}@{seating.BOT_DOMAIN}"
    user = s.exec(select(User).where(User.email == email)).first()
    if user is None:
        user = User(email=email, name=f"Bot {seat + 1}", confirmed=True, mail_format="text")
        s.add(user)
        s.flush()
    return user


def add_bot(s: Session, by: User, game_id: int, level: str | None = None) -> tuple[Game, Seat, bool]:
    """Seat a bot of ``level`` (None: the game's) in the next free seat of an
    open game (its creator only). Returns (game, seat, started): the game
    starts when it is full."""
    g = games.get(s, game_id, lock=True)
    if level is not None:
        level = games.check_level(level, f"BOT {g.id} strong")
    if g.creator_id != by.id and not by.is_admin:
        raise Forbidden(_("only the creator of game #%(id)d can add a bot to it", id=g.id), code="not_creator")
    if g.status != "open":
        raise UserError(_("game #%(id)d is not open (it is %(status)s); bots join open games only", id=g.id,
                          status=games.status_word(g.status)),
                        example="NEW spyrium players=3", code="not_open")
    taken = seating.seats(s, g.id)
    if len(taken) >= g.players:
        raise UserError(_("game #%(id)d has no free seat", id=g.id), example=f"START {g.id}", code="full")
    n = len(taken)
    bot, seated = _bot_user(s, g.id, n), {x.user_id for x in taken}
    k = n
    while bot.id in seated:  # a seat given up before the start moved the others up: "Bot 3" may sit in seat 2
        k += 1
        bot = _bot_user(s, g.id, k)
    seat = Seat(game_id=g.id, seat=n, user_id=bot.id, token=seating.new_token(), is_bot=True, bot_level=level)
    s.add(seat)
    s.flush()
    started = False
    if n + 1 >= g.players:
        lifecycle.start(s, g, by=None)
        started = True
    return g, seat, started


def has_bots(s: Session, game_id: int) -> bool:
    return any(x.is_bot for x in seating.seats(s, game_id))


def level_of(g: Game, seat: Seat | None) -> str:
    """How well the bot plays ``seat``: a bot seat's own level, else the
    game's (a late player's stand-in, a seat waiting for a replacement)."""
    if seat is not None and seat.is_bot and seat.bot_level:
        return seat.bot_level
    return g.bot_level or engine_bots.DEFAULT_LEVEL


def bot_seat_to_move(s: Session, g: Game) -> int | None:
    """The lowest bot seat that must act now, or None: a bot seated as such, or the bot that holds a
    seat its player left (resigned, abandoned, opened) until a replacement takes it -- each plays as
    soon as it is to move, so a table never waits on the sweep for a seat nobody will play."""
    if g.status != "running" or g.paused:
        return None
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    bots_ = {x.seat for x in seating.seats(s, g.id) if x.is_bot}
    waiting = sorted(bots_ & set(engine.to_move(state)))
    return waiting[0] if waiting else None


# ---------------------------------------------------------------- thinking outside the game's lock
#
# A searching bot thinks for up to seconds. It never does so while it holds the game's row: the
# position is read in one short transaction, the move is chosen with no transaction open, and a
# second short transaction plays it only if the game is still at the ply it was chosen for (a
# human's move in between wins; the bot thinks again). So nobody's move waits behind a bot.

#: the most one move may think, per level: the searches stop here whatever their budget
#: (a guard for an overloaded machine; the budgets themselves take a fraction of it, docs/bots.md)
THINK_LIMIT_S = {"easy": 2.0, "normal": 2.0, "strong": 10.0}


@dataclass(frozen=True)
class Job:
    game_id: int
    ply: int
    seat: int
    level: str
    seed: int


def seed_for(g: Game, seat: int) -> int:
    """The bot's seed for ``seat`` at the game's ply: a re-run plays the same move."""
    return int(hashlib.sha256(f"{g.seed}:{g.ply}:{seat}".encode()).hexdigest()[:15], 16)


def job_for(s: Session, g: Game, seat: int) -> tuple[Job, object]:
    """What the bot of ``seat`` must decide now, and the position (the full
    state: the engine's bot reads only the seat's view of it)."""
    row = next((x for x in seating.seats(s, g.id) if x.seat == seat), None)
    return Job(g.id, g.ply, seat, level_of(g, row), seed_for(g, seat)), games.state_at(s, g)


def think(engine, job: Job, state) -> str:
    """The bot's move, in notation (no transaction needed: pure engine)."""
    limit = time.perf_counter() + THINK_LIMIT_S.get(job.level, 2.0)
    move = engine_bots.choose(engine, state, job.seat, job.seed, job.level,
                              stop=lambda: time.perf_counter() > limit)
    if time.perf_counter() > limit:
        log.warning("bot of game %s seat %s (%s) stopped at its time limit", job.game_id, job.seat + 1, job.level)
    return engine.format_move(state, job.seat, move)


def commit(s: Session, job: Job, text: str, why=None, now=None) -> str | None:
    """Play ``text`` chosen for ``job`` if the game is still where it was
    (locks the game row); returns the notation, or None when the game moved
    on meanwhile. ``why`` (a string, lazy string or callable): the line the
    board mails give before "A bot played for ..."; None: "Bot N played: ..."."""
    g = games.get(s, job.game_id, lock=True)
    if g.ply != job.ply or g.status != "running" or g.paused:
        return None
    engine = games.engine_for(g)
    if job.seat not in engine.to_move(games.state_at(s, g)):
        return None
    before = g.ply
    res = moves.submit_moves(s, g.id, job.seat, [text], source="bot", expected_ply=g.ply, now=now)
    if not res.applied:  # a bot move the engine refuses is a bug in the bot: never loop on it
        raise RuntimeError(f"bot move {text!r} refused in game #{g.id}: {res.error}")
    name = seating.names(s, g.id)[job.seat]
    played = visibility.told(s, g, job.seat, before)  # a bot's pick in a simultaneous step is secret too
    if why is None:
        notify.queue_boards(s, g, notify.played_headline(name, played, res.over))
    else:
        notify.queue_boards(s, g, lambda: _("%(why)s A bot played for %(who)s: %(moves)s.", why=lang.text(why),
                                            who=name, moves=lang.text(played)))
    return text


def why(s: Session, g: Game, seat: int, key: str):
    """The line the board mails give before "A bot played for ...": the bot
    holds the seat, its player is late, or the seat was just abandoned."""
    if key == "holds":
        return lazy_gettext("A bot holds this seat.")
    row = next(x for x in seating.seats(s, g.id) if x.seat == seat)
    late = clocks.late_text(seating.names(s, g.id)[seat], g.ply, row.missed)
    if key == "late":
        return late
    gid, number = g.id, seat + 1
    return lambda: _("%(late)s The seat is abandoned and open to a replacement (REPLACE %(id)d %(seat)d).",
                     late=lang.text(late), id=gid, seat=number)


def enqueue_stand_in(game_id: int, seat: int, key: str) -> None:
    """Hand an owed move to the bot workers (settings().bot_queue)."""
    from pbem.celery_app import enqueue_stand_in as send

    send(game_id, seat, key)


def stand_in(game_id: int, seat: int, key: str = "holds", now=None, uow: Callable | None = None) -> str | None:
    """One move of the bot for ``seat`` (a bot seat, or a late player's under
    the policy "bot"; ``key`` says which, :func:`why`): read, think with no
    lock held, play. None when the seat is no longer owed a move or the game
    moved on while the bot thought."""
    from pbem.store.db import unit_of_work

    uow = uow or unit_of_work
    with uow() as s:
        g = games.get(s, game_id)
        if g.status != "running" or g.paused:
            return None
        if key != "holds":  # a late player's stand-in: only while the seat is still owed one
            row = next((x for x in seating.seats(s, g.id) if x.seat == seat), None)
            if row is None or (key == "late" and (row.is_bot or row.reminded < clocks.LATE)) \
                    or (key == "abandoned" and not row.is_bot):
                return None
        reason = why(s, g, seat, key)
        job, state = job_for(s, g, seat)
        engine = games.engine_for(g)
        if seat not in engine.to_move(state):
            return None
    text = think(engine, job, state)
    with uow() as s:
        return commit(s, job, text, reason, now)


def play_now(s: Session, g: Game, seat: int, why=None, now=None) -> str | None:
    """One bot move for ``seat`` in this transaction, thinking while it holds
    the game (tests and tools; the workers and the sweep think with no lock
    held: :func:`play_bots`, :func:`stand_in`). Returns its notation."""
    job, state = job_for(s, g, seat)
    return commit(s, job, think(games.engine_for(g), job, state), why, now)


def play_one(s: Session, game_id: int) -> str | None:
    """Play one move for a bot seat to move, if any, in this transaction
    (:func:`play_now`). Returns its notation."""
    g = games.get(s, game_id, lock=True)
    seat = bot_seat_to_move(s, g)
    return None if seat is None else play_now(s, g, seat)


def play_bots(game_id: int, uow: Callable | None = None, limit: int = MAX_BOT_PLIES) -> list[str]:
    """Play bot moves in ``game_id`` until no bot is to move; each one chosen
    with no transaction open and played in its own short one (so humans'
    mail interleaves safely and never waits for a bot). Returns the notations."""
    from pbem.store.db import unit_of_work

    uow = uow or unit_of_work
    played: list[str] = []
    for _round in range(limit):
        with uow() as s:
            g = games.get(s, game_id)
            seat = bot_seat_to_move(s, g)
            if seat is None:
                break
            job, state = job_for(s, g, seat)
            engine = games.engine_for(g)
        text = think(engine, job, state)
        with uow() as s:
            done = commit(s, job, text)
        if done is not None:
            played.append(done)
    return played


def game_started(s: Session, g: Game) -> None:
    """events.GAME_STARTED: a bot seat may be the first to move."""
    after_change(s, g.id)


def moves_applied(s: Session, g: Game, source: str) -> None:
    """events.MOVES_APPLIED: a bot seat may be to move now; a bot's own moves are followed up by the
    loop that made them."""
    if source != "bot":
        after_change(s, g.id)


def after_change(s: Session, game_id: int) -> None:
    """After a game changed: once the transaction has committed, let the
    worker play for any bot seat to move."""
    callbacks = getattr(s, "after_commit", None)
    if callbacks is None or not has_bots(s, game_id):
        return
    if any(getattr(cb, "_bot_game", None) == game_id for cb in callbacks):
        return

    def enqueue() -> None:
        from pbem.celery_app import enqueue_bot_move

        enqueue_bot_move(game_id)

    enqueue._bot_game = game_id  # type: ignore[attr-defined]
    callbacks.append(enqueue)
