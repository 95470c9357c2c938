"""Invitations to an open game, mailed to an address.

Only those at the game's table invite (games.not_at_table). The limits live in
the database (the invitations table), so they hold for any number of web
processes: one invitation per address and game, ``PER_INVITER_HOUR`` from one
inviter in an hour and ``PER_ADDRESS_DAY`` to one address in a day, whoever
sends them. The mail's subject is fixed: nothing a user typed goes there.
The answer does not depend on whether the address has an account."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.config import settings
from pbem.store.models import Invitation, User, utcnow
from pbem.store.outbox import queue_mail

from . import accounts, games
from .errors import Forbidden, UserError

PER_INVITER_HOUR = 10
PER_ADDRESS_DAY = 3


def _count(s: Session, since: timedelta, *where) -> int:
    return s.exec(select(func.count()).select_from(Invitation)
                  .where(Invitation.created_at >= utcnow() - since, *where)).one()


def invite(s: Session, user: User | None, game_id: int, address: str, *, link: str) -> Invitation:
    """Mail ``address`` an invitation to open game ``game_id`` from ``user``; ``link`` is the game's page.
    Every refusal is a UserError and changes nothing."""
    g = games.get(s, game_id, lock=True)
    why = games.not_at_table(s, g, user)
    if why is not None:
        raise Forbidden({"login": "log in to invite players",
                         "resigned": f"you resigned from game #{g.id}, so you no longer invite players to it"}.get(
            why, f"only the players of game #{g.id} invite others to it; you have no seat in it "
                 f"(join it, if it is open, and then invite)"), code=f"invite_{why}")
    if g.status != "open":
        raise UserError(f"game #{g.id} is not open for joining (it is {g.status}), so nobody can be invited to it",
                        example="GAMES", code="not_open")
    email = accounts.valid_email(address)
    # one inviter's invitations one after another (their count is then exact, whatever the process)
    s.exec(select(User.id).where(User.id == user.id).with_for_update()).first()
    if s.exec(select(Invitation).where(Invitation.game_id == g.id, Invitation.email == email)).first():
        raise UserError(f"{email} has already been invited to game #{g.id}; pbem sends one invitation per address "
                        f"and game (the link in it still works)", example=accounts.EMAIL_EXAMPLE, code="invited")
    if _count(s, timedelta(hours=1), Invitation.inviter_id == user.id) >= PER_INVITER_HOUR:
        raise UserError(f"you have sent {PER_INVITER_HOUR} invitations in the last hour, the most pbem sends for "
                        f"one player; please try again later", code="too_many_invites")
    if _count(s, timedelta(days=1), Invitation.email == email) >= PER_ADDRESS_DAY:
        raise UserError(f"{email} has had {PER_ADDRESS_DAY} invitations in the last day, the most pbem sends to "
                        f"one address; please try again tomorrow", code="address_invited_enough")
    row = Invitation(game_id=g.id, inviter_id=user.id, email=email)
    try:
        with s.begin_nested():
            s.add(row)
            s.flush()
    except IntegrityError:  # the same invitation from another process a moment ago
        raise UserError(f"{email} has already been invited to game #{g.id}", code="invited") from None
    title = games.engine_for(g).title
    subject = f"pbem: an invitation to play {title} (game #{g.id})"
    queue_mail(s, to=email, subject=subject, kind="notice", game_id=g.id, context={
        "title": f"An invitation to {title}", "greeting": "Hello,",
        "paragraphs": [f"{user.name}, a player of game #{g.id} on pbem, invites you to a game of {title} by "
                       f"e-mail.",
                       f"To join, open {link} (sign up with this address first if you have no account), or send "
                       f"JOIN {g.id} to {settings().command_address}.",
                       f"If you do not want to play, ignore this mail. pbem sends one invitation per game to an "
                       f"address, and at most {PER_ADDRESS_DAY} a day."]})
    return row
