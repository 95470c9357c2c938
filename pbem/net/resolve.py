"""A host's addresses, each checked by the rule: a name is resolved once
(in a guarded block, once for the whole block) through DNS -- the server of
``PBEM_DNS``, or the system's from /etc/resolv.conf --, its A and AAAA
records within settings().dns_timeout_s in all. Every address must pass:
a name that also answers a private address is refused (it would be the
attacker's choice which one a client takes)."""
from __future__ import annotations

import socket
import threading
import time

from pbem.config import dns_server
from pbem.i18n import _

from .policy import Policy
from .rule import IP, literal, numeric_but_not_an_address, why_not
from .scope import Scope, ours


class Refused(OSError):
    """pbem will not call this host; ``str()`` says why, in the reader's language."""

    def __init__(self, host: str, why: str) -> None:
        self.host, self.why = host, why
        super().__init__(_("pbem does not send to %(host)s: %(why)s", host=host, why=why))


def addresses(host: str, policy: Policy, scope: Scope | None = None) -> list[IP]:
    """The checked addresses of ``host``; Refused when there is none, or one fails the rule."""
    host = host.strip().lower()
    if scope is not None and host in scope.resolved:
        return scope.resolved[host]
    ip = literal(host)
    if ip is not None:
        found = [ip]
    elif numeric_but_not_an_address(host) or not host:
        raise Refused(host, _("an address is written as four numbers from 0 to 255, such as 203.0.113.7"))
    else:
        found = _lookup(host, policy)
        if not found:
            raise Refused(host, _("the name does not resolve"))
    for a in found:
        why = why_not(a, policy.allow)
        if why:
            raise Refused(host if ip is not None else f"{host} ({a})", why)
    if scope is not None:
        scope.resolved[host] = found
    return found


def refusal(host: str, policy: Policy) -> str:
    """Why pbem will not call ``host`` (the reason alone), or "" when it may."""
    try:
        addresses(host, policy)
    except Refused as e:
        return e.why
    return ""


_resolvers: dict[tuple[str, float], object] = {}
_resolvers_lock = threading.Lock()


def _resolver(policy: Policy):
    """dnspython's resolver for the policy's server (the system's when none), made once."""
    import dns.resolver

    key = (policy.dns, policy.dns_timeout_s)
    with _resolvers_lock:
        r = _resolvers.get(key)
        if r is None:
            server = dns_server(policy.dns) if policy.dns else None  # as PBEM_DNS is read everywhere
            if server is not None:
                r = dns.resolver.Resolver(configure=False)
                r.nameservers = [server[0]]
                r.port = server[1]
            else:
                r = dns.resolver.Resolver()  # /etc/resolv.conf
            _resolvers[key] = r
        return r


def _lookup(host: str, policy: Policy) -> list[IP]:
    """A and AAAA records of ``host``; [] when it has none or DNS does not answer in time."""
    import dns.exception
    import dns.resolver

    try:
        resolver = _resolver(policy)
    except dns.resolver.NoResolverConfiguration:
        return _system_lookup(host)
    found: list[IP] = []
    end = time.monotonic() + policy.dns_timeout_s
    with ours():
        for rdtype in ("A", "AAAA"):
            left = end - time.monotonic()
            if left <= 0:
                break
            try:
                answer = resolver.resolve(host.rstrip(".") + ".", rdtype, lifetime=left, search=False)
            except (dns.exception.DNSException, OSError, ValueError):
                continue
            for rr in answer:
                a = literal(rr.to_text())
                if a is not None and a not in found:
                    found.append(a)
    return found


def _system_lookup(host: str) -> list[IP]:
    """The C library's answer (no resolv.conf: a container without one)."""
    try:
        with ours():
            infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    out: list[IP] = []
    for info in infos:
        a = literal(str(info[4][0]).split("%")[0])
        if a is not None and a not in out:
            out.append(a)
    return out
