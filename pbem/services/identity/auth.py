"""Web identity: one-time links mailed to an address, to sign up, log in or
take a new address. Only the SHA-256 of a link's token is stored.

Nothing here tells anyone but the address's owner whether the address has an
account: asking for a link (to sign up or to log in) always does the same work
(count the address's recent links, store one, queue one mail) and gets the
same answer; only the mail's text differs, and only the owner reads it. An
account is made when the owner opens the sign-up link, with the name they
choose then: nobody can hold an address, or a name, by typing someone else's
address. Links are limited per address in the database (so the limit holds
for any number of web processes); past it nothing is sent, and the answer is
still the same."""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, update
from sqlmodel import Session, select

from pbem import i18n
from pbem.config import settings
from pbem.i18n import _, ngettext
from pbem.store.models import LoginToken, User, utcnow
from pbem.store.outbox import queue_mail

from ..core import accounts
from ..core.errors import UserError

TTL = {"signup": timedelta(hours=24), "confirm": timedelta(hours=24), "login": timedelta(minutes=30),
       "address": timedelta(hours=24)}
MAILS_PER_WINDOW = 3  # links to one address (and address changes asked by one user) ...
WINDOW = timedelta(minutes=15)  # ... in this window
# links asked for by one client (an address, an IPv6 network's /64), whatever the addresses: one person
# signing up, logging in from a few devices behind one router, never a list of strangers' addresses
LINKS_PER_CLIENT = 10
CLIENT_WINDOW = timedelta(hours=1)
NAMELESS = ("signup", "confirm")  # links whose opener chooses the account's name


def hash_token(token: str) -> str:
    return hashlib.sha256((token or "").encode()).hexdigest()


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def link_for(token: str) -> str:
    return f"{settings().base_url.rstrip('/')}/auth/{token}"


def _recent(s: Session, *where) -> int:
    return s.exec(select(func.count()).select_from(LoginToken)
                  .where(LoginToken.created_at >= utcnow() - WINDOW, *where)).one()


def _mail(user: User | None, purpose: str, link: str) -> tuple[str, str, list[str]]:
    """(subject, greeting, paragraphs) of the mail carrying ``link``; fixed texts, nothing a stranger typed."""
    if purpose in NAMELESS:
        return (_("pbem: your sign-up link"), _("Hello,"),
                [_("Open this link to make your pbem account for this address; you choose your name there:"), link,
                 _("The link works once, for 24 hours. If you did not ask for it, ignore this mail: nothing "
                   "happens without the link.")])
    if purpose == "address":
        return (_("pbem: confirm your new address"), _("Hello,"),
                [_("Open this link to make this the address of your pbem account:"), link,
                 _("The link works once, for 24 hours. If you did not ask for it, ignore this mail: nothing "
                   "happens without the link.")])
    return (_("pbem: your login link"), _("Dear %(name)s,", name=user.name),
            [_("Open this link to log in to pbem:"), link,
             _("The link works once, for 30 minutes. If you did not ask for it, ignore this mail: nothing "
               "happens without the link.")])


def _issue(s: Session, email: str, purpose: str, user: User | None, client: str = "") -> str | None:
    """Store a new token for ``email`` and mail its link; None (and nothing sent) past the address's
    limit. Returns the token (callers must not log or show it)."""
    if _recent(s, LoginToken.email == email) >= MAILS_PER_WINDOW:
        return None
    token = secrets.token_urlsafe(32)
    s.add(LoginToken(user_id=user.id if user else None, email=email, purpose=purpose, client=client[:64],
                     token_hash=hash_token(token), expires_at=utcnow() + TTL[purpose]))
    s.flush()
    # the account's language; an address without one: the language of whoever asks (the page's)
    with i18n.use(user.language if user is not None else i18n.current()):
        subject, greeting, paragraphs = _mail(user, purpose, link_for(token))
        queue_mail(s, to=email, subject=subject, kind="login", user=user,
                   context={"title": subject, "greeting": greeting, "paragraphs": paragraphs})
    return token


def mail_link(s: Session, email: str, client: str = "") -> str | None:
    """Sign-up and login alike: mail ``email`` the link that gets its owner in -- a login link for an
    account, a sign-up link for an address without one (or whose account was never confirmed).
    Refuses an address that is not one, and a ``client`` (the web visitor's address) that has asked
    for LINKS_PER_CLIENT links in the last CLIENT_WINDOW, whatever the addresses (pbem would otherwise
    mail any list of addresses for one client); the caller answers the same in every other case."""
    email = accounts.valid_email(email)
    if client and s.exec(select(func.count()).select_from(LoginToken).where(
            LoginToken.client == client[:64], LoginToken.created_at >= utcnow() - CLIENT_WINDOW)).one() \
            >= LINKS_PER_CLIENT:
        raise UserError(ngettext("pbem has mailed %(num)d sign-up or login link asked from your connection in the "
                                 "last hour, the most it sends: nothing was sent. Please try again in an hour, or use "
                                 "a link you already have.",
                                 "pbem has mailed %(num)d sign-up or login links asked from your connection in the "
                                 "last hour, the most it sends: nothing was sent. Please try again in an hour, or use "
                                 "a link you already have.", LINKS_PER_CLIENT), code="rate_limited_client")
    user = accounts.find_user(s, email)
    purpose = "signup" if user is None else ("login" if user.confirmed else "confirm")
    return _issue(s, email, purpose, user, client)


def request_address(s: Session, user: User, email: str) -> str:
    """Mail a link to ``email`` that makes it ``user``'s address when opened (by its owner). Returns
    the address as stored (the same whether or not it has an account, and past its limit)."""
    email = accounts.valid_email(email)
    if email == user.email:
        raise UserError(_("%(email)s is already your address", email=email), example=accounts.EMAIL_EXAMPLE,
                        code="same_address")
    if _recent(s, LoginToken.user_id == user.id, LoginToken.purpose == "address") >= MAILS_PER_WINDOW:
        # two counts, each agreeing with its own words
        raise UserError(_("you have asked for %(addresses)s in the last %(minutes)s; please use the newest link, or "
                          "wait a little before asking again",
                          addresses=ngettext("%(num)d new address", "%(num)d new addresses", MAILS_PER_WINDOW),
                          minutes=ngettext("%(num)d minute", "%(num)d minutes", int(WINDOW.total_seconds() // 60))),
                        code="rate_limited")
    _issue(s, email, "address", user)
    return email


def peek(s: Session, token: str) -> LoginToken | None:
    """The live token row for ``token`` (unused, unexpired), without spending it."""
    row = s.exec(select(LoginToken).where(LoginToken.token_hash == hash_token(token))).first()
    if row is None or row.used_at is not None or _aware(row.expires_at) < utcnow():
        return None
    return row


def needs_name(s: Session, row: LoginToken) -> bool:
    """Whether opening this link makes an account, whose name its opener chooses."""
    if row.purpose not in NAMELESS:
        return False
    user = accounts.find_user(s, row.email)
    return user is None or not user.confirmed


def _refuse_disabled(user: User | None) -> None:
    """A disabled account (`pbem admin disable`) cannot log in."""
    if user is not None and user.disabled_at is not None:
        raise UserError(_("this account has been disabled by pbem's administrators, so it cannot log in; if you "
                          "think this is a mistake, please write to them"), example="/", code="account_disabled")


def redeem(s: Session, token: str, name: str = "", language: str | None = None) -> User:
    """Spend ``token``: the user it logs in. A sign-up link makes the account, named ``name``, speaking
    ``language`` (the browser's) until its owner chooses another; a link
    for a new address gives the account that address (every session of it ends, and the old address
    is told). Any refusal spends nothing (the caller's transaction rolls back)."""
    row = peek(s, token)
    bad = UserError(_("this link is unknown, already used or expired; ask for a new one"),
                    example="/login", code="bad_token")
    if row is None:
        raise bad
    # compare-and-set: of two concurrent redeems only one wins
    res = s.exec(update(LoginToken).where(LoginToken.id == row.id, LoginToken.used_at.is_(None))
                 .values(used_at=utcnow()))
    if res.rowcount != 1:
        raise bad
    if row.purpose in NAMELESS:
        user = accounts.find_user(s, row.email)
        _refuse_disabled(user)
        if user is None:
            return accounts.register(s, row.email, name, confirmed=True, language=language)[0]
        if not user.confirmed:
            accounts.rename(s, user, name)
            user.confirmed = True
            s.add(user)
            s.flush()
        return user
    user = s.get(User, row.user_id) if row.user_id is not None else None
    if user is None:
        raise bad
    _refuse_disabled(user)
    if row.purpose == "address":
        old = user.email
        accounts.change_email(s, user, row.email)
        with i18n.use(user.language):
            subject = _("pbem: your address has changed")
            queue_mail(s, to=old, subject=subject, kind="notice", user=user, context={
                "title": subject, "greeting": _("Dear %(name)s,", name=user.name), "paragraphs": [
                    _("The address of your pbem account is now %(email)s: pbem writes there from now on, and every "
                      "login on the web has ended. If you did not do this, please tell the administrators of pbem.",
                      email=row.email)]})
    return user
