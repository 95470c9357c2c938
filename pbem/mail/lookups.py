"""The DNS of the sender checks (senders.py), asked by the worker, never by
the receiver: a name server that never answers can delay only the check of
the mail that names it, never another mail's 250.

- **One budget per mail.** Every query made while one mail is checked
  comes out of one time budget (PBEM_DNS_BUDGET_S, in all: SPF with its
  includes and redirects, the DKIM keys, the probe of an open SPF record),
  each query within PBEM_DNS_TIMEOUT_S. A query the budget cannot pay for is
  not sent: the check ends as ``temperror``, which trusts nobody.
- **Answers kept per name** in this process for their TTL (at most
  MAX_TTL_S; a name that does not exist, or has no record of the type, for
  NEGATIVE_TTL_S), so that mails from one domain ask the DNS once.
- **Failures kept too.** A name whose server did not answer (a timeout, a
  SERVFAIL) is not asked again for FAILED_FOR_S, and neither is the
  domain whose check needed it (``remember_failure``): a flood of mail from
  a domain whose name server never answers costs one budget, not one per
  mail."""
from __future__ import annotations

import contextvars
import threading
import time
from contextlib import contextmanager
from typing import Any

MAX_TTL_S = 3600  # an answer is kept no longer, whatever its TTL
NEGATIVE_TTL_S = 60  # no such name, or no record of the type (a key published a minute later is seen)
FAILED_FOR_S = 120  # a name or domain whose DNS did not answer is not asked again for this long
MAX_ENTRIES = 20_000  # the cache never grows past this (the oldest go first)


class Temporary(Exception):
    """No answer: a timeout, a failing server (``budget`` False), or the mail's budget spent (True)."""

    def __init__(self, message: str, budget: bool = False):
        super().__init__(message)
        self.budget = budget


_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("pbem_dns_deadline", default=None)
_lock = threading.Lock()
_answers: dict[tuple[str, str], tuple[float, Any]] = {}  # (name, type) -> (until, rdata list | Temporary)
_failed_domains: dict[str, float] = {}  # domain -> until
_resolver = None
_resolver_for: tuple[str, float] | None = None


def configure(setting: str, timeout_s: float) -> None:
    """The server asked (PBEM_DNS, read by config.dns_server; "" = the
    system's) and the longest one query may wait. A change forgets what was kept."""
    global _resolver, _resolver_for
    import dns.resolver

    from pbem.config import dns_server

    if _resolver_for == (setting, timeout_s):
        return
    server = dns_server(setting)
    if server is None:
        r = dns.resolver.Resolver()  # the system's: /etc/resolv.conf
    else:
        r = dns.resolver.Resolver(configure=False)
        r.nameservers, r.port = [server[0]], server[1]
    r.timeout = r.lifetime = timeout_s
    r.cache = None  # ours keeps failures and bounds the TTLs
    with _lock:
        _resolver, _resolver_for = r, (setting, timeout_s)
        _answers.clear()
        _failed_domains.clear()


def forget() -> None:
    """Forget every answer and failure kept (the tests: each its own zone)."""
    with _lock:
        _answers.clear()
        _failed_domains.clear()


@contextmanager
def budget(seconds: float):
    """The queries inside share ``seconds`` in all."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def failed_lately(domain: str) -> bool:
    """Whether checking ``domain`` met a DNS that did not answer, less than FAILED_FOR_S ago."""
    until = _failed_domains.get(domain.lower().rstrip("."))
    return until is not None and until > time.monotonic()


def remember_failure(domain: str) -> None:
    """Checks of ``domain`` fail at once for FAILED_FOR_S: its DNS did not
    answer (never for a spent budget: another domain may have spent it)."""
    with _lock:
        _failed_domains[domain.lower().rstrip(".")] = time.monotonic() + FAILED_FOR_S
        _trim(_failed_domains)


def lookup(name: str, rdtype: str) -> list:
    """The records of ``name`` (dnspython rdata), from the cache or the DNS
    within the mail's budget; [] when there are none. Raises Temporary."""
    import dns.exception
    import dns.resolver

    key = (name.lower().rstrip("."), rdtype.upper())
    now = time.monotonic()
    kept = _answers.get(key)
    if kept is not None and kept[0] > now:
        if isinstance(kept[1], Temporary):
            raise kept[1]
        return kept[1]
    if _resolver is None:
        raise Temporary("no DNS configured")
    left = remaining()
    wait = _resolver.lifetime if left is None else min(_resolver.lifetime, left)
    if wait <= 0.01:
        raise Temporary("the mail's DNS budget is spent", budget=True)
    try:
        answer = _resolver.resolve(key[0] + ".", key[1], lifetime=wait, raise_on_no_answer=False, search=False)
        records = list(answer.rrset) if answer.rrset is not None else []
        ttl = min(answer.rrset.ttl, MAX_TTL_S) if answer.rrset is not None else NEGATIVE_TTL_S
        _keep(key, records, ttl)
        return records
    except dns.resolver.NXDOMAIN:
        _keep(key, [], NEGATIVE_TTL_S)
        return []
    except (dns.exception.Timeout, dns.resolver.NoNameservers, dns.resolver.LifetimeTimeout) as e:
        server = left is None or wait >= _resolver.lifetime * 0.99  # a full wait: the server, not the budget
        failure = Temporary(f"{key[0]} {key[1]}: {type(e).__name__}", budget=not server)
        if server:
            _keep(key, failure, FAILED_FOR_S)
        raise failure from None
    except dns.exception.DNSException as e:  # a malformed name or answer: nothing to find there
        _keep(key, [], NEGATIVE_TTL_S)
        return []


def txt(name: str) -> list[bytes]:
    """The TXT records of ``name``, each its strings joined."""
    return [b"".join(r.strings) for r in lookup(name, "TXT")]


def _keep(key, value, ttl: float) -> None:
    with _lock:
        _answers[key] = (time.monotonic() + max(0.0, ttl), value)
        _trim(_answers)


def _trim(table: dict) -> None:
    """Called with the lock: the expired go, then the oldest, past MAX_ENTRIES."""
    if len(table) <= MAX_ENTRIES:
        return
    now = time.monotonic()
    for k in [k for k, v in table.items() if (v[0] if isinstance(v, tuple) else v) <= now]:
        del table[k]
    while len(table) > MAX_ENTRIES:
        del table[next(iter(table))]
