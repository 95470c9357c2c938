"""Who sits where: a game's seats and their players' names, the seats' secret reply tokens, and
a seat changing hands.

A seat left by its player (resigned, abandoned, or opened by an admin or by a vote of the table)
is played by a bot until a replacement takes it over with the full history. The seat history
records who played each seat from which ply."""
from __future__ import annotations

import base64
import hmac
import secrets
from typing import Sequence

from sqlalchemy import Connection, bindparam
from sqlmodel import Session, select

from pbem.i18n import _, ngettext
from pbem.store import memo
from pbem.store.models import Game, Move, Seat, SeatHistory, User, utcnow

from . import events
from .errors import UserError

BOT_DOMAIN = "bots.pbem.invalid"  # a bot's address: .invalid never resolves, so no mail can leave for a bot


def new_token() -> str:
    """32 lower-case base32 characters (160 bits): survives MTAs that fold case."""
    return base64.b32encode(secrets.token_bytes(20)).decode().lower()


# ---------------------------------------------------------------- lookups

# built once with its values as parameters (building a statement costs about as much as running it):
# every mail reads its game's seats
_SEATS_WITH_USERS = (select(Seat, User).join(User, User.id == Seat.user_id, isouter=True)
                     .where(Seat.game_id == bindparam("game_id")))


def seats(s: Session, game_id: int) -> list[Seat]:
    """The game's seats in seat order, read once per transaction (with their
    users, so ``s.get(User, …)`` and ``names`` need no query; store/memo.py)."""
    if memo.pending_seat_change(s):
        s.flush()  # the memo is dropped by the flush and read again below
    cache = s.info.setdefault(memo.SEATS, {})
    rows = cache.get(game_id)
    if rows is None:  # the users are kept too: the identity map only holds objects someone references
        rows = cache[game_id] = list(s.exec(_SEATS_WITH_USERS, params={"game_id": game_id}))
    return sorted((seat for seat, _user in rows), key=lambda x: x.seat)


def load_seats(s: Session, game_ids: Sequence[int]) -> None:
    """Read the seats (with their users) of many games in one query, into the memo that
    :func:`seats` and :func:`names` read: a list page asks once for its page of games, never
    once per row, so that it costs the same however many games it lists."""
    if memo.pending_seat_change(s):
        s.flush()
    cache = s.info.setdefault(memo.SEATS, {})
    wanted = sorted({i for i in game_ids if i not in cache})
    if not wanted:
        return
    for gid in wanted:
        cache[gid] = []
    for seat, user in s.exec(select(Seat, User).join(User, User.id == Seat.user_id, isouter=True)
                             .where(Seat.game_id.in_(wanted))):
        cache[seat.game_id].append((seat, user))


def seat_of(s: Session, game_id: int, user_id: int) -> Seat | None:
    return next((x for x in seats(s, game_id) if x.user_id == user_id), None)


def not_at_table(s: Session, g: Game, user: User | None) -> str | None:
    """Who acts for a game's table -- writes in its thread, invites to it: its seated players, its
    creator and admins. None for them, else why not: "login", "not_a_player" or "resigned"."""
    if user is None:
        return "login"
    if user.is_admin or g.creator_id == user.id:
        return None
    seat = seat_of(s, g.id, user.id)
    if seat is None:
        return "not_a_player"
    return "resigned" if seat.resigned else None


def seat_by_token(s: Session, game_id: int, token: str) -> Seat | None:
    """The seat whose reply token is ``token`` (compared in constant time)."""
    for seat in seats(s, game_id):
        if hmac.compare_digest(seat.token.encode(), (token or "").lower().encode()):
            return seat
    return None


def token_senders(s: Session | Connection, game_id: int, token: str) -> str | None:
    """The receiver's one read for a seat address: None when ``token`` opens
    no seat of the game, else who may use it -- its player's choice, "any" or
    "own" (SEATS OWN: pbem checks the sender), "" for a seat without a player.
    Every token of the game is compared, in constant time; a bare connection
    will do."""
    given = (token or "").lower().encode()
    found = None
    for t, mode in s.execute(_SEAT_TOKENS, {"game_id": game_id}).all():
        if hmac.compare_digest(t.encode(), given):
            found = mode or ""
    return found


# built once: one per mail
_SEAT_TOKENS = (select(Seat.token, User.seat_senders).select_from(Seat).outerjoin(User, User.id == Seat.user_id)
                .where(Seat.game_id == bindparam("game_id")))


def names(s: Session, game_id: int) -> list[str]:
    out = []
    for seat in seats(s, game_id):
        user = s.get(User, seat.user_id) if seat.user_id is not None else None
        out.append(user.name if user is not None else _("Seat %(n)d", n=seat.seat + 1))
    return out


def resolve_seat(s: Session, g: Game, who: str) -> int | None:
    """The seat ``who`` names: a seat number (1-based, also 'seat 2'), a
    player's name, or a player's first name when only one player has it; None
    when it names nobody. Two players of one name are told apart by seat."""
    who = " ".join(who.strip().lstrip("@").split())
    folded = who.casefold()
    number = folded[5:].strip() if folded.startswith("seat ") else folded
    if number.isdigit():
        n = int(number)
        if not 1 <= n <= g.players:
            raise UserError(_("game #%(id)d has seats 1 to %(players)d", id=g.id, players=g.players),
                            example="SAY 2: well played",
                            code="no_seat")
        return n - 1
    names_ = names(s, g.id)
    # a whole name or a first name: every seat it could mean ("Bob" is both Bob's whole name and Bob
    # Smith's first name -- a private word must not go to whichever comes first)
    candidates = [i for i, name in enumerate(names_) if " ".join(name.split()).casefold() == folded
                  or (name.split() or [""])[0].casefold() == folded]
    if len(candidates) > 1:
        seats_ = _(" and ").join(f"{i + 1} ({names_[i]})" for i in candidates)
        raise UserError(ngettext("%(num)d player of game #%(id)d could be meant by %(who)s (seats %(seats)s); "
                                 "nothing was sent: write to one of them by seat number",
                                 "%(num)d players of game #%(id)d could be meant by %(who)s (seats %(seats)s); "
                                 "nothing was sent: write to one of them by seat number", len(candidates), id=g.id,
                                 who=who, seats=seats_),
                        example=f"SAY {candidates[0] + 1}: well played", code="ambiguous_recipient")
    return candidates[0] if candidates else None


# ---------------------------------------------------------------- a seat changing hands


def history(s: Session, g: Game) -> list[SeatHistory]:
    """Who played each seat; seats never replaced have one open-ended row."""
    rows = list(s.exec(select(SeatHistory).where(SeatHistory.game_id == g.id)
                       .order_by(SeatHistory.seat, SeatHistory.from_ply, SeatHistory.id)))
    have = {r.seat for r in rows}
    for seat in seats(s, g.id):
        if seat.seat not in have:
            rows.append(SeatHistory(game_id=g.id, seat=seat.seat, user_id=seat.user_id, from_ply=0,
                                    reason="original player"))
    return sorted(rows, key=lambda r: (r.seat, r.from_ply))


def played_by(s: Session, g: Game) -> str:
    """One line per seat: who played it, with plies; bots and replacements shown."""
    names = {}
    lines = []
    for seat in seats(s, g.id):
        parts = []
        for h in (r for r in history(s, g) if r.seat == seat.seat):
            if h.user_id not in names:
                u = s.get(User, h.user_id) if h.user_id else None
                names[h.user_id] = u.name if u else _("a bot")
            if h.until_ply is not None:
                span = _("plies %(first)d-%(last)d", first=h.from_ply, last=h.until_ply)
            else:
                span = _("from ply %(first)d", first=h.from_ply)
            parts.append(f"{names[h.user_id]} ({span})")
        if seat.is_bot:
            parts.append(_("a bot at the end"))
        moves = s.exec(select(Move).where(Move.game_id == g.id, Move.seat == seat.seat, Move.source == "bot",
                                          Move.undone == False)).all()  # noqa: E712
        if moves:
            lines.append(ngettext("Seat %(seat)d: %(players)s; %(num)d move(s) played by a bot",
                                  "Seat %(seat)d: %(players)s; %(num)d move(s) played by a bot", len(moves),
                                  seat=seat.seat + 1, players=", ".join(parts)))
        else:
            lines.append(_("Seat %(seat)d: %(players)s", seat=seat.seat + 1, players=", ".join(parts)))
    return "\n".join(lines)


def _close(s: Session, g: Game, seat: Seat, reason: str) -> None:
    """The seat's player leaves it (resigned, abandoned, opened, replaced): their time in the
    history ends, and so do their pre-moves, which were theirs to play, not the seat's next
    player's (nor a bot's), and a private plan (events.SEAT_LEFT)."""
    events.SEAT_LEFT.announce(s, g, seat, reason)
    every = list(s.exec(select(SeatHistory).where(SeatHistory.game_id == g.id, SeatHistory.seat == seat.seat)))
    rows = [r for r in every if r.until_ply is None]
    if not every:
        rows = [SeatHistory(game_id=g.id, seat=seat.seat, user_id=seat.user_id, from_ply=0,
                            reason="original player")]
    for r in rows:
        r.until_ply = g.ply
        s.add(r)
    s.flush()


def _seat(s: Session, g: Game, number: int) -> Seat:
    for seat in seats(s, g.id):
        if seat.seat == number:
            return seat
    raise UserError(_("game #%(id)d has seats 1 to %(players)d", id=g.id, players=g.players),
                    example=f"REPLACE {g.id} 1", code="no_seat")


def _open(s: Session, g: Game, seat: Seat) -> None:
    """The seat leaves its player's hands (resigned, abandoned, opened): a bot
    plays it until a replacement takes it, and its reply address dies with
    the change (the old address must not move or talk for the seat)."""
    seat.open_for_replacement = True
    seat.is_bot = True  # the game goes on; a bot plays until someone takes over
    seat.token = new_token()
    seat.deadline_at = seat.clock_started_at = None
    s.add(seat)
    s.flush()


def hand_over(s: Session, g: Game, seat: Seat, user: User, reason: str) -> None:
    """An open seat goes to ``user`` from this ply on (REPLACE, or the game master's seating): its
    history closed and opened, a new reply address, a human seat again with a clean record."""
    _close(s, g, seat, "replaced")
    s.add(SeatHistory(game_id=g.id, seat=seat.seat, user_id=user.id, from_ply=g.ply, reason=reason))
    seat.user_id = user.id
    seat.token = new_token()
    seat.resigned = seat.abandoned = seat.is_bot = seat.open_for_replacement = False
    seat.missed = 0
    seat.joined_at = utcnow()
    s.add(seat)
