"""Who sent a mail, as pbem can tell: checked in the worker, before the
mail's transaction (identity.check_sender), never by the receiver, which
answers 250 without asking the network.

- **Behind our own MX** (PBEM_MX_AUTHSERV_ID, PBEM_MX_ADDRESSES): a mail
  whose peer is one of the MX's addresses is judged by the MX's topmost
  Authentication-Results in its name (``mx_verdict``: what its milters,
  OpenDKIM/OpenDMARC or rspamd, wrote); without one, by pbem's own DKIM
  check (SPF cannot work there: the peer is the MX, not the sender's server).
- **Otherwise pbem checks itself**, against DNS (lookups.py: one time
  budget per mail, answers and failures kept per name and domain): DKIM
  (dkimpy) of at most MAX_CHECKED signatures, those by the From's domain;
  a key over MAX_KEY_BITS bits, or with an exponent other than a small one,
  is refused before any arithmetic (``vet_key``); SPF (pyspf) from what the
  receiver saw of the sending server (its IP, HELO name and envelope
  sender), where a pass counts only if the record would not also pass an
  address nobody can own (``+all``, ``0.0.0.0/0``, an include of either).

Authentication-Results headers the mail carries are never read otherwise:
the receiver deletes those that claim our names (``clean_results``, RFC
8601 §5), and keeps the MX's own only when the MX sent the mail.

The verdict is kept as an Authentication-Results value (``<authserv-id>;
spf=pass smtp.mailfrom=...; dkim=pass header.d=...``; the MX's as it wrote
it), read by authres.py; it is trusted only because pbem wrote it into its
own table."""
from __future__ import annotations

import base64
import ipaddress
import logging
import re

from pbem.config import Settings, dns_server, settings

from . import authres, lookups
from .authres import aligned, domain_of, failed_for, passes_for  # noqa: F401 - the verdict's readers
from .parse import from_address

log = logging.getLogger("pbem.senders")

MAX_CHECKED = 2  # DKIM signatures checked per mail: the first ones by the From's domain
MAX_SIGNATURES_READ = 50  # DKIM-Signature fields looked at to find them
MAX_KEY_BITS = 4096  # RFC 8301: verifiers must take 1024 to 4096 bits; larger keys cost seconds of CPU each
MIN_KEY_BITS = 1024
SMALL_EXPONENTS = frozenset({3, 5, 17, 257, 65537})  # RSA public exponents in use; others cost a long pow()
MAX_KEY_CHARS = 800  # base64 of a 4096-bit key's SubjectPublicKeyInfo is 736: longer is refused unread
MAX_SIGNED_FIELDS = 100  # h= entries (dkimpy looks each one up among the headers)
MAX_HEADER_BYTES = 64 * 1024  # a header block larger than this is not given to dkimpy (it folds in O(n²))
MAX_HEADER_LINES = 1000
# SPF's probe: addresses reserved for documentation (RFC 5737, RFC 3849), that no record may honestly allow
PROBE_V4, PROBE_V6 = "198.51.100.77", "2001:db8:5b::77"


def _resolver(cfg: Settings) -> None:
    """Point dnspython's default resolver at the configured server (what
    dkimpy's own lookups use when called without pbem's, as tests do)."""
    import dns.resolver

    server = dns_server(cfg.dns)
    if server is None:
        dns.resolver.default_resolver = None  # read /etc/resolv.conf again on first use
        return
    r = dns.resolver.Resolver(configure=False)
    r.nameservers, r.port = [server[0]], server[1]
    r.timeout = r.lifetime = cfg.dns_timeout_s
    dns.resolver.default_resolver = r


def authserv_id(cfg: Settings | None = None) -> str:
    cfg = cfg or settings()
    return (cfg.authserv_id or cfg.domain).lower()


def from_mx(ip: str, cfg: Settings) -> bool:
    """Whether a peer is one of our MX's addresses (and an MX is trusted at all)."""
    if not cfg.mx_authserv_id or not cfg.mx_addresses or not ip:
        return False
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if addr.version == 6 and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return any(addr in ipaddress.ip_network(n) for n in cfg.mx_addresses)


_RECEIVED_FROM_IP = re.compile(r"\[(?:IPv6:)?([0-9A-Fa-f:.]{2,45})\]")


def sending_server(received: list[str], peer: str, cfg: Settings | None = None) -> str:
    """The server that sent a mail to us, as pbem can tell: the receiver's
    peer, or for mail our own MX relayed, the client the MX named in the
    Received field it added (the topmost; the ones below it anybody may
    write). An IPv6 client counts by its /64 (one customer's network). ""
    when nothing says."""
    cfg = cfg or settings()
    ip = peer or ""
    if from_mx(ip, cfg):
        m = _RECEIVED_FROM_IP.search(received[0]) if received else None
        ip = m.group(1) if m else ""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:64]
    if addr.version == 6 and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return str(ipaddress.ip_network(f"{addr}/64", strict=False)) if addr.version == 6 else str(addr)


def verify(raw: bytes, *, ip: str, helo: str, mail_from: str, cfg: Settings | None = None) -> str:
    """The verdict on one mail, as an Authentication-Results value. Never
    raises: what could not be checked is ``temperror`` or ``permerror``,
    which trust nobody."""
    cfg = cfg or settings()
    ours = authserv_id(cfg)
    relayed = from_mx(ip, cfg)
    if relayed:
        mx = mx_verdict(raw, cfg.mx_authserv_id)
        if mx is not None:
            return mx
    if cfg.dns == "off":
        return ours + "; none (sender checks are off)"
    try:
        lookups.configure(cfg.dns, cfg.dns_timeout_s)
        from_domain = domain_of(from_address(raw))
        with lookups.budget(cfg.dns_budget_s):
            dkim_parts = _dkim(raw, from_domain)  # first: it survives relays, and names the From's domain
            spf_part = ("spf=none (relayed by our MX, which wrote no verdict)" if relayed
                        else _spf(ip, helo, mail_from))
        return "; ".join([ours, spf_part, *dkim_parts])
    except Exception as e:  # noqa: BLE001 - a failure to check is never a pass
        log.warning("sender check failed: %r", e)
        return ours + "; spf=temperror; dkim=temperror (the check failed)"


# ---------------------------------------------------------------- SPF


def _spf(ip: str, helo: str, mail_from: str) -> str:
    domain = mail_from.rpartition("@")[2].lower().strip().rstrip(".")
    if not ip or not domain:
        return "spf=none"
    if lookups.failed_lately(domain):
        return f"spf=temperror smtp.mailfrom={domain} (its DNS did not answer lately)"
    result = _spf_result(ip, mail_from, helo or domain)
    if result == "pass":
        # a pass proves the sender only if the record does not pass everyone: ask it about an address
        # nobody can own (a record's +all, a 0.0.0.0/0, an include or redirect of such a record, a
        # macro that matches anything: all pass it too)
        probe = _spf_result(PROBE_V6 if ":" in ip else PROBE_V4, mail_from, helo or domain)
        if probe == "pass":
            return f"spf=neutral smtp.mailfrom={domain} (its record allows any server: not proof)"
        if probe in ("temperror", "permerror"):
            return f"spf=temperror smtp.mailfrom={domain} (could not tell whether its record allows any server)"
    return f"spf={_word(result)} smtp.mailfrom={domain}"


def _spf_result(ip: str, mail_from: str, helo: str) -> str:
    import spf

    _install_spf_lookup()
    try:
        result, _code, _text = spf.query(i=ip, s=mail_from, h=helo, timeout=60).check()
    except Exception as e:  # noqa: BLE001 - a library error is a failure to check, never a pass
        log.warning("SPF check of %s failed: %r", mail_from.rpartition("@")[2], e)
        return "temperror"
    return result


def _spf_lookup(name, qtype, strict=True, timeout=30):
    """pyspf's DNSLookup (its module-level hook for a DNS library), through
    lookups: the mail's budget and the cache. The records as pyspf's own
    dnspython driver gives them."""
    import spf

    try:
        records = lookups.lookup(str(name), qtype)
    except lookups.Temporary as e:
        raise spf.TempError(f"DNS {e}") from None
    out = []
    for r in records:
        if qtype in ("A", "AAAA"):
            out.append(((name, qtype), r.address))
        elif qtype == "MX":
            out.append(((name, qtype), (r.preference, r.exchange)))
        elif qtype == "PTR":
            out.append(((name, qtype), r.target.to_text(True)))
        elif qtype in ("TXT", "SPF"):
            out.append(((name, qtype), r.strings))
    return out


def _install_spf_lookup() -> None:
    import spf

    if spf.DNSLookup is not _spf_lookup:
        spf.DNSLookup = _spf_lookup


# ---------------------------------------------------------------- DKIM


def _dkim(raw: bytes, from_domain: str) -> list[str]:
    """The results of the first MAX_CHECKED signatures by the From's domain
    (relaxed alignment); the others are not checked (they would prove
    nothing about the From, and each would cost a lookup and a verification)."""
    head = _head(raw)
    count = len(re.findall(rb"(?im)^dkim-signature\s*:", head))
    if count == 0:
        return ["dkim=none"]
    if len(head) > MAX_HEADER_BYTES or head.count(b"\n") > MAX_HEADER_LINES:
        return ["dkim=permerror (the header block is too large to check)"]
    import dkim
    import dkim.util

    try:
        d = dkim.DKIM(raw, minkey=MIN_KEY_BITS, logger=_QUIET)
    except Exception:  # noqa: BLE001 - a header dkimpy cannot read
        return ["dkim=permerror (unreadable header)"]
    chosen = []
    signatures = [v for k, v in d.headers if k.lower() == b"dkim-signature"]
    for idx, value in enumerate(signatures[:MAX_SIGNATURES_READ]):
        try:
            tags = dkim.util.parse_tag_value(value)
        except Exception:  # noqa: BLE001
            continue
        domain = tags.get(b"d", b"").decode("ascii", "replace").strip().lower()
        if aligned(domain, from_domain):
            chosen.append((idx, domain, tags))
            if len(chosen) == MAX_CHECKED:
                break
    if not chosen:
        return [f"dkim=neutral ({count} signature(s), none by the From's domain: not checked)"]
    return [_one_signature(d, idx, domain, tags) for idx, domain, tags in chosen]


def _one_signature(d, idx: int, domain: str, tags: dict) -> str:
    import dkim

    where = f"header.d={domain}"
    if lookups.failed_lately(domain):
        return f"dkim=temperror {where} (its DNS did not answer lately)"
    selector = tags.get(b"s", b"").decode("ascii", "replace").strip()
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}", selector) or not re.fullmatch(r"[a-z0-9_.-]{1,253}", domain):
        return f"dkim=permerror {where} (malformed selector or domain)"
    if len([h for h in tags.get(b"h", b"").split(b":") if h.strip()]) > MAX_SIGNED_FIELDS:
        return f"dkim=permerror {where} (signs more than {MAX_SIGNED_FIELDS} header fields)"
    try:
        records = lookups.txt(f"{selector}._domainkey.{domain}")
    except lookups.Temporary as e:
        if not e.budget:  # its own DNS did not answer: its next mails fail at once (another selector too)
            lookups.remember_failure(domain)
        return f"dkim=temperror {where} (no DNS answer for its key)"
    record = next((r for r in records if r.strip()), b"")
    problem, key_bytes = vet_key(record)
    if problem:
        return f"dkim=permerror {where} ({problem})"
    signature = re.sub(rb"\s+", b"", tags.get(b"b", b""))
    if key_bytes and len(signature) > (key_bytes * 4 // 3) + 4:  # an RSA signature is as long as its key
        return f"dkim=permerror {where} (signature longer than its key)"
    try:
        ok = d.verify(idx=idx, dnsfunc=lambda _name, timeout=5: record)
    except dkim.DKIMException as e:
        return f"dkim=permerror {where} ({type(e).__name__})"
    except Exception as e:  # noqa: BLE001 - a malformed signature proves nothing
        return f"dkim=permerror {where} ({type(e).__name__})"
    return f"dkim={'pass' if ok else 'fail'} {where}"


def vet_key(record: bytes) -> tuple[str, int]:
    """("", the key's size in bytes) for a DKIM key record pbem will use,
    or (why not, 0): none, revoked, unreadable, an unknown algorithm, an RSA
    key over MAX_KEY_BITS (refused by its length, unread) or under
    MIN_KEY_BITS, or with a public exponent other than a small one. Parsing
    an RSA key of bounded length costs no arithmetic; dkimpy's verification
    would cost a pow() with that exponent and modulus (an 8192-bit pair: seconds)."""
    import dkim.util
    from dkim.crypto import parse_public_key

    if not record:
        return "no key published", 0
    try:
        tags = dkim.util.parse_tag_value(record)
    except Exception:  # noqa: BLE001
        return "unreadable key record", 0
    if tags.get(b"v", b"DKIM1") != b"DKIM1":
        return "not a DKIM key record", 0
    p = re.sub(rb"\s+", b"", tags.get(b"p", b""))
    if not p:
        return "key revoked", 0
    kind = tags.get(b"k", b"rsa").strip().lower()
    if kind == b"ed25519":
        try:
            import nacl.signing  # noqa: F401 - dkimpy verifies ed25519 with it
        except ImportError:
            return "ed25519 key: not supported here", 0
        return ("", 0) if len(p) <= 64 else ("ed25519 key too long", 0)
    if kind != b"rsa":
        return "unknown key algorithm", 0
    if len(p) > MAX_KEY_CHARS:
        return f"key over {MAX_KEY_BITS} bits: refused", 0
    try:
        pk = parse_public_key(base64.b64decode(p))
        modulus, exponent = pk["modulus"], pk["publicExponent"]
    except Exception:  # noqa: BLE001
        return "unreadable RSA key", 0
    if modulus.bit_length() > MAX_KEY_BITS:
        return f"key over {MAX_KEY_BITS} bits: refused", 0
    if modulus.bit_length() < MIN_KEY_BITS:
        return f"key under {MIN_KEY_BITS} bits: refused", 0
    if exponent not in SMALL_EXPONENTS:
        return "key with an unusual public exponent: refused", 0
    return "", (modulus.bit_length() + 7) // 8


class _Quiet:
    """dkimpy's logger: its messages are the verdict's (``permerror (...)``), not the log's."""

    def debug(self, *a, **k): ...
    def info(self, *a, **k): ...
    def warning(self, *a, **k): ...
    def error(self, *a, **k): ...
    def isEnabledFor(self, *a): return False  # noqa: E704


_QUIET = _Quiet()


def _word(result: str) -> str:
    result = (result or "none").lower()
    return result if result in ("pass", "fail", "softfail", "neutral", "none", "temperror", "permerror") \
        else "permerror"


# ---------------------------------------------------------------- Authentication-Results in the mail


_AR_NAME = re.compile(rb"(?i)^authentication-results\s*:")
_AR_ID = re.compile(rb"(?i)^authentication-results\s*:\s*(?:\([^)]*\)\s*)*\"?([^\s;\"(]+)")
_RECEIVED = re.compile(rb"(?i)^received\s*:")


def _head(raw: bytes) -> bytes:
    end = re.search(rb"\r?\n\r?\n", raw)
    return raw[:end.start() + 1] if end else raw


def _fields(head: bytes) -> list[list[bytes]]:
    """The header block's fields, each its lines (a field may be folded onto
    several lines, even right after its colon)."""
    fields: list[list[bytes]] = []
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1].append(line)  # a folded continuation of the field before
        else:
            fields.append([line])
    return fields


def _claims(field: list[bytes]) -> str | None:
    """The authserv-id an Authentication-Results field claims (lower case), or None for another field."""
    if not _AR_NAME.match(field[0]):
        return None
    m = _AR_ID.match(b" ".join(part.strip() for part in field))
    return m.group(1).decode("ascii", "replace").lower() if m else ""


def _top_block(fields: list[list[bytes]], mx_id: str) -> list[int]:
    """The MX's own Authentication-Results: the topmost such field of the
    header block, if it claims the MX's id, and the fields in that name
    right below it (OpenDKIM and OpenDMARC each write one), up to the first
    Received field or Authentication-Results in another name."""
    block: list[int] = []
    for i, field in enumerate(fields):
        claim = _claims(field)
        if block and (claim is not None and claim != mx_id or _RECEIVED.match(field[0])):
            break
        if claim is None:
            continue
        if claim != mx_id:
            break  # the topmost is not the MX's: nothing is
        block.append(i)
    return block


def clean_results(raw: bytes, cfg: Settings, peer: str) -> bytes:
    """The mail as the receiver stores it: without Authentication-Results
    fields that claim pbem's name or our MX's (RFC 8601 §5: a sender wrote
    them), except, in a mail the MX sent, the MX's own topmost ones."""
    ours = {authserv_id(cfg)} | ({cfg.mx_authserv_id} if cfg.mx_authserv_id else set())
    head_end = re.search(rb"\r?\n\r?\n", raw)
    head = raw[:head_end.start() + 1] if head_end else raw
    if not re.search(rb"(?im)^authentication-results\s*:", head):
        return raw
    body = raw[len(head):]
    fields = _fields(head)
    keep = set(_top_block(fields, cfg.mx_authserv_id)) if from_mx(peer, cfg) else set()
    kept = [b"".join(f) for i, f in enumerate(fields) if i in keep or _claims(f) not in ours]
    return b"".join(kept) + body


def strip_our_results(raw: bytes, ours: str) -> bytes:
    """The mail without Authentication-Results fields that claim ``ours``."""
    head = _head(raw)
    if not re.search(rb"(?im)^authentication-results\s*:", head):
        return raw
    kept = [b"".join(f) for f in _fields(head) if _claims(f) != ours.lower()]
    return b"".join(kept) + raw[len(head):]


def mx_verdict(raw: bytes, mx_id: str) -> str | None:
    """The verdict our MX wrote on a mail it relayed, as one value (its
    topmost fields' results, in its name), or None when it wrote none."""
    fields = _fields(_head(raw))
    results = []
    for i in _top_block(fields, mx_id):
        text = b" ".join(part.strip() for part in fields[i]).decode("utf-8", "replace")
        value = text.split(":", 1)[1] if ":" in text else ""
        serv, parsed = authres.parse(value)
        if serv != mx_id:
            continue
        # each result as written (comments and all), after the id and its version
        rest = authres.uncomment(value).split(";", 1)
        if len(rest) == 2 and parsed:
            results.append(rest[1].strip())
    if not results:
        return None
    return "; ".join([mx_id, *results])[:4000]
