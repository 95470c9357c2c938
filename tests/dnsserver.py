"""A real DNS server on loopback for the tests (dnslib): pbem's own DKIM
and SPF checks (pbem/mail/senders.py) query it over UDP, from the test
process and from the Celery workers the tests start, as they would query
the Internet's DNS.

Every domain has the SPF record ``v=spf1 ip4:127.0.0.0/8 -all`` unless a
test gives it another (``records``): mail the tests send from loopback
passes SPF for its envelope sender's domain, as a provider's mail passes
for the provider's domain. DKIM keys are published with ``publish_key``
(a real key pair) or ``publish_numbers`` (any modulus and exponent: a
hostile zone's). A name under a domain in ``silent`` gets no answer at all,
as from a name server that never answers; ``queries`` lists the names asked.

Names have A and AAAA records only where a test gives them (``hosts``: a
list of addresses, or a callable that answers each query anew, as
``Rebinding`` does: a name that answers one address, then another)."""
from __future__ import annotations

import threading

DEFAULT_SPF = "v=spf1 ip4:127.0.0.0/8 -all"
records: dict[str, list[str]] = {}  # TXT records by name (lower case, no trailing dot)
hosts: dict[str, "list[str] | Rebinding"] = {}  # A and AAAA records by name (lower case, no trailing dot)
silent: set[str] = set()  # domains whose names get no answer (lower case)
queries: list[str] = []  # every name asked, in order (lower case)
_lock = threading.Lock()
_server = None
_address = ""


def address() -> str:
    """host:port of the server, started on first use (one per test process)."""
    global _server, _address
    with _lock:
        if _server is None:
            from dnslib import AAAA, QTYPE, RR, TXT, A, DNSError
            from dnslib.server import BaseResolver, DNSLogger, DNSServer

            from pbem.bench.env import free_port

            class Resolver(BaseResolver):
                def resolve(self, request, handler):
                    reply = request.reply()
                    name = str(request.q.qname).rstrip(".").lower()
                    queries.append(name)
                    if any(name == d or name.endswith("." + d) for d in silent):
                        raise DNSError("silent")  # dnslib sends nothing back
                    if request.q.qtype in (QTYPE.TXT, QTYPE.ANY):
                        for value in txt(name):
                            chunks = [value[i:i + 250] for i in range(0, len(value), 250)]
                            reply.add_answer(RR(request.q.qname, QTYPE.TXT, rdata=TXT(chunks), ttl=60))
                    if request.q.qtype in (QTYPE.A, QTYPE.AAAA, QTYPE.ANY) and name in hosts:
                        entry = hosts[name]
                        answers = entry(request.q.qtype) if callable(entry) else entry
                        for a in answers:
                            v6 = ":" in a
                            if request.q.qtype == QTYPE.ANY or (request.q.qtype == QTYPE.AAAA) == v6:
                                reply.add_answer(RR(request.q.qname, QTYPE.AAAA if v6 else QTYPE.A,
                                                    rdata=AAAA(a) if v6 else A(a), ttl=0))
                    return reply

            port = free_port()
            _server = DNSServer(Resolver(), port=port, address="127.0.0.1",
                                logger=DNSLogger(log="-request,-reply,-truncated,-error,-recv,-send,-data"))
            _server.start_thread()
            _address = f"127.0.0.1:{port}"
        return _address


class Rebinding:
    """A name's A records that change: ``first`` for the first ``times`` A queries, ``then`` for
    every later one (DNS rebinding: a name checked as public, then used as private). Counts its
    A queries (``asked``); ``reset()`` starts again."""

    def __init__(self, first: str, then: str, times: int = 1) -> None:
        self.first, self.then, self.times = first, then, times
        self.asked = 0
        self._lock = threading.Lock()

    def __call__(self, qtype) -> list[str]:
        from dnslib import QTYPE

        if qtype != QTYPE.A:
            return []
        with self._lock:
            self.asked += 1
            return [self.first if self.asked <= self.times else self.then]

    def reset(self) -> None:
        with self._lock:
            self.asked = 0


def txt(name: str) -> list[str]:
    if name in records:
        return records[name]
    if name.startswith("_dmarc.") or "._domainkey." in name or name.startswith("_"):
        return []
    return [DEFAULT_SPF]


def publish_key(selector: str, domain: str, bits: int = 2048) -> bytes:
    """A new RSA key for DKIM, its public half published at
    ``<selector>._domainkey.<domain>``; returns the private key (PEM)."""
    import base64

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pub = key.public_key().public_bytes(serialization.Encoding.DER,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
    records[f"{selector}._domainkey.{domain}".lower()] = [f"v=DKIM1; k=rsa; p={base64.b64encode(pub).decode()}"]
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())


def publish_numbers(selector: str, domain: str, modulus: int, exponent: int) -> None:
    """A DKIM "key" of any modulus and exponent at ``<selector>._domainkey.<domain>``,
    as a hostile zone may publish (no private half: none is needed to make
    a verifier compute with it)."""
    import base64

    def length(n: int) -> bytes:
        if n < 128:
            return bytes([n])
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        return bytes([0x80 | len(b)]) + b

    def tlv(tag: int, body: bytes) -> bytes:
        return bytes([tag]) + length(len(body)) + body

    def integer(n: int) -> bytes:
        return tlv(0x02, n.to_bytes(n.bit_length() // 8 + 1, "big"))

    rsa = tlv(0x30, integer(modulus) + integer(exponent))
    algorithm = tlv(0x30, tlv(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
    spki = tlv(0x30, algorithm + tlv(0x03, b"\x00" + rsa))
    records[f"{selector}._domainkey.{domain}".lower()] = [f"v=DKIM1; k=rsa; p={base64.b64encode(spki).decode()}"]
