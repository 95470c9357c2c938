"""What the transport allows and how long it waits, from the settings: the
allow-list, the DNS server names are asked of, the time and size bounds,
and the operator's HTTPS proxy and certificate authorities (read from the
environment at each call, as every HTTP client reads them)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from pbem.config import Settings, settings

from .rule import Net, networks

MAX_BYTES = 1 << 20  # a chat service's answer is a few kilobytes: more is not an answer


@dataclass(frozen=True)
class Policy:
    allow: tuple[Net, ...] = ()
    dns: str = ""  # "host:port" of the DNS server to ask; "" = the system's (/etc/resolv.conf)
    dns_timeout_s: float = 3.0  # one name's lookups, in all
    timeout_s: float = 10.0  # to connect, and one request's whole exchange (connect, send, answer)
    budget_s: float = 30.0  # every request of one guarded block (a Matrix delivery makes four)
    max_bytes: int = MAX_BYTES  # one answer's body
    proxy: str = ""  # "host:port" of an HTTPS proxy (CONNECT to the checked address), or ""
    ca_file: str = ""  # the certificate authorities to trust instead of certifi's (a lab's own), or ""


def policy(cfg: Settings | None = None, env: dict | None = None) -> Policy:
    """The policy of the current settings (``cfg``) and environment (``env``)."""
    cfg = cfg or settings()
    e = os.environ if env is None else env
    dns = cfg.dns if cfg.dns not in ("", "system", "off") else ""
    proxy = (e.get("HTTPS_PROXY") or e.get("https_proxy") or "").strip()
    return Policy(allow=networks(cfg.http_allow), dns=dns, dns_timeout_s=cfg.dns_timeout_s,
                  timeout_s=cfg.notify_timeout_s, budget_s=3 * cfg.notify_timeout_s,
                  proxy=proxy.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1],
                  ca_file=(e.get("REQUESTS_CA_BUNDLE") or "").strip())
