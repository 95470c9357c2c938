"""Settings from the environment. Nothing happens at import: call get_settings()."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"


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
    broker_prefix: str = ""  # Redis key prefix: several deployments (or test runs) can share one Redis
    # game management (issue 7)
    deadline_grace_minutes: int = 60  # after a deadline, before the no-move policy applies
    vacation_days: int = 14  # allowance of vacation days per seat per game
    sweep_gap_s: int = 600  # a longer gap between deadline sweeps = the service was down
    inbound_rate: int = 20  # mails per sender that did harm (errors, repeats; pipeline.rate_limit) ...
    inbound_rate_window_s: int = 600  # ... within this window; beyond it, set aside, one answer per window
    talk_per_hour: int = 40  # posts (table talk, private messages) one person writes in an hour, all games
    # attempts of an inbound mail that failed for a reason that may pass (database busy, a lock timeout):
    # after this many it is failed, kept for the admins, and its sender told (issue 18 §3)
    inbound_max_attempts: int = 8
    # receiver rate limits (mails per minute; 0 = no limit): per client IP and per envelope sender
    smtpd_rate_per_ip: int = 120
    smtpd_rate_per_sender: int = 60
    # receiver resources (issue 18): recipients per mail, open sessions per client IP and in all, idle seconds
    smtpd_max_rcpts: int = 20
    smtpd_sessions_per_ip: int = 20
    smtpd_sessions: int = 300
    smtpd_idle_timeout_s: int = 60
    # "" = trust the From of registered users as is; "dkim-or-spf" = mail trusted by its From (account
    # commands, moves where the game allows them) needs a pass in Authentication-Results from authserv_id
    require_auth: str = ""
    authserv_id: str = ""  # the id our MX writes in Authentication-Results ("" = the domain)
    # pbem checks DKIM and SPF itself (mail/senders.py) with this DNS: "" = the system's resolver,
    # "host:port" = that server, "off" = no checks (every From is unverified: account commands wait for
    # the owner's confirmation)
    dns: str = ""
    dns_timeout_s: float = 3.0
    # a worker delivers the replies of the mail it processed right after the commit (no second task);
    # False: every outbox row goes through the send_outbound task (e.g. a slow relay, a sender pool)
    send_inline: bool = True
    # deliverability (issue 21): outgoing mail is DKIM-signed with this key (PEM, RSA; `pbem dkim keygen`
    # makes one) as <selector>._domainkey.<dkim_domain> ("" = the domain); no key file = not signed
    dkim_key_file: str = ""
    dkim_selector: str = "pbem"
    dkim_domain: str = ""
    # an address is marked failing after one hard bounce (5.x.x), or this many soft ones (4.x.x) in
    # bounce_soft_days days
    bounce_soft_limit: int = 3
    bounce_soft_days: int = 7
    extra: dict = field(default_factory=dict)

    @property
    def command_address(self) -> str:
        return f"{self.command_local}@{self.domain}"

    @property
    def signing_domain(self) -> str:
        return self.dkim_domain or self.domain

    @property
    def maildir(self) -> Path:
        return self.var_dir / "maildir"

    @property
    def is_embedded_broker(self) -> bool:
        return not self.broker_url.startswith(("redis://", "rediss://", "amqp://"))

    def to_env(self) -> dict[str, str]:
        """The environment that makes another process load these settings."""
        return {
            "PBEM_VAR_DIR": str(self.var_dir), "PBEM_DATABASE_URL": self.database_url,
            "PBEM_BROKER_URL": self.broker_url, "PBEM_SMTP_URL": self.smtp_url, "PBEM_DOMAIN": self.domain,
            "PBEM_COMMAND_LOCAL": self.command_local, "PBEM_SMTPD_HOST": self.smtpd_host,
            "PBEM_SMTPD_PORT": str(self.smtpd_port), "PBEM_WEB_HOST": self.web_host,
            "PBEM_WEB_PORT": str(self.web_port), "PBEM_MAX_MESSAGE_BYTES": str(self.max_message_bytes),
            "PBEM_SECRET_KEY": self.secret_key, "PBEM_BASE_URL": self.base_url,
            "PBEM_SNAPSHOT_EVERY": str(self.snapshot_every), "PBEM_STUCK_AFTER_S": str(self.stuck_after_s),
            "PBEM_BROKER_PREFIX": self.broker_prefix,
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
            "PBEM_REQUIRE_AUTH": self.require_auth, "PBEM_AUTHSERV_ID": self.authserv_id,
            "PBEM_DNS": self.dns, "PBEM_DNS_TIMEOUT_S": str(self.dns_timeout_s),
            "PBEM_SEND_INLINE": "1" if self.send_inline else "0",
            "PBEM_DKIM_KEY_FILE": self.dkim_key_file, "PBEM_DKIM_SELECTOR": self.dkim_selector,
            "PBEM_DKIM_DOMAIN": self.dkim_domain, "PBEM_BOUNCE_SOFT_LIMIT": str(self.bounce_soft_limit),
            "PBEM_BOUNCE_SOFT_DAYS": str(self.bounce_soft_days),
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


def load_settings(env: dict | None = None) -> Settings:
    e = os.environ if env is None else env
    var_dir = Path(e.get("PBEM_VAR_DIR", "var")).resolve()
    web_port = int(e.get("PBEM_WEB_PORT", "8025"))
    web_host = e.get("PBEM_WEB_HOST", "127.0.0.1")
    return Settings(
        var_dir=var_dir,
        database_url=e.get("PBEM_DATABASE_URL", f"sqlite:///{var_dir / 'pbem.sqlite3'}"),
        broker_url=e.get("PBEM_BROKER_URL", f"sqla+sqlite:///{var_dir / 'broker.sqlite3'}"),
        smtp_url=e.get("PBEM_SMTP_URL", ""),
        domain=e.get("PBEM_DOMAIN", "pbem.localhost"),
        command_local=e.get("PBEM_COMMAND_LOCAL", "pbem"),
        smtpd_host=e.get("PBEM_SMTPD_HOST", "127.0.0.1"),
        smtpd_port=int(e.get("PBEM_SMTPD_PORT", "2525")),
        web_host=web_host,
        web_port=web_port,
        max_message_bytes=int(e.get("PBEM_MAX_MESSAGE_BYTES", str(2 * 1024 * 1024))),
        secret_key=e.get("PBEM_SECRET_KEY") or (_secret(var_dir) if env is None else "test-secret"),
        base_url=e.get("PBEM_BASE_URL", f"http://{web_host}:{web_port}"),
        snapshot_every=int(e.get("PBEM_SNAPSHOT_EVERY", "25")),
        stuck_after_s=int(e.get("PBEM_STUCK_AFTER_S", "300")),
        broker_prefix=e.get("PBEM_BROKER_PREFIX", ""),
        deadline_grace_minutes=int(e.get("PBEM_DEADLINE_GRACE_MINUTES", "60")),
        vacation_days=int(e.get("PBEM_VACATION_DAYS", "14")),
        sweep_gap_s=int(e.get("PBEM_SWEEP_GAP_S", "600")),
        inbound_rate=int(e.get("PBEM_INBOUND_RATE", "20")),
        inbound_rate_window_s=int(e.get("PBEM_INBOUND_RATE_WINDOW_S", "600")),
        talk_per_hour=int(e.get("PBEM_TALK_PER_HOUR", "40")),
        inbound_max_attempts=max(1, int(e.get("PBEM_INBOUND_MAX_ATTEMPTS", "8"))),
        smtpd_rate_per_ip=int(e.get("PBEM_SMTPD_RATE_PER_IP", "120")),
        smtpd_rate_per_sender=int(e.get("PBEM_SMTPD_RATE_PER_SENDER", "60")),
        smtpd_max_rcpts=int(e.get("PBEM_SMTPD_MAX_RCPTS", "20")),
        smtpd_sessions_per_ip=int(e.get("PBEM_SMTPD_SESSIONS_PER_IP", "20")),
        smtpd_sessions=int(e.get("PBEM_SMTPD_SESSIONS", "300")),
        smtpd_idle_timeout_s=int(e.get("PBEM_SMTPD_IDLE_TIMEOUT_S", "60")),
        outbound_backoff_s=float(e.get("PBEM_OUTBOUND_BACKOFF_S", "15")),
        require_auth=e.get("PBEM_REQUIRE_AUTH", "").strip().lower(),
        authserv_id=e.get("PBEM_AUTHSERV_ID", "").strip().lower(),
        dns=e.get("PBEM_DNS", "").strip().lower(),
        dns_timeout_s=float(e.get("PBEM_DNS_TIMEOUT_S", "3")),
        send_inline=e.get("PBEM_SEND_INLINE", "1").strip().lower() not in ("0", "no", "false", "off"),
        dkim_key_file=e.get("PBEM_DKIM_KEY_FILE", "").strip(),
        dkim_selector=e.get("PBEM_DKIM_SELECTOR", "pbem").strip() or "pbem",
        dkim_domain=e.get("PBEM_DKIM_DOMAIN", "").strip().lower(),
        bounce_soft_limit=max(1, int(e.get("PBEM_BOUNCE_SOFT_LIMIT", "3"))),
        bounce_soft_days=max(1, int(e.get("PBEM_BOUNCE_SOFT_DAYS", "7"))),
    )


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
