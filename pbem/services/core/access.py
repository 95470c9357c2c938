"""Who may see a game at all. A game's ``access`` is "public" (anyone joins), "private" (only
those invited: an invitation to their address, made before or after they registered) or
"password" (anyone who gives the word; an invitation admits too). A private game is seen only by
its creator, its players (past ones too), those invited, its observers and admins; to anyone else
it is as if it did not exist. Who may join is the lobby's (services/lobby/tables.py)."""
from __future__ import annotations

from sqlalchemy import or_, true
from sqlmodel import Session, select

from pbem.i18n import _
from pbem.store.models import Game, Invitation, Observer, Seat, SeatHistory, User

from .errors import NotFound


def invitation(s: Session, g: Game, user: User | None) -> Invitation | None:
    """The invitation of ``user``'s address to ``g``, if any (made before they registered, too)."""
    if user is None:
        return None
    return s.exec(select(Invitation).where(Invitation.game_id == g.id,
                                           Invitation.email == (user.email or "").lower())).first()


def may_see(s: Session, g: Game, user: User | None) -> bool:
    """Whether ``user`` (None: a visitor) may see game ``g`` at all: every game but a private one;
    a private one only its creator, its players (past ones too), those invited, its observers and
    admins."""
    if g.access != "private":  # every page of a public game asks: no query
        return True
    return s.exec(select(Game.id).where(Game.id == g.id, visible_to(user))).first() is not None


def require_seen(s: Session, g: Game, user: User | None) -> Game:
    """``g``, or the refusal of someone who may not see it: told as if it did not exist, so that a
    private game's number says nothing about it."""
    if not may_see(s, g, user):
        raise NotFound(_("there is no game #%(id)s", id=g.id), example="GAMES", code="no_game")
    return g


def visible_to(user: User | None):
    """The SQL condition on ``games`` that may_see is for one game, for a list of them (a player's page,
    the archive): every game but a private one; a private one only to its creator, its players (past ones
    too), those invited, its observers and admins."""
    if user is None:
        return Game.access != "private"
    if user.is_admin:
        return true()
    return or_(Game.access != "private", Game.creator_id == user.id,
               Game.id.in_(select(Seat.game_id).where(Seat.user_id == user.id)),
               Game.id.in_(select(SeatHistory.game_id).where(SeatHistory.user_id == user.id)),
               Game.id.in_(select(Invitation.game_id).where(Invitation.email == (user.email or "").lower())),
               Game.id.in_(select(Observer.game_id).where(Observer.user_id == user.id)))
