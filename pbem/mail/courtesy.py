"""The courtesy limit: mail that did harm (errors, repeats that only asked
again) is counted per sender in a window, and past the limit a sender's
mail is set aside unread until enough of it has left the window. Normal
play never counts."""
from __future__ import annotations

import hashlib
from datetime import timedelta

from sqlalchemy import bindparam, func
from sqlmodel import select

from pbem.config import settings
from pbem.i18n import _, ngettext
from pbem.services.core import accounts
from pbem.store.models import Inbound, User

from .commands import READ_ONLY
from .context import Context, Stop, aware
from .receipt import answer_and_stop

_HARM = ("error", "repeat")
_RECENT = (func.lower(Inbound.mail_from) == bindparam("who"), Inbound.received_at > bindparam("since"),
           Inbound.id < bindparam("id"))
# built once: asked for every mail. One indexed range of the sender's mails in the window (migration
# 0006), counted four ways: errors, repeats, answered set-asides, and mails with the same text
SENDER_COUNT = select(
    func.count().filter(Inbound.courtesy == "error"), func.count().filter(Inbound.courtesy == "repeat"),
    func.count().filter(Inbound.courtesy == "aside-told"), func.count().filter(Inbound.digest == bindparam("digest")),
).select_from(Inbound).where(*_RECENT)
# only for the one answer per window: when the oldest harmful mail that keeps the sender over the
# limit leaves the window
_NTH_HARM = (select(Inbound.received_at).where(*_RECENT, Inbound.courtesy.in_(_HARM))
             .order_by(Inbound.received_at, Inbound.id).limit(1).offset(bindparam("skip")))


def harm(ctx: Context) -> str | None:
    """What this mail did that counts against its sender: "error" (an
    error answer: a refused move, an unknown command or sender, a mail
    with nothing to read), "repeat" (the same text again that only asked
    something: HELP, GAMES, STATUS -- a repeated move that applies, or a
    second NEW of the same game, is play); None for a mail that did what
    it was meant to, or one not read."""
    if ctx.courtesy or ctx.status != "done":
        return ctx.courtesy
    if not ctx.lines or any(r.status == "ERROR" for r in ctx.results):
        return "error"
    if ctx.repeat and all(line.command in READ_ONLY for line in ctx.lines):
        return "repeat"
    return None


def digest(rcpt: str, text: str) -> str:
    """The same mail again: the same recipient and the same words, whatever
    the case and spacing."""
    norm = " ".join((text or "").casefold().split())
    return hashlib.blake2b(f"{(rcpt or '').lower()}\n{norm}".encode(), digest_size=12).hexdigest()


def rate_limit(ctx: Context) -> None:
    """The courtesy limit counts mail that did harm, not normal play: past
    ``inbound_rate`` mails from one sender in the window that were answered
    with an error or repeated an earlier one to no effect (harm), later
    mails are set aside unread (status ignored, with the reason) until
    enough of those have left the window. The first set aside in a window is
    answered, saying how many did harm and when reading resumes; the rest
    are not, so a broken robot cannot make pbem write back at its pace.
    Mails that applied moves or ran commands never count."""
    cfg = settings()
    who = (ctx.inbound.mail_from or "").strip().lower()
    ctx.digest = digest(ctx.inbound.rcpt_to, ctx.text)
    if not who:
        return
    since = ctx.inbound.received_at - timedelta(seconds=cfg.inbound_rate_window_s)
    params = {"who": who, "since": since, "id": ctx.inbound.id}
    errors, repeats, told, same = ctx.session.connection().execute(
        SENDER_COUNT, {**params, "digest": ctx.digest}).one()
    ctx.repeat = same > 0
    harmed = errors + repeats
    if harmed < cfg.inbound_rate:
        return
    ctx.digest = None  # not read: the same text sent again once reading resumes is no repeat
    window = f"{cfg.inbound_rate_window_s // 60} minutes" if cfg.inbound_rate_window_s >= 120 else \
        f"{cfg.inbound_rate_window_s} seconds"
    counted = f"{harmed} of your mails within {window} did harm ({errors} with errors, {repeats} repeats)"
    shown_window = (ngettext("%(num)d minute", "%(num)d minutes", cfg.inbound_rate_window_s // 60)
                    if cfg.inbound_rate_window_s >= 120 else
                    ngettext("%(num)d second", "%(num)d seconds", cfg.inbound_rate_window_s))
    # three counts, each agreeing with its own words
    shown_count = ngettext("%(num)d of your mails within %(window)s could not be used (%(errors)s, %(repeats)s)",
                           "%(num)d of your mails within %(window)s could not be used (%(errors)s, %(repeats)s)",
                           harmed, window=shown_window,
                           errors=ngettext("%(num)d with errors", "%(num)d with errors", errors),
                           repeats=ngettext("%(num)d repeat", "%(num)d repeats", repeats))
    if told:
        ctx.courtesy = "aside"
        raise Stop("ignored", f"set aside unread (courtesy limit: {counted}); the sender was answered once "
                              f"for this window")
    ctx.courtesy = "aside-told"
    oldest = ctx.session.connection().execute(_NTH_HARM, {**params, "skip": harmed - cfg.inbound_rate}).scalar_one()
    resumes = aware(oldest) + timedelta(seconds=cfg.inbound_rate_window_s)
    ctx.user = accounts.find_user(ctx.session, ctx.sender)
    when = _when(resumes, ctx.user)
    answer_and_stop(
        ctx, "ignored", f"set aside unread (courtesy limit: {counted}); answered: reading resumes at "
                        f"{resumes:%Y-%m-%d %H:%M:%S} UTC",
        _("pbem has set your mail aside for now: %(counted)s. This mail and any you send before %(when)s are "
          "kept but not read: nothing in them is applied, and they get no answer. From %(when)s pbem reads your "
          "mail again; then send what you meant, in one mail.", counted=shown_count, when=when),
        _("Mails that apply moves or run commands do not count; errors and repeats do: if a command keeps failing, "
          "HELP shows how it is written."))


def _when(at, user: User | None) -> str:
    """A time of day for the user: in their zone when pbem knows it, and in UTC."""
    from pbem.services.core.clocks import zone

    utc = f"{at:%H:%M} UTC"
    tz = getattr(user, "timezone", "") or "UTC"
    if tz == "UTC":
        return utc
    return f"{at.astimezone(zone(tz)):%H:%M} ({tz}; {utc})"
