"""Settings from the environment. Nothing happens at import: call get_settings()."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def shipped(*parts: str) -> Path:
    """A file a clone keeps at its root (the templates, docs/notation): an installed package carries
    it under ``pbem/share`` (setup.py puts it there), a clone or an editable install reads it in place."""
    own = Path(__file__).resolve().parent.joinpath("share", *parts)
    return own if own.exists() else ROOT.joinpath(*parts)


TEMPLATES = shipped("templates")


@dataclass(frozen=True)
class Settings:
    var_dir: Path
    database_url: str
    broker_url: str
    smtp_url: str  # "" = write outgoing mail to the maildir under var_dir
    domain: str
    command_local: str  # local part of the account-command address
    smtpd_host: str
    smtpd_port: int
    web_host: str
    web_port: int
    max_message_bytes: int
    secret_key: str
    base_url: str
    snapshot_every: int = 25
    stuck_after_s: int = 300
    outbound_max_attempts: int = 8
    outbound_backoff_s: float = 15.0  # first retry after 2x this, doubling up to an hour
    # a worker process keeps its relay connection between tasks: closed after relay_idle_s
    # unused, or after relay_max_mails mails (then a new one)
    relay_idle_s: float = 30.0
    relay_max_mails: int = 100
    broker_prefix: str = ""  # Redis key prefix: several deployments (or test runs) can share one Redis
    # Celery's broker_transport_options as a JSON object, merged over pbem's own: Redis Sentinel's
    # {"master_name": "mymaster"}, an AMQP broker's options ("" = none)
    broker_transport_options: str = ""
    # what stands between pbem and PostgreSQL: "" = nothing (or a pooler in session mode); "pgbouncer" =
    # PgBouncer in transaction pooling mode, where a connection's transactions may each go to another server
    # connection: psycopg then prepares no statement on the server (store/db.py)
    db_pooler: str = ""
    # running games: deadlines, vacations, outages (docs/running-games.md)
    deadline_grace_minutes: int = 60  # after a deadline, before the no-move policy applies
    vacation_days: int = 14  # allowance of vacation days per seat per game
    sweep_gap_s: int = 600  # a longer gap between deadline sweeps = the service was down
    inbound_rate: int = 20  # mails per sender that did harm (errors, repeats; pipeline.rate_limit) ...
    inbound_rate_window_s: int = 600  # ... within this window; beyond it, set aside, one answer per window
    talk_per_hour: int = 40  # posts (table talk, private messages) one person writes in an hour, all games
    # attempts of an inbound mail that failed for a reason that may pass (database busy, a lock timeout):
    # after this many it is failed, kept for the admins, and its sender told
    inbound_max_attempts: int = 8
    # receiver rate limits (mails per minute; 0 = no limit): per client IP and per envelope sender
    smtpd_rate_per_ip: int = 120
    smtpd_rate_per_sender: int = 60
    # receiver resources, so that no client can exhaust them: recipients per mail, open sessions per
    # client IP and in all, idle seconds
    smtpd_max_rcpts: int = 20
    smtpd_sessions_per_ip: int = 20
    smtpd_sessions: int = 300
    smtpd_idle_timeout_s: int = 60
    # "" = mail trusted by its From (account commands, moves where the game allows them) that the sender
    # check cannot verify waits for its owner's confirmation; "dkim-or-spf" = it is dropped unanswered
    require_auth: str = ""
    # the name pbem's own verdicts carry (Authentication-Results syntax, Inbound.auth; "" = the domain):
    # fields in that name are deleted from arriving mail, as are those in the MX's (mx_authserv_id)
    authserv_id: str = ""
    # pbem checks DKIM and SPF itself (mail/senders.py), in the worker, with this DNS: "" = the system's
    # resolver, "host", "host:port" or "[v6 host]:port" = that server (an IP address), "off" = no checks
    # (every From is unverified: account commands wait for the owner's confirmation). One query waits at
    # most dns_timeout_s, and all the queries of one mail's check at most dns_budget_s in all, whatever the
    # mail holds (mail/lookups.py)
    dns: str = ""
    dns_timeout_s: float = 3.0
    dns_budget_s: float = 4.0
    # the MX in front of pbem (docs/operators.md "Mail in"): the authserv-id its milters write in
    # Authentication-Results (OpenDKIM/OpenDMARC, rspamd), and the addresses (IPs or networks) it
    # relays from. Mail whose peer is one of them is judged by the MX's topmost Authentication-Results
    # in that name; other mail by pbem's own check. "" / (): no MX is trusted
    mx_authserv_id: str = ""
    mx_addresses: tuple[str, ...] = ()
    # a worker delivers the replies of the mail it processed right after the commit (no second task);
    # False: every outbox row goes through the send_outbound task (e.g. a slow relay, a sender pool)
    send_inline: bool = True
    # operations (docs/metrics.md): logs as "text" or "json" (one JSON object a line: production),
    # at this level; the Prometheus metrics' directory, shared by the processes of one host (None: <var>/metrics;
    # "off": no metrics); the token a scraper of /metrics sends ("": only from loopback, never through a proxy);
    # /healthz says unhealthy when the beat's last sweep is older than beat_stale_s, or when the oldest unsent
    # outbox row or unprocessed inbound mail is older than backlog_stale_s
    log_format: str = "text"
    log_level: str = "INFO"
    metrics_dir: Path | None = None
    metrics_off: bool = False
    metrics_token: str = ""
    health_beat_stale_s: int = 300
    health_backlog_stale_s: int = 900
    # the mail pipeline is broken when, of the mails received within the window, at least this many
    # and at least half of those finished failed (a system error: a bug, a deployment that cannot read
    # its files); one hostile mail that fails is not a broken site
    health_failing_window_s: int = 900
    health_failing_min: int = 3
    # operations. Periodic tasks: exactly one beat sends them, the one holding the database
    # lease "beat" (pbem/tasks.py LockedScheduler); a beat that dies is replaced after beat_lease_s
    sweep_every_s: float = 30.0
    deadlines_every_s: float = 60.0  # well under sweep_gap_s, which marks an outage
    # on PostgreSQL, how many workers sweep the due games of one deadline sweep together (the beat's
    # sweep asks for the others as tasks; each game is claimed by one of them, FOR UPDATE SKIP LOCKED)
    deadline_sweepers: int = 1
    prune_every_s: float = 3600.0
    beat_lease_s: float = 60.0
    # retention (services/upkeep/retention.py), in days; 0 = keep forever. Processed inbound mail (done or
    # ignored; failed mail stays for the admins), sent outbox rows, and the snapshots of games finished,
    # aborted or cancelled that long ago (their record replays). Moves, posts and the audit log are kept.
    keep_inbound_days: int = 90
    keep_outbox_days: int = 90
    # a sent mail's bodies (text and HTML, most of its size) go after this many days; what proves the mail
    # (headers, recipient, Message-ID with its game and ply, the bodies' SHA-256) stays until keep_outbox_days
    keep_mail_bodies_days: int = 14
    keep_snapshots_days: int = 7
    prune_batch: int = 500  # rows per short transaction
    # one run of retention does at most this many rows, or works this long, then leaves the rest to the next
    prune_max_rows: int = 200_000
    prune_max_s: float = 300.0
    # a streaming replica of database_url for the reads that may lag (lobby, archive, players' pages,
    # histories: store/db.reading); "" = every read on the primary. A browser that wrote (any POST) reads
    # from the primary for replica_stick_s after, so a player's own page shows their move
    database_replica_url: str = ""
    replica_stick_s: float = 30.0
    # deliverability: outgoing mail is DKIM-signed with this key (PEM, RSA; `pbem dkim keygen`
    # makes one) as <selector>._domainkey.<dkim_domain> ("" = the domain); no key file = not signed
    dkim_key_file: str = ""
    dkim_selector: str = "pbem"
    dkim_domain: str = ""
    # an address is marked failing after one hard bounce (5.x.x), or this many soft ones (4.x.x) in
    # bounce_soft_days days
    bounce_soft_limit: int = 3
    bounce_soft_days: int = 7
    # board drawings in the mail: an HTML board mail shows its drawing as an inline PNG this
    # many pixels wide, rendered when the mail is delivered, once per distinct drawing. Rendering costs
    # tens of ms of CPU: when more than picture_backlog players' mails wait to be processed, or picture mails
    # wait for their picture (a burst), the board mails go without one (the HTML and text boards are
    # complete), so pictures use only spare capacity and never slow a move down; 0 = no pictures
    mail_pictures: bool = True
    picture_width: int = 680
    picture_backlog: int = 10
    # where the picture mails are delivered: "" = by the worker that queued them, right after its commit,
    # like every other mail (one machine, light load); a queue name (e.g. "pictures") = by the workers that
    # consume that queue (`pbem worker -Q pictures`, best at a lower CPU priority: deploy/), so the players'
    # mail never waits behind a rendering. A picture mail that waited longer than picture_wait_s goes
    # without its picture.
    picture_queue: str = ""
    picture_wait_s: int = 120
    # where the bots think: "" = the workers of the default queue (one machine, light load); a
    # queue name (e.g. "bots") = the workers that consume it (`pbem worker --queues=bots`, at a lower CPU
    # priority: deploy/), so a searching bot never holds up a worker that the players' mail needs
    bot_queue: str = ""
    # a finished game's post-game review (services/coach/review.py, docs/bots.md "Reviews and hints"):
    # the most CPU seconds and the most decisions one game's review may spend; beyond either, the
    # decisions reviewed are a sample spread evenly over the game (the review says so)
    review_cpu_s: float = 60.0
    review_decisions: int = 400
    # the other queues, so each kind of work can have machines of its own (`pbem worker
    # --queues=mail`): the players' mail (process_inbound), the beat's sweeps (sweep, deadlines, prune) and
    # delivery (send_outbound, push); "" = the default queue. A worker started without --queues consumes
    # every queue named here (one machine: `pbem up`)
    mail_queue: str = ""
    sweep_queue: str = ""
    delivery_queue: str = ""
    # outbound HTTP to users' addresses (pbem/net): only addresses reachable from the whole Internet, and those
    # of these networks ("10.0.0.5/32", "fd00::/8"): a lab's, a private installation's own ntfy, the tests'.
    # Never the server's own network on a public server
    http_allow: tuple[str, ...] = ()
    # chat notifications (services/follow/channels.py, pbem/push): at most notify_per_minute messages a minute
    # to one channel (the others wait, and go out together); a delivery tried notify_max_attempts times with a
    # doubling backoff from notify_backoff_s, each request within notify_timeout_s (three times that for all
    # the requests of one delivery); a channel whose deliveries failed for good notify_disable_after times in
    # a row is disabled and its owner told
    notify_per_minute: int = 10
    notify_max_attempts: int = 6
    notify_backoff_s: float = 15.0
    notify_timeout_s: float = 10.0
    notify_disable_after: int = 3
    # live pages (pbem/web/live.py): at most this many open pages' event streams held by one web process, each
    # holding one of its threads while it waits (no database, no CPU); the pages beyond fall back to polling.
    # Give gunicorn this many threads more than it needs for the other requests (deploy/: 500 of 516)
    live_streams: int = 8
    # False: PBEM_SECRET_KEY was not given, and the key is this machine's own (<var>/secret_key); a
    # production deployment refuses to start so (require_secret_key)
    secret_key_set: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def command_address(self) -> str:
        return f"{self.command_local}@{self.domain}"

    @property
    def metrics_path(self) -> Path | None:
        """Where the processes write their metrics (prometheus-client's multiprocess mode), or None."""
        return None if self.metrics_off else (self.metrics_dir or self.var_dir / "metrics")

    @property
    def signing_domain(self) -> str:
        return self.dkim_domain or self.domain

    @property
    def maildir(self) -> Path:
        return self.var_dir / "maildir"

    @property
    def is_production(self) -> bool:
        """A PostgreSQL database: the production layout (docs/operators.md), where the
        web, the workers and the receivers may run on several machines; SQLite
        is one machine (the embedded default, `pbem up`)."""
        return not self.database_url.startswith("sqlite")

    @property
    def is_embedded_broker(self) -> bool:
        """The embedded broker (kombu's SQL transport on the local database file) is the sqla+ and
        sqlite URLs; every other one (redis, rediss, sentinel, amqp, amqps, pyamqp, ...) is a broker of
        its own that kombu connects to."""
        return self.broker_url.split("://", 1)[0].lower().startswith(("sqla+", "sqlite"))

    @property
    def is_redis_broker(self) -> bool:
        """A broker whose Redis pbem may also talk to directly (queue depth, the receiver's shared
        rate limits): a plain Redis URL. Sentinel's is reached through kombu only."""
        return self.broker_url.lower().startswith(("redis://", "rediss://"))

    @property
    def broker_options(self) -> dict:
        return json.loads(self.broker_transport_options) if self.broker_transport_options else {}

    def to_env(self) -> dict[str, str]:
        """The environment that makes another process load these settings."""
        return {
            "PBEM_VAR_DIR": str(self.var_dir), "PBEM_DATABASE_URL": self.database_url,
            "PBEM_DATABASE_REPLICA_URL": self.database_replica_url, "PBEM_REPLICA_STICK_S": str(self.replica_stick_s),
            "PBEM_BROKER_URL": self.broker_url, "PBEM_SMTP_URL": self.smtp_url, "PBEM_DOMAIN": self.domain,
            "PBEM_COMMAND_LOCAL": self.command_local, "PBEM_SMTPD_HOST": self.smtpd_host,
            "PBEM_SMTPD_PORT": str(self.smtpd_port), "PBEM_WEB_HOST": self.web_host,
            "PBEM_WEB_PORT": str(self.web_port), "PBEM_MAX_MESSAGE_BYTES": str(self.max_message_bytes),
            "PBEM_SECRET_KEY": self.secret_key, "PBEM_BASE_URL": self.base_url,
            "PBEM_SNAPSHOT_EVERY": str(self.snapshot_every), "PBEM_STUCK_AFTER_S": str(self.stuck_after_s),
            "PBEM_BROKER_PREFIX": self.broker_prefix,
            "PBEM_BROKER_TRANSPORT_OPTIONS": self.broker_transport_options, "PBEM_DB_POOLER": self.db_pooler,
            "PBEM_DEADLINE_GRACE_MINUTES": str(self.deadline_grace_minutes),
            "PBEM_VACATION_DAYS": str(self.vacation_days), "PBEM_SWEEP_GAP_S": str(self.sweep_gap_s),
            "PBEM_INBOUND_RATE": str(self.inbound_rate),
            "PBEM_INBOUND_RATE_WINDOW_S": str(self.inbound_rate_window_s),
            "PBEM_TALK_PER_HOUR": str(self.talk_per_hour),
            "PBEM_INBOUND_MAX_ATTEMPTS": str(self.inbound_max_attempts),
            "PBEM_SMTPD_RATE_PER_IP": str(self.smtpd_rate_per_ip),
            "PBEM_SMTPD_RATE_PER_SENDER": str(self.smtpd_rate_per_sender),
            "PBEM_SMTPD_MAX_RCPTS": str(self.smtpd_max_rcpts),
            "PBEM_SMTPD_SESSIONS_PER_IP": str(self.smtpd_sessions_per_ip),
            "PBEM_SMTPD_SESSIONS": str(self.smtpd_sessions),
            "PBEM_SMTPD_IDLE_TIMEOUT_S": str(self.smtpd_idle_timeout_s),
            "PBEM_OUTBOUND_BACKOFF_S": str(self.outbound_backoff_s),
            "PBEM_RELAY_IDLE_S": str(self.relay_idle_s), "PBEM_RELAY_MAX_MAILS": str(self.relay_max_mails),
            "PBEM_REQUIRE_AUTH": self.require_auth, "PBEM_AUTHSERV_ID": self.authserv_id,
            "PBEM_DNS": self.dns, "PBEM_DNS_TIMEOUT_S": str(self.dns_timeout_s),
            "PBEM_DNS_BUDGET_S": str(self.dns_budget_s), "PBEM_MX_AUTHSERV_ID": self.mx_authserv_id,
            "PBEM_MX_ADDRESSES": ",".join(self.mx_addresses),
            "PBEM_SEND_INLINE": "1" if self.send_inline else "0",
            "PBEM_LOG_FORMAT": self.log_format, "PBEM_LOG_LEVEL": self.log_level,
            "PBEM_METRICS_DIR": "off" if self.metrics_off else str(self.metrics_dir or ""),
            "PBEM_METRICS_TOKEN": self.metrics_token,
            "PBEM_HEALTH_BEAT_STALE_S": str(self.health_beat_stale_s),
            "PBEM_HEALTH_BACKLOG_STALE_S": str(self.health_backlog_stale_s),
            "PBEM_HEALTH_FAILING_WINDOW_S": str(self.health_failing_window_s),
            "PBEM_HEALTH_FAILING_MIN": str(self.health_failing_min),
            "PBEM_SWEEP_EVERY_S": str(self.sweep_every_s), "PBEM_DEADLINES_EVERY_S": str(self.deadlines_every_s),
            "PBEM_DEADLINE_SWEEPERS": str(self.deadline_sweepers),
            "PBEM_PRUNE_EVERY_S": str(self.prune_every_s), "PBEM_BEAT_LEASE_S": str(self.beat_lease_s),
            "PBEM_KEEP_INBOUND_DAYS": str(self.keep_inbound_days),
            "PBEM_KEEP_OUTBOX_DAYS": str(self.keep_outbox_days),
            "PBEM_KEEP_MAIL_BODIES_DAYS": str(self.keep_mail_bodies_days),
            "PBEM_PRUNE_MAX_ROWS": str(self.prune_max_rows), "PBEM_PRUNE_MAX_S": str(self.prune_max_s),
            "PBEM_KEEP_SNAPSHOTS_DAYS": str(self.keep_snapshots_days), "PBEM_PRUNE_BATCH": str(self.prune_batch),
            "PBEM_DKIM_KEY_FILE": self.dkim_key_file, "PBEM_DKIM_SELECTOR": self.dkim_selector,
            "PBEM_DKIM_DOMAIN": self.dkim_domain, "PBEM_BOUNCE_SOFT_LIMIT": str(self.bounce_soft_limit),
            "PBEM_BOUNCE_SOFT_DAYS": str(self.bounce_soft_days),
            "PBEM_MAIL_PICTURES": "1" if self.mail_pictures else "0",
            "PBEM_PICTURE_WIDTH": str(self.picture_width), "PBEM_PICTURE_BACKLOG": str(self.picture_backlog),
            "PBEM_PICTURE_QUEUE": self.picture_queue, "PBEM_PICTURE_WAIT_S": str(self.picture_wait_s),
            "PBEM_BOT_QUEUE": self.bot_queue, "PBEM_MAIL_QUEUE": self.mail_queue,
            "PBEM_REVIEW_CPU_S": str(self.review_cpu_s), "PBEM_REVIEW_DECISIONS": str(self.review_decisions),
            "PBEM_SWEEP_QUEUE": self.sweep_queue, "PBEM_DELIVERY_QUEUE": self.delivery_queue,
            "PBEM_HTTP_ALLOW": ",".join(self.http_allow),
            "PBEM_NOTIFY_PER_MINUTE": str(self.notify_per_minute),
            "PBEM_NOTIFY_MAX_ATTEMPTS": str(self.notify_max_attempts),
            "PBEM_NOTIFY_BACKOFF_S": str(self.notify_backoff_s),
            "PBEM_NOTIFY_TIMEOUT_S": str(self.notify_timeout_s),
            "PBEM_NOTIFY_DISABLE_AFTER": str(self.notify_disable_after),
            "PBEM_LIVE_STREAMS": str(self.live_streams),
        }

    def with_(self, **changes) -> "Settings":
        return replace(self, **changes)


def _secret(var_dir: Path) -> str:
    env = os.environ.get("PBEM_SECRET_KEY")
    if env:
        return env
    # embedded default: a random key kept beside the database, made once
    path = var_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    import secrets

    var_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(32)
    path.write_text(key)
    path.chmod(0o600)
    return key


PLACEHOLDER_SECRET = "change-me"  # deploy/pbem.env's, to be replaced


def require_secret_key(cfg: Settings) -> None:
    """In production (Settings.is_production) every process must sign with
    one key given by PBEM_SECRET_KEY: a key made per machine breaks, across
    machines, the web's sessions and CSRF tokens, and the login,
    unsubscribe and bounce addresses the workers sign. Raises with what to do."""
    if cfg.is_production and (not cfg.secret_key_set or cfg.secret_key == PLACEHOLDER_SECRET):
        raise RuntimeError(
            "PBEM_SECRET_KEY is " + ("not set" if not cfg.secret_key_set else f"still {PLACEHOLDER_SECRET!r}")
            + ": with a PostgreSQL database (production) every web, worker and receiver process, on every "
            "machine, needs the same secret key. Make one with "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(32))' and set PBEM_SECRET_KEY to it "
            "(deploy/pbem.env).")


def load_settings(env: dict | None = None) -> Settings:
    e = os.environ if env is None else env
    var_dir = Path(e.get("PBEM_VAR_DIR", "var")).resolve()
    web_port = _port(e, "PBEM_WEB_PORT", "8025")
    web_host = e.get("PBEM_WEB_HOST", "127.0.0.1")
    cfg = Settings(
        var_dir=var_dir,
        database_url=e.get("PBEM_DATABASE_URL", f"sqlite:///{var_dir / 'pbem.sqlite3'}"),
        database_replica_url=e.get("PBEM_DATABASE_REPLICA_URL", "").strip(),
        replica_stick_s=_positive(e, "PBEM_REPLICA_STICK_S", "30"),
        broker_url=e.get("PBEM_BROKER_URL", f"sqla+sqlite:///{var_dir / 'broker.sqlite3'}"),
        smtp_url=e.get("PBEM_SMTP_URL", ""),
        domain=e.get("PBEM_DOMAIN", "pbem.localhost"),
        command_local=e.get("PBEM_COMMAND_LOCAL", "pbem"),
        smtpd_host=e.get("PBEM_SMTPD_HOST", "127.0.0.1"),
        smtpd_port=_port(e, "PBEM_SMTPD_PORT", "2525"),
        web_host=web_host,
        web_port=web_port,
        max_message_bytes=_int(e, "PBEM_MAX_MESSAGE_BYTES", str(2 * 1024 * 1024), low=1),
        secret_key=e.get("PBEM_SECRET_KEY") or "",  # made below, once every setting is known to work
        secret_key_set=bool(e.get("PBEM_SECRET_KEY")),
        base_url=e.get("PBEM_BASE_URL", f"http://{web_host}:{web_port}"),
        snapshot_every=_int(e, "PBEM_SNAPSHOT_EVERY", "25", low=1),
        stuck_after_s=_int(e, "PBEM_STUCK_AFTER_S", "300"),
        broker_prefix=e.get("PBEM_BROKER_PREFIX", ""),
        broker_transport_options=_json_object(e, "PBEM_BROKER_TRANSPORT_OPTIONS"),
        db_pooler=_choice(e, "PBEM_DB_POOLER", ("", "pgbouncer")),
        deadline_grace_minutes=_int(e, "PBEM_DEADLINE_GRACE_MINUTES", "60"),
        vacation_days=_int(e, "PBEM_VACATION_DAYS", "14"),
        sweep_gap_s=_int(e, "PBEM_SWEEP_GAP_S", "600"),
        inbound_rate=_int(e, "PBEM_INBOUND_RATE", "20"),
        inbound_rate_window_s=_int(e, "PBEM_INBOUND_RATE_WINDOW_S", "600"),
        talk_per_hour=_int(e, "PBEM_TALK_PER_HOUR", "40"),
        inbound_max_attempts=max(1, _int(e, "PBEM_INBOUND_MAX_ATTEMPTS", "8")),
        smtpd_rate_per_ip=_int(e, "PBEM_SMTPD_RATE_PER_IP", "120"),
        smtpd_rate_per_sender=_int(e, "PBEM_SMTPD_RATE_PER_SENDER", "60"),
        smtpd_max_rcpts=_int(e, "PBEM_SMTPD_MAX_RCPTS", "20"),
        smtpd_sessions_per_ip=_int(e, "PBEM_SMTPD_SESSIONS_PER_IP", "20"),
        smtpd_sessions=_int(e, "PBEM_SMTPD_SESSIONS", "300"),
        smtpd_idle_timeout_s=_int(e, "PBEM_SMTPD_IDLE_TIMEOUT_S", "60"),
        outbound_backoff_s=_number(e, "PBEM_OUTBOUND_BACKOFF_S", "15"),
        relay_idle_s=_positive(e, "PBEM_RELAY_IDLE_S", "30"),
        relay_max_mails=int(_positive(e, "PBEM_RELAY_MAX_MAILS", "100")),
        require_auth=_choice(e, "PBEM_REQUIRE_AUTH", ("", "dkim-or-spf")),
        authserv_id=_authserv_id(e, "PBEM_AUTHSERV_ID"),
        dns=_dns(e),
        dns_timeout_s=_positive(e, "PBEM_DNS_TIMEOUT_S", "3"),
        dns_budget_s=_positive(e, "PBEM_DNS_BUDGET_S", "4"),
        mx_authserv_id=_authserv_id(e, "PBEM_MX_AUTHSERV_ID"),
        mx_addresses=_networks(e, "PBEM_MX_ADDRESSES"),
        send_inline=e.get("PBEM_SEND_INLINE", "1").strip().lower() not in ("0", "no", "false", "off"),
        log_format="json" if e.get("PBEM_LOG_FORMAT", "").strip().lower() == "json" else "text",
        log_level=_choice(e, "PBEM_LOG_LEVEL", ("INFO", "DEBUG", "WARNING", "WARN", "ERROR", "CRITICAL"), upper=True),
        metrics_dir=(Path(e["PBEM_METRICS_DIR"]).resolve()
                     if e.get("PBEM_METRICS_DIR", "").strip().lower() not in ("", "off") else None),
        metrics_off=e.get("PBEM_METRICS_DIR", "").strip().lower() == "off",
        metrics_token=e.get("PBEM_METRICS_TOKEN", ""),
        health_beat_stale_s=_int(e, "PBEM_HEALTH_BEAT_STALE_S", "300"),
        health_backlog_stale_s=_int(e, "PBEM_HEALTH_BACKLOG_STALE_S", "900"),
        health_failing_window_s=_int(e, "PBEM_HEALTH_FAILING_WINDOW_S", "900"),
        health_failing_min=_int(e, "PBEM_HEALTH_FAILING_MIN", "3"),
        sweep_every_s=_positive(e, "PBEM_SWEEP_EVERY_S", "30"),
        deadlines_every_s=_positive(e, "PBEM_DEADLINES_EVERY_S", "60"),
        deadline_sweepers=_int(e, "PBEM_DEADLINE_SWEEPERS", "1", low=1, high=32),
        prune_every_s=_positive(e, "PBEM_PRUNE_EVERY_S", "3600"),
        beat_lease_s=_positive(e, "PBEM_BEAT_LEASE_S", "60"),
        keep_inbound_days=int(_positive(e, "PBEM_KEEP_INBOUND_DAYS", "90", zero=True)),
        keep_outbox_days=int(_positive(e, "PBEM_KEEP_OUTBOX_DAYS", "90", zero=True)),
        keep_mail_bodies_days=int(_positive(e, "PBEM_KEEP_MAIL_BODIES_DAYS", "14", zero=True)),
        prune_max_rows=_int(e, "PBEM_PRUNE_MAX_ROWS", "200000", low=1),
        prune_max_s=_positive(e, "PBEM_PRUNE_MAX_S", "300"),
        keep_snapshots_days=int(_positive(e, "PBEM_KEEP_SNAPSHOTS_DAYS", "7", zero=True)),
        prune_batch=int(_positive(e, "PBEM_PRUNE_BATCH", "500")),
        dkim_key_file=e.get("PBEM_DKIM_KEY_FILE", "").strip(),
        dkim_selector=e.get("PBEM_DKIM_SELECTOR", "pbem").strip() or "pbem",
        dkim_domain=e.get("PBEM_DKIM_DOMAIN", "").strip().lower(),
        bounce_soft_limit=max(1, _int(e, "PBEM_BOUNCE_SOFT_LIMIT", "3")),
        bounce_soft_days=max(1, _int(e, "PBEM_BOUNCE_SOFT_DAYS", "7")),
        mail_pictures=e.get("PBEM_MAIL_PICTURES", "1").strip().lower() not in ("0", "no", "false", "off"),
        picture_width=int(_positive(e, "PBEM_PICTURE_WIDTH", "680")),
        picture_backlog=max(0, _int(e, "PBEM_PICTURE_BACKLOG", "10")),
        picture_queue=e.get("PBEM_PICTURE_QUEUE", "").strip(),
        picture_wait_s=int(_positive(e, "PBEM_PICTURE_WAIT_S", "120")),
        bot_queue=e.get("PBEM_BOT_QUEUE", "").strip(),
        review_cpu_s=_positive(e, "PBEM_REVIEW_CPU_S", "60"),
        review_decisions=_int(e, "PBEM_REVIEW_DECISIONS", "400", low=1),
        mail_queue=e.get("PBEM_MAIL_QUEUE", "").strip(),
        sweep_queue=e.get("PBEM_SWEEP_QUEUE", "").strip(),
        delivery_queue=e.get("PBEM_DELIVERY_QUEUE", "").strip(),
        http_allow=_http_allow(e),
        notify_per_minute=int(_positive(e, "PBEM_NOTIFY_PER_MINUTE", "10")),
        notify_max_attempts=int(_positive(e, "PBEM_NOTIFY_MAX_ATTEMPTS", "6")),
        notify_backoff_s=_positive(e, "PBEM_NOTIFY_BACKOFF_S", "15"),
        notify_timeout_s=_positive(e, "PBEM_NOTIFY_TIMEOUT_S", "10"),
        notify_disable_after=int(_positive(e, "PBEM_NOTIFY_DISABLE_AFTER", "3")),
        live_streams=_int(e, "PBEM_LIVE_STREAMS", "8"),
    )
    _check_together(cfg)
    if not cfg.secret_key:
        cfg = replace(cfg, secret_key=_secret(var_dir) if env is None else "test-secret")
    return cfg


class SettingError(ValueError):
    """A setting that cannot work: its message is one line that names the variable, what is wrong and a
    value that works, e.g. ``PBEM_SMTPD_PORT='99999': a port from 1 to 65535 is needed, e.g.
    PBEM_SMTPD_PORT=2525``. Every serving command stops on it at start (cli.py)."""


def _http_allow(e) -> tuple[str, ...]:
    """PBEM_HTTP_ALLOW: networks, separated by commas or spaces; a clear error for one that is not."""
    import ipaddress

    if e.get("PBEM_NOTIFY_PRIVATE_HOSTS", "0").strip().lower() in ("1", "yes", "true", "on"):
        raise SettingError("PBEM_NOTIFY_PRIVATE_HOSTS is no more: name the networks pbem may call besides the "
                         "Internet in PBEM_HTTP_ALLOW (e.g. PBEM_HTTP_ALLOW=10.0.0.5/32), or unset it")
    out = []
    for word in e.get("PBEM_HTTP_ALLOW", "").replace(",", " ").split():
        try:
            out.append(str(ipaddress.ip_network(word, strict=False)))
        except ValueError as err:
            raise SettingError(f"PBEM_HTTP_ALLOW: {word!r} is not a network such as 10.0.0.5/32 ({err})") from None
    return tuple(out)


def _json_object(e, name: str) -> str:
    raw = e.get(name, "").strip()
    if not raw:
        return ""
    try:
        value = json.loads(raw)
    except ValueError as err:
        value, why = None, f" ({err})"
    else:
        why = ""
    if not isinstance(value, dict):
        raise SettingError(f"{name}={raw!r}: a JSON object is needed{why}, e.g. "
                           f"{name}='{{\"master_name\": \"mymaster\"}}'")
    return raw


def _choice(e, name: str, choices: tuple[str, ...], *, upper: bool = False) -> str:
    """A setting with a few possible values (the first the default); a clear error for another."""
    value = e.get(name, choices[0]).strip()
    value = value.upper() if upper else value.lower()
    if value == "" and upper:
        return choices[0]
    if value not in choices:
        example = next((c for c in choices if c), choices[0])
        raise SettingError(f"{name}={value!r}: one of {', '.join(repr(c) for c in choices)} is needed, "
                           f"e.g. {name}={example}")
    return value


def _positive(e, name: str, default: str, *, zero: bool = False) -> float:
    """A number setting that must be positive; with ``zero``, a whole number of days where 0 means "keep
    forever". A clear error otherwise."""
    raw = e.get(name, default)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0 or (value == 0 and not zero) or value != value or value == float("inf") \
            or (zero and value != int(value)):
        what = "whole number of days (0 = keep forever)" if zero else "positive number"
        raise SettingError(f"{name}={raw!r}: a {what} is needed, e.g. {name}={default}")
    return value


def _int(e, name: str, default: str, *, low: int = 0, high: int | None = None) -> int:
    """A whole-number setting from ``low`` to ``high``; a clear error otherwise."""
    raw = e.get(name, default)
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        what = f"a whole number from {low} to {high}" if high is not None else f"a whole number ({low} or more)"
        raise SettingError(f"{name}={raw!r}: {what} is needed, e.g. {name}={default}")
    return value


def _number(e, name: str, default: str) -> float:
    """A number setting, zero or more; a clear error otherwise."""
    raw = e.get(name, default)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise SettingError(f"{name}={raw!r}: a number, 0 or more, is needed, e.g. {name}={default}")
    return value


def _port(e, name: str, default: str) -> int:
    return _int(e, name, default, low=1, high=65535)


def dns_server(value: str) -> tuple[str, int] | None:
    """The DNS server a PBEM_DNS value names, as (IP address, port); None for the system's resolver ("",
    "system") or no checks ("off"). Raises ValueError for anything else: a server must be an IP address
    (dnspython asks it directly), with an optional port, an IPv6 address in brackets when it has one
    ("[::1]:53")."""
    import ipaddress

    value = value.strip().lower()
    if value in ("", "system", "off"):
        return None
    host, port = value, "53"
    if value.startswith("["):  # [v6]:port or [v6]
        host, sep, rest = value[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(value)
        port = rest[1:] if rest else "53"
    elif value.count(":") == 1:  # v4:port (a bare IPv6 address has two colons or more)
        host, port = value.split(":")
    ipaddress.ip_address(host)  # ValueError for a name, or anything else
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(value)
    return host, int(port)


def _dns(e) -> str:
    raw = e.get("PBEM_DNS", "")
    try:
        dns_server(raw)
    except ValueError:
        raise SettingError(f"PBEM_DNS={raw!r}: the IP address of a DNS server, with an optional port, is "
                           "needed, e.g. PBEM_DNS=127.0.0.53 or PBEM_DNS=[::1]:53 (empty: the system's "
                           "resolver; off: no sender checks)") from None
    return raw.strip().lower()


def _authserv_id(e, name: str) -> str:
    """An authserv-id (RFC 8601: a token, in practice a host name)."""
    import re

    raw = e.get(name, "")
    value = raw.strip().lower()
    if value and not re.fullmatch(r"[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?", value):
        raise SettingError(f"{name}={raw!r}: a host name is needed, e.g. {name}=mx.example.org")
    return value


def _networks(e, name: str) -> tuple[str, ...]:
    """A list of IP addresses or networks, separated by commas or spaces."""
    import ipaddress

    raw = e.get(name, "")
    out = []
    for part in raw.replace(",", " ").split():
        try:
            out.append(str(ipaddress.ip_network(part, strict=False)))
        except ValueError:
            raise SettingError(f"{name}={raw!r}: IP addresses or networks, separated by commas, are needed, "
                               f"e.g. {name}=127.0.0.1,::1") from None
    return tuple(out)


def _check_together(cfg: "Settings") -> None:
    """Settings that work only with one another."""
    if cfg.mx_authserv_id and not cfg.mx_addresses:
        raise SettingError(f"PBEM_MX_ADDRESSES='': PBEM_MX_AUTHSERV_ID={cfg.mx_authserv_id} is trusted only in "
                           "mail from the MX's own addresses, which are needed, e.g. PBEM_MX_ADDRESSES=127.0.0.1")
    if cfg.mx_addresses and not cfg.mx_authserv_id:
        raise SettingError("PBEM_MX_AUTHSERV_ID='': the MX named by PBEM_MX_ADDRESSES needs the name it writes in "
                           "Authentication-Results, e.g. PBEM_MX_AUTHSERV_ID=mx.example.org")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()


_override: Settings | None = None


def settings() -> Settings:
    """The settings in force: an override installed by tests or `pbem up`, else the environment."""
    return _override or get_settings()


def set_settings(s: Settings | None) -> None:
    global _override
    _override = s
