"""A user's calendar key and the .ics links mailed with it. The key (``users.calendar_key``, a
random secret) is in the address of the user's calendar feed (services/follow/calendars.py), and
each "your turn" mail links one game's deadline as an .ics file by a token keyed with it: a new key
voids the old feed address and every link mailed before."""
from __future__ import annotations

import hashlib
import hmac
import secrets

from sqlmodel import Session

from pbem.config import settings
from pbem.i18n import _
from pbem.store.models import Game, Seat, User


def key_of(user: User) -> str:
    """The user's calendar key, made on first use (a new user, or one from before the feed)."""
    if not user.calendar_key:
        user.calendar_key = secrets.token_urlsafe(18)  # 24 characters, 144 bits
    return user.calendar_key


def _mac(user: User, game_id: int) -> str:
    msg = f"calendar {user.id} {game_id} {key_of(user)}".encode()
    return hmac.new(settings().secret_key.encode(), msg, hashlib.sha256).hexdigest()[:32]


def game_token(user: User, game_id: int) -> str:
    return f"{user.id}.{game_id}.{_mac(user, game_id)}"


def game_ics_url(user: User, game_id: int) -> str:
    """The address of one game's deadline as an .ics file, for the "your turn" mail."""
    return f"{settings().base_url}/calendar/game/{game_token(user, game_id)}.ics"


def check_game_token(s: Session, token: str) -> tuple[User, Game] | None:
    """The user and game of a token made by game_token, or None (unknown, forged, or voided by a new key)."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
        return None
    user = s.get(User, int(parts[0]))
    g = s.get(Game, int(parts[1]))
    if user is None or g is None or not user.calendar_key or user.disabled_at is not None:
        return None
    if not hmac.compare_digest(parts[2].encode(), _mac(user, g.id).encode()):
        return None
    return user, g


def mail_line(s: Session, g: Game, seat: Seat, user: User) -> str:
    """The "your turn" mail's sentence with the .ics link of this deadline (the reader's own)."""
    if seat.deadline_at is None or g.paused or g.status != "running":
        return ""
    return _("Add this deadline to your calendar: %(url)s (all your deadlines, kept up to date, in one "
             "calendar: NOTIFY CALENDAR, or your profile page).", url=game_ics_url(user, g.id))
