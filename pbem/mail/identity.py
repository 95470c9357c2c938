"""Who a mail acts for, and what it answers: the check of its sender
(check_sender, run by the driver before the mail's transaction), the steps
that find the seat, the confirmation or the account behind a mail (a seat's
address is a key to its seat; the From counts only when the DKIM/SPF/DMARC
verdict ties it to the mail), refuse what such a sender may not send at
all, and read which of our mails it replies to."""
from __future__ import annotations

import hmac
import logging
import re
from datetime import timedelta

from sqlalchemy import bindparam, select, update
from sqlmodel import select as select_model

from pbem import i18n
from pbem.config import settings
from pbem.i18n import _, pgettext
from pbem.services.core import accounts, games, lifecycle, seating, visibility
from pbem.services.identity import confirmations
from pbem.services.core.errors import UserError
from pbem.store.addresses import MESSAGE_REF_RE, MessageRef, parse_message_refs, parse_recipient, parse_subject_tag, redact
from pbem.store.models import Game, Inbound, Outbound, Seat, User, utcnow

from . import senders
from .context import Context, Stop, aware
from .language import answer_language
from .parse import header
from .receipt import answer_and_stop, shown

log = logging.getLogger("pbem.pipeline")


_INBOUND = Inbound.__table__
_READ_FOR_CHECK = select(_INBOUND.c.status, _INBOUND.c.auth, _INBOUND.c.rcpt_to).where(_INBOUND.c.id == bindparam("id"))
_READ_RAW = select(_INBOUND.c.raw, _INBOUND.c.peer, _INBOUND.c.helo, _INBOUND.c.mail_from).where(
    _INBOUND.c.id == bindparam("id"))
_STORE_AUTH = (update(_INBOUND).where(_INBOUND.c.id == bindparam("inbound_id"), _INBOUND.c.auth.is_(None))
               .values(auth=bindparam("verdict")))


def check_sender(inbound_id: int, *, redrive: bool = False) -> None:
    """Who sent a stored mail, where it matters: to the command address
    (account commands trust a verified From only) and to the seat address
    of a player who allows only their own address (SEATS OWN). Run by the
    driver before the mail's transaction, outside it: the check may wait on
    the DNS for up to PBEM_DNS_BUDGET_S (senders.verify), and no lock, no
    connection, no SQLite write lock is held meanwhile. The verdict is kept
    in the mail's row (``Inbound.auth``, once: a retry or a re-drive reads
    it); a mail nobody checked has none, which trusts nobody."""
    from pbem.store.db import single_statement

    cfg = settings()
    with single_statement() as conn:
        row = conn.execute(_READ_FOR_CHECK, {"id": inbound_id}).first()
        if row is None or row.auth is not None or row.status not in ("received", "failed"):
            return
        if row.status == "failed" and not redrive:
            return
        wanted = False
        for rcpt in (row.rcpt_to or "").split(","):
            who = parse_recipient(rcpt, cfg.domain, cfg.command_local)
            if who is not None and who.kind == "command":
                wanted = True
            elif who is not None and who.kind == "seat":
                wanted = wanted or seating.token_senders(conn, who.game_id, who.token) == "own"
        if not wanted:
            return
        mail = conn.execute(_READ_RAW, {"id": inbound_id}).first()
    auth = senders.verify(mail.raw, ip=mail.peer or "", helo=mail.helo or "",
                          mail_from=(mail.mail_from or "").strip().strip("<>"), cfg=cfg)
    with single_statement() as conn:
        conn.execute(_STORE_AUTH, {"inbound_id": inbound_id, "verdict": auth})


def identify(ctx: Context) -> None:
    """Who the mail acts for: a seat's address acts as that seat, in its game
    only, whoever the From (the token is the credential; its player is told
    when the From is not theirs, and may refuse such mail: SEATS OWN); a
    confirmation's address runs the commands its owner held; the command
    address acts for the account of the From, which pbem trusts only when
    its own DKIM/SPF check says the From's domain sent it."""
    cfg = settings()
    s = ctx.session
    rcpts = [r for r in (ctx.inbound.rcpt_to or "").split(",") if r.strip()]
    for rcpt in rcpts:
        who = parse_recipient(rcpt, cfg.domain, cfg.command_local)
        if who is not None and who.kind == "confirm":
            return _confirming(ctx, who.token)
        if who is None or who.kind != "seat":
            continue
        ctx.recipient_kind = "seat"
        seat = seating.seat_by_token(s, who.game_id, who.token)
        if seat is None or seat.user_id is None or seat.resigned:
            ctx.user = accounts.find_user(s, ctx.sender)
            with i18n.use(answer_language(ctx)):
                raise UserError(_("this reply address is not valid any more (the seat's address may have "
                                  "been renewed); reply to the latest mail of the game"), code="bad_token")
        ctx.seat = seat
        ctx.game = games.get(s, who.game_id, lock=True)  # the mail will move or talk in it: lock once, now
        # the seat's owner is answered, whoever the From (its user came with the seats: no query)
        ctx.user = s.get(User, seat.user_id)
        ctx.foreign = accounts.normalise_email(ctx.sender) != ctx.user.email
        if ctx.foreign and (copier := _copied_by(ctx)) is not None:
            _drop_copy(ctx, *copier)
        if ctx.user.seat_senders == "own" and (ctx.foreign or senders.failed_for(ctx.auth, ctx.sender)):
            _refuse_foreign(ctx)
        ctx.expected_ply = _answered_ply(ctx, ctx.game.id)
        return
    # no seat address: the account of the From, trusted as pbem checked it
    ctx.user = accounts.find_user(s, ctx.sender)
    ctx.trusted = senders.passes_for(ctx.auth, ctx.sender)
    gid, _ply = parse_subject_tag(ctx.subject)
    if ctx.user is not None and gid is not None and ctx.trusted:  # moves by the From alone: only a verified one
        g = s.get(Game, gid)
        seat = seating.seat_of(s, gid, ctx.user.id) if g is not None and g.allow_from_address else None
        if seat is not None and not seat.resigned:
            ctx.game, ctx.seat, ctx.recipient_kind = g, seat, "from"
            ctx.expected_ply = _answered_ply(ctx, gid)


def _refuse_foreign(ctx: Context) -> None:
    """SEATS OWN: mail to the seat's address from another address is refused,
    and the address, which has leaked, renewed; its player is told."""
    user, g = ctx.user, ctx.game
    ctx.seat = lifecycle.rotate_token(ctx.session, user, g.id)
    what = (_("from %(sender)s, not from your registered address", sender=ctx.sender) if ctx.foreign
            else _("with your address as its sender, but your mail provider's DKIM/SPF check says it did not send it"))
    answer_and_stop(ctx, "ignored", f"refused (SEATS OWN): mail to seat {ctx.seat.seat + 1} of game #{g.id} from "
                                    f"{ctx.sender}; the seat's address was renewed and its player told",
                    _("pbem refused a mail to your seat's reply address in game #%(game)d %(what)s: you asked "
                      "that only %(email)s may use your seats (SEATS OWN). Nothing in it was applied or shown to "
                      "anyone. Someone else has that address, so pbem has renewed it: reply to this mail, whose "
                      "reply address is the new one. (SEATS ANY to the command address lets any address you write "
                      "from use your seats again.)", game=g.id, what=what, email=user.email))


def _copied_by(ctx: Context) -> tuple[User, Seat] | None:
    """The other player of the game this mail to a seat's address comes
    from, with their seat: its From is their registered address, or it
    answers a mail pbem sent to them (In-Reply-To, References). A seat's
    address travels with replies (a reply-all, a Cc kept from a thread), but
    the seat does not: such a mail is its sender's, never the seat's."""
    s, seat = ctx.session, ctx.seat
    others = {x.user_id: x for x in seating.seats(s, seat.game_id)
              if x.user_id is not None and x.user_id != seat.user_id}
    if not others:
        return None
    sender = accounts.normalise_email(ctx.sender)
    for uid, other in others.items():
        user = s.get(User, uid)
        if user is not None and user.email == sender:
            return user, other
    ids = _our_message_ids(ctx)
    if ids:
        for uid in s.exec(select_model(Outbound.user_id).where(Outbound.message_id.in_(ids))):
            if uid in others:
                return s.get(User, uid), others[uid]
    return None


def _our_message_ids(ctx: Context) -> list[str]:
    """The Message-IDs of our own mails that this one names (In-Reply-To, References), at most 50."""
    domain = settings().domain.lower()
    found = [m.group(0) for name in ("In-Reply-To", "References")
             for m in MESSAGE_REF_RE.finditer(header(ctx.msg, name)) if m.group(4).lower() == domain]
    return list(dict.fromkeys(found))[:50]


COPY = "copy"  # what the Message-ID of the notice of a dropped copy says (addresses.make_message_id)


def _drop_copy(ctx: Context, user: User, own: Seat) -> None:
    """A copy of another player's mail to this seat's address: nothing in it
    plays or talks for the seat (dropping it, rather than posting it as its
    sender's, because the sender's own copy -- to their seat, in To -- is
    read already). Its sender is told once: for all the copies of one mail
    (the first of them answers), and once a day."""
    s, g, seat = ctx.session, ctx.game, ctx.seat
    cfg = settings()
    log.info("inbound %s: a copy of a mail of seat %d to seat %d of game %d: dropped", ctx.inbound.id,
             own.seat + 1, seat.seat + 1, g.id)
    first = min((row.id for row in s.exec(select_model(Inbound.id, Inbound.rcpt_to).where(
        Inbound.message_id == ctx.inbound.message_id)) if _other_seat(row.rcpt_to, g.id, own, cfg)),
        default=ctx.inbound.id)
    told = s.exec(select_model(Outbound.id).where(  # by the index of an address's mail (to_addr, id)
        Outbound.to_addr == user.email, Outbound.message_id.startswith(f"<pbem.{COPY}.{g.id}."),
        Outbound.created_at > utcnow() - timedelta(days=1)).limit(1)).first()
    if first != ctx.inbound.id or told is not None:
        raise Stop("ignored", "a copy for another seat, from a player of the game: dropped (its sender was told "
                              "for another copy)")
    name = seating.names(s, g.id)[seat.seat]
    ctx.user, ctx.seat, ctx.foreign, ctx.sender = user, own, False, user.email
    ctx.results, ctx.paragraphs, ctx.reply_what = [], [], COPY
    with i18n.use(answer_language(ctx)):
        answer_and_stop(ctx, "ignored", "a copy for another seat, from a player of the game: dropped, its sender "
                                        "told", _(
            "A copy of your mail also went to the reply address of %(name)s's seat in game #%(game)d (a reply to "
            "all, or a Cc). A seat's address acts only for its own player, so pbem did nothing with that copy: "
            "none of it was played or shown for %(name)s. Your own copy, to your seat's address, is read as "
            "usual. To write to the table, send SAY <text>; to %(name)s alone, SAY %(seat)d: <text>. (pbem tells "
            "you this once a day.)", name=name, game=g.id, seat=seat.seat + 1))


def _other_seat(rcpt: str, game_id: int, own: Seat, cfg) -> bool:
    who = parse_recipient(rcpt, cfg.domain, cfg.command_local)
    return (who is not None and who.kind == "seat" and who.game_id == game_id
            and not hmac.compare_digest((who.token or "").encode(), own.token.encode()))


def _confirming(ctx: Context, token: str) -> None:
    """A reply to a mail that asked to confirm held commands: 'NO' cancels
    them; anything else runs them, for the account (or the address, for a
    REGISTER) they were held for, whoever the From: the token went only to
    that address."""
    ctx.recipient_kind = "confirm"
    word = confirmations.answer_word(ctx.text)
    if word is None or VACATION_SUBJECT_RE.match(ctx.subject):
        _not_an_answer(ctx, token)
    status = "cancelled" if word == "no" else "done"
    try:
        conf, to_run = confirmations.spend(ctx.session, token, status)
    except UserError as e:
        ctx.user = accounts.find_user(ctx.session, ctx.sender)
        answer_and_stop(ctx, "done", "a reply to a used or expired confirmation: answered", e.describe())
    ctx.sender = conf.email  # REGISTER registers the address that was asked, never the replying From
    ctx.user = ctx.session.get(User, conf.user_id) if conf.user_id else accounts.find_user(ctx.session, conf.email)
    ctx.trusted = ctx.confirmed = True
    if status == "cancelled":
        answer_and_stop(ctx, "done", "the owner cancelled the held commands",
                        _("Cancelled, as you asked: nothing of it was done.") + "\n" +
                        shown("\n".join(confirmations.shown_lines(conf))))
    ctx.text = to_run


# the subjects of vacation replies, in pbem's four languages (those of out-of-office replies the pipeline
# drops before it reads any mail: AUTO_SUBJECT_RE); only on a confirmation's address, where a player never
# writes about their absence
VACATION_SUBJECT_RE = re.compile(r"^\s*(re:\s*)?(\[?(vacation|on vacation|on holiday|on leave|away|absent|"
                                 r"отпуск|в отпуске|нет на месте|вне офиса|в отпуск|извън офиса|отсъствам|"
                                 r"vacanza|in vacanza|ferie|in ferie|assente|fuori ufficio|fuori sede)\b)", re.I)


def _not_an_answer(ctx: Context, token: str) -> None:
    """A reply to an asking mail that says neither YES nor NO first (an
    auto-reply, "I did not ask for this"): nothing is done, the request
    stays as it was. Its owner -- the address that was asked, never the
    From -- is told once what would confirm; later such replies are not
    answered."""
    if VACATION_SUBJECT_RE.match(ctx.subject):
        raise Stop("ignored", "a vacation reply to an asking mail: confirms nothing, not answered")
    conf = confirmations.nudge(ctx.session, token)
    if conf is None:
        raise Stop("ignored", "a reply to an asking mail that says neither YES nor NO: confirms nothing; "
                              "its owner was told before (or it is no longer pending)")
    ctx.sender = conf.email
    ctx.user = ctx.session.get(User, conf.user_id) if conf.user_id else accounts.find_user(ctx.session, conf.email)
    with i18n.use(answer_language(ctx)):
        answer_and_stop(ctx, "ignored", "a reply to an asking mail that says neither YES nor NO: confirms nothing; "
                                        "its owner told once",
                        _("Your reply to pbem's request for confirmation did not begin with %(yes)s or %(no)s, so "
                          "nothing was done, and nothing was cancelled. To do what was asked, reply to that mail with "
                          "%(yes)s as the first word, or open its link; %(no)s cancels it. If you did not ask for it, "
                          "do nothing: it expires in 24 hours. (pbem answers this only once.)",
                          yes=pgettext("reply word", "YES"), no=pgettext("reply word", "NO")))


def _answered(ctx: Context) -> list[MessageRef]:
    """Our own mails this one answers, nearest first: In-Reply-To, then
    References from its end (our Message-IDs say what each mail was, with
    its game and ply)."""
    domain = settings().domain
    return [ref for name in ("In-Reply-To", "References") for ref in parse_message_refs(header(ctx.msg, name), domain)]


def _answered_ply(ctx: Context, game_id: int) -> int | None:
    """The ply of the board the mail answers, to tell a stale reply: from the
    nearest of our mails it answers of that game, else from an old-style
    subject tag "[pbem #12 ply 5]" of mails sent before the subjects stopped
    carrying it."""
    for ref in _answered(ctx):
        if ref.game_id == game_id and ref.ply is not None:  # the counter as the mail showed it
            g = ctx.game if ctx.game is not None and ctx.game.id == game_id else ctx.session.get(Game, game_id)
            return visibility.real_ply(ctx.session, g, ref.ply) if g is not None else ref.ply
    gid, ply = parse_subject_tag(ctx.subject)
    return ply if gid in (None, game_id) else None


def refuse_disabled(ctx: Context) -> None:
    """An account an administrator disabled gets nothing done by mail: its
    first mail of a day is answered with one polite refusal, the others that
    day are set aside unanswered (no reply storm)."""
    user = ctx.user
    if user is None or user.disabled_at is None:
        return
    now = utcnow()
    told = user.disabled_told_at
    if told is not None and now - aware(told) < timedelta(days=1):
        raise Stop("ignored", f"account {user.id} is disabled; its owner was told today: not answered again")
    user.disabled_told_at = now
    ctx.session.add(user)
    answer_and_stop(ctx, "ignored", f"account {user.id} is disabled: refused, its owner told (once a day)",
                    _("Your pbem account has been disabled by pbem's administrators, so pbem did not read this "
                      "mail and nothing in it was applied. Your seats in running games are played by each "
                      "game's no-move policy until the account is enabled again. If you think this is a "
                      "mistake, please write to the administrators of pbem (this answer is sent once a day)."))


def find_context(ctx: Context) -> None:
    """What the mail answers, from its In-Reply-To and References (our
    Message-IDs say what each mail was): a reply to table talk is talk."""
    if ctx.seat is None:
        return
    refs = _answered(ctx)
    if not refs or refs[0].game_id not in (None, ctx.seat.game_id):
        return
    what = refs[0].what
    if what == "talk" or (what.startswith("pm") and what[2:].isdigit()):
        ctx.replies_to_talk = True
        if what.startswith("pm") and int(what[2:]) != ctx.seat.seat:
            ctx.talk_to = int(what[2:])


def authenticate(ctx: Context) -> None:
    """When the server requires it (PBEM_REQUIRE_AUTH=dkim-or-spf), mail on
    the command address whose From pbem could not verify is dropped
    unanswered, so a forged From gets nothing done and nothing sent; else
    its account commands wait for the owner's confirmation (gate)."""
    if settings().require_auth != "dkim-or-spf" or ctx.recipient_kind != "command" or ctx.trusted:
        return
    log.warning("inbound %s: From %s not verified (%s); dropped", ctx.inbound.id, redact(ctx.sender), ctx.auth)
    raise Stop("ignored", f"the sender address {ctx.sender} did not pass DKIM or SPF; not trusted")
