"""Bot players in stored games: "add a bot to the next seat" and the bot's
turn. The bot itself is the engine's pure ``pbem.engine.bots.choose``; this
module only seats it and submits its moves through ``games.submit_moves``
like any player (source "bot"), one move per transaction."""
from __future__ import annotations

import logging
from typing import Callable

from sqlmodel import Session, select

from pbem.engine import bots as engine_bots
from pbem.engine import rng_for
from pbem.i18n import _
from pbem.store.models import Game, Seat, User

from . import games, notify, visibility
from .errors import Forbidden, UserError

log = logging.getLogger("pbem.bots")

BOT_DOMAIN = "bots.pbem.invalid"  # .invalid never resolves: no mail can leave for a bot
MAX_BOT_PLIES = 2000  # per call of play_bots; far above a whole game


def _bot_user(s: Session, game_id: int, seat: int) -> User:
    email = f"bot-{game_id}-{seat + 1}@{BOT_DOMAIN}"
    user = s.exec(select(User).where(User.email == email)).first()
    if user is None:
        user = User(email=email, name=f"Bot {seat + 1}", confirmed=True, mail_format="text")
        s.add(user)
        s.flush()
    return user


def add_bot(s: Session, by: User, game_id: int) -> tuple[Game, Seat, bool]:
    """Seat a bot in the next free seat of an open game (its creator only).
    Returns (game, seat, started): the game starts when it is full."""
    g = games.get(s, game_id, lock=True)
    if g.creator_id != by.id and not by.is_admin:
        raise Forbidden(_("only the creator of game #%(id)d can add a bot to it", id=g.id), code="not_creator")
    if g.status != "open":
        raise UserError(_("game #%(id)d is not open (it is %(status)s); bots join open games only", id=g.id,
                          status=games.status_word(g.status)),
                        example="NEW spyrium players=3", code="not_open")
    taken = games.seats(s, g.id)
    if len(taken) >= g.players:
        raise UserError(_("game #%(id)d has no free seat", id=g.id), example=f"START {g.id}", code="full")
    n = len(taken)
    bot, seated = _bot_user(s, g.id, n), {x.user_id for x in taken}
    k = n
    while bot.id in seated:  # a seat given up before the start moved the others up: "Bot 3" may sit in seat 2
        k += 1
        bot = _bot_user(s, g.id, k)
    seat = Seat(game_id=g.id, seat=n, user_id=bot.id, token=games.new_token(), is_bot=True)
    s.add(seat)
    s.flush()
    started = False
    if n + 1 >= g.players:
        games.start(s, g, by=None)
        started = True
    return g, seat, started


def has_bots(s: Session, game_id: int) -> bool:
    return any(x.is_bot for x in games.seats(s, game_id))


def bot_seat_to_move(s: Session, g: Game) -> int | None:
    """The lowest bot seat that must act now, or None."""
    if g.status != "running" or g.paused:
        return None
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    bots_ = {x.seat for x in games.seats(s, g.id) if x.is_bot and not x.resigned}
    waiting = sorted(bots_ & set(engine.to_move(state)))
    return waiting[0] if waiting else None


def play_one(s: Session, game_id: int) -> str | None:
    """Play one move for a bot seat to move, if any; returns its notation.
    Locks the game row; the seed of the move is the game's seed and ply, so a
    re-run plays the same move."""
    g = games.get(s, game_id, lock=True)
    seat = bot_seat_to_move(s, g)
    if seat is None:
        return None
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    seed = rng_for(g.seed, "bot", g.ply, seat).getrandbits(62)
    move = engine_bots.choose(engine, state, seat, seed)
    text = engine.format_move(state, seat, move)
    before = g.ply
    res = games.submit_moves(s, g.id, seat, [text], source="bot", expected_ply=g.ply)
    if not res.ok:  # a bot move the engine refuses is a bug in the bot: never loop on it
        raise RuntimeError(f"bot move {text!r} refused in game #{g.id}: {res.error}")
    name = games.names(s, g.id)[seat]
    played = visibility.told(s, g, seat, before)  # a bot's pick in a simultaneous step is secret too
    notify.queue_boards(s, g, notify.played_headline(name, played, res.over))
    return text


def play_bots(game_id: int, uow: Callable | None = None, limit: int = MAX_BOT_PLIES) -> list[str]:
    """Play bot moves in ``game_id`` until no bot is to move; each move in its
    own transaction (so humans' mail interleaves safely). Returns the notations."""
    from pbem.store.db import unit_of_work

    uow = uow or unit_of_work
    played: list[str] = []
    for _round in range(limit):
        with uow() as s:
            text = play_one(s, game_id)
        if text is None:
            break
        played.append(text)
    return played


def after_change(s: Session, game_id: int) -> None:
    """Called by the services after a game changed: once the transaction has
    committed, let the worker play for any bot seat to move."""
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
