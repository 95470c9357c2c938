"""The language a mail is answered in: its sender's own, else what the mail
says of itself (Content-Language, a Cyrillic charset), else English; and the
guess a first mail makes for a user who has not chosen one."""
from __future__ import annotations

from email.message import Message

from sqlalchemy import text as sql_text

from pbem import i18n
from pbem.services.core import accounts

from .context import Context
from .parse import header


def mail_language(msg: Message | None) -> str | None:
    """What a mail says of its sender's language: its Content-Language, else
    a Cyrillic charset of one of its parts; None when it says nothing pbem
    speaks."""
    if msg is None:
        return None
    try:
        charsets = [c for c in msg.get_charsets() if c]
    except Exception:  # noqa: BLE001 - a broken part: no charset to go by
        charsets = []
    return i18n.from_mail(header(msg, "Content-Language") or None, charsets)


def answer_language(ctx: Context) -> str:
    """The language the mail is answered in: its sender's (the seat's owner
    on a seat's address), else what the mail itself says, else English."""
    if ctx.user is not None and getattr(ctx.user, "language", None):
        return ctx.user.language
    return mail_language(ctx.msg) or i18n.SOURCE


_EARLIER_MAIL = sql_text("SELECT 1 FROM inbound WHERE lower(mail_from) = :who AND id < :id LIMIT 1")


def guess_language(ctx: Context) -> None:
    """A user who has not chosen a language and writes for the first time
    (an account made on the web, or by an invitation): their first mail's
    Content-Language or charset is the guess (accounts.guess_language). Only
    the first: a later mail from another client (a phone in another locale,
    a forwarded mail's charset) never changes the language they read; a mail
    from another address to their seat says nothing of them."""
    if ctx.user is None or ctx.foreign or ctx.user.language_chosen:
        return
    if accounts.normalise_email(ctx.sender) != ctx.user.email:
        return
    guess = mail_language(ctx.msg)
    if guess is None or guess == ctx.user.language:
        return
    who = (ctx.inbound.mail_from or "").strip().lower()
    if not who or ctx.session.connection().execute(_EARLIER_MAIL, {"who": who, "id": ctx.inbound.id}).first():
        return
    accounts.guess_language(ctx.session, ctx.user, guess)
