"""Private games (issue 25): who may join an open game and who may see it.

A game's ``access`` is "public" (anyone joins), "private" (only those invited:
an invitation to their address, made before or after they registered) or
"password" (anyone who gives the word; an invitation admits too). Only a
salted scrypt hash of the word is kept, compared in constant time; wrong or
missing words are counted per user and game (join_attempts), and after
``MAX_TRIES`` in an hour the game refuses that user's tries until the hour
has passed, whatever the word. An invitation is answered: accepted (the
invitee joins, as by JOIN) or declined (the inviter is told). The creator
(or an admin) removes a joined player before the start.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func, or_, true
from sqlmodel import Session, select

from pbem import i18n
from pbem.config import settings
from pbem.engine.base import normalize_notation
from pbem.i18n import _
from pbem.store.models import AuditLog, Game, Invitation, JoinAttempt, Observer, Seat, SeatHistory, User, utcnow
from pbem.store.outbox import queue_mail

from . import games, paging, ratings
from .errors import Forbidden, NotFound, UserError

ACCESS = ("public", "private", "password")
MAX_TRIES = 10  # wrong or missing passwords a user may give one game in an hour
PASSWORD_RE = re.compile(r"\S{1,64}")  # one word: a mail line's last word, a form's field
_N, _R, _P = 2 ** 14, 8, 1  # scrypt's cost: about 16 MB and a few tens of milliseconds a try


class WrongPassword(UserError):
    """A refused password: the failed try is kept even though nothing else changes."""

    code = "wrong_password"


# ---------------------------------------------------------------- the password


def _plain(word: str | None) -> str:
    """The word as typed on any keyboard (a mail client's curly quotes and dashes read as the web's)."""
    return normalize_notation(word or "").strip()


def hash_password(word: str) -> str:
    """``scrypt$n$r$p$salt$hash`` (hex): the word itself is never stored."""
    word = _plain(word)
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(word.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def check_password(stored: str | None, word: str | None) -> bool:
    word = _plain(word)
    if not stored or not word:
        return False
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(word.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(digest) // 2)
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(got.hex(), digest)


def valid_password(word: str, game: str = "spyrium") -> str:
    word = _plain(word)
    if not PASSWORD_RE.fullmatch(word):
        raise UserError(_("a game's password is one word of 1 to 64 letters, digits or signs, without spaces"),
                        example=f"NEW {game} password=owl42", code="bad_password")
    return word


# ---------------------------------------------------------------- who may join, who may see


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


def _tries(s: Session, g: Game, user: User) -> int:
    return s.exec(select(func.count()).select_from(JoinAttempt).where(
        JoinAttempt.game_id == g.id, JoinAttempt.user_id == user.id,
        JoinAttempt.created_at >= utcnow() - timedelta(hours=1))).one()


def check_join(s: Session, g: Game, user: User, password: str | None) -> None:
    """Refuse ``user`` a seat in open game ``g`` they may not take (a private game they were not
    invited to, a password game without the right word). A refused word is counted."""
    invited = invitation(s, g, user)
    if g.access == "public" or (invited is not None and invited.status != "removed"):
        return
    if g.access == "private":
        raise Forbidden(_("game #%(id)d is private: only the people its players invite may join it; ask its "
                          "creator for an invitation", id=g.id), example="GAMES", code="private")
    if _tries(s, g, user) >= MAX_TRIES:
        raise Forbidden(_("you have given game #%(id)d a wrong password %(count)d times in the last hour, the most "
                          "pbem takes; please try again in an hour, or ask its creator for an invitation",
                          id=g.id, count=MAX_TRIES), code="too_many_tries")
    if check_password(g.password_hash, (password or "").strip()):
        return
    s.add(JoinAttempt(game_id=g.id, user_id=user.id))
    s.flush()
    if not password:
        raise WrongPassword(_("game #%(id)d needs a password to join: write it after the game's number (ask the "
                              "game's creator for it)", id=g.id), example=f"JOIN {g.id} <password>")
    raise WrongPassword(_("that is not the password of game #%(id)d; nothing was changed (ask the game's creator for "
                          "it)", id=g.id), example=f"JOIN {g.id} <password>")


def joined(s: Session, g: Game, user: User) -> None:
    """After ``user`` took a seat: their invitation, if any, is accepted."""
    row = invitation(s, g, user)
    if row is not None and row.status != "accepted":
        row.status, row.answered_at = "accepted", utcnow()
        s.add(row)
        s.flush()


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


LOBBY_PAGE = 50  # open games on a page of the lobby


@dataclass(frozen=True)
class Table:
    """An open game as the lobby and GAMES show it to one person."""

    game: Game
    players: list[ratings.Player]  # its seats, with their players' ratings in the game
    mine: bool  # the person has a seat at it
    invited: bool  # the person's address is invited to it


def open_tables(s: Session, user: User | None, page: int = 1, per_page: int = LOBBY_PAGE) -> paging.Page[Table]:
    """A page of the open games ``user`` (None: a visitor) is shown in the lobby and by GAMES, oldest
    first: the public and password ones, and private ones only to those who may see them. A constant
    number of statements however many games are open or stored (issue 27): the page's games (by the
    index on games (status, id), migration 0035), then their seats, ratings and invitations each in
    one query for the whole page."""
    q = select(Game).where(Game.status == "open")
    if user is None:
        q = q.where(Game.access != "private")
    elif not user.is_admin:
        invited = select(Invitation.game_id).where(Invitation.email == (user.email or "").lower())
        seated = select(Seat.game_id).where(Seat.user_id == user.id)
        watching = select(Observer.game_id).where(Observer.user_id == user.id)
        q = q.where(or_(Game.access != "private", Game.creator_id == user.id, Game.id.in_(invited),
                        Game.id.in_(seated), Game.id.in_(watching)))
    # every row's status is "open": ordering by it too has the page read off the index (status, id), where
    # PostgreSQL would otherwise walk the primary key past every older (finished) game to find the open ones
    found = paging.fetch(s, q.order_by(Game.status, Game.id), page, per_page)
    players = ratings.seated_in(s, found.rows)
    invited = set() if user is None or not found.rows else set(s.exec(select(Invitation.game_id).where(
        Invitation.email == (user.email or "").lower(), Invitation.game_id.in_([g.id for g in found.rows]))))
    rows = [Table(g, players[g.id], user is not None and any(x.user_id == user.id for x in games.seats(s, g.id)),
                  g.id in invited) for g in found.rows]
    return paging.Page(rows, found.page, found.more)


# ---------------------------------------------------------------- invitations answered


def pending(s: Session, user: User) -> list[tuple[Invitation, Game, str]]:
    """``user``'s unanswered invitations to games still open where they have no seat, newest
    first, each with its inviter's name: one query, however many."""
    seated = select(Seat.id).where(Seat.game_id == Game.id, Seat.user_id == user.id)
    return list(s.exec(select(Invitation, Game, User.name).join(Game, Game.id == Invitation.game_id)
                       .join(User, User.id == Invitation.inviter_id)
                       .where(Invitation.email == (user.email or "").lower(), Invitation.status == "pending",
                              Game.status == "open", ~seated.exists())
                       .order_by(Invitation.id.desc())).all())


def _need_invitation(s: Session, g: Game, user: User) -> Invitation:
    row = invitation(s, g, user)
    if row is None or row.status == "removed":
        raise UserError(_("you have no invitation to game #%(id)d to answer", id=g.id), example="GAMES",
                        code="not_invited")
    if g.status != "open":
        raise UserError(_("game #%(id)d is not open for joining (it is %(status)s)", id=g.id,
                          status=games.status_word(g.status)), example="GAMES", code="not_open")
    return row


def accept(s: Session, user: User, game_id: int) -> tuple[Game, Seat, bool]:
    """ACCEPT: join the game one was invited to (games.join: the same rules, the seat taken)."""
    g = games.get(s, game_id, lock=True)
    _need_invitation(s, g, user)
    return games.join(s, user, g.id)


def decline(s: Session, user: User, game_id: int) -> Invitation:
    """DECLINE: the invitation is answered no, and its inviter is told by mail."""
    g = games.get(s, game_id, lock=True)
    row = _need_invitation(s, g, user)
    if games.seat_of(s, g.id, user.id) is not None:
        raise UserError(_("you already have a seat in game #%(id)d; to give it up before the start, RESIGN %(id)d",
                          id=g.id), example=f"RESIGN {g.id}", code="already_seated")
    if row.status == "declined":
        raise UserError(_("you have already declined the invitation to game #%(id)d", id=g.id), example="GAMES",
                        code="declined")
    row.status, row.answered_at = "declined", utcnow()
    s.add(row)
    s.flush()
    inviter = s.get(User, row.inviter_id)
    if inviter is not None:
        name = user.name
        with i18n.use(inviter.language):
            title = games.engine_for(g).title
            queue_mail(s, to=inviter.email, subject=_("pbem: an invitation to game #%(id)d declined", id=g.id),
                       kind="notice", user=inviter, game_id=g.id, context={
                           "title": _("Game #%(id)d", id=g.id), "greeting": _("Hello,"),
                           "paragraphs": [_("%(name)s has declined your invitation to game #%(id)d (%(game)s).",
                                            name=name, id=g.id, game=title)]})
    return row


# ---------------------------------------------------------------- a player removed before the start


def find_player(s: Session, g: Game, who: str) -> Seat:
    """The seat of game ``g`` that ``who`` names: a seat's number or its player's name."""
    text = " ".join((who or "").split()).strip()
    rows = games.seats(s, g.id)
    if re.fullmatch(r"\d{1,3}", text):
        n = int(text) - 1
        found = [x for x in rows if x.seat == n]
    else:
        found = [x for x in rows if x.user_id is not None and
                 (s.get(User, x.user_id).name or "").casefold() == text.casefold()]
    if not found:
        raise UserError(_("game #%(id)d has no player %(who)s; its players are %(names)s", id=g.id, who=repr(text[:40]),
                          names=", ".join(games.names(s, g.id))),
                        example=f"REMOVE {g.id} 2", code="no_such_player")
    return found[0]


def remove(s: Session, by: User, game_id: int, who: str) -> tuple[Game, User]:
    """The creator (or an admin) takes a joined player's seat away before the start; the player is
    told by mail. Returns the game and the removed player."""
    g = games.get(s, game_id, lock=True)
    if not (by.is_admin or g.creator_id == by.id):
        raise Forbidden(_("only the creator of game #%(id)d removes players from it", id=g.id),
                        example=f"RESIGN {g.id}", code="not_creator")
    if g.status != "open":
        raise UserError(_("game #%(id)d has started (or is over), and a player is removed only before the start",
                          id=g.id), example=f"STATUS {g.id}", code="not_open")
    seat = find_player(s, g, who)
    player = s.get(User, seat.user_id) if seat.user_id is not None else None
    if player is None or seat.user_id == g.creator_id:
        raise UserError(_("the creator of game #%(id)d is not removed from it; to withdraw the game, CANCEL %(id)d",
                          id=g.id), example=f"CANCEL {g.id}", code="creator")
    games.leave(s, player, g.id)
    if by.id != g.creator_id:  # an admin's action on someone else's game
        s.add(AuditLog(user_id=by.id, game_id=g.id, action="remove_player",
                       detail=f"{by.name} removed {player.name} from the game before it started."))
    row = invitation(s, g, player)
    if row is not None:  # an invitation admits: the removed player must not walk back in with it
        row.status, row.answered_at = "removed", utcnow()
        s.add(row)
    s.flush()
    if seat.is_bot:  # a bot seated by the creator has no mailbox
        return g, player
    with i18n.use(player.language):
        title = games.engine_for(g).title
        queue_mail(s, to=player.email, subject=_("pbem: removed from game #%(id)d", id=g.id), kind="notice",
                   user=player, game_id=g.id, context={
                       "title": _("Game #%(id)d", id=g.id), "greeting": _("Hello,"),
                       "paragraphs": [_("%(name)s, who created game #%(id)d (%(game)s), has removed you from it "
                                        "before it started; your seat is free again.", name=by.name, id=g.id,
                                        game=title) if by.id == g.creator_id else
                                      _("An admin of pbem has removed you from game #%(id)d (%(game)s) before it "
                                        "started; your seat is free again.", id=g.id, game=title),
                                      _("To find another table, send GAMES to %(address)s.",
                                        address=settings().command_address)]})
    return g, player
