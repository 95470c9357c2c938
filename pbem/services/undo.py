"""Undo: a player asks to take back their last move; it happens only if
nothing hidden was revealed and no chance was drawn since, and every other
seated player agrees (or an admin decides). Undone moves stay in the log,
marked ``undone``; the game's ply keeps counting up."""
from __future__ import annotations

from sqlalchemy import delete
from sqlmodel import Session, select

from pbem.store.models import Game, Move, Post, Snapshot, UndoRequest, User, utcnow

from . import audit, games, visibility
from .errors import Forbidden, UserError


def rewind(s: Session, g: Game, after_ply: int) -> list[Move]:
    """Mark every live move after ``after_ply`` undone and make the caches
    agree: the cached state becomes the state after ``after_ply``, snapshots
    past it are deleted. The next move gets ply ``g.ply + 1``."""
    engine = games.engine_for(g)
    state = games.state_at(s, g, after_ply)
    moves = games._record(s, g.id, after_ply)
    for m in moves:
        m.undone = True
        s.add(m)
    s.exec(delete(Snapshot).where(Snapshot.game_id == g.id, Snapshot.ply > after_ply))
    games._cache(g, engine, state, g.ply)
    if g.outcome is None and g.status == "finished":
        g.status = "running"
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    from . import deadlines

    deadlines.refresh(s, g, state, utcnow(), moved={m.seat for m in moves} | set(range(g.players)))
    return moves


def _last_move(s: Session, g: Game, seat: int) -> Move | None:
    return s.exec(select(Move).where(Move.game_id == g.id, Move.seat == seat, Move.undone == False)  # noqa: E712
                  .order_by(Move.ply.desc()).limit(1)).first()


def check_undoable(s: Session, g: Game, from_ply: int) -> None:
    """Raises UserError when a move from ``from_ply`` on revealed hidden
    information or drew chance (the engine's ``reveals``)."""
    engine = games.engine_for(g)
    state = games.state_at(s, g, from_ply - 1)
    for m in games._record(s, g.id, from_ply - 1):
        after = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
        if engine.reveals(state, after):
            raise UserError(f"the move at ply {m.ply} ({m.notation}) revealed hidden information or drew "
                            f"chance, so it cannot be taken back; ask an admin with DISPUTE {m.ply} <why>",
                            example=f"DISPUTE {m.ply} I misread the card", code="not_undoable")
        state = after


def open_request(s: Session, g: Game) -> UndoRequest | None:
    return s.exec(select(UndoRequest).where(UndoRequest.game_id == g.id, UndoRequest.status == "open")).first()


def _others(s: Session, g: Game, seat: int) -> set[int]:
    return {x.seat for x in games.seats(s, g.id)
            if x.seat != seat and x.user_id and not x.resigned and not x.is_bot}


def request(s: Session, user: User, game_id: int) -> tuple[UndoRequest, bool]:
    """UNDO. Returns (request, done): done when nobody else had to agree."""
    g = games.get(s, game_id, lock=True)
    seat = games.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned:
        raise Forbidden(f"you have no seat in game #{g.id}", code="no_seat")
    if g.status != "running":
        raise UserError(f"game #{g.id} is {g.status}; undo is for running games", code="not_running")
    old = open_request(s, g)
    if old is not None:
        if old.at_ply == g.ply:
            raise UserError(f"an undo request for ply {old.ply} is already waiting for answers",
                            example="UNDO YES", code="undo_pending")
        old.status = "void"
        s.add(old)
    last = _last_move(s, g, seat.seat)
    if last is None:
        raise UserError("you have no move to take back", code="nothing_to_undo")
    check_undoable(s, g, last.ply)
    req = UndoRequest(game_id=g.id, seat=seat.seat, ply=last.ply, at_ply=g.ply, user_id=user.id)
    s.add(req)
    s.flush()
    later = g.ply - last.ply
    # the notice goes to the thread and to every seat: a secret choice is named as one
    shown = "a secret choice" if visibility.secrets(s, g).hides(last.ply, None) else last.notation
    what = f"{user.name} asks to take back their move at ply {last.ply} ({shown})" + \
        (f" and the {later} move(s) after it" if later else "")
    s.add(Post(game_id=g.id, kind="notice", user_id=user.id, seat=seat.seat, source="system", body=what))
    if not _others(s, g, seat.seat):
        _perform(s, g, req, "no other player had to agree")
        return req, True
    from . import notify

    notify.queue_notice(s, g, "undo request", what + ". Reply UNDO YES to agree or UNDO NO to refuse.",
                        seats=_others(s, g, seat.seat))
    return req, False


def vote(s: Session, user: User, game_id: int, yes: bool) -> UndoRequest:
    """UNDO YES / UNDO NO by another player. The undo happens when all agreed."""
    g = games.get(s, game_id, lock=True)
    req = open_request(s, g)
    if req is None:
        raise UserError(f"no undo request is waiting in game #{g.id}", example="UNDO", code="no_undo")
    seat = games.seat_of(s, g.id, user.id)
    if seat is None or seat.seat not in _others(s, g, req.seat):
        raise Forbidden("only the other players of the game answer an undo request", code="not_voter")
    if req.at_ply != g.ply:
        req.status = "void"
        s.add(req)
        s.flush()
        raise UserError(f"the game has moved on since the undo was asked (ply {req.at_ply} then, {g.ply} now); "
                        f"the request lapsed", code="undo_lapsed")
    req.votes = dict(req.votes, **{str(seat.seat): bool(yes)})
    s.add(req)
    from . import notify

    if not yes:
        req.status = "refused"
        s.add(Post(game_id=g.id, kind="notice", user_id=user.id, seat=seat.seat, source="system",
                   body=f"{user.name} refused to take back ply {req.ply}; the move stands."))
        s.flush()
        notify.queue_notice(s, g, "undo refused", f"{user.name} refused the undo of ply {req.ply}; the move stands.")
        return req
    if {int(k) for k, v in req.votes.items() if v} >= _others(s, g, req.seat):
        _perform(s, g, req, "all players agreed")
    s.flush()
    return req


def decide(s: Session, admin: User, game_id: int, accept: bool, reason: str) -> UndoRequest:
    """An admin settles an open undo request."""
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    g = games.get(s, game_id, lock=True)
    req = open_request(s, g)
    if req is None:
        raise UserError(f"no undo request is waiting in game #{g.id}", code="no_undo")
    if accept:
        _perform(s, g, req, "an admin decided", announce=False)
        audit.announce(s, g, admin, "undo_accepted", reason, f"An admin took back the moves from ply {req.ply} on.")
    else:
        req.status = "refused"
        s.add(req)
        s.flush()
        audit.announce(s, g, admin, "undo_refused", reason, f"An admin refused the undo of ply {req.ply}.", board=False)
    return req


def _perform(s: Session, g: Game, req: UndoRequest, why: str, announce: bool = True) -> None:
    check_undoable(s, g, req.ply)
    hidden = visibility.secrets(s, g)  # before: a choice taken back while secret is never revealed
    moves = rewind(s, g, req.ply - 1)
    req.status = "done"
    s.add(req)
    text = f"Taken back ({why}): " + ", ".join(
        f"ply {m.ply} " + ("a secret choice" if hidden.hides(m.ply, None) else m.notation) for m in moves) + \
        ". They stay in the log, marked undone."
    s.add(Post(game_id=g.id, kind="notice", source="system", body=text))
    s.flush()
    if announce:
        from . import notify

        notify.queue_boards(s, g, text, essential=True)
