"""The inbound pipeline: small named steps over one Context (HOUSE-STYLE,
after Mailman 3). All effects of one mail happen in one transaction together
with the mail's status, so a crash at any point leaves either everything or
nothing, and a second run of a finished mail does nothing."""
from __future__ import annotations

import logging
import re
import textwrap
import traceback
from dataclasses import dataclass, field
from email.message import Message
from typing import Callable

from sqlalchemy import bindparam, func, update
from sqlalchemy import text as sql_text
from sqlmodel import Session, select

from pbem import i18n, logs, metrics
from pbem.i18n import N_, _, lazy_gettext, ngettext
from pbem.config import settings
from pbem.engine import get_game, validate_options
from pbem.services.core import access, accounts, games, lang, lifecycle, moves, notify, seating, visibility
from pbem.services.identity import confirmations
from pbem.services.lobby import tables
from pbem.services.core.errors import ConcurrentUpdate, UserError
from pbem.store.models import Game, Inbound, Seat, User, utcnow

from . import commands as cmd
from pbem.store.addresses import (
    MessageRef, confirm_address, game_subject, parse_message_refs, parse_recipient, parse_subject_tag, redact,
    seat_address, verp_valid,
)
from pbem.store.outbox import LOOP_HEADER, Deliverer, queue_mail
from . import senders
from .parse import CONTROL_RE, Unreadable, body_text, header, header_values, parse_message, sender, unreadable
from .quotes import strip_reply

log = logging.getLogger("pbem.pipeline")


# the subjects of out-of-office and other automatic replies (Outlook's set no Auto-Submitted, and some
# servers none of Microsoft's headers either): a player's reply keeps the game's subject
AUTO_SUBJECT_RE = re.compile(r"^\s*(automatic reply|auto(matische)? ?(reply|antwort)|out of (the )?office|"
                             r"abwesenheitsnotiz|автоответ|автоматический ответ|автоматичен отговор|"
                             r"автоматична відповідь|réponse automatique|absence du bureau|risposta automatica|"
                             r"respuesta automática|resposta automática|automatisch antwoord|"
                             r"odpowiedź automatyczna|fuera de la oficina|niet aanwezig)\b", re.I)


class Stop(Exception):
    """End the pipeline early with a final status (ignored, done)."""

    def __init__(self, status: str, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class Result:
    line: str
    status: str  # OK | ERROR | NOT APPLIED
    detail: str = ""

    @property
    def css(self) -> str:
        return {"OK": "ok", "ERROR": "err"}.get(self.status, "skip")

    @property
    def shown(self) -> str:
        """The status as the reader's language writes it (the stored result keeps ``status``)."""
        return str(STATUS_WORDS.get(self.status, self.status))


# what a receipt shows for each status (issue 23)
STATUS_WORDS = {"OK": lazy_gettext("OK"), "ERROR": lazy_gettext("ERROR"), "NOT APPLIED": lazy_gettext("NOT APPLIED")}


# commands that change nothing: a mail of only these, again, is a repeat
READ_ONLY = ("HELP", "GAMES", "STATUS", "LIST", "HISTORY", "CARD", "CARDS")  # and LANGUAGE alone (_gate)
# who may do what by mail (docs/SECURITY.md): a seat's address acts only as that seat, only in its game --
# these commands; the account's other commands go to the command address, from the account's own address
SEAT_COMMANDS = ("HELP", "STATUS", "SAY", "NEXT", "IF", "UNDO", "DISPUTE", "VACATION", "RESIGN", "NEWADDRESS",
                 "CANCEL", "START", "BOT",  # these three: the creator's, of this game
                 "LIST", "HISTORY", "CARD", "CARDS",  # issue 19: choices on file, the record, a card's text
                 "LANGUAGE",  # issue 23: the seat's player's language
                 *cmd.MASTER_COMMANDS)  # issue 25: the game master's, of this game (and ABORT YES|NO: a player's)
# done only once the account's owner confirms them, whoever asks (they cannot be undone by mail)
DESTRUCTIVE = ("RESIGN", "NEWADDRESS")  # and REPLACE ... VOTE
GAME_ONLY = ("SAY", "NEXT", "IF", "UNDO", "DISPUTE", "LIST")  # on a game's address only


@dataclass
class Context:
    session: Session
    inbound: Inbound  # or the Core row of the inbound table that process_inbound locked
    msg: Message | None = None
    sender: str = ""
    subject: str = ""
    message_id: str = ""
    text: str = ""
    dropped: int = 0
    recipient_kind: str = "command"
    user: User | None = None
    game: Game | None = None
    seat: Seat | None = None
    expected_ply: int | None = None
    lines: list[cmd.Line] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    ignored_lines: list[str] = field(default_factory=list)  # the player's talk around the moves
    talk: list[str] = field(default_factory=list)  # a reply to table talk: posted back as talk
    talk_to: int | None = None  # ... to this seat alone (a reply to a private message)
    replies_to_talk: bool = False
    says: dict[tuple[int, int | None], list[str]] = field(default_factory=dict)  # SAY lines by recipient
    paragraphs: list[str] = field(default_factory=list)
    help_text: str = ""
    boards_for: dict[int, str] = field(default_factory=dict)  # game id -> headline for the table
    moved: dict[int, int] = field(default_factory=dict)  # game id -> the first ply of this mail's moves in it
    status: str = "done"
    digest: str | None = None  # of the recipient and the normalised text: repeats are found by it
    repeat: bool = False  # the same text went to the same address earlier in the window
    courtesy: str | None = None  # what the courtesy limit made of this mail (Inbound.courtesy)
    auth: str | None = None  # the receiver's DKIM/SPF verdict on the sender (senders.verify), where it matters
    trusted: bool = False  # the From sent it, as pbem checked (a DKIM or SPF pass aligned with it)
    confirmed: bool = False  # the held commands of a confirmation that its owner confirmed
    held: list[cmd.Line] = field(default_factory=list)  # lines waiting for the owner's confirmation
    why_held: str = ""  # "unverified" (the From could not be checked) or "destructive"
    asked: str | None = None  # the address asked to confirm them (None: it was asked too often today)
    foreign: bool = False  # a seat's address used from an address other than its player's
    unreadable: str | None = None  # why the mail is not read (parse.Unreadable): answered, nothing applied
    moves: int = 0  # moves it applied (metrics)

    def harm(self) -> str | None:
        """What this mail did that counts against its sender: "error" (an
        error answer: a refused move, an unknown command or sender, a mail
        with nothing to read), "repeat" (the same text again that only asked
        something: HELP, GAMES, STATUS -- a repeated move that applies, or a
        second NEW of the same game, is play); None for a mail that did what
        it was meant to, or one not read."""
        if self.courtesy or self.status != "done":
            return self.courtesy
        if not self.lines or any(r.status == "ERROR" for r in self.results):
            return "error"
        if self.repeat and all(line.command in READ_ONLY for line in self.lines):
            return "repeat"
        return None


# ---------------------------------------------------------------- steps


MAX_SUBJECT = 300  # characters of a Subject kept (it is echoed in the answer's text)
MAX_ADDRESS = 254  # RFC 5321: no longer address can be delivered to
MESSAGE_ID_RE = re.compile(r"<[^<>\s]{1,250}>")


def parse_mime(ctx: Context) -> None:
    """The headers the pipeline uses, made safe to store and to echo (issue
    18): no control characters (PostgreSQL refuses NUL), bounded lengths, a
    Message-ID only if it is one."""
    ctx.msg = parse_message(ctx.inbound.raw)
    ctx.sender = sender(ctx.msg)
    ctx.subject = " ".join(CONTROL_RE.sub("", header(ctx.msg, "Subject")).split())[:MAX_SUBJECT]
    mid = MESSAGE_ID_RE.search(CONTROL_RE.sub("", header(ctx.msg, "Message-ID")))
    ctx.message_id = mid.group(0) if mid else ""
    ctx.unreadable = unreadable(ctx.msg)


def take_bounces(ctx: Context) -> None:
    """Bounces and delivery reports (issue 21): one that came back to a
    mail's own envelope sender (VERP, addresses.verp_address) names that
    mail, so its recipient; one that came elsewhere (a null sender, a
    mailer-daemon, a multipart/report) counts only if it quotes the
    Message-ID of one of our mails to the address it says failed. Recorded
    (services/deliverability: enough of them mark the address failing),
    never answered. Any other mail to a bounce address (an auto-reply) is
    dropped; any other mail elsewhere goes on to drop_loops."""
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
    first) shows that it works: a failing mark is cleared (issue 21)."""
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
    stripped = strip_reply(ctx.text)
    ctx.text, ctx.dropped = stripped.text, stripped.dropped


def identify(ctx: Context) -> None:
    """Who the mail acts for (issue 17): a seat's address acts as that seat,
    in its game only, whoever the From (the token is the credential; its
    player is told when the From is not theirs, and may refuse such mail:
    SEATS OWN); a confirmation's address runs the commands its owner held;
    the command address acts for the account of the From, which pbem trusts
    only when its own DKIM/SPF check says the From's domain sent it."""
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
            with i18n.use(_language(ctx)):
                raise UserError(_("this reply address is not valid any more (the seat's address may have "
                                  "been renewed); reply to the latest mail of the game"), code="bad_token")
        ctx.seat = seat
        ctx.game = games.get(s, who.game_id, lock=True)  # the mail will move or talk in it: lock once, now
        # the seat's owner is answered, whoever the From (its user came with the seats: no query)
        ctx.user = s.get(User, seat.user_id)
        ctx.foreign = accounts.normalise_email(ctx.sender) != ctx.user.email
        if ctx.user.seat_senders == "own" and (ctx.foreign or senders.failed_for(ctx.auth)):
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


def _answer_and_stop(ctx: Context, status: str, reason: str, *paragraphs: str) -> None:
    """Answer the mail with ``paragraphs`` now, and end the pipeline with
    ``status`` and ``reason`` (kept with the mail, never mailed)."""
    ctx.paragraphs.extend(paragraphs)
    _reply(ctx)
    ctx.paragraphs = []
    raise Stop(status, reason)


def _refuse_foreign(ctx: Context) -> None:
    """SEATS OWN: mail to the seat's address from another address is refused,
    and the address, which has leaked, renewed; its player is told."""
    user, g = ctx.user, ctx.game
    ctx.seat = lifecycle.rotate_token(ctx.session, user, g.id)
    what = (_("from %(sender)s, not from your registered address", sender=ctx.sender) if ctx.foreign
            else _("with your address as its sender, but your mail provider's DKIM/SPF check says it did not send it"))
    _answer_and_stop(ctx, "ignored", f"refused (SEATS OWN): mail to seat {ctx.seat.seat + 1} of game #{g.id} from "
                                     f"{ctx.sender}; the seat's address was renewed and its player told",
                     _("pbem refused a mail to your seat's reply address in game #%(game)d %(what)s: you asked "
                       "that only %(email)s may use your seats (SEATS OWN). Nothing in it was applied or shown to "
                       "anyone. Someone else has that address, so pbem has renewed it: reply to this mail, whose "
                       "reply address is the new one. (SEATS ANY to the command address lets any address you write "
                       "from use your seats again.)", game=g.id, what=what, email=user.email))


def _confirming(ctx: Context, token: str) -> None:
    """A reply to a mail that asked to confirm held commands: 'NO' cancels
    them; anything else runs them, for the account (or the address, for a
    REGISTER) they were held for, whoever the From: the token went only to
    that address."""
    ctx.recipient_kind = "confirm"
    first = (ctx.text.strip().split() or [""])[0].strip(".,!").upper()
    status = "cancelled" if first in ("NO", "CANCEL", "НЕТ", "NEIN", "NON", "НЕ", "ОТМЕНА", "ОТКАЗ") else "done"
    try:
        conf = confirmations.spend(ctx.session, token, status)
    except UserError as e:
        ctx.user = accounts.find_user(ctx.session, ctx.sender)
        _answer_and_stop(ctx, "done", "a reply to a used or expired confirmation: answered", e.describe())
    ctx.sender = conf.email  # REGISTER registers the address that was asked, never the replying From
    ctx.user = ctx.session.get(User, conf.user_id) if conf.user_id else accounts.find_user(ctx.session, conf.email)
    ctx.trusted = ctx.confirmed = True
    if status == "cancelled":
        _answer_and_stop(ctx, "done", "the owner cancelled the held commands",
                         _("Cancelled, as you asked: nothing of it was done.") + "\n" + _shown(conf.commands))
    ctx.text = conf.commands


def _shown(commands: str, limit: int = 20) -> str:
    """Held commands as a mail shows them: at most ``limit`` lines, each cut short."""
    lines = [ln[:120] for ln in commands.split("\n") if ln.strip()]
    more = len(lines) - limit
    return "\n".join("  " + ln for ln in lines[:limit]) + ("\n  " + _("... and %(more)d more", more=more) if more > 0 else "")


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
        if ref.game_id == game_id and ref.ply is not None:
            return ref.ply
    gid, ply = parse_subject_tag(ctx.subject)
    return ply if gid in (None, game_id) else None


def refuse_disabled(ctx: Context) -> None:
    """An account an administrator disabled (issue 21) gets nothing done by
    mail: its first mail of a day is answered with one polite refusal, the
    others that day are set aside unanswered (no reply storm)."""
    user = ctx.user
    if user is None or user.disabled_at is None:
        return
    from datetime import timedelta

    now = utcnow()
    told = user.disabled_told_at
    if told is not None and now - _aware(told) < timedelta(days=1):
        raise Stop("ignored", f"account {user.id} is disabled; its owner was told today: not answered again")
    user.disabled_told_at = now
    ctx.session.add(user)
    _answer_and_stop(ctx, "ignored", f"account {user.id} is disabled: refused, its owner told (once a day)",
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


def refuse_unreadable(ctx: Context) -> None:
    """A mail nested deeper than any client writes (issue 18 §2) is not
    read: its sender (the seat's owner on a seat address) is told why, once,
    nothing in it is applied, and it counts against the sender's courtesy
    limit. After the loop checks and the courtesy limit, so a flood of them
    is not answered mail for mail."""
    if not ctx.unreadable:
        return
    ctx.courtesy = "error"
    _answer_and_stop(ctx, "ignored", f"not read: {ctx.unreadable}; the sender was answered",
                     _("pbem did not read your mail: %(why)s. Nothing in it was applied. Mail clients never "
                       "write mail like that; please send your moves or commands again in an ordinary mail.",
                       why=unreadable_shown(ctx.unreadable)))


# why parse.py did not read a mail (kept in English with the mail), as its sender's language says it
_UNREADABLE = (
    (re.compile(r"its MIME parts are nested more than (?P<n>\d+) levels deep"),
     lambda m: _("its MIME parts are nested more than %(n)s levels deep", n=m["n"])),
    (re.compile(r"it has more than (?P<n>\d+) MIME parts"),
     lambda m: _("it has more than %(n)s MIME parts", n=m["n"])),
    (re.compile(r"its HTML nests elements more than (?P<n>\d+) levels deep"),
     lambda m: _("its HTML nests elements more than %(n)s levels deep", n=m["n"])),
    (re.compile(r"its From header nests comments (?P<n>\d+) levels deep \(at most (?P<max>\d+) are read\)"),
     lambda m: _("its From header nests comments %(n)s levels deep (at most %(max)s are read)", n=m["n"],
                 max=m["max"])),
    (re.compile(r"its From header is (?P<n>[\d,]+) characters long \(at most (?P<max>[\d,]+) are read\)"),
     lambda m: _("its From header is %(n)s characters long (at most %(max)s are read)", n=m["n"], max=m["max"])),
)


def unreadable_shown(reason: str) -> str:
    for pattern, shown in _UNREADABLE:
        m = pattern.fullmatch(reason or "")
        if m:
            return shown(m)
    return reason


def split_commands(ctx: Context) -> None:
    ctx.lines = cmd.split_lines(ctx.text, on_seat=ctx.seat is not None)
    if len(ctx.lines) > cmd.MAX_LINES:
        raise UserError(_("your mail has %(lines)d lines; pbem reads at most %(max)d per mail",
                          lines=len(ctx.lines), max=cmd.MAX_LINES), code="too_long")
    _sort_out(ctx)
    _gate(ctx)
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
            ctx.help_text = _help_text()


def _gate(ctx: Context) -> None:
    """Who may do what by mail (docs/SECURITY.md). On a seat's address: the
    seat's commands, in its game; the account's other commands are refused
    there. On the command address: an unknown sender gets a short fixed
    answer (nothing of the mail echoed) unless it registers; commands from a
    From pbem could not verify wait for the owner's confirmation, and the
    destructive ones wait for it from everyone."""
    if ctx.confirmed:
        return
    if ctx.recipient_kind == "seat":
        here = settings().command_address
        for line in ctx.lines:
            if line.command is None or line.command in READ_ONLY or (line.command == "LANGUAGE" and not line.args):
                continue
            example = "\n  " + _("e.g. to %(address)s: %(line)s", address=here, line=line.raw[:60])
            if line.command not in SEAT_COMMANDS:
                line.refusal = _("%(command)s is an account command: send it to %(address)s from your registered "
                                 "address. A game's reply address acts only in its game", command=line.command,
                                 address=here) + example
            elif other := _other_game(ctx, line):
                line.refusal = _("this address acts only in game #%(game)d; for game #%(other)d reply to that "
                                 "game's mail, or write to %(address)s", game=ctx.game.id, other=other,
                                 address=here) + example
            elif line.command in DESTRUCTIVE:
                _hold(ctx, line, "destructive", f"{line.command} {ctx.game.id}")
        return
    commands = [line.command for line in ctx.lines if line.command]
    if ctx.user is None and ctx.lines and "REGISTER" not in commands and \
            not (commands and all(c == "HELP" for c in commands)):
        _unknown_sender(ctx)
        return
    for line in ctx.lines:
        if line.command is None or line.command in READ_ONLY or (line.command in GAME_ONLY and ctx.game is None) \
                or (line.command == "LANGUAGE" and not line.args):
            continue  # (a game's command without its game fails at once: nothing to hold)
        if not ctx.trusted:
            _hold(ctx, line, "unverified")
        elif line.command in DESTRUCTIVE or (line.command == "REPLACE" and line.args[-1:] and
                                             line.args[-1].upper() == "VOTE"):
            _hold(ctx, line, "destructive")
    if not ctx.trusted and ctx.held:  # nothing of a mail pbem could not verify is echoed but commands
        dropped = [line for line in ctx.lines if line.command is None]
        ctx.lines = [line for line in ctx.lines if line.command is not None]
        if dropped:
            ctx.paragraphs.append(ngettext("%(num)d line(s) of your mail were not commands; they were not read.",
                                           "%(num)d line(s) of your mail were not commands; they were not read.",
                                           len(dropped)))


def _other_game(ctx: Context, line: cmd.Line) -> int | None:
    """The game a seat-address command names, when it is not the seat's own."""
    args = line.args[:1] if line.command != "VACATION" or len(line.args) == 3 else []
    if line.command in cmd.MASTER_COMMANDS:
        gid = _master_game_id(line, ctx.game)
        return gid if gid != ctx.game.id else None
    gid = cmd.parse_game_id(args) if line.command in ("RESIGN", "NEWADDRESS", "VACATION", "STATUS", "CANCEL",
                                                      "START", "BOT") else None
    return gid if gid is not None and gid != ctx.game.id else None


def _hold(ctx: Context, line: cmd.Line, why: str, as_text: str | None = None) -> None:
    line.held = as_text or " ".join(line.raw.split())
    ctx.held.append(line)
    ctx.why_held = ctx.why_held if ctx.why_held == "unverified" else why


def _unknown_sender(ctx: Context) -> None:
    """A short fixed answer, with nothing of the mail in it: a forged From
    cannot make pbem mail its text to someone else (issue 17 §16)."""
    cfg = settings()
    ctx.lines, ctx.ignored_lines, ctx.talk = [], [], []
    ctx.paragraphs.append(
        _("pbem does not know the address %(sender)s, so your mail was not read. To play, register: send "
          "a mail with the one line REGISTER <your name> to %(address)s (for example REGISTER Anna K.), "
          "or sign up at %(url)s/signup. HELP lists the commands.", sender=ctx.sender[:80],
          address=cfg.command_address, url=cfg.base_url.rstrip('/')))


# a closing that begins with a word of some game's notation ("Take care", "Go team!"): never a move
CLOSING_RE = re.compile(r"^(take care|take it easy|go team|good game|gg|play well|pass it on)\b", re.I)


# short talk that must never be taken for a card's or a city's abbreviation
CHATTER = frozenset({"hi", "hey", "hello", "ok", "okay", "k", "kk", "ty", "thx", "gg", "ha", "haha", "lol", "yes",
                     "no", "yep", "nope", "xx", "xo", "bye", "cheers", "thanks", "sure", "fine", "great", "nice",
                     "wow", "oops", "sorry", "ciao", "da", "нет", "да", "ок"})


def _sort_out(ctx: Context) -> None:
    """Tolerant reading (issue 16), as the Diplomacy judges read orders: on a
    seat's address, a line meant as a move (it parses, or it is written in
    the game's notation words) is a move, and the talk around the moves is
    reported as ignored, never as a failed move; in a reply to table talk,
    what is not a move is table talk. On the command address, a line that is
    not a command is ignored unless it looks like a mistyped one."""
    from pbem.engine import playable_games
    from pbem.engine.base import looks_like_move

    names = _own_names(ctx)
    engine = games.engine_for(ctx.game) if ctx.seat is not None else None
    kept: list[cmd.Line] = []
    for line in ctx.lines:
        if line.command is not None:
            kept.append(line)
            continue
        bare = cmd.normalize(line.raw).lower()
        if bare in names or CLOSING_RE.match(bare):  # the player's name under the mail, a closing
            ctx.ignored_lines.append(line.raw)
            continue
        if engine is None:
            if _looks_like_command(line.raw) or any(looks_like_move(e, m) for e in playable_games()
                                                    for m in line.moves):
                kept.append(line)  # answered with the command it resembles, or where moves go
            else:
                ctx.ignored_lines.append(line.raw)
            continue

        def parses(text: str) -> bool:  # short answers too: "o1", "+5", "vp" answer a pending decision
            return (text.lower() not in CHATTER and text[-1] not in "?!," and
                    moves.parses_as_move(ctx.session, ctx.game, ctx.seat.seat, text))

        if ctx.replies_to_talk:
            meant = [m for m in line.moves if parses(m)]
            if meant and len(meant) == len(line.moves):
                kept.append(line)
            else:
                ctx.talk.append(line.raw)
            continue
        meant = [m for m in line.moves if looks_like_move(engine, m) or parses(m)]
        if not meant:
            ctx.ignored_lines.append(line.raw)
            continue
        if len(meant) < len(line.moves):
            ctx.ignored_lines.extend(m for m in line.moves if m not in meant)
            line = cmd.Line(line.raw, moves=meant)
        kept.append(line)
    ctx.lines = kept


def _own_names(ctx: Context) -> set[str]:
    """The sender's name and first name, lower-cased: a line of just that is a signature."""
    if ctx.user is None or not (ctx.user.name or "").strip():
        return set()
    name = cmd.normalize(ctx.user.name).lower()
    first = name.split()[0]
    return {name, first, f"-{first}", f"- {first}", f"-{name}"}


def _looks_like_command(raw: str) -> bool:
    """A line on the command address that was meant as a command: one word in
    capitals, or a first word close to a command's name (a typo)."""
    words = cmd.normalize(raw).split()
    if not words:
        return False
    first = words[0]
    if len(words) <= 3 and first.isupper() and first.isalpha() and len(first) >= 3:
        return True
    return _closest_command(first, cutoff=0.8) is not None


def _closest_command(word: str, cutoff: float) -> str | None:
    """The command name ``word`` most likely mistypes, if any is that close."""
    import difflib

    guess = difflib.get_close_matches(word.upper(), cmd.ACCOUNT_COMMANDS, n=1, cutoff=cutoff)
    return guess[0] if guess else None


def run_commands(ctx: Context) -> None:
    batch: list[str] = []
    batch_lines: list[str] = []
    for line in ctx.lines:
        if line.command is None:
            if ctx.seat is None:
                ctx.results.append(Result(line.raw, "ERROR", _unknown_command(line.raw)))
                continue
            batch.extend(line.moves)
            batch_lines.append(line.raw)
            continue
        _flush_moves(ctx, batch)
        batch = []
        if line.refusal:
            ctx.results.append(Result(line.raw, "ERROR", line.refusal))
            continue
        if line.held:
            ctx.results.append(Result(line.raw, "NOT APPLIED", _("waits for your confirmation (see below)")))
            continue
        handler = HANDLERS[line.command]
        try:
            with i18n.use(_language(ctx)):  # a LANGUAGE line before this one: its new language
                detail = handler(ctx, line)
            ctx.results.append(Result(line.raw, "OK", detail or ""))
        except UserError as e:
            ctx.results.append(Result(line.raw, "ERROR", e.describe()))
    _flush_moves(ctx, batch)
    _send_says(ctx)
    if ctx.talk:
        _post_talk(ctx)


def _post_talk(ctx: Context) -> None:
    from pbem.services.follow import messages

    text = "\n".join(ctx.talk).strip()
    shown = text if len(text) <= 60 else text[:57] + "..."
    try:
        user = _need_user(ctx)
        g = games.get(ctx.session, ctx.game.id)
        p = messages.say(ctx.session, user, g, text, source="mail", to_seat=ctx.talk_to)
    except UserError as e:
        ctx.results.append(Result(shown, "ERROR", e.describe()))
        return
    if p.to_seat is not None:
        said = _("your reply to the table talk was sent privately to %(name)s (lines in move notation would have "
                 "been played)", name=seating.names(ctx.session, g.id)[p.to_seat])
    else:
        said = _("your reply to the table talk was sent to the table (lines in move notation would have been "
                 "played)")
    ctx.results.append(Result(shown, "OK", said))


def _flush_moves(ctx: Context, batch: list[str]) -> None:
    if not batch:
        return
    if ctx.not_applied:  # an earlier move failed: later ones wait for a corrected mail
        ctx.not_applied.extend(batch)
        return
    g, seat = ctx.game, ctx.seat
    res = moves.submit_moves(ctx.session, g.id, seat.seat, batch, source="mail",
                             user_id=ctx.user.id if ctx.user else None, inbound_id=ctx.inbound.id,
                             expected_ply=ctx.expected_ply)
    ctx.moves += len(res.applied)
    for a in res.applied:
        shown = (_("ply %(ply)d, written %(notation)s", ply=a.ply, notation=a.notation)
                 if a.notation.lower() != a.text.lower() else _("ply %(ply)d", ply=a.ply))
        ctx.results.append(Result(a.text, "OK", shown))
    for a in res.discarded:
        ctx.results.append(Result(a.text, "NOT APPLIED", _("legal, but this game takes a mail's moves all "
                                                           "or none, and a later one failed")))
    if res.error is not None:
        detail = res.error.describe()
        ctx.results.append(Result(res.failed_text or "", "ERROR", detail))
        ctx.not_applied.extend(res.not_applied)
    if res.replaced:  # a secret choice changed before the reveal: the others are told nothing
        ctx.paragraphs.append(replaced_paragraph(res))
    elif res.replacing:
        ctx.paragraphs.append(_("Your order on file for this step (%(order)s) stays as it was.",
                                order='; '.join(res.replacing)))
    if res.applied:
        ctx.expected_ply = None  # our own moves do not make the rest of the mail stale
    if res.applied and not res.replaced:
        names = seating.names(ctx.session, g.id)
        who = names[seat.seat] if seat.seat < len(names) else f"Seat {seat.seat + 1}"
        moved = visibility.told(ctx.session, g, seat.seat, res.applied[0].ply - 1)  # a secret stays one
        ctx.boards_for[g.id] = (lazy_gettext("%(who)s played: %(moves)s — the game is over.", who=who, moves=moved)
                                if res.over else lazy_gettext("%(who)s played: %(moves)s", who=who, moves=moved))
        ctx.moved.setdefault(g.id, res.applied[0].ply)  # the table's boards wait while the turn goes on


def replaced_paragraph(res: moves.SubmitResult) -> str:
    return _("Your new order replaces the one you had on file for this step (%(order)s). Nobody "
             "else is told; you may change it again until the step is revealed (LIST shows what is on file).",
             order='; '.join(res.replacing))


def _unknown_command(raw: str) -> str:
    words = cmd.normalize(raw).split()
    guess = _closest_command(words[0], cutoff=0.6) if words else None
    known = ", ".join(cmd.ACCOUNT_COMMANDS)
    if guess:
        text = _("'%(line)s' is not a command. Did you mean %(guess)s? On this address pbem understands "
                 "%(commands)s; moves go to your seat's address (reply to the game's mail).", line=raw[:60],
                 guess=guess, commands=known)
    else:
        text = _("'%(line)s' is not a command. On this address pbem understands %(commands)s; moves go to your "
                 "seat's address (reply to the game's mail).", line=raw[:60], commands=known)
    return text + "\n  " + _("e.g. %(example)s", example="HELP")


def queue_replies(ctx: Context) -> None:
    s = ctx.session
    if ctx.held:
        _ask_confirmation(ctx)
    if ctx.boards_for:
        for gid, headline in ctx.boards_for.items():
            g = games.get(s, gid)
            exclude = {ctx.seat.seat} if ctx.seat is not None and ctx.seat.game_id == gid else set()
            if gid in ctx.moved and exclude:  # the seat's moves: told when its turn ends (issue 20)
                names = seating.names(s, gid)
                who = names[ctx.seat.seat] if ctx.seat.seat < len(names) else f"Seat {ctx.seat.seat + 1}"
                notify.announce_moves(s, g, ctx.seat.seat, who, ctx.moved[gid])
                continue
            notify.queue_boards(s, g, headline, exclude=exclude)
    _reply(ctx)


def _ask_confirmation(ctx: Context) -> None:
    """One mail to the owner of the address asking to confirm the held
    commands: reply to it (its Reply-To is the confirmation's address), or
    open its link. The receipt says they wait; when nothing else in the mail
    ran, the asking mail is the only answer."""
    cfg = settings()
    email = ctx.user.email if ctx.user is not None else accounts.normalise_email(ctx.sender)
    lines = [line.held for line in ctx.held]
    token = confirmations.hold(ctx.session, email=email, commands=lines, user_id=ctx.user.id if ctx.user else None,
                               game_id=ctx.game.id if ctx.game else None, seat=ctx.seat.seat if ctx.seat else None,
                               inbound_id=ctx.inbound.id, sender=ctx.sender)
    if token is None:
        ctx.paragraphs.append(_("pbem has asked %(email)s to confirm commands %(times)d times today already, so it "
                                "asks no more today: the commands above were not done. Send them again tomorrow.",
                                email=email, times=confirmations.PER_ADDRESS_PER_DAY))
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
    paragraphs = [why, _("Waiting for your confirmation:") + "\n" + _shown("\n".join(lines)),
                  _("To do them, reply to this mail (any text will do; a reply that begins with NO cancels them), "
                    "or open this link: %(link)s", link=confirmations.link_for(token)),
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


def _reply(ctx: Context) -> None:
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
            if g.status == "finished" and ctx.game.id in ctx.boards_for:  # this mail ended it: the result first
                context["summary"] = notify.final_result(s, g)
            if ctx.help_text:
                context["help_text"] = ctx.help_text
        reply_to, ply = seat_address(g.id, ctx.seat.token, cfg.domain), g.ply
        context["footer"] = notify.footer(g, ctx.seat.token)
        subject = "Re: " + game_subject(g.id, games.engine_for(g).title)  # the game's conversation
    else:
        context["footer"] = _("pbem at %(address)s. Send HELP for the commands. Web: %(url)s/",
                              address=cfg.command_address, url=cfg.base_url)
    if ctx.user:
        context["greeting"] = _("Dear %(name)s,", name=ctx.user.name)
    queue_mail(s, to=to, subject=subject, context=context, kind="reply", user=ctx.user,
               game_id=ctx.game.id if ctx.game else None, reply_to=reply_to, ply=ply,
               in_reply_to=ctx.message_id or None)


_HARM = ("error", "repeat")
_RECENT = (func.lower(Inbound.mail_from) == bindparam("who"), Inbound.received_at > bindparam("since"),
           Inbound.id < bindparam("id"))
# built once: asked for every mail. One indexed range of the sender's mails in the window (migration
# 0006), counted four ways: errors, repeats, answered set-asides, and mails with the same text
_SENDER_COUNT = select(
    func.count().filter(Inbound.courtesy == "error"), func.count().filter(Inbound.courtesy == "repeat"),
    func.count().filter(Inbound.courtesy == "aside-told"), func.count().filter(Inbound.digest == bindparam("digest")),
).select_from(Inbound).where(*_RECENT)
# only for the one answer per window: when the oldest harmful mail that keeps the sender over the
# limit leaves the window
_NTH_HARM = (select(Inbound.received_at).where(*_RECENT, Inbound.courtesy.in_(_HARM))
             .order_by(Inbound.received_at, Inbound.id).limit(1).offset(bindparam("skip")))


def digest(rcpt: str, text: str) -> str:
    """The same mail again: the same recipient and the same words, whatever
    the case and spacing."""
    import hashlib

    norm = " ".join((text or "").casefold().split())
    return hashlib.blake2b(f"{(rcpt or '').lower()}\n{norm}".encode(), digest_size=12).hexdigest()


def rate_limit(ctx: Context) -> None:
    """The courtesy limit counts mail that did harm, not normal play: past
    ``inbound_rate`` mails from one sender in the window that were answered
    with an error or repeated an earlier one to no effect (Context.harm),
    later mails are set aside unread (status ignored, with the reason) until
    enough of those have left the window. The first set aside in a window is
    answered, saying how many did harm and when reading resumes; the rest
    are not, so a broken robot cannot make pbem write back at its pace.
    Mails that applied moves or ran commands never count."""
    from datetime import timedelta

    cfg = settings()
    who = (ctx.inbound.mail_from or "").strip().lower()
    ctx.digest = digest(ctx.inbound.rcpt_to, ctx.text)
    if not who:
        return
    since = ctx.inbound.received_at - timedelta(seconds=cfg.inbound_rate_window_s)
    params = {"who": who, "since": since, "id": ctx.inbound.id}
    errors, repeats, told, same = ctx.session.connection().execute(
        _SENDER_COUNT, {**params, "digest": ctx.digest}).one()
    ctx.repeat = same > 0
    harm = errors + repeats
    if harm < cfg.inbound_rate:
        return
    ctx.digest = None  # not read: the same text sent again once reading resumes is no repeat
    window = f"{cfg.inbound_rate_window_s // 60} minutes" if cfg.inbound_rate_window_s >= 120 else \
        f"{cfg.inbound_rate_window_s} seconds"
    counted = f"{harm} of your mails within {window} did harm ({errors} with errors, {repeats} repeats)"
    shown_window = (ngettext("%(num)d minute", "%(num)d minutes", cfg.inbound_rate_window_s // 60)
                    if cfg.inbound_rate_window_s >= 120 else
                    ngettext("%(num)d second", "%(num)d seconds", cfg.inbound_rate_window_s))
    shown_count = _("%(harm)d of your mails within %(window)s could not be used (%(errors)d with errors, "
                    "%(repeats)d repeats)", harm=harm, window=shown_window, errors=errors, repeats=repeats)
    if told:
        ctx.courtesy = "aside"
        raise Stop("ignored", f"set aside unread (courtesy limit: {counted}); the sender was answered once "
                              f"for this window")
    ctx.courtesy = "aside-told"
    oldest = ctx.session.connection().execute(_NTH_HARM, {**params, "skip": harm - cfg.inbound_rate}).scalar_one()
    resumes = _aware(oldest) + timedelta(seconds=cfg.inbound_rate_window_s)
    ctx.user = accounts.find_user(ctx.session, ctx.sender)
    when = _when(resumes, ctx.user)
    _answer_and_stop(
        ctx, "ignored", f"set aside unread (courtesy limit: {counted}); answered: reading resumes at "
                        f"{resumes:%Y-%m-%d %H:%M:%S} UTC",
        _("pbem has set your mail aside for now: %(counted)s. This mail and any you send before %(when)s are "
          "kept but not read: nothing in them is applied, and they get no answer. From %(when)s pbem reads your "
          "mail again; then send what you meant, in one mail.", counted=shown_count, when=when),
        _("Mails that apply moves or run commands do not count; errors and repeats do: if a command keeps failing, "
          "HELP shows how it is written."))


def _aware(dt):
    from datetime import timezone

    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _when(at, user: User | None) -> str:
    """A time of day for the user: in their zone when pbem knows it, and in UTC."""
    from pbem.services.core.clocks import zone

    utc = f"{at:%H:%M} UTC"
    tz = getattr(user, "timezone", "") or "UTC"
    if tz == "UTC":
        return utc
    return f"{at.astimezone(zone(tz)):%H:%M} ({tz}; {utc})"


def mail_language(msg: Message | None) -> str | None:
    """What a mail says of its sender's language (issue 23): its
    Content-Language, else a Cyrillic charset of one of its parts; None when
    it says nothing pbem speaks."""
    if msg is None:
        return None
    try:
        charsets = [c for c in msg.get_charsets() if c]
    except Exception:  # noqa: BLE001 - a broken part: no charset to go by
        charsets = []
    return i18n.from_mail(header(msg, "Content-Language") or None, charsets)


def _language(ctx: Context) -> str:
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


STEPS: list[Callable[[Context], None]] = [
    parse_mime, take_bounces, drop_loops, extract_text, strip_quotes, rate_limit, identify, guess_language,
    refuse_disabled, mail_works, find_context, authenticate, refuse_unreadable, split_commands, run_commands, queue_replies,
]


# ---------------------------------------------------------------- commands

HELP = N_("""Commands (one per line, to %(addr)s):
  REGISTER <name>            create your account (or change your name)
  HELP [game]                this help, or a game's move notation
  LANGUAGE [en|ru|bg|it]     the language of your mail and pages (LANGUAGE alone: yours, and the list)
  GAMES                      open games, and your games
  NEW <game> [players=N] [deadline=48] [policy=wait|bot|abandon] [days=all|no-weekends]
      [min_reliability=90] [bot=easy|normal|strong] [option=value ...]
                             create a game (%(games)s); min_reliability: the
                             reliability (%% of deadlines met) a player needs to JOIN;
                             bot: how well its bots play (default normal)
  JOIN <game-id>             take a seat in an open game
  START <game-id>            start your game with the players so far
  STATUS [game-id]           where a game stands
  RESIGN <game-id>           leave a game (a bot plays your seat until a replacement takes it;
                             before the start your seat is freed, and the creator's RESIGN cancels)
  CANCEL <game-id>           withdraw an open game you created (the players who joined are told)
  REPLACE <game-id> <seat>   take over an open seat; REPLACE <game-id> <seat> VOTE: vote to open it
  VACATION <from> <to>       an absence (YYYY-MM-DD, both days included): your clock pauses
  UNDO | UNDO YES | UNDO NO  take back your last move: at once while it is still your turn and
                             nobody has seen it (nothing revealed), else if the others agree
  DISPUTE <ply> <text>       ask an admin to look at a move
  SAY <text> | SAY <seat or name>: <text>   talk to the table, or privately
  NEXT: <move> | NEXT CANCEL a move to play when your turn comes
  HISTORY [game-id]          the game's record, move by move, in words
  CARD [game] <name>         a card's whole text (cost, effect, points); CARDS [game] lists them
  LIST                       your choices on file in a step everyone plays at once (It's a
                             Wonderful World); a new order replaces them until the reveal
  IF <move> THEN <move>      play it only if the move before your turn was that one
                             (IF Bob: wait THEN play 5 — only if Bob's was)
  OBSERVE <game-id> | UNOBSERVE <game-id>   get (or stop) the public board after every move
  STOP | STOP OFF            no more table talk, observer mail or boards of others' moves
                             (replies, your-turn boards, reminders and admin decisions still come)
  NOTIFY every|turn|digest   a board after every move, only on your turn, or one mail a day
  NOTIFY ADD <address>       notifications in Discord, Slack, Telegram, Matrix, ntfy or a JSON
                             webhook too (NOTIFY LIST, NOTIFY REMOVE <n>, NOTIFY TEST <n>,
                             NOTIFY <n> OFF talk, NOTIFY QUIET 22-07, NOTIFY HOUR 8,
                             NOTIFY TABLE <game-id> <address>: the game's group chat)
  NEWADDRESS <game-id>       a new secret reply address for your seat (the old one stops working)
  SEATS OWN | SEATS ANY      only your registered address may use your seats' reply addresses, or any
  BOT <game-id> [level]      seat a bot in the next free seat of your open game;
                             level easy, normal or strong (default: the game's)
Moves: reply to a game's mail (it goes to your seat's own address), one move per line. A game's
reply address acts only in its game: SAY, NEXT, IF, UNDO, DISPUTE, LIST, HISTORY, CARD, VACATION, STATUS, RESIGN,
NEWADDRESS, LANGUAGE, and the creator's START, CANCEL and BOT work there; the other commands go to %(addr)s from your registered address.
RESIGN, NEWADDRESS and REPLACE ... VOTE are done once you confirm them (pbem mails you to ask), and
so is every command from an address pbem cannot verify (no DKIM signature or SPF pass).""")


HELP_TABLES = N_("""Private games (issue 25):
  NEW <game> ... private     only the people invited may join (invite them on the game's page)
  NEW <game> ... password=<word>   anyone who gives the word may join
  JOIN <game-id> <password>  join a game that has a password
  ACCEPT <game-id> | DECLINE <game-id>   answer an invitation (ACCEPT joins, like JOIN;
                             DECLINE tells the one who invited you)
  REMOVE <game-id> <name or seat>   take a joined player out of your game before it starts""")


HELP_AWAY = N_("""Away, your time, your calendar (issues 24 and 25):
  AWAY <first day> <last day>   away from all your games, e.g. AWAY 20.12.2026
                             27.12.2026 (or 2026-12-20, or 20 December): your
                             clocks pause on those days, in each game within
                             its allowance; AWAY lists your absences, AWAY
                             CANCEL withdraws those not begun
  TIMEZONE <zone>            your time zone (TIMEZONE Europe/Sofia): your days
                             and deadlines are read and written in it;
                             TIMEZONE alone shows it
  NOTIFY CALENDAR [NEW]      the private address of a calendar with all your
                             deadlines (NEW: a new address; the old one stops
                             working)""")


def _help_text() -> str:
    from pbem.engine import GAMES

    return _(HELP, addr=settings().command_address, games=", ".join(sorted(GAMES)) or _("none yet")) + \
        "\n" + _(HELP_TABLES) + \
        "\n" + _(HELP_MASTER) + \
        "\n" + _(HELP_AWAY)


def _need_user(ctx: Context) -> User:
    if ctx.user is None:
        raise UserError(_("pbem does not know your address yet; register first"), example="REGISTER Anna K.",
                        code="unregistered")
    return ctx.user


def _game_arg(line: cmd.Line, ctx: Context, required: bool = True) -> int | None:
    gid = cmd.parse_game_id(line.args)
    if gid is None and ctx.game is not None:
        return ctx.game.id
    if gid is None and required:
        raise UserError(_("%(command)s needs a game number", command=line.command), example=f"{line.command} 12",
                        code="no_game_id")
    return gid


def _started(ctx: Context, g: Game):
    """The headline of the boards of a game that has just started: written in each reader's language."""
    return lazy_gettext("Game #%(game)d has started: %(names)s.", game=g.id,
                        names=", ".join(seating.names(ctx.session, g.id)))


def do_register(ctx: Context, line: cmd.Line) -> str:
    name = " ".join(line.args)
    user, created = accounts.register(ctx.session, ctx.sender, name, confirmed=True,
                                      language=mail_language(ctx.msg))  # a new account: the mail's language
    ctx.user = user
    with i18n.use(_language(ctx)):
        return _("welcome, %(name)s", name=user.name) if created else _("your name is now %(name)s", name=user.name)


def do_help(ctx: Context, line: cmd.Line) -> str:
    if line.args:
        try:
            engine = get_game(line.args[0])
        except KeyError as e:
            raise UserError(str(e.args[0]), example="HELP spyrium", code="no_such_game") from None
        state = None
        if ctx.game is not None and ctx.game.game == engine.name and games.has_started(ctx.game):
            state = games.state_at(ctx.session, ctx.game)
        if state is None:
            n = engine.min_players
            state = engine.initial_state(n, 1, validate_options(engine, n, {}))
            ctx.help_text = engine.notation_help(state, None)
        else:
            ctx.help_text = engine.notation_help(state, ctx.seat.seat if ctx.seat else None)
        return _("the notation of %(game)s is below", game=engine.title)
    ctx.help_text = _help_text()
    return _("the commands are below")


GAMES_SHOWN = 20  # open games, and the sender's own, that a GAMES answer lists: the rest are on the web


def do_games(ctx: Context, line: cmd.Line) -> str:
    s = ctx.session
    lines = []
    base = settings().base_url.rstrip("/")
    found = tables.open_tables(s, ctx.user, per_page=GAMES_SHOWN)
    for t in found.rows:
        g = t.game
        engine = games.engine_for(g)
        taken = len(t.players)
        if g.access == "password":
            line_ = _("#%(game)d %(title)s: open, %(taken)d/%(seats)d seats, needs a password — JOIN %(game)d "
                      "<password>", game=g.id, title=engine.title, taken=taken, seats=g.players)
        elif g.access == "private":
            line_ = _("#%(game)d %(title)s: private, %(taken)d/%(seats)d seats — JOIN %(game)d", game=g.id,
                      title=engine.title, taken=taken, seats=g.players)
        else:
            line_ = _("#%(game)d %(title)s: open, %(taken)d/%(seats)d seats — JOIN %(game)d", game=g.id,
                      title=engine.title, taken=taken, seats=g.players)
        shown = [_("%(name)s (rating %(rating)s)", name=p.name, rating=p.rating) if p.rating is not None else p.name
                 for p in t.players]
        if shown:
            line_ += "\n    " + _("seated: %(players)s", players=", ".join(shown))
        if g.min_reliability is not None:
            line_ += "\n    " + _("players need a reliability of at least %(min)d%%", min=g.min_reliability)
        lines.append(line_)
    if not lines:
        lines.append(_("No open games right now: start one with NEW <game>."))
    elif found.more:
        lines.append(_("More open games are in the lobby: %(url)s", url=f"{base}/lobby"))
    if ctx.user:
        mine = games.my_games(s, ctx.user, per_page=GAMES_SHOWN)
        listed = ", ".join(f"#{m.game.id} {m.game.game} ({m.game.status})" for m in mine.rows) or _("none")
        lines.append(_("Your games: %(games)s", games=listed + (", …" if mine.more else "")))
        if mine.more:
            lines.append(_("All your games are on your page: %(url)s", url=f"{base}/me"))
    return "\n".join(lines)


NEW_KEYS = {"players": lazy_gettext("how many"), "deadline": lazy_gettext("hours per turn, 48"),
            "policy": lazy_gettext("wait, bot or abandon"), "days": lazy_gettext("all or no-weekends"),
            "master": lazy_gettext("a registered user's name: the game master, if not you"),
            "min_reliability": lazy_gettext("a percent, 0-100"),
            "bot": lazy_gettext("how well its bots play: easy, normal or strong")}  # NEW's own options; each game adds its own (engine options)
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "solo": 1}
_PLAYER_WORDS = ("p", "pl", "player", "players", "ppl", "people", "persons", "spieler", "joueurs", "игрока",
                 "игроков")
_COUNT_RE = re.compile(r"^(\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")(?:[- ]?(" + "|".join(_PLAYER_WORDS) + r"))?$")


def _new_words(engine, opts: dict[str, str], words: list[str]) -> None:
    """NEW takes options as key=value; anything else is refused (a word that
    was ignored made "NEW Spyrium 3 players" a 5-player game), with the
    key=value it most likely meant: "3 players", "players 3", "3p", "for 3",
    "48h", a choice of one of the game's options ("world" -> side=world)."""
    import difflib

    own = {o.name: o for o in engine.options}
    keys = [*NEW_KEYS, *own]
    guesses: list[str] = []
    unknown: list[str] = []

    def count(w: str) -> int | None:
        m = _COUNT_RE.match(w)
        return None if m is None else (int(m.group(1)) if m.group(1).isdigit() else _NUMBER_WORDS[m.group(1)])

    for key in [k for k in opts if k not in keys]:  # key=value with a key nobody knows
        close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
        (guesses if close else unknown).append(f"{close[0]}={opts[key]}" if close else f"{key}={opts[key]}")
    ws = [w.lower().strip(",;.") for w in words]
    i = 0
    while i < len(ws):
        w, nxt = ws[i], (ws[i + 1] if i + 1 < len(ws) else "")
        key, _sep, value = w.partition(":")
        if count(w) is not None and _COUNT_RE.match(w).group(2):  # 3p, 3-players
            guesses.append(f"players={count(w)}")
        elif count(w) is not None and nxt in _PLAYER_WORDS:  # 3 players
            guesses.append(f"players={count(w)}")
            i += 1
        elif w in ("for", "with", "players", "player") and count(nxt) is not None:  # for 3, players 3
            guesses.append(f"players={count(nxt)}")
            i += 1 + (i + 2 < len(ws) and ws[i + 2] in _PLAYER_WORDS)
        elif key in keys and value:  # players:3
            guesses.append(f"{key}={value}")
        elif key in keys and nxt:  # deadline 24, side world
            guesses.append(f"{key}={nxt}")
            i += 1
        elif (m := re.fullmatch(r"(\d{1,3})(h|hours?)", w)) or (w.isdigit() and nxt in ("h", "hour", "hours")):
            guesses.append(f"deadline={m.group(1) if m else w}")  # 48h, 48 hours
            i += m is None
        elif count(w) is not None:  # a number alone
            guesses.append(f"players={count(w)}")
        elif w in ("no-weekends", "weekdays") or (w == "no" and nxt in ("weekends", "weekend")):
            guesses.append("days=no-weekends")
            i += w == "no"
        elif w in ("wait", "bot", "bots", "abandon"):
            guesses.append(f"policy={w.rstrip('s')}")
        else:
            fits = [o.name for o in engine.options
                    if o.choices and w in {str(c).lower() for c in o.choices}]
            if len(fits) == 1:
                guesses.append(f"{fits[0]}={w}")
            else:
                unknown.append(words[i])
        i += 1
    if not guesses and not unknown:
        return
    given = [f"{k}={v}" for k, v in opts.items() if k in keys]
    if unknown:
        see = _("see HELP %(game)s", game=engine.name)
        theirs = "; ".join(f"{o.name} ({', '.join(map(str, o.choices)) if o.choices else see})"
                           for o in engine.options) or _("none")
        keys_shown = "; ".join(f"{k} ({v})" for k, v in dict(
            NEW_KEYS, players=f"{engine.min_players}-{engine.max_players}").items())
        raise UserError(
            _("NEW %(game)s: %(words)s is not an option. Options are written key=value: %(keys)s; and %(title)s's "
              "own: %(theirs)s", game=engine.name, words=", ".join(repr(u) for u in unknown), keys=keys_shown,
              title=engine.title, theirs=theirs)
            + (". " + _("Did you mean %(guess)s?", guess=" ".join(guesses)) if guesses else "")
            + " " + _("Nothing was created"),
            example=" ".join([f"NEW {engine.name}", *guesses, *given] if guesses or given
                             else [f"NEW {engine.name}", f"players={engine.min_players}", "deadline=48"]),
            code="bad_option")
    raise UserError(_("NEW %(game)s: options are written key=value; did you mean %(guess)s? Nothing was created",
                      game=engine.name, guess=" ".join(guesses)), example=" ".join([f"NEW {engine.name}", *guesses, *given]),
                    code="bad_option")


_MASTER_OPT_RE = re.compile(r"(?:^|\s)master=(.*?)(?=\s+[a-z_][a-z0-9_]*=|$)", re.I)


def do_new(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import master

    user = _need_user(ctx)
    args = line.args
    named_master = None
    if m := _MASTER_OPT_RE.search(_rest(line)):  # master=Anna K.: a name may have spaces
        words = _rest(line)[:m.start()].split() + _rest(line)[m.end():].split()
        args = [w for w in words]
        game_word = next((w for w in args if "=" not in w), "spyrium")
        named_master = master.find_user(ctx.session, m.group(1), f"NEW {game_word} master=Anna K.")
    opts, rest = cmd.parse_options(args)
    if not rest:
        raise UserError(_("NEW needs the name of a game"), example="NEW spyrium players=4", code="no_game_name")
    named = [w for w in rest if _known_game(w)]  # "NEW 3 players spyrium" names it second
    try:
        engine = get_game(named[0] if named else rest[0])
    except KeyError as e:
        raise UserError(str(e.args[0]), example="NEW spyrium players=4", code="no_such_game") from None
    rest.remove(named[0] if named else rest[0])
    access = "public"
    if any(w.lower().strip(",;.") == "private" for w in rest):  # issue 25: invitation only
        rest = [w for w in rest if w.lower().strip(",;.") != "private"]
        access = "private"
    password = opts.pop("password", None)
    if password is not None and access == "private":
        raise UserError(_("a game is either private (invitation only) or has a password, not both. Nothing was "
                          "created"), example=f"NEW {engine.name} private", code="bad_option")
    _new_words(engine, opts, rest)
    rest = [engine.name]
    players = opts.pop("players", None)
    deadline = opts.pop("deadline", "48")
    try:
        n = int(players) if players is not None else None
        hours = int(deadline.lower().rstrip("h"))
    except ValueError:
        raise UserError(_("players and deadline are numbers (got %(players)s, %(deadline)s)", players=repr(players),
                          deadline=repr(deadline)),
                        example=f"NEW {rest[0]} players=3 deadline=48", code="bad_option") from None
    days = opts.pop("days", "all").lower()
    policy = opts.pop("policy", "wait").lower()
    minimum = opts.pop("min_reliability", None)
    bot_level = opts.pop("bot", None)
    tables.check_creation_quota(ctx.session, user)
    g = tables.create(ctx.session, user, rest[0], n, opts, deadline_hours=hours, policy=policy,
                     day_mask="" if days == "all" else days, access=access, password=password,
                     min_reliability=minimum, bot_level=bot_level)
    if named_master is not None:
        master.appoint(ctx.session, user, g, named_master)
    engine = games.engine_for(g)
    if g.status == "open" and g.access == "private":
        return _("game #%(game)d (%(title)s, %(players)d players) is open and private: only the people you invite "
                 "may join (invite them on the game's page, %(link)s)", game=g.id, title=engine.title,
                 players=g.players, link=_game_link(g.id))
    if g.status == "open" and g.access == "password":  # the creator's own reply: the only mail with the word
        return _("game #%(game)d (%(title)s, %(players)d players) is open to those who give its password, "
                 "%(password)s: tell it to the players you want, who send JOIN %(game)d %(password)s", game=g.id,
                 title=engine.title, players=g.players, password=password.strip())
    if g.status == "running":
        ctx.boards_for[g.id] = lazy_gettext("Game #%(game)d (%(title)s, solo) has started.", game=g.id,
                                            title=engine.title)  # written in each reader's language
        return _("game #%(game)d (%(title)s, solo) has started; your board comes in a separate mail", game=g.id,
                 title=engine.title)
    if named_master is not None and named_master.id != user.id:
        return _("game #%(game)d (%(title)s, %(players)d players) is open; others can JOIN %(game)d. Its game "
                 "master is %(name)s", game=g.id, title=engine.title, players=g.players, name=named_master.name)
    return _("game #%(game)d (%(title)s, %(players)d players) is open; others can JOIN %(game)d", game=g.id,
             title=engine.title, players=g.players)


def _known_game(name: str) -> bool:
    try:
        get_game(name)
    except KeyError:
        return False
    return True


def do_join(ctx: Context, line: cmd.Line) -> str:
    user = _need_user(ctx)
    gid = _game_arg(line, ctx)
    g, seat, started = tables.join(ctx.session, user, gid, password=" ".join(line.args[1:2]) or None)
    return _joined(ctx, g, seat, started)


def _joined(ctx: Context, g: Game, seat: Seat, started: bool) -> str:
    if started:
        ctx.boards_for[g.id] = _started(ctx, g)
        return _("you have seat %(seat)d in game #%(game)d; the game is full and has started", seat=seat.seat + 1,
                 game=g.id)
    return _("you have seat %(seat)d in game #%(game)d", seat=seat.seat + 1, game=g.id)


def do_start(ctx: Context, line: cmd.Line) -> str:
    user = _need_user(ctx)
    g = games.get(ctx.session, _game_arg(line, ctx), lock=True)
    lifecycle.start(ctx.session, g, by=user)
    ctx.boards_for[g.id] = _started(ctx, g)
    return _("game #%(game)d has started with %(players)d players", game=g.id, players=g.players)


def do_status(ctx: Context, line: cmd.Line) -> str:
    s = ctx.session
    gid = _game_arg(line, ctx, required=False)
    if gid is None:
        return do_games(ctx, line)
    g = access.require_seen(s, games.get(s, gid), ctx.user)
    engine = games.engine_for(g)
    if g.status == "open":
        return _("game #%(game)d (%(title)s) is open with %(taken)d/%(seats)d seats", game=g.id, title=engine.title,
                 taken=len(seating.seats(s, g.id)), seats=g.players)
    if g.status == "cancelled":
        return _("game #%(game)d (%(title)s) was cancelled before it started", game=g.id, title=engine.title)
    view = games.view_for(s, g, visibility.viewer(s, g, ctx.user).seat)
    if ctx.seat is None or ctx.seat.game_id != g.id:
        ctx.paragraphs.append(_("Game #%(game)d at ply %(ply)d:", game=g.id, ply=g.ply) + "\n" + engine.render_text(view))
    return _("game #%(game)d: %(status)s (ply %(ply)d)", game=g.id, status=view.get('status', g.status), ply=g.ply)


def do_resign(ctx: Context, line: cmd.Line) -> str:
    user = _need_user(ctx)
    gid = _game_arg(line, ctx)
    from pbem.services.lobby import seats

    left = seats.resign(ctx.session, user, gid)
    if left.how == "cancelled":
        return _("you created game #%(game)d and it had not started, so it is cancelled (nobody else could start "
                 "it); the players who had joined are told", game=gid)
    if left.how == "left":
        return _("you have left game #%(game)d before it started; your seat is free for someone else", game=gid)
    ctx.boards_for[gid] = lazy_gettext("%(name)s has resigned from seat %(seat)d.", name=user.name,
                                       seat=left.seat.seat + 1)
    ctx.moved.pop(gid, None)  # the table hears of the resignation at once, with the board as it is
    return _("you have resigned from game #%(game)d", game=gid)


def do_cancel(ctx: Context, line: cmd.Line) -> str:
    """CANCEL <game-id>: the creator withdraws an open game."""
    from pbem.services.lobby import seats

    user = _need_user(ctx)
    g = seats.cancel(ctx.session, user, _game_arg(line, ctx))
    told = len([x for x in seating.seats(ctx.session, g.id) if x.user_id != user.id and not x.is_bot])
    if told:
        return ngettext("game #%(game)d is cancelled; the %(num)d player(s) who had joined are told",
                        "game #%(game)d is cancelled; the %(num)d player(s) who had joined are told", told, game=g.id)
    return _("game #%(game)d is cancelled", game=g.id)


def _game_link(gid: int) -> str:
    return f"{settings().base_url.rstrip('/')}/games/{gid}"


def do_accept(ctx: Context, line: cmd.Line) -> str:
    """ACCEPT <game-id>: join the game one was invited to."""
    g, seat, started = tables.accept(ctx.session, _need_user(ctx), _game_arg(line, ctx))
    return _joined(ctx, g, seat, started)


def do_decline(ctx: Context, line: cmd.Line) -> str:
    """DECLINE <game-id>: say no to an invitation; the inviter is told."""
    gid = _game_arg(line, ctx)
    tables.decline(ctx.session, _need_user(ctx), gid)
    return _("you have declined the invitation to game #%(game)d; the player who invited you is told", game=gid)


def do_remove(ctx: Context, line: cmd.Line) -> str:
    """REMOVE <game-id> <name or seat>: the creator takes a joined player out before the start."""
    user = _need_user(ctx)
    gid = cmd.parse_game_id(line.args)
    who = " ".join(line.args[1:])
    if gid is None or not who:
        raise UserError(_("REMOVE needs a game number and the player's name or seat number"),
                        example="REMOVE 12 Bob", code="no_game_id")
    g, player = tables.remove(ctx.session, user, gid, who)
    return _("%(name)s is no longer in game #%(game)d and is told so; %(taken)d of its %(seats)d seats are taken",
             name=player.name, game=g.id, taken=len(seating.seats(ctx.session, g.id)), seats=g.players)


def _rest(line: cmd.Line) -> str:
    """The text after the command word (SAY, NEXT, DISPUTE keep their spacing)."""
    m = re.match(r"^\W*" + re.escape(line.command) + r"\b", line.raw.strip(), re.I)
    return line.raw.strip()[m.end() if m else len(line.command):].strip()


def _need_game(ctx: Context, line: cmd.Line, example: str):
    if ctx.game is None:
        raise UserError(_("%(command)s works on a game's address: reply to a mail of the game",
                          command=line.command), example=example, code="no_game")
    return games.get(ctx.session, ctx.game.id)


def do_vacation(ctx: Context, line: cmd.Line) -> str:
    from datetime import date

    from pbem.services.turns import vacations

    user = _need_user(ctx)
    args = list(line.args)
    if len(args) == 3:  # VACATION <game> <from> <to> on the command address
        gid = cmd.parse_game_id(args[:1])
        g = games.get(ctx.session, gid) if gid else None
        args = args[1:]
    else:
        g = _need_game(ctx, line, vacations.EXAMPLE)
    if g is None:
        raise UserError("VACATION <game> <from> <to>", example="VACATION 12 2026-12-20 2026-12-27",
                        code="bad_vacation")
    first, last = vacations.parse_dates(args)
    vacations.declare(ctx.session, user, g, first, last, today=date.today())
    return _("your clock in game #%(game)d pauses from %(first)s to %(last)s; the table is told", game=g.id,
             first=first.isoformat(), last=last.isoformat())


def do_undo(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import undo

    user = _need_user(ctx)
    g = _need_game(ctx, line, "UNDO")
    answer = (line.args[0].upper() if line.args else "")
    if answer in ("YES", "NO"):
        req = undo.vote(ctx.session, user, g.id, answer == "YES")
        if req.status == "done":
            return _("agreed; the moves from ply %(ply)d on are taken back (the new board comes separately)",
                     ply=req.ply)
        return _("refused; the move stands") if answer == "NO" else _("agreed; waiting for the other players")
    if answer:
        raise UserError(_("UNDO, UNDO YES or UNDO NO"), example="UNDO YES", code="bad_undo")
    out = undo.undo_last(ctx.session, user, g.id)
    if out.taken is not None:  # inside the seat's own turn: the receipt's board is the one before it
        m = out.taken
        secret = " " + _("(a secret choice: nobody else is told)") if m.superseded_by is not None else ""
        return _("taken back at once: your move at ply %(ply)d, %(move)s%(secret)s. Nobody else had seen it and "
                 "nothing was revealed, so no one had to agree; it stays in the log, marked undone. It is still "
                 "your turn: the board below is as it was before that move", ply=m.ply, move=m.notation,
                 secret=secret)
    req = out.request
    if out.done:
        return _("your move at ply %(ply)d is taken back", ply=req.ply)
    return out.asked()


def do_dispute(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import disputes

    user = _need_user(ctx)
    g = _need_game(ctx, line, "DISPUTE 12 the card was misread")
    rest = _rest(line)
    ply, _sep, text = rest.partition(" ")
    if not ply.isdigit():
        raise UserError(_("DISPUTE needs the ply number and what is wrong"), example=f"DISPUTE {max(1, g.ply)} the "
                        f"bot took my card twice", code="bad_dispute")
    d = disputes.open_dispute(ctx.session, user, g.id, int(ply), text)
    return _("dispute #%(dispute)d about ply %(ply)d is open; an admin will answer", dispute=d.id, ply=d.ply)


def do_observe(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.follow import messages

    user = _need_user(ctx)
    g = games.get(ctx.session, _game_arg(line, ctx))
    if line.command == "UNOBSERVE":
        messages.unobserve(ctx.session, user, g)
        return _("you no longer observe game #%(game)d", game=g.id)
    new = messages.observe(ctx.session, user, g)
    return _("you observe game #%(game)d: its public board comes after every move", game=g.id) if new else \
        _("you already observe game #%(game)d", game=g.id)


def do_say(ctx: Context, line: cmd.Line) -> str:
    """SAY lines are checked as they come and sent when the mail is read:
    all of one mail's lines to one recipient (the table, or one player) as one
    post and one mail each (issue 18: 199 SAY lines sent 797 mails)."""
    from pbem.services.core import thread
    from pbem.services.follow import messages

    user = _need_user(ctx)
    g = _need_game(ctx, line, "SAY good luck, everyone!")
    thread.check_may_post(ctx.session, g, user)
    mine = seating.seat_of(ctx.session, g.id, user.id)
    text = _rest(line).lstrip(":").strip()
    to_seat, text = messages.addressee(ctx.session, g, text, mine.seat if mine is not None else None)
    if not text:
        raise UserError(_("SAY needs something to say"), example="SAY good luck, everyone!", code="empty_say")
    if to_seat is not None:
        thread.recipient(ctx.session, g, to_seat)  # a seat with nobody to read it is refused now
    if (g.id, to_seat) not in ctx.says:  # a new post (a mail's lines to one reader are one post)
        thread.check_talk_quota(ctx.session, user, pending=len(ctx.says))
    ctx.says.setdefault((g.id, to_seat), []).append(text)
    if to_seat is not None:
        return _("sent privately to %(name)s", name=seating.names(ctx.session, g.id)[to_seat])
    return _("sent to the table")


def _send_says(ctx: Context) -> None:
    from pbem.services.follow import messages

    for (gid, to_seat), texts in ctx.says.items():
        try:
            messages.say(ctx.session, ctx.user, games.get(ctx.session, gid), "\n".join(texts), source="mail",
                         to_seat=to_seat, addressed=True)
        except UserError as e:  # checked line by line already; a change in between is answered, not a crash
            ctx.results.append(Result(texts[0][:60], "ERROR", e.describe()))
            if e.code == "talk_quota":  # answered once: the rest of the mail's talk waits with it
                break


def do_next(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.turns import premoves

    user = _need_user(ctx)
    g = _need_game(ctx, line, "NEXT: play 5")
    text = _rest(line).lstrip(":").strip()
    if text.upper() == "CANCEL":
        n = premoves.cancel(ctx.session, g, user)
        return ngettext("%(num)d pre-move(s) cancelled", "%(num)d pre-move(s) cancelled", n)
    if line.command == "IF":
        pm = premoves.add_conditional(ctx.session, g, user, text)
    else:
        pm = premoves.add(ctx.session, g, user, text)
    before = g.ply
    premoves.apply_due(ctx.session, g)  # already your turn: played now
    ctx.session.refresh(pm)
    if pm.status == "pending":
        return _("kept: '%(move)s' will be played when your turn comes, if still legal", move=pm.text)
    if pm.status == "applied":  # told the table as any move is: a secret choice stays one
        ctx.boards_for[g.id] = lazy_gettext("%(who)s played: %(moves)s", who=user.name,
                                            moves=visibility.told(ctx.session, g, pm.seat, before))
    return _("it was already your turn: %(result)s", result=pm.result)


def do_list(ctx: Context, line: cmd.Line) -> str:
    """LIST: the seat's own choices on file for the step in progress, and its
    pre-moves (issue 19). Only on the seat's address, for that seat."""
    from pbem.services.turns import premoves

    g = _need_game(ctx, line, "LIST")
    if ctx.seat is None or ctx.seat.game_id != g.id:
        raise UserError(_("LIST works on your seat's address: reply to a mail of the game"), example="LIST",
                        code="no_seat")
    return premoves.listing(ctx.session, g, ctx.seat.seat)


def _add_text(ctx: Context, text: str) -> None:
    """Answer text shown as is (monospace, line by line) below the results."""
    ctx.help_text = f"{ctx.help_text}\n\n{text}" if ctx.help_text else text


def do_history(ctx: Context, line: cmd.Line) -> str:
    """HISTORY [game-id]: the game's record in words, as the sender may read it (issue 19)."""
    from pbem.services.core import visibility

    s = ctx.session
    gid = _game_arg(line, ctx)
    g = access.require_seen(s, games.get(s, gid), ctx.user)
    if not games.has_started(g):
        raise UserError(_("game #%(game)d has not started yet: it has no moves", game=g.id),
                        example=f"STATUS {g.id}", code="not_started")
    lines = visibility.record(s, g, visibility.viewer(s, g, ctx.user))
    if not lines:
        return _("game #%(game)d has no moves yet", game=g.id)
    _add_text(ctx, _("Game #%(game)d (%(title)s), move by move:", game=g.id, title=games.engine_for(g).title)
              + "\n" + "\n".join(lines))
    return ngettext("the record of game #%(game)d (%(num)d moves) is below",
                    "the record of game #%(game)d (%(num)d moves) is below", len(lines), game=g.id)


def _card_games(ctx: Context, args: list[str]) -> tuple[list, list[str]]:
    """The games a CARD/CARDS line asks about, and the words left: a game named
    first, else the game of the seat's address, else every game."""
    from pbem.engine import playable_games

    if args and not args[0].lstrip("#").isdigit():
        try:
            return [get_game(args[0])], args[1:]
        except KeyError:
            pass
    if ctx.game is not None:
        return [games.engine_for(ctx.game)], args
    return [g for g in playable_games() if getattr(g, "cards", None)], args


def _card_example(engines: list) -> str:
    for engine in engines:
        cards = getattr(engine, "cards", lambda: ())()
        if cards:
            return f"CARD {engine.name} {cards[0].name}"
    return "CARDS"


def do_card(ctx: Context, line: cmd.Line) -> str:
    """CARD [game] <name>: a card's whole text from the game's data (issue 19)."""
    from pbem.engine.base import find_cards

    engines, words = _card_games(ctx, line.args)
    query = " ".join(words).strip()
    if not query:
        raise UserError(_("say which card: CARD and its name (CARDS lists them)"), example=_card_example(engines),
                        code="no_card")
    found = [(engine, c) for engine in engines for c in find_cards(engine, query)]
    if not found:
        where = engines[0].title if len(engines) == 1 else _("any game")
        raise UserError(_("no card called %(card)s in %(where)s; CARDS lists them", card=repr(query), where=where),
                        example=_card_example(engines), code="no_card")
    if len(found) > 6:
        names = ", ".join(f"{c.name} ({e.title})" if len(engines) > 1 else c.name for e, c in found[:30])
        more = " " + _("and %(more)d more", more=len(found) - 30) if len(found) > 30 else ""
        raise UserError(_("%(count)d cards match %(card)s: %(names)s%(more)s; say which", count=len(found),
                          card=repr(query), names=names, more=more),
                        example=f"CARD {found[0][1].name}", code="ambiguous_card")
    _add_text(ctx, "\n\n".join(_("%(name)s (%(title)s, %(kind)s; write it %(key)s)", name=c.name, title=e.title,
                                   kind=c.kind, key=c.key) + f"\n{c.text}" for e, c in found))
    return _("the card is below") if len(found) == 1 else _("%(count)d cards match; they are below", count=len(found))


def do_cards(ctx: Context, line: cmd.Line) -> str:
    """CARDS [game]: every card of a game, by kind (issue 19)."""
    engines, _rest_words = _card_games(ctx, line.args)
    if len(engines) != 1:
        raise UserError(_("say which game's cards: CARDS and the game"), example="CARDS iaww", code="no_game")
    engine = engines[0]
    cards = tuple(getattr(engine, "cards", lambda: ())())
    if not cards:
        return _("%(title)s has no cards to look up", title=engine.title)
    kinds: dict[str, list[str]] = {}
    for c in cards:
        kinds.setdefault(c.kind, []).append(c.name if c.key.lower() == c.name.lower() else f"{c.name} ({c.key})")
    out = []
    for kind, names in kinds.items():
        out.append(f"{kind} ({len(names)}):")
        out.extend(textwrap.wrap(", ".join(names), 76, initial_indent="  ", subsequent_indent="  "))
    _add_text(ctx, _("The cards of %(title)s (CARD <name> shows one):", title=engine.title) + "\n" + "\n".join(out))
    return _("the %(count)d cards of %(title)s are below", count=len(cards), title=engine.title)


def do_stop(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.follow import messages

    user = _need_user(ctx)
    off = bool(line.args) and line.args[0].upper() in ("OFF", "UNDO", "NO")
    messages.stop(ctx.session, user, not off)
    if off:
        return _("you get all game mail again")
    return _("you get no more table talk, observer boards or boards of other players' moves. Still coming: "
             "answers to your mails, your board when it is your turn, deadline reminders, admin decisions and "
             "the end of your games. STOP OFF undoes this.")


def do_notify(ctx: Context, line: cmd.Line) -> str:
    """NOTIFY: the mail preference, and the chat channels (issue 24: mail/notify_command.py)."""
    from . import notify_command

    return notify_command.run(ctx, line, _need_user(ctx))


def do_replace(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.lobby import seats
    from pbem.services.referee import master

    user = _need_user(ctx)
    args = [a for a in line.args]
    vote = bool(args) and args[-1].upper() == "VOTE"
    if vote:
        args = args[:-1]
    if not vote and len(args) > 2 and all(a.lstrip("#").isdigit() for a in args[:2]):
        # REPLACE <game> <seat> <name>: the game master seats a registered user (issue 25)
        g = games.get(ctx.session, int(args[0].lstrip("#")), lock=True)
        name = " ".join(_rest(line).split()[2:])
        seat = master.assign(ctx.session, user, g, int(args[1]), name)
        return _("%(name)s now plays seat %(seat)d of game #%(game)d; every player gets the board, the new player "
                 "with the seat's reply address", name=_holder_name(ctx, seat), seat=seat.seat + 1, game=g.id)
    if len(args) != 2 or not all(a.lstrip("#").isdigit() for a in args):
        raise UserError(_("REPLACE needs the game and the seat number"), example="REPLACE 12 3", code="bad_replace")
    g = games.get(ctx.session, int(args[0].lstrip("#")))
    number = int(args[1])
    if vote:
        _opened_seat, opened = seats.vote_open(ctx.session, user, g, number)
        return _("seat %(seat)d is now open to a replacement", seat=number) if opened else \
            _("your vote to open seat %(seat)d is counted; every other player must agree", seat=number)
    seat = seats.take(ctx.session, user, g, number)
    from pbem.services.core import notify

    # essential: the newcomer needs the board and the new reply address even after STOP
    notify.queue_boards(ctx.session, g, lazy_gettext("%(name)s takes over seat %(seat)d.", name=user.name,
                                                     seat=number), essential=True)
    return _("you now play seat %(seat)d of game #%(game)d; your board (with your new reply address) follows",
             seat=seat.seat + 1, game=g.id)


def do_newaddress(ctx: Context, line: cmd.Line) -> str:
    user = _need_user(ctx)
    gid = _game_arg(line, ctx)
    seat = lifecycle.rotate_token(ctx.session, user, gid)
    if ctx.seat is None or ctx.seat.id == seat.id:  # the receipt comes from, and points to, the new address
        ctx.seat, ctx.game = seat, games.get(ctx.session, gid)
    return _("game #%(game)d: your seat's new reply address is %(address)s; the old one no longer works. Keep it "
             "to yourself: it is your key to the seat", game=gid, address=seat_address(gid, seat.token,
                                                                                     settings().domain))


def do_bot(ctx: Context, line: cmd.Line) -> str:
    """BOT <game-id> [easy|normal|strong]: the creator seats a bot in the next
    free seat (issue 10), of that level (issue 26; default: the game's)."""
    from pbem.services.turns import bots

    user = _need_user(ctx)
    gid = _game_arg(line, ctx)
    words = [w for w in line.args if cmd.parse_game_id([w]) is None]
    if len(words) > 1:
        raise UserError(_("BOT takes a game number and at most one level: %(list)s",
                          list=", ".join(bots.engine_bots.LEVELS)), example=f"BOT {gid} strong", code="bad_level")
    g, seat, started = bots.add_bot(ctx.session, user, gid, words[0] if words else None)
    if started:
        ctx.boards_for[g.id] = _started(ctx, g)
    if started:
        return _("a bot has seat %(seat)d in game #%(game)d; the game is full and has started", seat=seat.seat + 1,
                 game=g.id)
    return ngettext("a bot has seat %(seat)d in game #%(game)d; %(num)d seat(s) left",
                    "a bot has seat %(seat)d in game #%(game)d; %(num)d seat(s) left", g.players - seat.seat - 1,
                    seat=seat.seat + 1, game=g.id)


def do_seats(ctx: Context, line: cmd.Line) -> str:
    """SEATS OWN | SEATS ANY: who may use the player's seat addresses."""
    user = _need_user(ctx)
    choice = (line.args[0].upper() if line.args else "")
    if choice not in ("OWN", "ANY"):
        raise UserError(_("SEATS OWN (only your registered address may use your seats' reply addresses) or SEATS "
                          "ANY (any address you write from)"), example="SEATS OWN", code="bad_seats")
    user.seat_senders = choice.lower()
    ctx.session.add(user)
    if choice == "OWN":
        return _("only %(email)s may use your seats' reply addresses now; mail from any other address is "
                 "refused, and the seat's address renewed", email=user.email)
    return _("any address you write from may use your seats' reply addresses (you are told when it is not yours)")


def _languages() -> str:
    return ", ".join(f"{c} ({i18n.language_name(c)})" for c in i18n.LANGUAGES)


def do_language(ctx: Context, line: cmd.Line) -> str:
    """LANGUAGE [code or name]: the sender's language (issue 23); alone, the
    current one and the list. Answered in the new language."""
    user = _need_user(ctx)
    if not line.args:
        return _("your language is %(language)s; pbem speaks %(languages)s. LANGUAGE and a code changes it",
                 language=f"{user.language} ({i18n.language_name(user.language)})", languages=_languages()) \
            + "\n  " + _("e.g. %(example)s", example="LANGUAGE ru")
    code = cmd.language_code(" ".join(line.args))
    if code is None:
        raise UserError(_("%(code)s is not a language pbem speaks; it speaks %(languages)s",
                          code=" ".join(line.args)[:20], languages=_languages()),
                        example="LANGUAGE ru", code="bad_language")
    accounts.set_language(ctx.session, user, code)
    with i18n.use(code):
        return _("your language is now %(language)s: pbem writes to you in it from now on",
                 language=i18n.language_name(code))


def do_away(ctx: Context, line: cmd.Line) -> str:
    """AWAY <from> <to>: one absence in every game of the sender, each within its allowance (issue 25); AWAY
    alone lists the absences to come; AWAY CANCEL withdraws those not begun. Days are the sender's own (their
    time zone: TIMEZONE)."""
    from pbem.services.turns import vacations

    user = _need_user(ctx)
    today = vacations.local_today(user, utcnow())
    words = line.raw.split()[1:]
    if not words:
        rows = vacations.upcoming(ctx.session, user, today)
        if not rows:
            return _("you have no absence to come. AWAY <first day> <last day> declares one in all your games, "
                     "e.g. %(example)s", example=vacations.AWAY_EXAMPLE)
        spans: dict[tuple, list[str]] = {}
        for v in rows:
            spans.setdefault((v.starts_on, v.ends_on), []).append(f"#{v.game_id}")
        return _("your absences to come (AWAY CANCEL withdraws those not begun):") + "".join(
            "\n  " + _("%(first)s to %(last)s: %(games)s", first=lang.day(a), last=lang.day(b), games=", ".join(g))
            for (a, b), g in spans.items())
    if len(words) == 1 and words[0].upper() == "CANCEL":
        rows = vacations.cancel_upcoming(ctx.session, user, today)
        return ngettext("%(num)d absence withdrawn (%(games)s); the tables are told",
                        "%(num)d absences withdrawn (%(games)s); the tables are told", len(rows),
                        games=", ".join(sorted({f"#{v.game_id}" for v in rows})))
    first, last = vacations.parse_span(words, today)
    done = vacations.away(ctx.session, user, first, last, today)
    said = _("you are away from %(first)s to %(last)s (%(tz)s): your clock pauses on those days in %(games)s; "
             "each table is told", first=lang.day(first), last=lang.day(last), tz=user.timezone,
             games=", ".join(f"#{g.id}" for g in done.applied))
    for g, why in done.refused:
        said += "\n  " + _("not in #%(id)d: %(why)s", id=g.id, why=why)
    return said


def do_timezone(ctx: Context, line: cmd.Line) -> str:
    """TIMEZONE <zone>: the sender's time zone (issue 25); alone, the current one."""
    user = _need_user(ctx)
    words = line.raw.split()[1:]
    if not words:
        return _("your time zone is %(zone)s. TIMEZONE and a zone changes it", zone=user.timezone) \
            + "\n  " + _("e.g. %(example)s", example=accounts.TIMEZONE_EXAMPLE)
    zone = accounts.set_timezone(ctx.session, user, " ".join(words))
    return _("your time zone is now %(zone)s: pbem reads your dates and writes your deadlines in it (it is "
             "%(now)s there)", zone=zone, now=lang.when(utcnow(), zone))
# ---------------------------------------------------------------- the game master (issue 25)

HELP_MASTER = N_("""The game master (the game's creator, or the user named with NEW ... master=<name>; site admins
too) runs the game by these commands; the table is told of each:
  DEADLINE <game-id> +24h    extend the deadline of the players to move (or +2d)
  DEADLINE <game-id> 2026-12-20 18:00   set it (your time zone); DEADLINE <game-id> hours=72: each move's time
  PAUSE <game-id> | RESUME <game-id>   no moves and no clock until it resumes
  EJECT <game-id> <seat or name>   the player leaves; a bot plays the seat until a replacement takes it
  REPLACE <game-id> <seat> <name>  seat a registered user in an open seat
  POLICY <game-id> wait|bot [level]|abandon [after=3]   what happens when a
                             deadline passes (level: easy, normal or strong)
  ABORT <game-id> [reason]   propose to end the game without a result; each player answers
                             ABORT <game-id> YES or NO, and it ends when all agree
  MASTER <game-id> <name>    hand the game master's role to another registered user""")


def _holder_name(ctx: Context, seat: Seat) -> str:
    u = ctx.session.get(User, seat.user_id) if seat.user_id else None
    return u.name if u else _("a bot")


def _master_game_id(line: cmd.Line, here: Game | None) -> int | None:
    """The game a master's command names: its first word when that is a game number (but EJECT 2 on a
    game's address names seat 2 of that game), else the game of the address it came to."""
    gid = cmd.parse_game_id(line.args)
    if gid is not None and here is not None and line.command == "EJECT" and len(line.args) == 1:
        return here.id
    return gid if gid is not None else (here.id if here is not None else None)


def _master_args(ctx: Context, line: cmd.Line, example: str) -> tuple[Game, str]:
    """The game and the rest of the line as written."""
    gid = _master_game_id(line, ctx.game)
    if gid is None:
        raise UserError(_("%(command)s needs a game number", command=line.command), example=example,
                        code="no_game_id")
    words = _rest(line).split()
    if words and cmd.parse_game_id(words[:1]) == gid and not (line.command == "EJECT" and len(words) == 1):
        words = words[1:]
    return games.get(ctx.session, gid, lock=True), " ".join(words)


def do_master(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import master

    user = _need_user(ctx)
    g, name = _master_args(ctx, line, "MASTER 12 Anna K.")
    if not name:
        m = master.master_of(ctx.session, g)
        return _("the game master of game #%(game)d is %(name)s; MASTER %(game)d <name> hands the role over",
                 game=g.id, name=m.name if m else _("nobody"))
    new = master.set_master(ctx.session, user, g, name)
    return _("%(name)s is now the game master of game #%(game)d; the table is told", name=new.name, game=g.id)


def do_deadline(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import master

    user = _need_user(ctx)
    g, spec = _master_args(ctx, line, "DEADLINE 12 +24h")
    return master.set_deadline(ctx.session, user, g, spec)


def do_pause(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import master

    user = _need_user(ctx)
    g, _words = _master_args(ctx, line, f"{line.command} 12")
    if line.command == "PAUSE":
        master.pause(ctx.session, user, g)
        return _("game #%(game)d is paused: no moves and no clock until RESUME %(game)d; the table is told",
                 game=g.id)
    master.resume(ctx.session, user, g)
    return _("game #%(game)d runs again; each deadline is moved on by the time the pause took; the table is told",
             game=g.id)


def do_eject(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import master

    user = _need_user(ctx)
    g, who = _master_args(ctx, line, "EJECT 12 2")
    seat = master.eject(ctx.session, user, g, who)
    return _("seat %(seat)d of game #%(game)d is open to a replacement and a bot plays it meanwhile; the table is "
             "told. REPLACE %(game)d %(seat)d <name> seats someone", seat=seat.seat + 1, game=g.id)


def do_policy(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import master

    user = _need_user(ctx)
    g, rest = _master_args(ctx, line, "POLICY 12 bot")
    opts, words = cmd.parse_options(rest.split())
    after = opts.pop("after", None)
    level = words.pop(1) if len(words) == 2 and words[0].lower() == "bot" else None  # POLICY 12 bot strong
    if opts or len(words) != 1 or (after is not None and not after.isdigit()):
        raise UserError(_("POLICY takes wait, bot (and a level: easy, normal or strong) or abandon (and "
                          "after=N missed deadlines for abandon)"),
                        example=f"POLICY {g.id} bot strong | POLICY {g.id} abandon after=3", code="bad_policy")
    master.set_policy(ctx.session, user, g, words[0], int(after) if after is not None else None, level=level)
    return _("game #%(game)d: when a deadline passes, %(policy)s; the table is told", game=g.id,
             policy=_(notify.POLICY_WORDS[g.policy], n=g.abandon_after))


def do_abort(ctx: Context, line: cmd.Line) -> str:
    from pbem.services.referee import master

    user = _need_user(ctx)
    g, rest = _master_args(ctx, line, "ABORT 12")
    word, _sep, reason = rest.partition(" ")
    if word.upper() in ("YES", "NO"):
        how = master.vote_end(ctx.session, user, g, word.upper() == "YES")
        return {"ended": _("agreed: game #%(game)d has ended; everyone is told", game=g.id),
                "refused": _("refused: game #%(game)d goes on; everyone is told", game=g.id)}.get(
            how, _("agreed; the other players of game #%(game)d are waited for", game=g.id))
    if word.upper() == "NOW":
        master.end_now(ctx.session, user, g, reason)
        return _("game #%(game)d has ended; everyone is told", game=g.id)
    if master.propose_end(ctx.session, user, g, rest):
        return _("game #%(game)d has ended (nobody else had to agree); everyone is told", game=g.id)
    return _("the players of game #%(game)d are asked to agree to end it (ABORT %(game)d YES)", game=g.id)


HANDLERS = {
    "REGISTER": do_register, "HELP": do_help, "GAMES": do_games, "NEW": do_new, "JOIN": do_join,
    "START": do_start, "STATUS": do_status, "RESIGN": do_resign, "NEWADDRESS": do_newaddress, "BOT": do_bot,
    "CANCEL": do_cancel,
    "VACATION": do_vacation, "UNDO": do_undo, "DISPUTE": do_dispute, "OBSERVE": do_observe,
    "UNOBSERVE": do_observe, "SAY": do_say, "NEXT": do_next, "STOP": do_stop, "REPLACE": do_replace,
    "NOTIFY": do_notify, "IF": do_next, "SEATS": do_seats,
    "LIST": do_list, "HISTORY": do_history, "CARD": do_card, "CARDS": do_cards, "LANGUAGE": do_language,
    "AWAY": do_away, "TIMEZONE": do_timezone,
    "ACCEPT": do_accept, "DECLINE": do_decline, "REMOVE": do_remove,
    "MASTER": do_master, "DEADLINE": do_deadline, "PAUSE": do_pause, "RESUME": do_pause, "EJECT": do_eject,
    "POLICY": do_policy, "ABORT": do_abort,
}


# ---------------------------------------------------------------- driver


def run(session: Session, inbound: Inbound) -> Context:
    """The steps over one mail, each in the language of its sender as known
    by then (the mail's own guess until identify finds the account)."""
    ctx = Context(session=session, inbound=inbound, auth=inbound.auth)
    try:
        for step in STEPS:
            try:
                with i18n.use(_language(ctx)):
                    step(ctx)
                if ctx.game is not None:  # every later line of this mail's processing says which game
                    logs.bind(game_id=ctx.game.id)
            except UserError as e:
                # a user error before the commands ran: answer it, keep nothing else
                if step in (run_commands, queue_replies):
                    raise
                with i18n.use(_language(ctx)):
                    ctx.results.append(Result(ctx.subject or _("(your mail)"), "ERROR", e.describe()))
                    _reply(ctx)
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
# built once (issue 9); a Core row: the pipeline reads the mail's columns, never changes them through
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
    the mail is failed instead (issue 18 §3)."""
    from sqlalchemy.exc import DataError, DBAPIError, PendingRollbackError

    from pbem.store.db import unit_of_work
    from pbem.store.outbox import allow_inline_delivery, queued_count

    try:
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
                        "; ".join(ctx.paragraphs)[:4000], courtesy=ctx.harm(), digest=ctx.digest,
                        mails_out=queued_count(s))
            s.connection().execute(_FINISH_INBOUND, {"inbound_id": row.id, **done})
            latency = (done["processed_at"] - _aware(row.received_at)).total_seconds() if row.received_at else None
            s.after_commit.insert(0, lambda: _processed(ctx, latency))  # counted once committed, before delivery
            return ctx.status
    except DataError as e:  # a value the database refuses: trying again cannot help (issue 18)
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
            with i18n.use(_language(ctx)):
                ctx.paragraphs.append(_(
                    "pbem could not process your mail: the attempt failed %(attempts)d times for a reason on pbem's "
                    "side (its database was busy or unavailable). Nothing in it was applied. The mail is kept for "
                    "an administrator, who may run it again (you will get the usual answer then); if you do not "
                    "hear more, please send it again later.", attempts=attempts))
                _reply(ctx)
        return True
    except Stop:
        return False
    except Exception as e:  # noqa: BLE001 - the answer is a courtesy; the failed mark is what matters
        log.warning("inbound %s: could not tell the sender: %s", row.id, redact(repr(e))[:200])
        return False
