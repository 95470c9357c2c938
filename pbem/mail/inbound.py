"""The SMTP edge (aiosmtpd). It only checks what needs no network: the
recipient, the size and the rate limits; stores the raw bytes, answers 250
after the commit and enqueues the work. It never runs game logic
(HOUSE-STYLE, after Mailman 3), and never asks the DNS: who sent a mail is
checked by the worker (identity.check_sender), so a sender's slow or
hostile domain can never hold another mail's 250."""
from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections import defaultdict, deque

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP
from sqlalchemy.dialects import postgresql, sqlite

from pbem import logs, metrics
from pbem.config import Settings, settings
from pbem.services.core import seating
from pbem.services.identity import confirmations
from pbem.store.db import single_statement
from pbem.store.models import Inbound

from pbem.store.addresses import normalize_address, parse_recipient, redact, verp_valid
from . import senders
from .parse import CONTROL_RE, message_id

log = logging.getLogger("pbem.smtpd")


class RedactTokens(logging.Filter):
    """aiosmtpd logs every command of every conversation at INFO (ten lines a mail): those are DEBUG
    here, shown only with PBEM_LOG_LEVEL=DEBUG, and the reply tokens in them are hidden."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            if not logging.getLogger("mail.log").isEnabledFor(logging.DEBUG):
                return False
        try:
            record.msg = redact(record.getMessage())
            record.args = None
        except Exception:
            pass
        return True


logging.getLogger("mail.log").addFilter(RedactTokens())


class RateLimit:
    """At most ``per_minute`` events per key in any sliding minute (0 = off)."""

    def __init__(self, per_minute: int, clock=time.monotonic):
        self.per_minute = per_minute
        self.clock = clock
        self.seen: dict[str, deque] = defaultdict(deque)

    def allow(self, key: str) -> bool:
        """True if one more event for ``key`` fits now (nothing is recorded)."""
        if self.per_minute <= 0:
            return True
        now = self.clock()
        q = self.seen[key]
        while q and now - q[0] >= 60.0:
            q.popleft()
        return len(q) < self.per_minute

    def record(self, key: str) -> None:
        if self.per_minute <= 0:
            return
        now = self.clock()
        self.seen[key].append(now)
        if len(self.seen) > 10_000:  # forget idle keys: the table must not grow without end
            for k in [k for k, v in self.seen.items() if not v or now - v[-1] >= 60.0]:
                del self.seen[k]


REDIS_TIMEOUT_S = 1.0  # a rate-limit check waits no longer than this for Redis


class SharedRateLimit:
    """:class:`RateLimit`'s sliding minute kept in Redis (the broker's, under
    its key prefix), so that every receiver process, on every machine, counts
    against one allowance, however many receivers run. A sorted set per key holds the times of
    the minute's events. When Redis does not answer, the mail is let through
    (a warning is logged): a broker outage must not refuse the players' mail,
    which the receiver stores for the sweep to enqueue."""

    def __init__(self, name: str, per_minute: int, client, prefix: str = "", clock=time.time):
        self.name, self.per_minute, self.client, self.prefix, self.clock = name, per_minute, client, prefix, clock

    def _key(self, key: str) -> str:  # a sender's address may be long: a digest, of fixed size
        return f"{self.prefix}pbem:smtpd:{self.name}:{hashlib.sha256(key.encode('utf-8', 'replace')).hexdigest()[:32]}"

    def allow(self, key: str) -> bool:
        """True if one more event for ``key`` fits now (nothing is recorded)."""
        if self.per_minute <= 0:
            return True
        k, now = self._key(key), self.clock()
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.zremrangebyscore(k, "-inf", now - 60.0)
            pipe.zcard(k)
            return pipe.execute()[1] < self.per_minute
        except Exception as e:  # noqa: BLE001 - Redis down: no limit rather than no mail
            log.warning("rate limit %s: Redis did not answer (%r); not limited", self.name, e)
            return True

    def record(self, key: str) -> None:
        if self.per_minute <= 0:
            return
        k, now = self._key(key), self.clock()
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.zadd(k, {f"{now!r}:{secrets.token_hex(4)}": now})
            pipe.expire(k, 61)  # an idle key goes by itself
            pipe.execute()
        except Exception as e:  # noqa: BLE001
            log.warning("rate limit %s: Redis did not answer (%r); not counted", self.name, e)


def rate_limits(cfg: Settings):
    """What makes the receiver's rate limits: shared through the broker's
    Redis when the broker is Redis (several receivers, several machines),
    else in this process (the embedded default: one receiver)."""
    if not cfg.is_redis_broker:  # Sentinel's Redis is reached through kombu only: each receiver for itself
        return lambda name, per_minute: RateLimit(per_minute)
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # no retries: a check waits at most REDIS_TIMEOUT_S (redis-py's default retries took 4 s a refusal)
    client = redis.Redis.from_url(cfg.broker_url, socket_timeout=REDIS_TIMEOUT_S,
                                  socket_connect_timeout=REDIS_TIMEOUT_S, retry=Retry(NoBackoff(), 0))
    return lambda name, per_minute: SharedRateLimit(name, per_minute, client, cfg.broker_prefix)


class Sessions:
    """Open SMTP sessions, per client IP and in all (1,100 idle connections
    once took the receiver down). Used from the event loop only."""

    def __init__(self, per_ip: int, total: int):
        self.per_ip, self.total = per_ip, total
        self.open: dict[str, int] = defaultdict(int)
        self.count = 0

    def enter(self, ip: str) -> bool:
        if (self.total > 0 and self.count >= self.total) or (self.per_ip > 0 and self.open[ip] >= self.per_ip):
            return False
        self.open[ip] += 1
        self.count += 1
        return True

    def leave(self, ip: str) -> None:
        self.count -= 1
        self.open[ip] -= 1
        if self.open[ip] <= 0:
            del self.open[ip]


class Handler:
    def __init__(self, cfg: Settings | None = None, enqueue=None):
        self.cfg = cfg or settings()
        self.enqueue = enqueue or _enqueue_process
        limit = rate_limits(self.cfg)
        self.per_ip = limit("ip", self.cfg.smtpd_rate_per_ip)
        self.per_sender = limit("sender", self.cfg.smtpd_rate_per_sender)
        # every RCPT costs a database read: counted per client too, with room for a few recipients a mail
        self.rcpt_per_ip = limit("rcpt", self.cfg.smtpd_rate_per_ip * 4)
        self.shared = isinstance(self.per_ip, SharedRateLimit)
        self.sessions = Sessions(self.cfg.smtpd_sessions_per_ip, self.cfg.smtpd_sessions)

    def _known(self, address: str) -> str:
        """"ok" (ours), "renewed" (a seat address of a real game whose token
        is not, or no longer, valid), "expired" (a used or expired
        confirmation) or "unknown"."""
        who = parse_recipient(address, self.cfg.domain, self.cfg.command_local)
        if who is None:
            return "unknown"
        if who.kind == "command":
            return "ok"
        if who.kind == "bounce":  # a mail's own envelope sender (VERP): its bounces come here
            return "ok" if verp_valid(who, self.cfg.secret_key) else "unknown"
        with single_statement() as conn:  # one read: no session, no transaction round trips
            if who.kind == "confirm":
                return "ok" if confirmations.is_live(conn, who.token) else "expired"
            mode = seating.token_senders(conn, who.game_id, who.token)
        return "renewed" if mode is None else "ok"

    async def _limited(self, check, *args) -> bool:
        """Run a rate-limit check: off the event loop when it asks Redis."""
        if self.shared:
            return await asyncio.get_running_loop().run_in_executor(None, check, *args)
        return check(*args)

    def _admit_mail(self, peer: str, sender: str) -> bool:
        if not self.per_ip.allow(peer) or not self.per_sender.allow(sender):
            return False
        self.per_ip.record(peer)
        self.per_sender.record(sender)  # the null sender (bounces) shares one allowance
        return True

    def _admit_rcpt(self, peer: str) -> bool:
        if not self.rcpt_per_ip.allow(peer):
            return False
        self.rcpt_per_ip.record(peer)
        return True

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        peer = session.peer[0] if isinstance(session.peer, tuple) else str(session.peer)
        sender = (address or "").strip().lower()
        if not await self._limited(self._admit_mail, peer, sender):
            log.warning("rate limit: refused mail from %s at %s", redact(sender), peer)
            return "451 4.7.1 Too many mails in a minute; please try again later"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.cfg.smtpd_max_rcpts > 0 and len(envelope.rcpt_tos) >= self.cfg.smtpd_max_rcpts:
            return "452 4.5.3 Too many recipients; send the rest in another mail"
        peer = session.peer[0] if isinstance(session.peer, tuple) else str(session.peer)
        if not await self._limited(self._admit_rcpt, peer):
            return "451 4.7.1 Too many recipients in a minute; please try again later"
        try:
            known = await asyncio.get_running_loop().run_in_executor(None, self._known, address)
        except Exception as e:  # the database is down: a temporary failure, never a 5xx
            log.warning("could not check recipient %s: %s", redact(address), redact(repr(e))[:200])
            return "451 4.3.0 Could not check the recipient, try again later"
        if known == "expired":
            return "550 5.1.1 This confirmation address is used or expired; send the commands again"
        if known == "renewed":
            log.info("refused recipient %s (no such seat token)", redact(address))
            return ("550 5.1.1 This game address is not valid (it may have been renewed); "
                    "reply to the latest mail of the game")
        if known != "ok":
            log.info("refused recipient %s", redact(address))
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if len(raw) > self.cfg.max_message_bytes:
            return "552 5.3.4 Message too big for pbem"
        peer = session.peer[0] if isinstance(session.peer, tuple) else str(session.peer or "")
        try:  # off the event loop: the commit, and a broker that is down makes the publish block and retry
            await asyncio.get_running_loop().run_in_executor(
                None, self._store_and_enqueue, raw, envelope.mail_from or "", envelope.rcpt_tos, peer,
                session.host_name or "")
        except Exception:
            log.exception("could not store a mail")
            return "451 4.3.0 Could not store the message, try again later"
        return "250 OK: queued"

    def _store_and_enqueue(self, raw: bytes, mail_from: str, rcpts: list[str], peer: str = "",
                           helo: str = "") -> None:
        """Commit the raw mail (raises: the client is told to try again), then
        enqueue it (a failure is only logged: it is stored, the sweep enqueues it)."""
        ids = self.store(raw, mail_from, rcpts, peer, helo)
        metrics.mail_received(len(ids))
        for inbound_id in ids:
            with logs.context(inbound_id=inbound_id):
                try:
                    self.enqueue(inbound_id)
                except Exception:
                    log.warning("could not enqueue inbound %s (the sweep will)", inbound_id)

    def store(self, raw: bytes, mail_from: str, rcpts: list[str], peer: str = "", helo: str = "") -> list[int]:
        """Commit the raw mail once per recipient (each game
        address is read for itself, and an MTA that splits the recipients
        into several transactions loses none of them); the ids of the rows
        stored. A recipient that already has this Message-ID is a duplicate:
        accepted, not stored again. Stored without any Authentication-Results
        header that claims our name or our MX's (but the MX's own, in mail
        the MX sent: senders.clean_results), with the sending server's IP and
        HELO name, for the worker's check of the sender (``auth`` stays empty
        until then: nothing here asks the network)."""
        raw = senders.clean_results(raw, self.cfg, peer)
        mid = stored_message_id(raw)
        row = Inbound(message_id=mid, raw=raw, mail_from=CONTROL_RE.sub("", mail_from)[:990],
                      peer=CONTROL_RE.sub("", peer)[:64], helo=CONTROL_RE.sub("", helo)[:255])
        values = {c.name: getattr(row, c.name) for c in Inbound.__table__.columns if c.name != "id"}
        ids = []
        # each row commits when its statement returns (PostgreSQL, autocommit): only when all have may the
        # client hear 250; a failure half-way is a 451, and the client's next try stores the rest
        with single_statement() as conn:
            insert = _INSERT_INBOUND[conn.dialect.name]
            for rcpt in dict.fromkeys(CONTROL_RE.sub("", normalize_address(r)) for r in rcpts):
                new = conn.execute(insert, {**values, "rcpt_to": rcpt}).scalar_one_or_none()
                if new is None:
                    log.info("duplicate Message-ID %s for %s: accepted, not processed again", redact(mid),
                             redact(rcpt))
                else:
                    ids.append(new)
        return ids


def stored_message_id(raw: bytes) -> str:
    """The Message-ID a mail is stored (and deduplicated) under: its own, or
    one made of its bytes when it has none."""
    # no control character in what is stored as text (PostgreSQL refuses NUL: the mail would be refused
    # with 451 for ever); the raw bytes keep what was sent
    return CONTROL_RE.sub("", message_id(raw))[:990] or f"<sha256.{hashlib.sha256(raw).hexdigest()}@pbem.missing>"


# the model gives the defaults and this one Core statement stores them (no session); built once, its
# values passed as parameters, so each mail costs no statement construction. A Message-ID already
# stored for the recipient is skipped in the statement itself (no error, no second query)
_INSERT_INBOUND = {
    dialect.__name__.rpartition(".")[2]: dialect.insert(Inbound.__table__)
    .on_conflict_do_nothing(index_elements=["message_id", "rcpt_to"]).returning(Inbound.__table__.c.id)
    for dialect in (postgresql, sqlite)
}


def _enqueue_process(inbound_id: int) -> None:
    from pbem.celery_app import enqueue_process

    enqueue_process(inbound_id)


class GuardedSMTP(SMTP):
    """aiosmtpd's SMTP, with a cap on open sessions per client and in all: a
    client over the cap is told 421 and disconnected at once."""

    _counted: str | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        ip = peer[0] if isinstance(peer, tuple) else str(peer)
        if self.event_handler.sessions.enter(ip):
            self._counted = ip
            return
        log.warning("refused a session from %s: too many open", ip)
        transport.write(b"421 4.7.0 Too many connections; please try again later\r\n")
        transport.close()

    def connection_lost(self, error) -> None:
        if self._counted is not None:
            self.event_handler.sessions.leave(self._counted)
            self._counted = None
        super().connection_lost(error)


class GuardedController(Controller):
    def factory(self):
        return GuardedSMTP(self.handler, **self.SMTP_kwargs)


def make_controller(cfg: Settings | None = None, *, host: str | None = None, port: int | None = None,
                    enqueue=None) -> Controller:
    cfg = cfg or settings()
    handler = Handler(cfg, enqueue)
    return GuardedController(handler, hostname=host or cfg.smtpd_host,
                             port=port if port is not None else cfg.smtpd_port,
                             data_size_limit=cfg.max_message_bytes, enable_SMTPUTF8=True,
                             server_hostname=cfg.domain, ready_timeout=10, timeout=cfg.smtpd_idle_timeout_s)


# descriptors a receiver process keeps for itself beyond its SMTP sessions: the database pool, the
# broker's connections, logs, the event loop, a listening socket, and one to accept and refuse with 421
FD_RESERVE = 64


def fit_descriptors(cfg: Settings) -> Settings:
    """Settings whose session cap fits this process's file descriptors: the
    soft limit is raised to the hard one, and the cap is lowered (with a
    warning) to what is left after FD_RESERVE, so the sessions can never
    take the descriptors the receiver needs to store mail."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    room = max(1, soft - FD_RESERVE) if soft != resource.RLIM_INFINITY else 0
    if room and (cfg.smtpd_sessions <= 0 or cfg.smtpd_sessions > room):
        log.warning("%d open SMTP sessions would not fit in %d file descriptors: at most %d", cfg.smtpd_sessions,
                    soft, room)
        cfg = cfg.with_(smtpd_sessions=room)
    return cfg


def serve(cfg: Settings | None = None) -> None:
    """Run the receiver in this process until SIGTERM or SIGINT (`pbem
    smtpd`, and the process `pbem up` starts: spawn)."""
    import signal
    import threading

    cfg = fit_descriptors(cfg or settings())
    ctl = make_controller(cfg)
    ctl.start()
    log.warning("SMTP receiver on %s:%s (at most %d sessions)", ctl.hostname, ctl.port, cfg.smtpd_sessions)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    while not done.wait(1.0):
        pass
    ctl.stop()


def connect_host(cfg: Settings) -> str:
    """Where a client on this machine reaches the receiver."""
    return "127.0.0.1" if cfg.smtpd_host in ("", "0.0.0.0", "::") else cfg.smtpd_host


def spawn(cfg: Settings, timeout: float = 30.0):
    """The receiver in a process of its own, on ``cfg``; returned once it
    accepts connections. `pbem up` and the demo run it so: a process's file
    descriptors are its own, so the web site's can never be taken by idle
    SMTP connections, however many."""
    import os
    import socket
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "pbem.mail.inbound"], env=dict(os.environ, **cfg.to_env()))
    host = connect_host(cfg)
    end = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the SMTP receiver exited with status {proc.returncode}")
        try:
            socket.create_connection((host, cfg.smtpd_port), timeout=1).close()
            return proc
        except OSError:
            if time.monotonic() > end:
                proc.kill()
                raise RuntimeError(f"the SMTP receiver did not listen on {host}:{cfg.smtpd_port} "
                                   f"within {timeout:.0f} s") from None
            time.sleep(0.1)


if __name__ == "__main__":  # the process spawn starts
    logs.configure("receiver")
    serve()
