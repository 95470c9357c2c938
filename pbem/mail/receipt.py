"""The answers to a mail: the receipt (each line and its result, what was
not applied, what was ignored, and the sender's board), the mail that asks
an address's owner to confirm held commands, and the early answer of a step
that ends the pipeline."""
from __future__ import annotations

from pbem.config import settings
from pbem.i18n import _, ngettext, pgettext
from pbem.services.core import accounts, games, notify, visibility
from pbem.services.identity import confirmations
from pbem.store.addresses import confirm_address, game_subject, seat_address
from pbem.store.outbox import queue_mail

from . import senders
from .context import Context, Stop
from .parse import header_values


def answer_and_stop(ctx: Context, status: str, reason: str, *paragraphs: str) -> None:
    """Answer the mail with ``paragraphs`` now, and end the pipeline with
    ``status`` and ``reason`` (kept with the mail, never mailed)."""
    ctx.paragraphs.extend(paragraphs)
    reply(ctx)
    ctx.paragraphs = []
    raise Stop(status, reason)


def shown(commands: str, limit: int = 20) -> str:
    """Held commands as a mail shows them: at most ``limit`` lines, each cut short."""
    lines = [ln[:120] for ln in commands.split("\n") if ln.strip()]
    more = len(lines) - limit
    return "\n".join("  " + ln for ln in lines[:limit]) + ("\n  " + _("... and %(more)d more", more=more) if more > 0 else "")


def ask_confirmation(ctx: Context) -> None:
    """One mail to the owner of the address asking to confirm the held
    commands: reply to it (its Reply-To is the confirmation's address), or
    open its link. The receipt says they wait; when nothing else in the mail
    ran, the asking mail is the only answer."""
    cfg = settings()
    email = ctx.user.email if ctx.user is not None else accounts.normalise_email(ctx.sender)
    lines = [line.held for line in ctx.held]
    # the owner's own request, as pbem can tell, is always asked: a forger's cannot use up its cap
    always = ctx.trusted or (ctx.recipient_kind == "seat" and not ctx.foreign)
    source = (f"from:{accounts.normalise_email(ctx.sender)}" if ctx.trusted else
              "ip:" + senders.sending_server(header_values(ctx.msg, "Received") if ctx.msg else [],
                                             ctx.inbound.peer or ""))
    token = confirmations.hold(ctx.session, email=email, commands=lines, user_id=ctx.user.id if ctx.user else None,
                               game_id=ctx.game.id if ctx.game else None, seat=ctx.seat.seat if ctx.seat else None,
                               inbound_id=ctx.inbound.id, sender=ctx.sender, source=source, always=always)
    if token is None and ctx.user is None:  # an address without an account: asked enough today, nothing more
        raise Stop("ignored", "a REGISTER from an unverified sender, its address asked too often today: not answered")
    if token is None:
        ctx.paragraphs.append(ngettext(
            "pbem has asked %(email)s %(num)d time today to confirm commands sent from the server that sent this "
            "mail, so it asks no more today for mail from that server: the commands above were not done. A mail from "
            "your registered address that your mail provider signs, or one to your seat's reply address, is always "
            "asked.",
            "pbem has asked %(email)s %(num)d times today to confirm commands sent from the server that sent this "
            "mail, so it asks no more today for mail from that server: the commands above were not done. A mail from "
            "your registered address that your mail provider signs, or one to your seat's reply address, is always "
            "asked.", confirmations.PER_SOURCE_PER_DAY, email=email))
        return
    ctx.asked = email
    if ctx.why_held == "unverified":
        why = _("pbem received a mail from %(sender)s with the commands below, but could not check that it "
                "really came from you: your mail provider did not sign it (DKIM), and the server that sent it is "
                "not one your domain names (SPF). Anybody can write any sender address on a mail, so pbem asks "
                "before it acts in your name.", sender=ctx.sender)
    else:
        seat = ctx.recipient_kind == "seat"
        frm = ctx.foreign or not seat
        if seat and frm:
            why = _("pbem received a mail from %(sender)s to your seat's reply address in game #%(game)d asking for "
                    "the commands below. They cannot be undone by mail, so pbem asks you first.",
                    sender=ctx.sender, game=ctx.game.id)
        elif seat:
            why = _("pbem received a mail to your seat's reply address in game #%(game)d asking for the commands "
                    "below. They cannot be undone by mail, so pbem asks you first.", game=ctx.game.id)
        else:
            why = _("pbem received a mail from %(sender)s asking for the commands below. They cannot be undone by "
                    "mail, so pbem asks you first.", sender=ctx.sender)
    # to an address without an account: nothing of the mail (a forger's name, text or links), only what it asks;
    # to an account: the commands, a game's password not as written
    lines = [confirmations.masked(ln) for ln in lines] if ctx.user is not None else ["REGISTER <name>"]
    paragraphs = [why, _("Waiting for your confirmation:") + "\n" + shown("\n".join(lines)),
                  _("To do them, reply to this mail with %(yes)s as the first word (a reply that begins with %(no)s "
                    "cancels them; any other reply does neither), or open this link and press its button: %(link)s",
                    yes=pgettext("reply word", "YES"), no=pgettext("reply word", "NO"),
                    link=confirmations.link_for(token)),
                  _("If you did not ask for this, ignore this mail: nothing happens, and the request expires in 24 "
                    "hours.")]
    first = (_("%(first)s and %(more)d more", first=lines[0][:40], more=len(lines) - 1) if len(lines) > 1
             else lines[0][:40])
    queue_mail(ctx.session, to=email, subject=_("pbem: please confirm %(what)s", what=first), kind="confirm",
               user=ctx.user, reply_to=confirm_address(token, cfg.domain),
               context={"title": _("pbem: please confirm"), "summary": _("Please confirm: %(what)s", what=first),
                        "greeting": _("Dear %(name)s,", name=ctx.user.name) if ctx.user else _("Hello,"),
                        "paragraphs": paragraphs,
                        "footer": _("pbem at %(address)s. Web: %(url)s/", address=cfg.command_address,
                                    url=cfg.base_url)})


def reply(ctx: Context) -> None:
    """The receipt: to the account (the seat's player on a seat's address), from the seat's address when the
    mail came to one, in the game's conversation, with the seat's board once the game has started."""
    s, cfg = ctx.session, settings()
    if ctx.asked and all(r.status == "NOT APPLIED" for r in ctx.results) and not ctx.paragraphs \
            and not ctx.boards_for:
        return  # the mail only asked for what now waits for confirmation: the asking mail is the answer
    to = ctx.user.email if ctx.user else ctx.sender
    if ctx.foreign and ctx.results:
        ctx.paragraphs.insert(0, _(
            "This mail came to your seat's reply address from %(sender)s, not from your registered address "
            "%(email)s. Anyone who has that address can play your seat. If it was not you, send NEWADDRESS "
            "%(game)d to renew it, and SEATS OWN to %(address)s so that only your own address may "
            "use your seats.", sender=ctx.sender[:80], email=ctx.user.email, game=ctx.game.id,
            address=cfg.command_address))
    context = {"title": "pbem", "paragraphs": ctx.paragraphs, "results": ctx.results,
               "not_applied": ctx.not_applied, "help_text": ctx.help_text, "ignored_lines": ctx.ignored_lines}
    if ctx.dropped:
        context["ignored"] = ngettext("%(num)d quoted or signature line(s)", "%(num)d quoted or signature line(s)",
                                      ctx.dropped)
    if ctx.results:  # the first line, which clients show as the preview
        counts = {k: sum(r.status == k for r in ctx.results) for k in ("OK", "ERROR", "NOT APPLIED")}
        counts["NOT APPLIED"] += len(ctx.not_applied)
        words = {"OK": lambda n: ngettext("%(num)d OK", "%(num)d OK", n),
                 "ERROR": lambda n: ngettext("%(num)d error", "%(num)d errors", n),
                 "NOT APPLIED": lambda n: ngettext("%(num)d not applied", "%(num)d not applied", n)}
        context["summary"] = _("Results of your mail: %(counts)s.", counts=", ".join(
            words[k](n) for k, n in counts.items() if n))
    reply_to, ply = None, None
    subject = ctx.subject or _("your mail to pbem")
    subject = subject if subject[:3].lower() == "re:" else "Re: " + subject
    if ctx.game is not None and ctx.seat is not None:
        g = games.get(s, ctx.game.id)
        if games.has_started(g):
            context.update(notify.board_context(s, g, ctx.seat.seat))
            if g.status == "finished" and ctx.game.id in ctx.boards_for:
                # this mail ended it: its receipt is the mover's last mail of the game, as the others' last
                # board is theirs -- the result first, who played, and the whole game move by move
                context["summary"] = notify.final_result(s, g)
                context["paragraphs"] = [*ctx.paragraphs, notify.who_played(s, g)]
                context["record_lines"] = notify.final_record(s, g, ctx.seat.seat)
            if ctx.help_text:
                context["help_text"] = ctx.help_text
        reply_to, ply = seat_address(g.id, ctx.seat.token, cfg.domain), visibility.public_ply(s, g)
        context["footer"] = notify.footer(g, ctx.seat.token, ply)
        subject = "Re: " + game_subject(g.id, games.engine_for(g).title)  # the game's conversation
    else:
        context["footer"] = _("pbem at %(address)s. Send HELP for the commands. Web: %(url)s/",
                              address=cfg.command_address, url=cfg.base_url)
    if ctx.user:
        context["greeting"] = _("Dear %(name)s,", name=ctx.user.name)
    queue_mail(s, to=to, subject=subject, context=context, kind="reply", user=ctx.user,
               game_id=ctx.game.id if ctx.game else None, reply_to=reply_to, ply=ply,
               in_reply_to=ctx.message_id or None, what=ctx.reply_what)
