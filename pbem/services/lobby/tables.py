"""The lobby's tables: open games -- made (NEW), joined (JOIN), listed (GAMES), left or
cancelled before the start -- and who may join them.

A game's ``access`` is "public" (anyone joins), "private" (only those invited:
an invitation to their address, made before or after they registered) or
"password" (anyone who gives the word; an invitation admits too). Who may see
a game at all is services/core/access.py's. Only a salted scrypt hash of the
word is kept, compared in constant time; wrong or missing words are counted
per user and game (join_attempts), and after ``MAX_TRIES`` in an hour the
game refuses that user's tries until the hour has passed, whatever the word.
An invitation is answered: accepted (the invitee joins, as by JOIN) or
declined (the inviter is told). The creator (or an admin) removes a joined
player before the start. A game starts when its last seat is taken, or when
its creator says so (services/core/lifecycle.start).
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, select

from pbem import i18n
from pbem.config import settings
from pbem.engine import GAMES, OptionError, advice, get_game, validate_options
from pbem.engine.base import normalize_notation
from pbem.i18n import _, lazy_gettext, ngettext
from pbem.store.models import AuditLog, Game, Invitation, JoinAttempt, Observer, Seat, User, utcnow
from pbem.store.outbox import queue_mail

from ..core import access, games, lifecycle, notices, paging, reliability, seating
from ..core.errors import Forbidden, UserError
from . import ratings

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


# ---------------------------------------------------------------- a new game, a seat taken


MAX_OPEN_GAMES = 8  # games a user created that wait for players, at once
MAX_NEW_PER_HOUR = 12  # games a user may create in an hour (solo ones start at once)


def check_creation_quota(s: Session, user: User, *, now: datetime | None = None) -> None:
    """Refuse a new game past the user's caps (one mail of 198 NEW lines
    must not make 198 games). The front doors (mail, web) ask before create()."""
    now = now or utcnow()
    open_games = s.exec(select(func.count()).select_from(Game).where(
        Game.creator_id == user.id, Game.status == "open")).one()
    if open_games >= MAX_OPEN_GAMES:
        raise UserError(ngettext("you already have %(num)d game waiting for players; start or cancel it before you "
                                 "open another",
                                 "you already have %(num)d games waiting for players; start or cancel one before you "
                                 "open another", open_games), example="CANCEL 12", code="too_many_open")
    recent = s.exec(select(func.count()).select_from(Game).where(
        Game.creator_id == user.id, Game.created_at > now - timedelta(hours=1))).one()
    if recent >= MAX_NEW_PER_HOUR:
        raise UserError(ngettext("you have created %(num)d game in the last hour, the most pbem takes; please try "
                                 "again later",
                                 "you have created %(num)d games in the last hour, the most pbem takes; please try "
                                 "again later", recent), example="GAMES", code="too_many_new")


def create(s: Session, creator: User, game_name: str, players: int | None = None,
           options: dict[str, Any] | None = None, *, seed: int | None = None,
           deadline_hours: int = 48, policy: str = "wait", day_mask: str = "", access: str = "public",
           password: str | None = None, min_reliability: int | str | None = None,
           bot_level: str | None = None, hints: bool = False) -> Game:
    """A new open game (a solo one starts at once). ``access`` "private": only those invited join;
    a ``password``: anyone who gives it joins (only its hash is kept). ``hints``: a practice game,
    whose players may ask the search for hints (services/turns/hints.py): never rated."""
    try:
        engine = get_game(game_name)
    except KeyError as e:
        raise UserError(str(e.args[0]), example="NEW spyrium players=4", code="no_such_game") from None
    players = engine.max_players if players is None else players
    reserved = [o.name for o in engine.options if o.admin_only and (options or {}).get(o.name) not in (None, "")]
    if reserved and not creator.is_admin:  # a replacement data set changes the game itself: a site admin's choice
        raise Forbidden(_("only a site admin may set the option %(option)s", option=reserved[0]),
                        example=f"NEW {engine.name} players={max(2, engine.min_players)}", code="admin_option")
    try:
        opts = validate_options(engine, players, options or {})
    except OptionError as e:
        raise UserError(str(e), example=f"NEW {engine.name} players={engine.min_players}",
                        code="bad_option") from None
    if not 1 <= int(deadline_hours) <= 24 * 30:
        raise UserError(_("the deadline is 1 to 720 hours"), example="NEW spyrium deadline=48", code="bad_option")
    if policy not in games.POLICIES:
        raise UserError(_("the no-move policy is one of %(list)s", list=", ".join(games.POLICIES)),
                        example="NEW squire policy=bot",
                        code="bad_option")
    bot_level = games.check_level(bot_level, f"NEW {engine.name} policy=bot bot=strong")
    if day_mask not in ("", "no-weekends"):
        raise UserError(_("days is 'all' or 'no-weekends'"), example="NEW iaww days=no-weekends", code="bad_option")
    if access not in ("public", "private"):
        raise UserError(_("a game is public, private (invitation only) or has a password"),
                        example=f"NEW {engine.name} private", code="bad_option")
    if password is not None:
        password = valid_password(password, engine.name)
        access = "password"
    if hints and advice.knowledge(engine) is None:  # a hint is the search bot's: a game without one has none
        raise UserError(_("%(title)s has no search bot to give hints; hints=on is for %(games)s", title=engine.title,
                          games=", ".join(n for n, e in GAMES.items() if advice.knowledge(e) is not None)),
                        example="NEW spyrium players=2 hints=on", code="bad_option")
    g = Game(game=engine.name, options=opts, players=players,
             seed=secrets.randbits(62) if seed is None else seed, creator_id=creator.id,
             deadline_hours=int(deadline_hours), policy=policy, day_mask=day_mask, access=access,
             password_hash=hash_password(password) if password is not None else None,
             min_reliability=reliability.parse_minimum(min_reliability), bot_level=bot_level, hints=bool(hints))
    s.add(g)
    s.flush()
    s.add(Seat(game_id=g.id, seat=0, user_id=creator.id, token=seating.new_token()))
    s.flush()
    if players == 1:  # a solo game is full as soon as it exists
        lifecycle.start(s, g, by=None)
    return g


def join(s: Session, user: User, game_id: int, password: str | None = None) -> tuple[Game, Seat, bool]:
    """Take the next free seat (of a private game: invited; of a password game: with the word or
    invited). Returns (game, seat, started)."""
    g = games.get(s, game_id, lock=True)
    if not access.may_see(s, g, user):  # a private game one was not invited to: as if it were not there
        check_join(s, g, user, password)
    if g.status != "open":
        raise UserError(_("game #%(id)d is not open for joining (it is %(status)s)", id=g.id,
                          status=games.status_word(g.status)), example="GAMES",
                        code="not_open")
    taken = seating.seats(s, g.id)
    if any(t.user_id == user.id for t in taken):
        raise UserError(_("you already have a seat in game #%(id)d", id=g.id), example=f"STATUS {g.id}",
                        code="already_seated")
    check_join(s, g, user, password)
    reliability.check_join(g, user)  # NEW ... min_reliability=90
    joined(s, g, user)
    seat = Seat(game_id=g.id, seat=len(taken), user_id=user.id, token=seating.new_token())
    s.add(seat)
    s.flush()
    started = False
    if len(taken) + 1 >= g.players:
        lifecycle.start(s, g, by=None)
        started = True
    return g, seat, started


# ---------------------------------------------------------------- who may join


def _tries(s: Session, g: Game, user: User) -> int:
    return s.exec(select(func.count()).select_from(JoinAttempt).where(
        JoinAttempt.game_id == g.id, JoinAttempt.user_id == user.id,
        JoinAttempt.created_at >= utcnow() - timedelta(hours=1))).one()


def check_join(s: Session, g: Game, user: User, password: str | None) -> None:
    """Refuse ``user`` a seat in open game ``g`` they may not take (a private game they were not
    invited to, a password game without the right word). A refused word is counted."""
    invited = access.invitation(s, g, user)
    if g.access == "public" or (invited is not None and invited.status != "removed"):
        return
    if g.access == "private":
        raise Forbidden(_("Game #%(id)d is private: only the people its players invite may join it, so ask its "
                          "creator for an invitation.", id=g.id), example="GAMES", code="private")
    if _tries(s, g, user) >= MAX_TRIES:
        raise Forbidden(ngettext("You have given game #%(id)d a wrong password %(num)d time in the last hour, the "
                                 "most pbem takes: try again in an hour, or ask the game's creator for an invitation.",
                                 "You have given game #%(id)d a wrong password %(num)d times in the last hour, the "
                                 "most pbem takes: try again in an hour, or ask the game's creator for an invitation.",
                                 MAX_TRIES, id=g.id), code="too_many_tries")
    if check_password(g.password_hash, (password or "").strip()):
        return
    s.add(JoinAttempt(game_id=g.id, user_id=user.id))
    s.flush()
    # each refusal one sentence that says what to do (a page words its own: web/lobby.py, by the code)
    if not password:
        raise WrongPassword(_("Game #%(id)d needs a password to join: write it after the game's number, and ask the "
                              "game's creator for it if you do not have it.", id=g.id),
                            example=f"JOIN {g.id} <password>", code="no_password")
    raise WrongPassword(_("That is not the password of game #%(id)d, so you have not joined: check its capital "
                          "letters and send it again, or ask the game's creator for it.", id=g.id),
                        example=f"JOIN {g.id} <password>")


def joined(s: Session, g: Game, user: User) -> None:
    """After ``user`` took a seat: their invitation, if any, is accepted."""
    row = access.invitation(s, g, user)
    if row is not None and row.status != "accepted":
        row.status, row.answered_at = "accepted", utcnow()
        s.add(row)
        s.flush()


LOBBY_PAGE = 50  # open games on a page of the lobby


@dataclass(frozen=True)
class Table:
    """An open game as the lobby and GAMES show it to one person."""

    game: Game
    players: list[ratings.Player]  # its seats, with their players' ratings in the game
    mine: bool  # the person has a seat at it
    invited: bool  # the person's address is invited to it


def _shown_to(q, user: User | None):
    """``q`` narrowed to the games ``user`` may see listed: public and password games to anyone, a
    private one to its creator, the people invited, its players and its watchers (and admins)."""
    if user is None:
        return q.where(Game.access != "private")
    if user.is_admin:
        return q
    invited = select(Invitation.game_id).where(Invitation.email == (user.email or "").lower())
    seated = select(Seat.game_id).where(Seat.user_id == user.id)
    watching = select(Observer.game_id).where(Observer.user_id == user.id)
    return q.where(or_(Game.access != "private", Game.creator_id == user.id, Game.id.in_(invited),
                       Game.id.in_(seated), Game.id.in_(watching)))


def running_tables(s: Session, user: User | None, limit: int = LOBBY_PAGE) -> list[Table]:
    """The newest games being played that ``user`` may see, for the lobby's second list (a newcomer
    finds a game to watch, the demo's among them): one page by the index on games (status, id), then
    their players in one query."""
    found = list(s.exec(_shown_to(select(Game).where(Game.status == "running"), user)
                        .order_by(Game.status, Game.id.desc()).limit(limit)))
    players = ratings.seated_in(s, found)
    return [Table(g, players[g.id], False, False) for g in found]


def open_tables(s: Session, user: User | None, page: int = 1, per_page: int = LOBBY_PAGE) -> paging.Page[Table]:
    """A page of the open games ``user`` (None: a visitor) is shown in the lobby and by GAMES, oldest
    first: the public and password ones, and private ones only to those who may see them. A constant
    number of statements however many games are open or stored: the page's games (by the
    index on games (status, id), migration 0035), then their seats, ratings and invitations each in
    one query for the whole page."""
    q = _shown_to(select(Game).where(Game.status == "open"), user)
    # every row's status is "open": ordering by it too has the page read off the index (status, id), where
    # PostgreSQL would otherwise walk the primary key past every older (finished) game to find the open ones
    found = paging.fetch(s, q.order_by(Game.status, Game.id), page, per_page)
    players = ratings.seated_in(s, found.rows)
    invited = set() if user is None or not found.rows else set(s.exec(select(Invitation.game_id).where(
        Invitation.email == (user.email or "").lower(), Invitation.game_id.in_([g.id for g in found.rows]))))
    rows = [Table(g, players[g.id], user is not None and any(x.user_id == user.id for x in seating.seats(s, g.id)),
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
    row = access.invitation(s, g, user)
    if row is None or row.status == "removed":
        raise UserError(_("you have no invitation to game #%(id)d to answer", id=g.id), example="GAMES",
                        code="not_invited")
    if g.status != "open":
        raise UserError(_("game #%(id)d is not open for joining (it is %(status)s)", id=g.id,
                          status=games.status_word(g.status)), example="GAMES", code="not_open")
    return row


def accept(s: Session, user: User, game_id: int) -> tuple[Game, Seat, bool]:
    """ACCEPT: join the game one was invited to (:func:`join`: the same rules, the seat taken)."""
    g = games.get(s, game_id, lock=True)
    _need_invitation(s, g, user)
    return join(s, user, g.id)


def decline(s: Session, user: User, game_id: int) -> Invitation:
    """DECLINE: the invitation is answered no, and its inviter is told by mail."""
    g = games.get(s, game_id, lock=True)
    row = _need_invitation(s, g, user)
    if seating.seat_of(s, g.id, user.id) is not None:
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


# ---------------------------------------------------------------- leaving before the start


def leave(s: Session, user: User, game_id: int) -> Seat:
    """RESIGN before the start: the player gives the seat up and the row goes
    (there is nothing to play for a bot yet). Later seats move up one, so the
    seats stay 0..n-1 as the start and the next JOIN expect. Returns the
    removed seat as it was."""
    g = games.get(s, game_id, lock=True)
    if g.status != "open":
        raise UserError(_("game #%(id)d is %(status)s, not open", id=g.id, status=games.status_word(g.status)),
                        example=f"STATUS {g.id}", code="not_open")
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), example="GAMES", code="no_seat")
    later = [x for x in seating.seats(s, g.id) if x.seat > seat.seat]
    s.delete(seat)
    s.flush()
    for x in later:  # in seat order, one at a time: (game, seat) is unique at every flush
        x.seat -= 1
        s.add(x)
        s.flush()
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    return seat


def cancel(s: Session, user: User, game_id: int) -> Game:
    """CANCEL: the creator withdraws a game that has not started. The seats
    stay, as the record of who had joined; the game takes no more joins or
    moves."""
    g = games.get(s, game_id, lock=True)
    seated = seating.seat_of(s, g.id, user.id) is not None
    if g.status == "cancelled":
        raise UserError(_("game #%(id)d is already cancelled", id=g.id), example="GAMES", code="cancelled")
    if g.status == "running":
        raise UserError(_("game #%(id)d has started, and a running game is not cancelled: to leave it, RESIGN "
                          "%(id)d (a bot plays your seat until someone takes it over)", id=g.id) if seated else
                        _("game #%(id)d has started, and a running game is not cancelled; only an open game (one "
                          "still waiting for players) can be", id=g.id),
                        example=f"RESIGN {g.id}" if seated else "GAMES", code="running")
    if g.status != "open":
        raise UserError(_("game #%(id)d is over (%(status)s); there is nothing to cancel", id=g.id,
                          status=games.status_word(g.status)), example=f"STATUS {g.id}",
                        code="over")
    if g.creator_id != user.id:
        creator = s.get(User, g.creator_id) if g.creator_id else None
        who = _("the creator of game #%(id)d (%(name)s)", id=g.id, name=creator.name) if creator else \
            _("the creator of game #%(id)d", id=g.id)
        raise Forbidden(_("only %(who)s can cancel it; to give up your own seat, RESIGN %(id)d", who=who, id=g.id)
                        if seated else _("only %(who)s can cancel it", who=who),
                        example=f"RESIGN {g.id}" if seated else "GAMES",
                        code="not_creator")
    g.status = "cancelled"
    g.updated_at = utcnow()
    s.add(g)
    s.add(notices.post(game_id=g.id, user_id=user.id, value=lazy_gettext(
        "%(name)s cancelled the game before it started.", name=user.name)))
    s.flush()
    return g




def find_player(s: Session, g: Game, who: str) -> Seat:
    """The seat of game ``g`` that ``who`` names: a seat's number or its player's name."""
    text = " ".join((who or "").split()).strip()
    rows = seating.seats(s, g.id)
    if re.fullmatch(r"\d{1,3}", text):
        n = int(text) - 1
        found = [x for x in rows if x.seat == n]
    else:
        found = [x for x in rows if x.user_id is not None and
                 (s.get(User, x.user_id).name or "").casefold() == text.casefold()]
    if not found:
        raise UserError(_("game #%(id)d has no player %(who)s; its players are %(names)s", id=g.id, who=repr(text[:40]),
                          names=", ".join(seating.names(s, g.id))),
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
    leave(s, player, g.id)
    if by.id != g.creator_id:  # an admin's action on someone else's game
        s.add(AuditLog(user_id=by.id, game_id=g.id, action="remove_player",
                       detail=f"{by.name} removed {player.name} from the game before it started."))
    row = access.invitation(s, g, player)
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
