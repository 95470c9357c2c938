"""Which addresses pbem may call for a user: the rule, on an address as the
socket will be given it.

An address is callable when it is reachable from the whole Internet, and is
not this machine's own: ``ipaddress``' ``is_global``, with the gaps of
Python's tables closed by IANA's special-purpose registries (so the answer
does not change with the Python release: 3.11 calls 192.0.0.192, multicast,
6to4, NAT64, ``::a.b.c.d`` and the documentation and SRv6 blocks global);
an IPv6 address that carries an IPv4 one (IPv4-mapped ``::ffff:a.b.c.d``,
NAT64 ``64:ff9b::a.b.c.d``, 6to4 ``2002:aabb:ccdd::``) is judged by the
IPv4 address it leads to. The operator's allow-list (settings().http_allow,
``PBEM_HTTP_ALLOW``: a lab's or the tests' networks) counts as callable.

A host is a name, or an address written as an address: four decimal
numbers, or IPv6. ``2130706433``, ``0x7f.1``, ``0177.0.0.1`` and ``127.1``
are read as 127.0.0.1 by the C library and as a name by DNS: pbem refuses
them rather than guess."""
from __future__ import annotations

import ipaddress
import re
import time
from pathlib import Path
from typing import Iterable

from pbem.i18n import _

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
Net = ipaddress.IPv4Network | ipaddress.IPv6Network

# Not reachable from the Internet (IANA's IPv4 and IPv6 special-purpose registries), whatever this
# Python's is_global says. Whole blocks, even where the registry calls a few of their addresses
# global (anycast services pbem has no reason to call).
NOT_GLOBAL: tuple[Net, ...] = tuple(ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
    "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    "::/96",  # the unspecified address, loopback and the old IPv4-compatible ::a.b.c.d
    "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64", "2001::/23", "2001:db8::/32", "3fff::/20", "5f00::/16",
    "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"))
NAT64 = ipaddress.ip_network("64:ff9b::/96")
SIX_TO_FOUR = ipaddress.ip_network("2002::/16")

_NUMERIC_LABEL = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$", re.I)


def literal(host: str) -> IP | None:
    """The address ``host`` is written as (IPv6 with or without brackets), or None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def numeric_but_not_an_address(host: str) -> bool:
    """Whether ``host`` is no name (its last label is a number: no top-level domain is) and no
    address written as one either: ``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``."""
    if literal(host) is not None:
        return False
    labels = host.rstrip(".").split(".")
    return bool(labels) and bool(_NUMERIC_LABEL.match(labels[-1]))


def networks(texts: Iterable[str]) -> tuple[Net, ...]:
    """The allow-list's networks (``10.0.0.5``, ``10.0.0.0/24``, ``fd00::/8``); ValueError names a bad one."""
    out = []
    for text in texts:
        text = text.strip()
        if text:
            try:
                out.append(ipaddress.ip_network(text, strict=False))
            except ValueError as e:
                raise ValueError(f"{text!r} is no network ({e})") from None
    return tuple(out)


def why_not(address: IP | str, allow: tuple[Net, ...] = (), own: frozenset[IP] | None = None) -> str:
    """Why pbem will not call ``address``, in the reader's language, or "" when it may.
    ``own``: this machine's addresses (own_addresses() when None)."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
        if ip.ipv4_mapped is not None:  # a socket given ::ffff:a.b.c.d talks to a.b.c.d
            ip = ip.ipv4_mapped
    if any(ip in n for n in allow):
        return ""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = None
        if ip in NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        elif ip in SIX_TO_FOUR:
            inner = ip.sixtofour
        if inner is not None and why_not(inner, allow, own):
            return _("it leads to %(address)s, on a private network", address=str(inner))
    if any(ip in n for n in NOT_GLOBAL) or not ip.is_global or ip.is_multicast:
        return _("it is on a private network")
    if ip in (own_addresses() if own is None else own):
        return _("it is this server's own address")
    return ""


# ---------------------------------------------------------------- this machine's addresses

_OWN_TTL_S = 60.0
_own: tuple[float, frozenset[IP]] = (0.0, frozenset())


def own_addresses() -> frozenset[IP]:
    """The addresses of this machine's interfaces, as Linux lists them
    (/proc/net/fib_trie, /proc/net/if_inet6; read again after a minute).
    A public address of the server's own reaches every service listening on
    all interfaces, past a firewall that trusts the machine's own traffic.
    Elsewhere than Linux: none known."""
    global _own
    at, found = _own
    now = time.monotonic()
    if found and now - at < _OWN_TTL_S:
        return found
    found = frozenset(_read_fib_trie() | _read_if_inet6())
    _own = (now, found)
    return found


def _read_fib_trie(path: Path = Path("/proc/net/fib_trie")) -> set[IP]:
    out: set[IP] = set()
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return out
    last = None
    for line in lines:
        text = line.strip()
        if text.startswith("|--"):
            last = text[3:].strip()
        elif text == "/32 host LOCAL" and last:
            try:
                out.add(ipaddress.IPv4Address(last))
            except ValueError:
                pass
    return out


def _read_if_inet6(path: Path = Path("/proc/net/if_inet6")) -> set[IP]:
    out: set[IP] = set()
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        word = line.split(" ", 1)[0]
        if len(word) == 32:
            try:
                out.add(ipaddress.IPv6Address(int(word, 16)))
            except ValueError:
                pass
    return out
