"""The inbound pipeline: small named steps over one Context (HOUSE-STYLE,
after Mailman 3), and the driver that runs them for one stored mail. All
effects of one mail happen in one transaction together with the mail's
status, so a crash at any point leaves either everything or nothing, and a
second run of a finished mail does nothing.

The steps that are concepts of their own live beside this module: who the
mail acts for (identity), the courtesy limit (courtesy), the language of
the answer (language), tolerant reading (reading), who may do what (gate),
the moves (moves), the receipt (receipt); the commands are declared in
commands/."""
from __future__ import annotations

import logging
import re
import traceback
from typing import Callable

from sqlalchemy import bindparam, update
from sqlmodel import Session, select

from pbem import i18n, logs, metrics
from pbem.config import settings
from pbem.i18n import _, ngettext
from pbem.services.core import accounts, games, notify, seating
from pbem.services.core.errors import ConcurrentUpdate, UserError
from pbem.store.addresses import parse_recipient, redact, verp_valid
from pbem.store.models import Inbound, User, utcnow
from pbem.store.outbox import LOOP_HEADER, Deliverer, batched

from . import commands
from .commands.play import send_says
from .context import Context, Result, Stop, aware
from .courtesy import harm, rate_limit
from .gate import gate
from .identity import authenticate, check_sender, find_context, identify, refuse_disabled
from .language import answer_language, guess_language
from .lines import MAX_LINES
from .moves import post_talk, submit as submit_moves
from .parse import CONTROL_RE, Unreadable, body_text, header, header_values, parse_message, sender, unreadable
from .quotes import own_lines, strip_reply
from .reading import sort_out, unknown_command
from .receipt import answer_and_stop, ask_confirmation, reply
from .secrets import redacted

log = logging.getLogger("pbem.pipeline")


# the subjects of out-of-office and other automatic replies (Outlook's set no Auto-Submitted, and some
# servers none of Microsoft's headers either): a player's reply keeps the game's subject
AUTO_SUBJECT_RE = re.compile(r"^\s*(automatic reply|auto(matische)? ?(reply|antwort)|out of (the )?office|"
                             r"abwesenheitsnotiz|автоответ|автоматический ответ|автоматичен отговор|"
                             r"автоматична відповідь|réponse automatique|absence du bureau|risposta automatica|"
                             r"respuesta automática|resposta automática|automatisch antwoord|"
                             r"odpowiedź automatyczna|fuera de la oficina|niet aanwezig)\b", re.I)


# ---------------------------------------------------------------- steps


MAX_SUBJECT = 300  # characters of a Subject kept (it is echoed in the answer's text)
MAX_ADDRESS = 254  # RFC 5321: no longer address can be delivered to
MESSAGE_ID_RE = re.compile(r"<[^<>\s]{1,250}>")


def parse_mime(ctx: Context) -> None:
    """The headers the pipeline uses, made safe to store and to echo: no
    control characters (PostgreSQL refuses NUL), bounded lengths, a
    Message-ID only if it is one."""
    ctx.msg = parse_message(ctx.inbound.raw)
    ctx.sender = sender(ctx.msg)
    ctx.subject = " ".join(CONTROL_RE.sub("", header(ctx.msg, "Subject")).split())[:MAX_SUBJECT]
    mid = MESSAGE_ID_RE.search(CONTROL_RE.sub("", header(ctx.msg, "Message-ID")))
    ctx.message_id = mid.group(0) if mid else ""
    ctx.unreadable = unreadable(ctx.msg)


def take_bounces(ctx: Context) -> None:
    """Bounces and delivery reports: one that came back to a mail's own
    envelope sender (VERP, addresses.verp_address) names that mail, so its
    recipient; one that came elsewhere (a null sender, a mailer-daemon, a
    multipart/report) counts only if it quotes the Message-ID of one of our
    mails to the address it says failed. Recorded (services/identity/deliverability:
    enough of them mark the address failing), never answered. Any other
    mail to a bounce address (an auto-reply) is dropped; any other mail
    elsewhere goes on to drop_loops."""
    from pbem.services.identity import deliverability
    from pbem.store.models import Outbound

    from . import bounces

    cfg, s, msg = settings(), ctx.session, ctx.msg
    verp = None
    for rcpt in (ctx.inbound.rcpt_to or "").split(","):
        who = parse_recipient(rcpt, cfg.domain, cfg.command_local)
        if who is not None and who.kind == "bounce":
            verp = who
    if verp is None:
        local = ctx.sender.split("@", 1)[0]
        if not (msg.get_content_type() == "multipart/report" or (ctx.inbound.mail_from or "").strip() in ("", "<>")
                or local in ("mailer-daemon", "postmaster")):
            return
    msg = bounces.clipped(ctx.inbound.raw, msg)
    found = bounces.failures(msg)
    if verp is not None:
        row = s.get(Outbound, verp.outbound_id) if verp_valid(verp, cfg.secret_key) else None
        f = bounces.worst(found)
        if row is None or f is None:
            raise Stop("ignored", "mail to a bounce address that is no bounce (an auto-reply?)" if row is not None
                       else "mail to a bounce address that names no mail of ours")
        deliverability.record(s, row.to_addr, f.kind, status=f.status, diagnostic=f.diagnostic,
                              outbound_id=row.id, inbound_id=ctx.inbound.id)
        raise Stop("ignored", f"{f.kind} bounce of outbound {row.id} ({f.status or 'no status'})")
    ids = bounces.returned_ids(msg)
    ours = {r.to_addr.lower(): r for r in s.exec(select(Outbound).where(Outbound.message_id.in_(ids)))} if ids else {}
    counted = []
    for f in found:
        row = ours.get(f.address) or (next(iter(ours.values())) if len(ours) == 1 and len(found) == 1 else None)
        if row is not None:
            deliverability.record(s, row.to_addr, f.kind, status=f.status, diagnostic=f.diagnostic,
                                  outbound_id=row.id, inbound_id=ctx.inbound.id)
            counted.append(f"{f.kind} bounce of outbound {row.id}")
    if counted:
        raise Stop("ignored", "; ".join(counted))


def mail_works(ctx: Context) -> None:
    """A mail from a user's own address (not an auto-reply: drop_loops came
    first) shows that it works: a failing mark is cleared."""
    from pbem.services.identity import deliverability

    if (ctx.user is not None and ctx.user.mail_failing_at is not None
            and accounts.normalise_email(ctx.sender) == ctx.user.email):
        deliverability.clear(ctx.session, ctx.user, "mail")


def drop_loops(ctx: Context) -> None:
    """Never answer bounces, auto-replies, lists or our own mail."""
    msg, cfg = ctx.msg, settings()
    autos = [" ".join(v.split()).lower() for v in header_values(msg, "Auto-Submitted")]
    auto = next((a for a in autos if a and a != "no"), "")  # any of them: a second header counts too
    if auto:
        raise Stop("ignored", f"auto-submitted mail ({auto[:60]})")
    if header(msg, "Precedence").lower() in ("bulk", "junk", "list", "auto_reply"):
        raise Stop("ignored", "bulk, junk, list or auto-reply mail")
    if header(msg, "List-Id"):
        raise Stop("ignored", "mail from a mailing list")
    if AUTO_SUBJECT_RE.match(ctx.subject):
        raise Stop("ignored", "an out-of-office or automatic reply")
    if header(msg, LOOP_HEADER) or header(msg, "X-Autoreply") or header(msg, "X-Autorespond"):
        raise Stop("ignored", "mail looped back from an automatic sender")
    if msg.get_content_type() == "multipart/report" or not ctx.sender:
        raise Stop("ignored", f"not read: {ctx.unreadable}; no sender address to answer" if ctx.unreadable
                   else "bounce or delivery report")
    if len(ctx.sender) > MAX_ADDRESS or CONTROL_RE.search(ctx.sender):
        raise Stop("ignored", f"the sender address is not one mail can be delivered to ({len(ctx.sender)} characters)")
    local = ctx.sender.split("@", 1)[0]
    if local in ("mailer-daemon", "postmaster", "noreply", "no-reply") or ctx.sender.endswith("@" + cfg.domain):
        raise Stop("ignored", f"mail from a robot or from ourselves ({ctx.sender})")
    if (ctx.inbound.mail_from or "").strip() in ("", "<>"):
        raise Stop("ignored", "null return path (bounce)")


def extract_text(ctx: Context) -> None:
    if ctx.unreadable:
        return
    try:
        ctx.text = body_text(ctx.msg)
    except Unreadable as e:
        ctx.unreadable = str(e)


def strip_quotes(ctx: Context) -> None:
    stripped = strip_reply(ctx.text, answered_lines(ctx))
    ctx.text, ctx.dropped = stripped.text, stripped.dropped


MAX_ANSWERED = 4  # of our mails a reply names, the nearest read (the one it answers, and the thread's last)


def answered_lines(ctx: Context) -> frozenset[str]:
    """The lines of the mails of ours that the reply names (In-Reply-To, then
    References from the nearest), while the outbox keeps them: a client that
    quotes one without any mark, under a header block pbem does not know,
    quotes these lines, and they are never read as typed. A forged reference
    can only make pbem read less of the sender's own mail."""
    from pbem.store.models import Outbound

    domain = "@" + settings().domain.lower() + ">"
    ids: list[str] = []
    for name in ("In-Reply-To", "References"):
        found = MESSAGE_ID_RE.findall(CONTROL_RE.sub("", header(ctx.msg, name)))
        for mid in (found if name == "In-Reply-To" else reversed(found)):
            if mid.lower().endswith(domain) and mid not in ids:
                ids.append(mid)
    if not ids or not ctx.text:
        return frozenset()
    rows = ctx.session.exec(select(Outbound.body_text).where(Outbound.message_id.in_(ids[:MAX_ANSWERED]))).all()
    return own_lines(*rows)


def refuse_unreadable(ctx: Context) -> None:
    """A mail nested deeper than any client writes is not read: its sender
    (the seat's owner on a seat address) is told why, once, nothing in it is
    applied, and it counts against the sender's courtesy limit. After the
    loop checks and the courtesy limit, so a flood of them is not answered
    mail for mail."""
    if not ctx.unreadable:
        return
    ctx.courtesy = "error"
    answer_and_stop(ctx, "ignored", f"not read: {ctx.unreadable}; the sender was answered",
                    _("pbem did not read your mail: %(why)s. Nothing in it was applied. Mail clients never "
                      "write mail like that; please send your moves or commands again in an ordinary mail.",
                      why=unreadable_shown(ctx.unreadable)))


def _count(written: str) -> int:
    """A number as parse.py wrote it ("1,024"), for the plural form that agrees with it."""
    return int(written.replace(",", ""))


# why parse.py did not read a mail (kept in English with the mail), as its sender's language says it; the
# number is shown as parse.py wrote it, and its noun agrees with it
_UNREADABLE = (
    (re.compile(r"its MIME parts are nested more than (?P<n>\d+) levels deep"),
     lambda m: ngettext("its MIME parts are nested more than %(num)s level deep",
                        "its MIME parts are nested more than %(num)s levels deep", _count(m["n"]), num=m["n"])),
    (re.compile(r"it has more than (?P<n>\d+) MIME parts"),
     lambda m: ngettext("it has more than %(num)s MIME part", "it has more than %(num)s MIME parts", _count(m["n"]),
                        num=m["n"])),
    (re.compile(r"its HTML nests elements more than (?P<n>\d+) levels deep"),
     lambda m: ngettext("its HTML nests elements more than %(num)s level deep",
                        "its HTML nests elements more than %(num)s levels deep", _count(m["n"]), num=m["n"])),
    (re.compile(r"its From header nests comments (?P<n>\d+) levels deep \(at most (?P<max>\d+) are read\)"),
     lambda m: ngettext("its From header nests comments %(num)s level deep (at most %(max)s are read)",
                        "its From header nests comments %(num)s levels deep (at most %(max)s are read)",
                        _count(m["n"]), num=m["n"], max=m["max"])),
    (re.compile(r"its From header is (?P<n>[\d,]+) characters long \(at most (?P<max>[\d,]+) are read\)"),
     lambda m: ngettext("its From header is %(num)s character long (at most %(max)s are read)",
                        "its From header is %(num)s characters long (at most %(max)s are read)", _count(m["n"]),
                        num=m["n"], max=m["max"])),
)


def unreadable_shown(reason: str) -> str:
    for pattern, shown in _UNREADABLE:
        m = pattern.fullmatch(reason or "")
        if m:
            return shown(m)
    return reason


def split_commands(ctx: Context) -> None:
    ctx.lines = commands.split_lines(ctx.text, on_seat=ctx.seat is not None)
    ctx.secrets = [w for line in ctx.lines for w in commands.secrets_in(line)]  # redacted once the mail is read
    if len(ctx.lines) > MAX_LINES:
        raise UserError(ngettext("your mail has %(num)d line; pbem reads at most %(max)d per mail",
                                 "your mail has %(num)d lines; pbem reads at most %(max)d per mail", len(ctx.lines),
                                 max=MAX_LINES), code="too_long")
    sort_out(ctx)
    gate(ctx)
    if not ctx.lines and not ctx.talk and not ctx.paragraphs:
        if ctx.seat is not None:
            ctx.paragraphs.append(_("pbem found no move or command in your mail (after removing quoted text and "
                                    "signatures), so nothing was applied. Write your moves one per line, in the "
                                    "notation below.") if ctx.ignored_lines else
                                  _("Your mail had no moves or commands in it (after removing quoted text and "
                                    "signatures). Write one per line above the quoted text."))
        else:
            ctx.paragraphs.append(_("Your mail had no commands in it (after removing quoted text and "
                                    "signatures). Write one per line above the quoted text."))
            ctx.help_text = commands.help_text()


def run_commands(ctx: Context) -> None:
    batch: list[str] = []
    batch_lines: list[str] = []
    for line in ctx.lines:
        if line.command is None:
            if ctx.seat is None:
                ctx.results.append(Result(line.raw, "ERROR", unknown_command(line.raw)))
                continue
            batch.extend(line.moves)
            batch_lines.append(line.raw)
            continue
        submit_moves(ctx, batch)
        batch = []
        shown = commands.masked(line)  # a game's password is never repeated nor kept as written
        if line.refusal:
            ctx.results.append(Result(shown, "ERROR", line.refusal))
            continue
        if line.held:
            ctx.results.append(Result(shown, "NOT APPLIED", _("waits for your confirmation (see below)")))
            continue
        handler = commands.HANDLERS[line.command]
        try:
            with i18n.use(answer_language(ctx)):  # a LANGUAGE line before this one: its new language
                detail = handler(ctx, line)
            ctx.results.append(Result(shown, "OK", detail or ""))
        except UserError as e:
            ctx.results.append(Result(shown, "ERROR", e.describe()))
    submit_moves(ctx, batch)
    send_says(ctx)
    if ctx.talk:
        post_talk(ctx)


def queue_replies(ctx: Context) -> None:
    with batched(ctx.session):  # the boards and the receipt: one INSERT into the outbox
        _queue_replies(ctx)


def _queue_replies(ctx: Context) -> None:
    s = ctx.session
    if ctx.held:
        ask_confirmation(ctx)
    if ctx.boards_for:
        for gid, headline in ctx.boards_for.items():
            g = games.get(s, gid)
            exclude = {ctx.seat.seat} if ctx.seat is not None and ctx.seat.game_id == gid else set()
            if gid in ctx.moved and exclude:  # the seat's moves: told the table when its turn ends
                names = seating.names(s, gid)
                who = names[ctx.seat.seat] if ctx.seat.seat < len(names) else f"Seat {ctx.seat.seat + 1}"
                notify.announce_moves(s, g, ctx.seat.seat, who, ctx.moved[gid])
                continue
            notify.queue_boards(s, g, headline, exclude=exclude)
    reply(ctx)


STEPS: list[Callable[[Context], None]] = [
    parse_mime, take_bounces, drop_loops, extract_text, strip_quotes, rate_limit, identify, guess_language,
    refuse_disabled, mail_works, find_context, authenticate, refuse_unreadable, split_commands, run_commands, queue_replies,
]


# ---------------------------------------------------------------- driver


def run(session: Session, inbound: Inbound) -> Context:
    """The steps over one mail, each in the language of its sender as known
    by then (the mail's own guess until identify finds the account)."""
    ctx = Context(session=session, inbound=inbound, auth=inbound.auth)
    try:
        for step in STEPS:
            try:
                with i18n.use(answer_language(ctx)):
                    step(ctx)
                if ctx.game is not None:  # every later line of this mail's processing says which game
                    logs.bind(game_id=ctx.game.id)
            except UserError as e:
                # a user error before the commands ran: answer it, keep nothing else
                if step in (run_commands, queue_replies):
                    raise
                with i18n.use(answer_language(ctx)):
                    ctx.results.append(Result(ctx.subject or _("(your mail)"), "ERROR", e.describe()))
                    reply(ctx)
                break
    except Stop as stop:
        ctx.status = stop.status
        ctx.paragraphs.append(stop.reason)
    return ctx


class Transient(Exception):
    """Try again later (database busy, lost a race)."""


_INBOUND = Inbound.__table__
_FINISH_INBOUND = (update(_INBOUND).where(_INBOUND.c.id == bindparam("inbound_id"))
                   .values(**{k: bindparam(k, type_=_INBOUND.c[k].type)
                              for k in ("attempts", "status", "processed_at", "error", "result", "courtesy",
                                        "digest", "mails_out")}))
_REDACT_INBOUND = update(_INBOUND).where(_INBOUND.c.id == bindparam("inbound_id")).values(raw=bindparam("raw"))
# built once, not for every mail; a Core row: the pipeline reads the mail's columns, never changes them through
# the ORM (its final status is _FINISH_INBOUND)
_LOCK_INBOUND = select(_INBOUND).where(_INBOUND.c.id == bindparam("id")).with_for_update()


def process_inbound(inbound_id: int, *, redrive: bool = False, deliver: Deliverer | None = None) -> str:
    """``_process_inbound`` with the mail's id (and its game's, once known)
    on every line it logs (pbem/logs.py)."""
    with logs.context(inbound_id=inbound_id):
        return _process_inbound(inbound_id, redrive=redrive, deliver=deliver)


def _process_inbound(inbound_id: int, *, redrive: bool = False, deliver: Deliverer | None = None) -> str:
    """Run the pipeline for one stored mail, exactly once. Returns its final
    status. ``deliver``: this process delivers the replies right after the
    commit with it (the worker task: tasks.deliver_inline) instead of leaving
    them to the send task. Raises Transient when trying again later may
    work; every such attempt is counted, and after ``inbound_max_attempts``
    the mail is failed instead, not retried for ever."""
    from sqlalchemy.exc import DataError, DBAPIError, PendingRollbackError

    from pbem.store.db import unit_of_work
    from pbem.store.outbox import allow_inline_delivery, queued_count

    try:
        # who sent it, where it matters: before the transaction, which holds locks (and, on SQLite, the
        # database's write lock) that the DNS of the check must never hold
        check_sender(inbound_id, redrive=redrive)
        with unit_of_work() as s:
            if deliver is not None:
                allow_inline_delivery(s, deliver)
            row = s.connection().execute(_LOCK_INBOUND, {"id": inbound_id}).first()  # locked and fresh
            if row is None:
                return "missing"
            if row.status in ("done", "ignored") or (row.status == "failed" and not redrive):
                return row.status
            ctx = run(s, row)
            # the attempt with the status: one Core UPDATE in the mail's transaction (a rollback keeps
            # neither)
            done = dict(attempts=row.attempts + 1, status=ctx.status, processed_at=utcnow(), error=None,
                        result="\n".join(f"{r.status}: {redact(r.line)}" for r in ctx.results)[:4000] or
                        "; ".join(ctx.paragraphs)[:4000], courtesy=harm(ctx), digest=ctx.digest,
                        mails_out=queued_count(s))
            s.connection().execute(_FINISH_INBOUND, {"inbound_id": row.id, **done})
            if ctx.secrets:  # read: the stored mail keeps no game's password
                s.connection().execute(_REDACT_INBOUND, {"inbound_id": row.id, "raw": redacted(row.raw, ctx.secrets)})
            latency = (done["processed_at"] - aware(row.received_at)).total_seconds() if row.received_at else None
            s.after_commit.insert(0, lambda: _processed(ctx, latency))  # counted once committed, before delivery
            return ctx.status
    except DataError as e:  # a value the database refuses: trying again cannot help
        return _failed(inbound_id, e)
    except (ConcurrentUpdate, DBAPIError, PendingRollbackError) as e:
        # database down or restarting, a lost connection, a lock timeout, a lost race on a unique ply: the
        # transaction rolled back whole, so trying again is safe -- a bounded number of times
        reason = redact(str(e))[:500]
        if _attempt_failed(inbound_id, reason, redrive) == "failed":
            return "failed"
        metrics.mail_retried()
        raise Transient(reason) from e
    except RecursionError as e:  # nothing a mail holds may recurse without bound; if something does: kept,
        return _failed(inbound_id, e, brief=True)  # failed, without thousands of frames for the admins
    except Exception as e:  # a system error: keep the mail, with its error, for a re-drive
        return _failed(inbound_id, e)


def _processed(ctx: Context, latency: float | None) -> None:
    metrics.mail_processed(ctx.status, latency, ctx.moves)
    log.info("inbound %s: %s (%d move(s) applied, %.3f s after its receipt)", ctx.inbound.id, ctx.status,
             ctx.moves, latency if latency is not None else -1)


def _failed(inbound_id: int, e: BaseException, brief: bool = False) -> str:
    """Keep the mail as failed, with its error (``brief``: its message, not
    its traceback), for the admins' console and a re-drive."""
    from pbem.store.db import unit_of_work

    log.error("inbound %s failed: %s", inbound_id, redact(repr(e))[:1000])
    error = repr(e) if brief else "".join(traceback.format_exception(e))
    with unit_of_work() as s:
        row = s.get(Inbound, inbound_id)
        if row is not None and row.status not in ("done", "ignored"):
            row.status = "failed"
            row.attempts += 1
            row.error = CONTROL_RE.sub("", redact(error))[-4000:]
            s.add(row)
            s.after_commit.append(lambda: metrics.mail_failed("error"))
    return "failed"


def _attempt_failed(inbound_id: int, reason: str, redrive: bool) -> str | None:
    """Count an attempt that failed for a reason that may pass (its own short
    transaction: the mail's rolled back). At ``inbound_max_attempts`` the
    mail is failed with the reason, for the admins' console, and its sender
    is told once; a re-drive that fails so stays failed. Returns "failed",
    or None to try again later (also when the database cannot even count)."""
    from pbem.store.db import unit_of_work
    from pbem.store.outbox import queued_count

    cfg = settings()
    try:
        with unit_of_work() as s:
            row = s.connection().execute(_LOCK_INBOUND, {"id": inbound_id}).first()
            if row is None or row.status not in ("received", "failed"):
                return None  # gone, or finished by another run meanwhile: its next run says so
            if row.status == "failed" and not redrive:
                return "failed"
            attempts = row.attempts + 1
            if row.status == "received" and attempts < cfg.inbound_max_attempts:
                s.connection().execute(_COUNT_ATTEMPT, {"inbound_id": inbound_id, "attempts": attempts,
                                                        "error": f"attempt {attempts} failed: {reason}"})
                return None
            error = (f"gave up after {attempts} attempts: the database kept failing (last: {reason})"
                     if row.status == "received" else f"re-drive failed: {reason}")
            told = row.status == "received" and _tell_given_up(s, row, attempts)
            s.connection().execute(_FINISH_INBOUND, {
                "inbound_id": inbound_id, "attempts": attempts, "status": "failed", "processed_at": utcnow(),
                "error": error, "result": "answered: not processed" if told else None, "courtesy": None,
                "digest": None, "mails_out": queued_count(s)})
            s.after_commit.append(lambda: metrics.mail_failed("gave_up"))
            log.error("inbound %s failed: %s", inbound_id, error)
            return "failed"
    except Exception as e:  # noqa: BLE001 - the database is still failing: the task's retry (or the sweep) comes back
        log.warning("inbound %s: could not count the attempt: %s", inbound_id, redact(repr(e))[:200])
        return None


_COUNT_ATTEMPT = (update(_INBOUND).where(_INBOUND.c.id == bindparam("inbound_id"))
                  .values(attempts=bindparam("attempts"), error=bindparam("error")))


def _tell_given_up(s: Session, row, attempts: int) -> bool:
    """Tell the sender of a mail given up on (the seat's owner on a seat
    address, as the pipeline would answer) that it was not processed; not a
    bounce, an auto-reply or anything the pipeline would not answer. In a
    savepoint: if even that fails, the mail is still marked failed."""
    ctx = Context(session=s, inbound=row)
    try:
        with s.begin_nested():
            parse_mime(ctx)
            drop_loops(ctx)
            who = parse_recipient(row.rcpt_to, settings().domain, settings().command_local)
            seat = seating.seat_by_token(s, who.game_id, who.token) if who and who.kind == "seat" else None
            ctx.user = (s.get(User, seat.user_id) if seat is not None and seat.user_id
                        else accounts.find_user(s, ctx.sender))
            with i18n.use(answer_language(ctx)):
                ctx.paragraphs.append(ngettext(
                    "pbem could not process your mail: the attempt failed %(num)d time for a reason on pbem's "
                    "side (its database was busy or unavailable). Nothing in it was applied. The mail is kept for "
                    "an administrator, who may run it again (you will get the usual answer then); if you do not "
                    "hear more, please send it again later.",
                    "pbem could not process your mail: the attempt failed %(num)d times for a reason on pbem's "
                    "side (its database was busy or unavailable). Nothing in it was applied. The mail is kept for "
                    "an administrator, who may run it again (you will get the usual answer then); if you do not "
                    "hear more, please send it again later.", attempts))
                reply(ctx)
        return True
    except Stop:
        return False
    except Exception as e:  # noqa: BLE001 - the answer is a courtesy; the failed mark is what matters
        log.warning("inbound %s: could not tell the sender: %s", row.id, redact(repr(e))[:200])
        return False
