"""Disputes: a player contests a ply (``DISPUTE <ply> <text>``); an admin
settles it by rejecting it, rolling the game back to a ply and re-applying a
corrected move list (same seed, so chance is unchanged), forcing a move for
a seat, or adjusting a seat. Every resolution is logged with its reason and
mailed to every seat."""
from __future__ import annotations

from typing import Sequence

from sqlmodel import Session, select

from pbem.engine import MoveError
from pbem.engine.base import name_seats
from pbem.i18n import _, lazy_gettext, lazy_ngettext
from pbem.store.models import AuditLog, Dispute, Game, User, utcnow

from ..core import audit, clocks, games, notices, seating, visibility
from ..core import moves as moves_  # rollback's moves are the corrected list
from ..core.errors import Forbidden, NotFound, UserError
from .undo import rewind

ADJUSTMENTS = ("bot", "human", "open", "clear-missed")


def open_dispute(s: Session, user: User, game_id: int, ply: int, text: str) -> Dispute:
    g = games.get(s, game_id)
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None and not user.is_admin:
        raise Forbidden(_("only the players of game #%(id)d can dispute its moves", id=g.id), code="no_seat")
    if not games.has_started(g):
        raise UserError(_("game #%(id)d has no moves to dispute (it is %(status)s)", id=g.id,
                          status=games.status_word(g.status)), code="not_started")
    # ``ply`` is a number as the player is shown it (visibility.public_ply): the counter of a secret step stays
    # at its start and skips withdrawn choices, and so does this range (the dispute keeps the game's own ply),
    # but a seat's own choices of that step by its own count (visibility.Secrets.shown_ply)
    hidden, public = visibility.secrets(s, g), visibility.public_ply(s, g)
    mine = {hidden.shown_ply(p, seat.seat): p for p, x in hidden.movers.items()
            if seat is not None and x == seat.seat and p > hidden.start and p not in hidden.withdrawn}
    last = max([public, *mine])
    if not 1 <= ply <= last:
        raise UserError(_("game #%(id)d has plies 1 to %(ply)d", id=g.id, ply=last),
                        example=f"DISPUTE {max(1, last)} the card was "
                        f"misread", code="bad_ply")
    shown, ply = ply, mine[ply] if ply > public else visibility.real_ply(s, g, ply)
    text = (text or "").strip()
    if not text:
        raise UserError(_("say what is wrong with that ply"), example=f"DISPUTE {shown} the bot took my card twice",
                        code="empty_dispute")
    engine = games.engine_for(g)
    # the positions as disputed: a rollback marks the ply undone later, and the record must not change
    d = Dispute(game_id=g.id, ply=ply, user_id=user.id, text=text[:5000],
                before_json=engine.to_json(games.state_at(s, g, ply - 1)),
                after_json=engine.to_json(games.state_at(s, g, ply)))
    s.add(d)
    s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat.seat if seat else None,
                       value=lazy_gettext("%(name)s disputes ply %(ply)d: %(text)s. An admin will look at it; the "
                                          "game goes on unless the admin pauses it.", name=user.name, ply=shown,
                                          text=text[:500])))
    s.flush()
    return d


def get(s: Session, dispute_id: int) -> Dispute:
    d = s.get(Dispute, dispute_id)
    if d is None:
        raise NotFound(_("there is no dispute #%(id)s", id=dispute_id), code="no_dispute")
    return d


def positions(s: Session, d: Dispute) -> tuple[dict, dict]:
    """The public views before and after the disputed ply, as they were when it was disputed (kept by
    the dispute; a dispute older than that record is shown from the game's live line)."""
    g = games.get(s, d.game_id)
    if d.before_json is None or d.after_json is None:
        return games.view_for(s, g, None, ply=d.ply - 1), games.view_for(s, g, None, ply=d.ply)
    engine = games.engine_for(g)
    names = seating.names(s, g.id)
    out = []
    for ply, data in ((d.ply - 1, d.before_json), (d.ply, d.after_json)):
        v = engine.view(engine.from_json(data), None)
        v["names"] = names
        if isinstance(v.get("status"), str):
            v["status"] = name_seats(v["status"], names)
        v["ply"], v["game_id"] = ply, g.id
        out.append(v)
    return out[0], out[1]


def queue(s: Session, status: str | None = "open", *, game_id: int | None = None) -> list[Dispute]:
    q = select(Dispute).order_by(Dispute.id)
    if status:
        q = q.where(Dispute.status == status)
    if game_id is not None:
        q = q.where(Dispute.game_id == game_id)
    return list(s.exec(q))


def settled(s: Session, limit: int) -> list[Dispute]:
    """The newest ``limit`` disputes no longer open, oldest first: what the queue's page shows of
    them, read alone (never every dispute ever settled)."""
    rows = list(s.exec(select(Dispute).where(Dispute.status != "open").order_by(Dispute.id.desc()).limit(limit)))
    return rows[::-1]


def _open(s: Session, dispute_id: int) -> tuple[Dispute, Game]:
    d = get(s, dispute_id)
    if d.status != "open":
        raise UserError(_("dispute #%(id)d is already %(status)s", id=d.id, status=d.status), code="dispute_closed")
    return d, games.get(s, d.game_id, lock=True)


def _target(s: Session, dispute_id: int | None, game_id: int) -> tuple[Dispute | None, Game]:
    """What an admin action works on: an open dispute and its game, or a game directly."""
    if dispute_id is not None:
        return _open(s, dispute_id)
    return None, games.get(s, game_id, lock=True)


def _paused_by_command(s: Session, g: Game) -> bool:
    """Whether a PAUSE of the game master (services/referee/master: or an admin's, by the same command) still
    holds the game: its last pause is not resumed. A dispute's pause that ends leaves it in place."""
    last = s.exec(select(AuditLog.action).where(AuditLog.game_id == g.id,
                                                AuditLog.action.in_(("game_paused", "game_resumed")))
                  .order_by(AuditLog.id.desc())).first()
    return last == "game_paused"


def _close(s: Session, d: Dispute, g: Game, admin: User, status: str, resolution: str) -> None:
    d.status, d.resolution, d.resolved_by, d.resolved_at = status, resolution, admin.id, utcnow()
    s.add(d)
    if d.pauses_game and g.paused:
        others = [x for x in queue(s, game_id=g.id) if x.id != d.id and x.pauses_game]
        if not others and not _paused_by_command(s, g):  # the master's own PAUSE stays until RESUME
            g.paused = False
            s.add(g)
            s.flush()
            clocks.resume_clocks(s, g, utcnow())  # the clocks get back the time the pause took
    s.flush()


def set_pause(s: Session, admin: User, dispute_id: int, pause: bool, reason: str) -> Dispute:
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    d, g = _open(s, dispute_id)
    d.pauses_game = pause
    g.paused = pause
    s.add(d)
    s.add(g)
    s.flush()
    if not pause:
        clocks.resume_clocks(s, g, utcnow())  # the clocks get back the time the pause took
    audit.announce(s, g, admin, "pause" if pause else "resume", reason,
                   lazy_gettext("An admin paused game #%(id)d over the dispute of ply %(ply)d.", id=g.id,
                                ply=visibility.counter(s, g, d.ply))
                   if pause else
                   lazy_gettext("An admin resumed game #%(id)d over the dispute of ply %(ply)d.", id=g.id,
                                ply=visibility.counter(s, g, d.ply)),
                   board=False)
    return d


def reject(s: Session, admin: User, dispute_id: int, reason: str) -> Dispute:
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    d, g = _open(s, dispute_id)
    _close(s, d, g, admin, "rejected", reason)
    audit.announce(s, g, admin, "dispute_rejected", reason,
                   lazy_gettext("An admin rejected the dispute of ply %(ply)d; the game stands as it is.",
                                ply=visibility.counter(s, g, d.ply)),
                   board=False)
    return d


def parse_move_list(text: str) -> list[tuple[int, str]]:
    """``<seat>: <move>`` per line (seats numbered from 1)."""
    out = []
    for n, raw in enumerate((text or "").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        head, sep, move = line.partition(":")
        if not sep or not head.strip().isdigit() or not move.strip():
            raise UserError(_("line %(n)d '%(line)s' is not '<seat>: <move>'", n=n, line=line[:60]),
                            example="2: play 5",
                            code="bad_move_list")
        out.append((int(head) - 1, move.strip()))
    return out


def check_moves(s: Session, g: Game, to_ply: int, moves: Sequence[tuple[int, str]]) -> None:
    """Dry run: the corrected moves must all be legal from ply ``to_ply``."""
    engine = games.engine_for(g)
    state = games.state_at(s, g, to_ply)
    for i, (seat, text) in enumerate(moves, 1):
        try:
            if seat not in engine.to_move(state):
                raise UserError(_("corrected move %(i)d (%(seat)d: %(move)s) is not seat %(seat)d's turn; seat(s) to "
                                  "move: %(seats)s", i=i, seat=seat + 1, move=text,
                                  seats=", ".join(str(x + 1) for x in sorted(engine.to_move(state)))),
                                code="bad_move_list")
            state = engine.apply(state, seat, engine.parse_move(state, seat, text))
        except MoveError as e:
            raise UserError(_("corrected move %(i)d (%(seat)d: %(move)s) is not legal there: %(why)s", i=i,
                              seat=seat + 1, move=text, why=e),
                            code="bad_move_list") from None


def rollback(s: Session, admin: User, dispute_id: int | None, game_id: int, to_ply: int,
             moves: Sequence[tuple[int, str]], reason: str) -> list[moves_.Applied]:
    """Take the game back to ply ``to_ply`` (later moves marked undone) and
    re-apply ``moves`` with new plies. Checked in full first: a bad list
    changes nothing."""
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    d, g = _target(s, dispute_id, game_id)
    if not 0 <= to_ply <= g.ply:
        raise UserError(_("game #%(id)d has plies 0 to %(ply)d", id=g.id, ply=g.ply), code="bad_ply")
    check_moves(s, g, to_ply, moves)
    undone = rewind(s, g, to_ply)
    applied: list[moves_.Applied] = []
    players = {x.seat: x.user_id for x in seating.seats(s, g.id)}
    for seat, text in moves:
        # the corrected move is the seat's move: credited to its player (source "admin": the thread says
        # who corrected it, from the announcement below, which the admin signs)
        res = moves_.submit_moves(s, g.id, seat, [text], source="admin", user_id=players.get(seat))
        if res.error is not None:  # checked above: a failure here is a bug, roll the whole thing back
            raise RuntimeError(f"corrected move {text!r} failed after the dry run: {res.error}")
        applied.extend(res.applied)
    hidden = visibility.secrets(s, g)  # the announcement goes to the thread and every seat: secrets stay
    shown = [(seat + 1, hidden.hides(a.ply, None), a.notation) for (seat, _move), a in zip(moves, applied)]
    n_undone, n_applied = len(undone), len(applied)

    # two counts, each agreeing with its own words
    said = lazy_gettext("An admin rolled game #%(id)d back to ply %(ply)d (%(undone)s) and re-applied %(applied)s",
                        id=g.id, ply=to_ply,
                        undone=lazy_ngettext("%(num)d move marked undone", "%(num)d moves marked undone", n_undone),
                        applied=lazy_ngettext("%(num)d corrected move", "%(num)d corrected moves", n_applied))
    if shown:
        said = lazy_gettext("%(rollback)s: %(moves)s", rollback=said, moves=notices.Joined([
            lazy_gettext("seat %(n)d: %(move)s", n=n,
                         move=lazy_gettext(visibility.SECRET_CHOICE) if secret else notation)
            for n, secret, notation in shown], "; "))
    text = notices.Joined([said, "."], "")
    if d is not None:
        _close(s, d, g, admin, "resolved", f"rollback to ply {to_ply}: {reason}")
    audit.announce(s, g, admin, "rollback", reason, text)
    return applied


def force_move(s: Session, admin: User, dispute_id: int | None, game_id: int, seat: int, text: str,
               reason: str) -> moves_.Applied:
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    d, g = _target(s, dispute_id, game_id)
    before = g.ply
    res = moves_.submit_moves(s, g.id, seat, [text], source="admin", user_id=admin.id)
    if res.error is not None:
        raise UserError(_("the forced move was not applied: %(why)s", why=res.error.describe()), code="bad_forced_move")
    if d is not None:
        _close(s, d, g, admin, "resolved", f"forced move for seat {seat + 1}: {reason}")
    a = res.applied[0]
    # the announcement goes to the thread and every seat: a secret stays one
    audit.announce(s, g, admin, "force_move", reason,
                   lazy_gettext("An admin played %(move)s for seat %(seat)d (ply %(ply)d).",
                                move=visibility.told(s, g, seat, before), seat=seat + 1, ply=a.ply))
    return a


def adjust_seat(s: Session, admin: User, dispute_id: int | None, game_id: int, seat: int, action: str,
                reason: str) -> None:
    """bot: a bot plays the seat; human: the player again; open: open to a
    replacement; clear-missed: forget missed deadlines."""
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    if action not in ADJUSTMENTS:
        raise UserError(_("a seat adjustment is one of %(list)s", list=", ".join(ADJUSTMENTS)), example="bot",
                        code="bad_adjust")
    d, g = _target(s, dispute_id, game_id)
    row = seating._seat(s, g, seat)
    if action == "open":
        seating._close(s, g, row, "opened by an admin")
        seating._open(s, g, row)
    elif action == "bot":
        row.is_bot = True
    elif action == "human":
        row.is_bot = row.abandoned = False
    else:
        row.missed = 0
    s.add(row)
    s.flush()
    clocks.refresh(s, g, games.state_at(s, g), utcnow())
    if d is not None:
        _close(s, d, g, admin, "resolved", f"seat {seat + 1} adjusted ({action}): {reason}")
    audit.announce(s, g, admin, "adjust_seat", reason,
                   lazy_gettext("An admin adjusted seat %(seat)d: %(action)s.", seat=seat + 1, action=action),
                   board=False)
