"""Pre-moves (``NEXT: <move>``, ``IF <condition> THEN <move>``): kept until
the seat is next to act, then applied through submit_moves if still legal
(and, for a conditional one, if the condition holds); the player is told
either way.

A condition is the move just before the seat's turn, in the notation the
boards show, optionally with who made it: ``IF wait THEN play 5`` or
``IF Bob: take 3 THEN pass``. Works for every game, since it only compares
the move log; another seat's secret choice (services/core/visibility) never
meets a condition, or the pre-move would give it away.

What LIST answers a seat -- its choices on file for the step in progress and its pre-moves
waiting -- is here too (:func:`listing`)."""

from __future__ import annotations

import re

from sqlalchemy import bindparam
from sqlmodel import Session, select

from pbem.i18n import _, lazy_gettext, ngettext
from pbem.store.models import Game, Move, PreMove, Seat, User

from ..core import games, lang, moves, notify, seating, visibility
from ..core.errors import Forbidden, UserError

MAX_PENDING = 10


IF_RE = re.compile(r"^\s*(?:IF\s+)?(.+?)\s+THEN\s+(.+)$", re.I | re.S)


def _norm(text: str) -> str:
    return " ".join((text or "").lower().split())


def add_conditional(s: Session, g: Game, user: User, text: str) -> PreMove:
    """``[IF] <condition> THEN <move>``."""
    m = IF_RE.match(text or "")
    if not m:
        raise UserError(_("write IF <the move before your turn> THEN <your move>"), example="IF wait THEN play 5",
                        code="bad_condition")
    cond, move = m.group(1).strip(), m.group(2).strip()
    cond_seat = None
    head, sep, tail = cond.partition(":")
    if sep and head.strip() and tail.strip():
        cond_seat = seating.resolve_seat(s, g, head)
        if cond_seat is None:
            raise UserError(_("'%(who)s' is neither a seat number nor a player of game #%(id)d", who=head.strip(),
                              id=g.id),
                            example="IF 2: wait THEN play 5", code="bad_condition")
        cond = tail.strip()
    pm = add(s, g, user, move)
    pm.condition, pm.condition_seat = cond, cond_seat
    s.add(pm)
    s.flush()
    return pm


def _condition_holds(s: Session, g: Game, pm: PreMove):
    """(whether the condition holds, what the move before was: a lazy string, told in each reader's language)"""
    last = s.exec(select(Move).where(Move.game_id == g.id, Move.undone == False)  # noqa: E712
                  .order_by(Move.ply.desc()).limit(1)).first()
    if last is None:
        return False, lazy_gettext("no move has been played yet")
    if visibility.secrets(s, g).hides(last.ply, pm.seat):
        # another seat's secret choice is no condition: played or not, the pre-move would tell
        # the seat what it was
        return False, lazy_gettext("the move before your turn was seat %(seat)d's %(secret)s", seat=last.seat + 1,
                                   secret=lazy_gettext(visibility.SECRET_CHOICE))
    ok = _norm(last.notation) == _norm(pm.condition) and pm.condition_seat in (None, last.seat)
    return ok, lazy_gettext("the move before your turn was seat %(seat)d: %(move)s", seat=last.seat + 1,
                            move=last.notation)


def add(s: Session, g: Game, user: User, text: str) -> PreMove:
    text = (text or "").strip().lstrip(":").strip()
    if not text:
        raise UserError(_("NEXT needs the move to play when your turn comes"), example="NEXT: play 5",
                        code="empty_premove")
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    if g.status != "running":
        raise UserError(_("game #%(id)d is %(status)s; pre-moves are for running games", id=g.id,
                          status=games.status_word(g.status)), code="not_running")
    pending = pending_for(s, g.id, seat.seat)
    if len(pending) >= MAX_PENDING:
        raise UserError(ngettext("you already have %(num)d pre-move waiting in game #%(id)d",
                                 "you already have %(num)d pre-moves waiting in game #%(id)d", MAX_PENDING, id=g.id),
                        example="NEXT CANCEL", code="too_many_premoves")
    pm = PreMove(game_id=g.id, seat=seat.seat, text=text, user_id=user.id)
    s.add(pm)
    s.flush()
    return pm


def cancel(s: Session, g: Game, user: User) -> int:
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    n = 0
    for pm in pending_for(s, g.id, seat.seat):
        pm.status = "cancelled"
        s.add(pm)
        n += 1
    s.flush()
    return n


_PENDING = select(PreMove).where(PreMove.game_id == bindparam("game_id"), PreMove.status == "pending")
_PENDING_GAME = _PENDING.order_by(PreMove.id)  # built once: asked after every move
_PENDING_SEAT = _PENDING.where(PreMove.seat == bindparam("seat")).order_by(PreMove.id)


_ANY_PENDING = select(PreMove.id).where(PreMove.game_id == bindparam("game_id"), PreMove.status == "pending").limit(1)


def pending_for(s: Session, game_id: int, seat: int | None = None) -> list[PreMove]:
    if seat is None:
        # asked after every move, and mostly there are none: a Core look first (after the flush the
        # ORM query would make), the ORM objects only when there is one
        s.flush()
        if s.connection().execute(_ANY_PENDING, {"game_id": game_id}).first() is None:
            return []
        return list(s.exec(_PENDING_GAME, params={"game_id": game_id}))
    return list(s.exec(_PENDING_SEAT, params={"game_id": game_id, "seat": seat}))


def apply_due(s: Session, g: Game, now=None) -> list[PreMove]:
    """Apply, in the order they were sent, the pre-moves of seats now to act."""
    done: list[PreMove] = []
    for _round in range(1000):
        if g.status != "running":
            break
        to_move = games.engine_for(g).to_move(games.state_at(s, g))
        pm = next((p for p in pending_for(s, g.id) if p.seat in to_move), None)
        if pm is None:
            break
        if pm.condition:
            holds, what = _condition_holds(s, g, pm)
            if not holds:
                pm.status, pm.result = "skipped", f"condition '{pm.condition}' not met: {lang.english(what)}"
                s.add(pm)
                s.flush()
                notify.queue_notice(s, g, lazy_gettext("your pre-move"),
                                    lazy_gettext("Your pre-move '%(premove)s' was not played: %(why)s. It is your turn "
                                                 "now: reply with your move.",
                                                 premove=f"IF {pm.condition} THEN {pm.text}", why=what),
                                    seats={pm.seat})
                done.append(pm)
                continue
        pm.status = "applied"  # before submitting: the nested hook must not take it again
        s.add(pm)
        s.flush()
        res = moves.submit_moves(s, g.id, pm.seat, [pm.text], source="premove", user_id=pm.user_id,
                                 now=now)
        if res.applied:
            pm.result = f"applied at ply {res.applied[0].ply} as {res.applied[0].notation}"
            text = lazy_gettext("Your pre-move '%(premove)s' was applied at ply %(ply)d.", premove=pm.text,
                                ply=res.applied[0].ply)
        else:
            pm.status = "failed"
            pm.result = res.error.describe() if res.error else "not applied"
            text = lazy_gettext("Your pre-move '%(premove)s' was not applied: %(why)s\nIt is your turn now: reply "
                                "with your move.", premove=pm.text, why=pm.result)
            # the other pre-moves of this seat were written for a position that did not happen
            for other in pending_for(s, g.id, pm.seat):
                other.status = "cancelled"
                s.add(other)
        s.add(pm)
        s.flush()
        notify.queue_notice(s, g, lazy_gettext("your pre-move"), text, seats={pm.seat})
        done.append(pm)
    return done


def position_changed(s: Session, g: Game, source: str, now=None) -> None:
    """events.POSITION_CHANGED: the pre-moves now due are played -- not while an admin re-applies a
    corrected move list, whose moves apply exactly as given."""
    if source != "admin":
        apply_due(s, g, now=now)


def seat_left(s: Session, g: Game, seat: Seat, reason: str) -> None:
    """events.SEAT_LEFT: the pre-moves of a seat's player end with their time in it: they were theirs
    to play, not the seat's next player's (nor a bot's), and a private plan."""
    for pm in pending_for(s, g.id, seat.seat):
        pm.status, pm.result = "cancelled", f"the seat changed hands ({reason})"
        s.add(pm)


def listing(s: Session, g: Game, seat: int) -> str:
    """What LIST answers a seat (by mail, and on the game page): its choices
    on file for the step in progress, and its pre-moves."""
    mine = visibility.on_file(s, g, seat)
    if mine is None:
        out = _("%(game)s has no secret choices on file: your moves are in the game's log",
                game=games.engine_for(g).title)
    elif not mine.notations:
        out = _("you have nothing on file for this step yet")
    else:
        notations = "; ".join(mine.notations)
        if mine.finished and mine.secret:
            out = _("on file for you in this step: %(moves)s (finished, and secret until the step is revealed; "
                    "until then a new order replaces it whole)", moves=notations)
        elif not mine.finished:
            out = _("on file for you in this step: %(moves)s (not finished: what you send next is added to it)",
                    moves=notations)
        else:
            out = _("on file for you in this step: %(moves)s", moves=notations)
    pending = pending_for(s, g.id, seat) if g.status == "running" else []
    if pending:
        out = _("%(listing)s; pre-moves waiting: %(premoves)s", listing=out, premoves="; ".join(
            (f"IF {p.condition} THEN " if p.condition else "NEXT: ") + p.text for p in pending))
    return out
