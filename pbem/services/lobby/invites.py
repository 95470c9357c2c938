"""Invitations to an open game, mailed to an address.

Only those at the game's table invite (seating.not_at_table). The limits live in
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

from pbem import i18n
from pbem.config import settings
from pbem.i18n import _, ngettext
from pbem.store.models import Invitation, User, utcnow
from pbem.store.outbox import queue_mail

from ..core import accounts, games, seating
from ..core.errors import Forbidden, UserError

PER_INVITER_HOUR = 10
PER_ADDRESS_DAY = 3


def _count(s: Session, since: timedelta, *where) -> int:
    return s.exec(select(func.count()).select_from(Invitation)
                  .where(Invitation.created_at >= utcnow() - since, *where)).one()


def invite(s: Session, user: User | None, game_id: int, address: str, *, link: str) -> Invitation:
    """Mail ``address`` an invitation to open game ``game_id`` from ``user``; ``link`` is the game's page.
    Every refusal is a UserError and changes nothing."""
    g = games.get(s, game_id, lock=True)
    why = seating.not_at_table(s, g, user)
    if why is not None:
        if why == "login":
            message = _("log in to invite players")
        elif why == "resigned":
            message = _("you resigned from game #%(id)d, so you no longer invite players to it", id=g.id)
        else:
            message = _("only the players of game #%(id)d invite others to it; you have no seat in it "
                        "(join it, if it is open, and then invite)", id=g.id)
        raise Forbidden(message, code=f"invite_{why}")
    if g.status != "open":
        raise UserError(_("game #%(id)d is not open for joining (it is %(status)s), so nobody can be invited to it",
                          id=g.id, status=games.status_word(g.status)), example="GAMES", code="not_open")
    email = accounts.valid_email(address)
    # one inviter's invitations one after another (their count is then exact, whatever the process)
    s.exec(select(User.id).where(User.id == user.id).with_for_update()).first()
    if s.exec(select(Invitation).where(Invitation.game_id == g.id, Invitation.email == email)).first():
        raise UserError(_("%(email)s has already been invited to game #%(id)d; pbem sends one invitation per "
                          "address and game (the link in it still works)", email=email, id=g.id),
                        example=accounts.EMAIL_EXAMPLE, code="invited")
    if _count(s, timedelta(hours=1), Invitation.inviter_id == user.id) >= PER_INVITER_HOUR:
        raise UserError(ngettext("you have sent %(num)d invitation in the last hour, the most pbem sends for one "
                                 "player; please try again later",
                                 "you have sent %(num)d invitations in the last hour, the most pbem sends for one "
                                 "player; please try again later", PER_INVITER_HOUR), code="too_many_invites")
    if _count(s, timedelta(days=1), Invitation.email == email) >= PER_ADDRESS_DAY:
        raise UserError(ngettext("%(email)s has had %(num)d invitation in the last day, the most pbem sends to one "
                                 "address; please try again tomorrow",
                                 "%(email)s has had %(num)d invitations in the last day, the most pbem sends to one "
                                 "address; please try again tomorrow", PER_ADDRESS_DAY, email=email),
                        code="address_invited_enough")
    row = Invitation(game_id=g.id, inviter_id=user.id, email=email)
    try:
        with s.begin_nested():
            s.add(row)
            s.flush()
    except IntegrityError:  # the same invitation from another process a moment ago
        raise UserError(_("%(email)s has already been invited to game #%(id)d", email=email, id=g.id),
                        code="invited") from None
    # the invitee's language if the address has an account, else the inviter's
    invitee = accounts.find_user(s, email)
    with i18n.use((invitee or user).language):
        title = games.engine_for(g).title
        subject = _("pbem: an invitation to play %(game)s (game #%(id)d)", game=title, id=g.id)
        queue_mail(s, to=email, subject=subject, kind="notice", game_id=g.id, context={
            "title": _("An invitation to %(game)s", game=title), "greeting": _("Hello,"),
            "paragraphs": [_("%(name)s, a player of game #%(id)d on pbem, invites you to a game of %(game)s by "
                             "e-mail.", name=user.name, id=g.id, game=title),
                           _("To accept, open %(link)s (sign up with this address first if you have no account) "
                             "and press Accept, or send ACCEPT %(id)d (or JOIN %(id)d) to %(address)s; you need no "
                             "password, even if the game has one.", link=link, id=g.id,
                             address=settings().command_address),
                           _("To decline, press Decline there or send DECLINE %(id)d to %(address)s: %(name)s is "
                             "told. Or ignore this mail. pbem sends one invitation per game to an address, and at "
                             "most %(count)d a day.", id=g.id, address=settings().command_address, name=user.name,
                             count=PER_ADDRESS_DAY)]})
    return row
