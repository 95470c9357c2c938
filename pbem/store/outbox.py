"""The outbox: a mail rendered (Jinja2 templates, text and HTML with
inlined CSS) and queued as a row in the caller's transaction. Queueing is a
store-level act that the services do; delivering is above them (the Celery
tasks and pbem/mail/outbound.py): after the commit, the rows are handed to
the deliverer the transaction was given (a worker delivers inline) or to the
send task, by its name (pbem.celery_app), so nothing here imports the layers
that deliver."""
from __future__ import annotations

import hashlib
import inspect
import json
import re
import secrets
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Callable, Iterator

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_environment, select_autoescape
from jinja2.filters import do_wordwrap
from sqlalchemy import event, func, insert, select
from sqlmodel import Session

from pbem import i18n
from pbem.config import TEMPLATES, settings
from pbem.engine import get_game
from pbem.engine.drawing import NARROW_WIDTH
from pbem.store.addresses import make_message_id, thread_root_id
from pbem.store.models import Inbound, Outbound, Picture, User, body_digest, utcnow

LOOP_HEADER = "X-PBEM-Loop"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # no header holds one (and PostgreSQL refuses NUL)
# the first line of every text mail pbem sends (its one-line summary comes under it), and the text of the
# marked element first in every HTML mail: reading a reply stops here however the client quoted it, and
# nothing of ours stands above it to be read as typed (pbem/mail/quotes.py)
MARKER = "##- pbem: please type your reply above this line -##"

# the start of an outbox row's last_error when the relay refused its recipient for now (a 4xx at RCPT or
# after DATA): the relay works, the recipient's side does not yet; /healthz counts no backlog of it
RECIPIENT_REFUSED = "refused for this recipient: "


@lru_cache(maxsize=1)
def jinja() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        # a template is read once per process (a deploy restarts the workers): not checked against its
        # file's time at every mail, a stat of the file for each part of each mail
        auto_reload=False,
    )
    i18n.install(env)  # {% trans %}: the language queue_mail renders in (its recipient's)
    env.filters["wordwrap"] = _wordwrap
    return env


@pass_environment
def _wordwrap(env: Environment, s: Any, width: int = 79, break_long_words: bool = True,
              wrapstring: str | None = None, break_on_hyphens: bool = True) -> str:
    """Jinja's ``wordwrap``, the same text, wrapped once per distinct line: a move's lines ("Anna
    placed a worker ...") come back in every seat's mail of the move and of the next moves."""
    if type(s) is not str:  # a subclass (Markup, a lazy string) as Jinja itself takes it
        return do_wordwrap(env, s, width, break_long_words, wrapstring, break_on_hyphens)
    return _wrapped(s, width, break_long_words, env.newline_sequence if wrapstring is None else wrapstring,
                    break_on_hyphens)


@lru_cache(maxsize=4096)
def _wrapped(s: str, width: int, break_long_words: bool, wrapstring: str, break_on_hyphens: bool) -> str:
    return do_wordwrap(jinja(), s, width, break_long_words, wrapstring, break_on_hyphens)


def _ctx(context: dict) -> dict:
    base = dict(summary="", marker=MARKER, title="", greeting="", paragraphs=[], results=[], not_applied=[],
                ignored="", ignored_lines=[], since_lines=[], record_lines=[], deadline_text="", calendar_line="",
                board_text="", board_html="", board_title="", help_text="", footer="", picture_cid="",
                picture_alt="", picture_width=0)
    base.update(context)
    return base


def render_text(context: dict) -> str:
    return jinja().get_template("mail/message.txt").render(**_ctx(context))


@lru_cache(maxsize=1)
def _inliner():
    import css_inline

    return css_inline.CSSInliner(keep_at_rules=True)  # the template's @media for a phone stays in its <style>


def render_html(context: dict) -> str:
    html = jinja().get_template("mail/message.html").render(**_ctx(context))
    return _inliner().inline(html)


def queue_mail(s: Session, *, to: str, subject: str, context: dict, kind: str = "reply",
               user: User | None = None, game_id: int | None = None, reply_to: str | None = None,
               in_reply_to: str | None = None, extra_headers: dict | None = None, ply: int | None = None,
               what: str | None = None, lang: str | None = None) -> "Outbound | QueuedMail":
    """Render and add one outbox row to the caller's transaction; the send
    task is enqueued after commit (the sweep catches any that were not).
    ``what`` (default: ``kind``) and ``ply`` go into the Message-ID, so a
    reply to this mail says what it answers (addresses.parse_message_refs).
    A mail of a game refers to the game's root id (References; In-Reply-To
    too, unless it answers the player's own mail ``in_reply_to``), so each
    game is one conversation in the player's mailbox. ``context["summary"]``
    is the mail's first line: what it is about (the subject stays the game's).
    ``context["board_picture"]`` (services.notify.board_context)
    gives the game's name, the seat's view and the alt text, when called:
    the drawing of that view, shown in the HTML part as an inline PNG,
    drawn and rendered when the mail is delivered. The mail speaks ``lang``,
    else ``user``'s language, else the current one: the caller
    builds the context's sentences inside ``i18n.use`` of the same language;
    lazy strings in it are translated here."""
    if lang is None and user is not None and getattr(user, "language", None):
        lang = user.language
    with i18n.use(lang or i18n.current()) as lang:
        return _queue_mail(s, to=to, subject=subject, context=context, kind=kind, user=user, game_id=game_id,
                           reply_to=reply_to, in_reply_to=in_reply_to, extra_headers=extra_headers, ply=ply,
                           what=what, lang=lang)


def _queue_mail(s: Session, *, to: str, subject: str, context: dict, kind: str, user: User | None,
                game_id: int | None, reply_to: str | None, in_reply_to: str | None, extra_headers: dict | None,
                ply: int | None, what: str | None, lang: str) -> "Outbound | QueuedMail":
    cfg = settings()
    text = render_text(context)
    wants_html = not (user is not None and user.mail_format == "text")
    picture_key = None
    picture = context.get("board_picture")  # a board mail: its drawing, made only when it will be shown
    if picture is not None and wants_html and cfg.mail_pictures and not _pictures_backed_up(s, cfg):
        game, view, alt = picture()
        layout = picture_layout(game)
        picture_key = store_picture(s, game, view, lang, layout)
        context = {**context, "picture_cid": picture_cid(picture_key, cfg.domain), "picture_alt": alt,
                   "picture_width": shown_width(layout, cfg.picture_width)}
    html = render_html(context) if wants_html else None
    headers = {
        "Auto-Submitted": "auto-replied" if in_reply_to else "auto-generated",
        "X-Auto-Response-Suppress": "All",
        "Content-Language": lang,
        LOOP_HEADER: cfg.domain,
    }
    if reply_to:
        headers["Reply-To"] = reply_to
    if in_reply_to:
        headers["In-Reply-To"] = in_reply_to
        headers["References"] = in_reply_to
    if game_id is not None:
        root = thread_root_id(cfg.domain, game_id, cfg.secret_key)
        headers["In-Reply-To"] = in_reply_to or root
        headers["References"] = f"{root} {in_reply_to}" if in_reply_to else root
    headers.update(extra_headers or {})
    if user is not None and user.id is not None and kind not in NO_UNSUBSCRIBE:
        headers.update(unsubscribe_headers(user.id, kind, cfg))
    headers = {k: _CONTROL.sub("", str(v))[:998] for k, v in headers.items()}  # storable whatever a mail said
    subject = " ".join(_CONTROL.sub("", str(subject)).split())[:998]
    now = utcnow()
    values = dict(message_id=make_message_id(cfg.domain, secrets.token_hex(12), what=what or kind,
                                                          game_id=game_id, ply=ply), to_addr=to, subject=subject,
                  body_text=text, body_html=html, body_sha256=body_digest(text, html), headers=headers,
                  kind=kind, game_id=game_id,
                  user_id=user.id if user else None, status="queued", attempts=0, next_attempt_at=now,
                  last_error=None, created_at=now, sent_at=None, picture_key=picture_key,
                  bodies_dropped_at=None)  # every column: the defaults are the model's
    if user is not None and kind not in ALWAYS_SENT and getattr(user, "mail_failing_at", None) is not None:
        values["status"] = "held"  # the address bounces (services/identity/deliverability): kept, not sent
    callbacks = getattr(s, "after_commit", None)
    if callbacks is None or values["status"] == "held":  # a plain session: an object for its unit of work
        row = Outbound(**values)
        s.add(row)
        return row
    batch = s.info.get(OUTBOX_BATCH)
    if batch is None:  # the first mail of this transaction: one delivery for all of them
        deliver = s.info.get(SEND_INLINE)
        inline = deliver is not None and cfg.send_inline and time.monotonic() >= _inline_paused_until
        batch = s.info[OUTBOX_BATCH] = _Batch(deliver if inline else None)
        callbacks.append(batch.deliver)
    if batch.inline and not (picture_key and cfg.picture_queue):  # claimed by this transaction: the sweep
        values["status"] = "sending"  # re-queues it if we die before sending; a picture mail may go to its queue
    held = s.info.get(OUTBOX_HELD)
    if held is not None:  # inside batched(): inserted with the others of the block, in one statement
        row = QueuedMail(id=0, **values, savepoint=s.get_nested_transaction())
        batch.rows.append(row)
        held.append((row, values))
        return row
    # a Core INSERT on the transaction's connection, now (inside any savepoint, and seen by any later
    # select): no ORM object to build and flush for a row nothing else in the transaction reads
    # (round trips bound the pipeline); the row delivered after the commit carries the same values, unless a rollback took it back
    row = QueuedMail(id=s.connection().execute(_INSERT_OUTBOUND, values).scalar_one(), **values,
                     savepoint=s.get_nested_transaction())
    batch.rows.append(row)
    return row


@contextmanager
def batched(s: Session) -> Iterator[None]:
    """The mails queued inside the block go into the outbox in one INSERT at its end (a move's
    boards to every seat and the mover's receipt: one round trip, not one a mail). Nothing inside
    the block may read the outbox's rows of this transaction (they are not there until its end);
    ``queued_count`` counts them all the same. A block inside another adds to the outer one's."""
    if s.info.get(OUTBOX_HELD) is not None or getattr(s, "after_commit", None) is None:
        yield  # a plain session's mails are ORM objects, flushed with the rest
        return
    held: list[tuple[QueuedMail, dict]] = []
    s.info[OUTBOX_HELD] = held
    failed = True
    try:
        yield
        failed = False
    finally:
        s.info.pop(OUTBOX_HELD, None)
        _insert_held(s, held, failed)


def _insert_held(s: Session, held: list[tuple["QueuedMail", dict]], failed: bool) -> None:
    batch = s.info.get(OUTBOX_BATCH)
    alive = {id(r) for r in batch.rows} if batch is not None else set()
    held = [(r, v) for r, v in held if id(r) in alive]  # a rollback of a savepoint took the others back
    if not held:
        return
    try:
        ids = s.connection().execute(_INSERT_OUTBOUND_MANY, [v for _, v in held]).scalars().all()
    except Exception:
        if not failed:
            raise
        # the block failed already (its error is the one that matters) and the transaction with it:
        # these rows never existed
        gone = {id(r) for r, _ in held}
        batch.rows = [r for r in batch.rows if id(r) not in gone]
        return
    for (row, _), i in zip(held, ids):
        row.id = i


def picture_cid(key: str, domain: str) -> str:
    """The Content-ID of a board drawing's PNG in a mail (the HTML's ``cid:``)."""
    return f"board-{key[:24]}@{domain}"


def picture_layout(game: str) -> str:
    """The layout of ``game``'s drawing in the mail: the narrow one (a portrait column NARROW_WIDTH
    units wide, rendered at twice that and shown at it, so that its text is 11 px or more on a phone),
    or the wide one of a game that draws no other (its ``draw_svg`` takes no ``layout``)."""
    try:
        narrow = "layout" in inspect.signature(get_game(game).draw_svg).parameters
    except (KeyError, TypeError, ValueError):
        narrow = False
    return "narrow" if narrow else "wide"


def shown_width(layout: str, rendered: int) -> int:
    """How wide the mail shows a picture (CSS px; narrower on a smaller screen): the narrow drawing
    at its own width, one unit a pixel, however many pixels its PNG has (PBEM_PICTURE_WIDTH: 680, 2x);
    the wide one at the PNG's width."""
    return NARROW_WIDTH if layout == "narrow" else rendered


def store_picture(s: Session, game: str, view: dict, lang: str = "en", layout: str = "wide") -> str:
    """The row of the drawing of ``game``'s ``view`` in language ``lang`` and ``layout``
    (made once per distinct view, language and layout, in the caller's transaction;
    drawn and rendered at delivery, in that language); returns its key."""
    data = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # the language is part of the key: the same board is one drawing per language its readers speak; and
    # so is a layout other than the wide one (whose rows were stored before there was any other): a row
    # of the wide drawing is never taken for the narrow one
    head = f"{game}\n{lang}\n" + ("" if layout == "wide" else f"{layout}\n")
    key = hashlib.sha256(f"{head}{data}".encode("utf-8")).hexdigest()
    conn = s.connection()  # one statement: a view already stored (an observer's, a seat's twin) is left as it is
    stmt = dialect_insert(conn.dialect.name)(Picture.__table__).values(
        key=key, game=game, lang=lang, view=data, svg=None, png=None, created_at=utcnow(), rendered_at=None)
    conn.execute(stmt.on_conflict_do_nothing(index_elements=["key"]))
    return key


def dialect_insert(name: str):
    if name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    return dialect_insert


_WAITING_MAIL = select(select(func.count()).select_from(Inbound).where(Inbound.status == "received")
                       .scalar_subquery(),
                       select(func.count()).select_from(Outbound).where(Outbound.picture_key.is_not(None),
                                                                        Outbound.status == "queued")
                       .scalar_subquery())
_backlog_seen = (0.0, 0, 0)  # (monotonic time, mails waiting, picture mails waiting): looked up at most
BACKLOG_LOOK_S = 0.25  # this often per process (two counts on indexed columns: well under a millisecond)
PICTURE_CALM_S = 30.0  # after a burst, pictures come back once it has been over this long
_shed_until = 0.0


def _pictures_backed_up(s: Session, cfg) -> bool:
    """A burst: more players' mails wait to be processed, or more picture
    mails wait for their picture, than the setting allows. The board mails
    queued meanwhile go without their picture (the HTML and text boards are
    complete without it), so rendering, tens of ms of CPU each, only ever
    uses spare capacity: it never holds a move up, and what waits for it
    stays bounded. Pictures come back PICTURE_CALM_S after the last look
    that found a burst, not with the burst's last mails (each would bring
    its pictures along: a tail of renderings after the burst)."""
    global _backlog_seen, _shed_until
    if cfg.picture_backlog <= 0:
        return True
    now = time.monotonic()
    at, mails, drawn = _backlog_seen
    if now - at > BACKLOG_LOOK_S:
        mails, drawn = s.connection().execute(_WAITING_MAIL).one()
        _backlog_seen = (now, mails, drawn)
        if mails > cfg.picture_backlog or drawn > cfg.picture_backlog:
            _shed_until = now + PICTURE_CALM_S  # not as soon as the queue is short again: the burst's tail
    return now < _shed_until


# mail a user asked for this moment (a login link): sent even to an address marked failing -- using it
# is how the mark is cleared
ALWAYS_SENT = ("login",)
# no List-Unsubscribe on these: the answer to the user's own mail or act, not mail they get regularly
NO_UNSUBSCRIBE = ("login", "confirm", "reply")


@lru_cache(maxsize=4096)  # a user's token for a kind never changes: every board mail asks it again
def unsubscribe_token(user_id: int, kind: str, secret: str) -> str:
    """The token of a one-click unsubscribe URL (RFC 8058): the authority for
    the POST (no login, no CSRF token: the mailbox provider sends it), so
    keyed with the installation's secret, 128 bits, and scoped to one user
    and one kind of mail."""
    import hashlib
    import hmac

    return hmac.new(secret.encode(), f"list-unsubscribe {user_id} {kind}".encode(),
                    hashlib.sha256).hexdigest()[:32]


def unsubscribe_link_token(user_id: int, kind: str, secret: str) -> str:
    """What the URL carries: ``<user id>.<kind>.<token>``."""
    return f"{user_id}.{kind}.{unsubscribe_token(user_id, kind, secret)}"


def check_unsubscribe_link_token(value: str, secret: str) -> tuple[int, str] | None:
    """(user id, kind) of a link's token made by unsubscribe_link_token, or None."""
    import hmac

    parts = (value or "").split(".")
    if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 12 or not parts[1].isalpha():
        return None
    uid, kind, mac = int(parts[0]), parts[1][:16], parts[2]
    return (uid, kind) if hmac.compare_digest(mac.encode(), unsubscribe_token(uid, kind, secret).encode()) else None


def unsubscribe_url(user_id: int, kind: str, cfg=None) -> str:
    cfg = cfg or settings()
    return f"{cfg.base_url}/unsubscribe/{unsubscribe_link_token(user_id, kind, cfg.secret_key)}"


def unsubscribe_headers(user_id: int, kind: str, cfg=None) -> dict[str, str]:
    """RFC 2369 List-Unsubscribe with the https URL first (RFC 8058 one-click:
    the provider POSTs ``List-Unsubscribe=One-Click`` to it) and the mailto
    (STOP to the command address) for the clients that only mail."""
    cfg = cfg or settings()
    return {"List-Unsubscribe": f"<{unsubscribe_url(user_id, kind, cfg)}>, "
                                f"<mailto:{cfg.command_address}?subject=STOP&body=STOP>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def queued_count(s: Session) -> int:
    """How many mails this transaction has queued so far (and not taken back)."""
    batch = s.info.get(OUTBOX_BATCH)
    return len(batch.rows) if batch is not None else 0


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, transaction) -> None:
    batch = session.info.get(OUTBOX_BATCH)
    if batch is not None:
        batch.rolled_back(transaction)


_OUTBOUND = Outbound.__table__
_INSERT_OUTBOUND = insert(_OUTBOUND).returning(_OUTBOUND.c.id)  # built once
# many rows in one statement (insertmanyvalues), their ids in the order of the rows given
_INSERT_OUTBOUND_MANY = insert(_OUTBOUND).returning(_OUTBOUND.c.id, sort_by_parameter_order=True)


@dataclass
class QueuedMail:
    """An outbox row as queued (the columns of ``Outbound``): what the
    delivery after the commit needs, without an ORM object."""
    id: int
    message_id: str
    to_addr: str
    subject: str
    body_text: str
    body_html: str | None
    headers: dict
    kind: str
    game_id: int | None
    user_id: int | None
    status: str
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    created_at: datetime
    sent_at: datetime | None
    picture_key: str | None = None
    body_sha256: str | None = None
    bodies_dropped_at: datetime | None = None
    savepoint: Any = field(default=None, repr=False, compare=False)  # the one it was inserted in, if any


OUTBOX_BATCH = "pbem.outbox_batch"
OUTBOX_HELD = "pbem.outbox_held"  # the mails of a batched() block, inserted at its end
SEND_INLINE = "pbem.send_inline"  # set in Session.info by the worker tasks that may deliver inline
SEND_BATCH = 50  # outbox rows per send task at most
INLINE_PAUSE_S = 60.0  # after an inline delivery failed, the send task takes over for this long
_inline_paused_until = 0.0


# a deliverer: delivers the rows this process claimed (status 'sending') and arranges retries for the
# ones it could not send; True when every one was sent
Deliverer = Callable[[list["QueuedMail"]], bool]


def allow_inline_delivery(s: Session, deliver: Deliverer) -> None:
    """Let this transaction's mails be delivered by this process right after
    the commit, by ``deliver`` (worker tasks; never a web request, which must
    not wait for the relay)."""
    s.info[SEND_INLINE] = deliver


class _Batch:
    """The mails one transaction queued, delivered after its commit: by this
    process at once (inline), or by one send task."""

    def __init__(self, deliver: Deliverer | None):
        self.inline = deliver is not None
        self.deliver_inline = deliver
        self.rows: list[QueuedMail] = []

    def rolled_back(self, transaction) -> None:
        """A rollback: of the whole transaction, none of its mails exist; of a
        savepoint, none of those inserted inside it (or inside one within it)."""
        if not transaction.nested:
            if transaction.parent is None:
                self.rows = []
            return  # else a flush's inner bracket: the rollback of what encloses it says what goes

        def inside(t) -> bool:
            while t is not None:
                if t is transaction:
                    return True
                t = t.parent
            return False

        self.rows = [r for r in self.rows if not inside(r.savepoint)]

    def deliver(self) -> None:
        if not self.rows:  # all taken back by rollbacks
            return
        queue = settings().picture_queue
        if queue:  # the picture mails: to the workers of their own queue
            drawn = [r.id for r in self.rows if r.picture_key]
            if drawn:
                enqueue_send(drawn, queue=queue)
            self.rows = [r for r in self.rows if not r.picture_key]
            if not self.rows:
                return
        if not self.inline:
            enqueue_send([r.id for r in self.rows])
            return
        if not self.deliver_inline(self.rows):  # the relay is down or slow: stop delivering inline a while
            global _inline_paused_until
            _inline_paused_until = time.monotonic() + INLINE_PAUSE_S


def enqueue_send(outbound_ids: list[int], queue: str | None = None) -> None:
    """Send tasks for these rows, SEND_BATCH rows a task (on ``queue``: the default one if None)."""
    from pbem.celery_app import enqueue_send as send_task

    for i in range(0, len(outbound_ids), SEND_BATCH):
        send_task(outbound_ids[i:i + SEND_BATCH], queue=queue)
