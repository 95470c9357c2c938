"""Addresses that bounce: pbem stops writing to them. A hard bounce (5.x.x), or
``bounce_soft_limit`` soft ones (4.x.x) within ``bounce_soft_days`` days,
marks a user's address as failing: mail to it is held in the outbox, not
sent (store/outbox.queue_mail; the rows already queued are held here), the
player sees a banner on the web, and each table they sit at is told once
that their seat is unreachable by mail. A later login, or a mail received
from the address, clears the mark (mail then goes out again; what was held
stays held, for the admins' outbox page)."""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import func, update
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import N_, _, lazy_gettext
from pbem.store.models import Bounce, Game, Outbound, Seat, User, utcnow

from ..core import accounts, notices, notify

log = logging.getLogger("pbem.deliverability")

POLICY_WORDS = {"wait": N_("the game waits for them at each deadline"),
                "bot": N_("a bot plays for them at each deadline"),
                "abandon": N_("their seat is abandoned after the missed deadlines the game allows")}


def is_failing(user: User | None) -> bool:
    return user is not None and user.mail_failing_at is not None


def record(s: Session, address: str, kind: str, *, status: str = "", diagnostic: str = "",
           outbound_id: int | None = None, inbound_id: int | None = None) -> User | None:
    """Record one bounce of mail to ``address``; the user whose address was
    marked failing by it, if this one did."""
    cfg = settings()
    address = accounts.normalise_email(address)[:320]
    s.add(Bounce(address=address, kind=kind, status=status[:16], diagnostic=diagnostic[:500],
                 outbound_id=outbound_id, inbound_id=inbound_id))
    s.flush()
    user = accounts.find_user(s, address)
    if user is None or user.mail_failing_at is not None:
        return None
    if kind == "hard":
        why = f"a permanent failure{f' ({status})' if status else ''}" + (f": {diagnostic}" if diagnostic else "")
    else:
        since = utcnow() - timedelta(days=cfg.bounce_soft_days)
        cleared = s.exec(select(func.max(Bounce.created_at)).where(Bounce.address == address,
                                                                    Bounce.kind == "cleared")).one()
        if cleared is not None and cleared.replace(tzinfo=since.tzinfo) > since:
            since = cleared.replace(tzinfo=since.tzinfo)  # soft bounces before the last clearing do not count
        soft = s.exec(select(func.count()).select_from(Bounce).where(
            Bounce.address == address, Bounce.kind == "soft", Bounce.created_at > since)).one()
        if soft < cfg.bounce_soft_limit:
            return None
        why = (f"{soft} temporary failures in {cfg.bounce_soft_days} days"
               + (f", the last: {diagnostic}" if diagnostic else ""))
    mark(s, user, why[:500])
    return user


def mark(s: Session, user: User, reason: str) -> None:
    """Mark the user's address as failing: hold what is queued to it, tell their tables."""
    from pbem.store.outbox import ALWAYS_SENT

    user.mail_failing_at = utcnow()
    user.mail_failing_reason = reason[:500]
    s.add(user)
    s.flush()
    held = s.exec(update(Outbound).where(Outbound.to_addr == user.email, Outbound.status == "queued",
                                         Outbound.kind.not_in(ALWAYS_SENT)).values(status="held")).rowcount
    log.warning("mail to user %s bounces (%s): marked failing, %d queued mails held", user.id, reason, held)
    tell_tables(s, user)


def tell_tables(s: Session, user: User) -> int:
    """Once per mark: a notice in the thread of every running game the user
    sits in, and a mail to the other players, that the seat is unreachable
    by mail and the game's no-move policy applies to it. Returns the games told."""
    rows = s.exec(select(Game, Seat).join(Seat, Seat.game_id == Game.id).where(
        Seat.user_id == user.id, Seat.resigned == False, Seat.is_bot == False,  # noqa: E712
        Game.status == "running")).all()
    for g, seat in rows:
        name = user.name

        def text(g=g) -> str:
            policy = POLICY_WORDS.get(g.policy)
            return _("%(name)s's mail bounces, so pbem cannot reach them by mail; the game's no-move policy applies "
                     "to their seat (%(policy)s). They can still play on the web, and mail from them (or a login) "
                     "starts their mail again.", name=name,
                     policy=_(policy) if policy else g.policy)

        s.add(notices.post(game_id=g.id, value=text))
        others = {x.seat for x in s.exec(select(Seat).where(Seat.game_id == g.id)) if x.seat != seat.seat}
        if others:
            notify.queue_notice(s, g, lazy_gettext("%(name)s's mail bounces", name=name), text, seats=others)
    s.flush()
    return len(rows)


def clear(s: Session, user: User | None, why: str) -> bool:
    """The address works again (``why``: "login" or "mail"): mail to it is
    sent again. True if it was marked."""
    if user is None or user.mail_failing_at is None:
        return False
    user.mail_failing_at = None
    user.mail_failing_reason = None
    s.add(user)
    s.add(Bounce(address=user.email, kind="cleared", diagnostic=f"by a {why}"[:500]))
    s.flush()
    log.warning("mail to user %s works again (a %s): the failing mark is cleared", user.id, why)
    return True
