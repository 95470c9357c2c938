"""Who sent a mail, as pbem itself can tell: DKIM (dkimpy)
and SPF (pyspf) checked by pbem against DNS, from what the receiver saw of
the sending server (its IP, HELO name and envelope sender, kept in the
inbound row), never from headers the mail carries: a sender can write any
Authentication-Results it likes, so the receiver deletes those that claim
our name (RFC 8601 §5) and nothing reads the others.

The verdict is kept as the value of the Authentication-Results header pbem
would write (``<authserv-id>; spf=pass smtp.mailfrom=...; dkim=pass
header.d=...``), so an admin reads it as any mail header, and it is trusted
only because pbem wrote it into its own table."""
from __future__ import annotations

import logging
import re

from pbem.config import Settings, settings

log = logging.getLogger("pbem.senders")

_configured: tuple[str, float] | None = None


def _resolver(cfg: Settings) -> None:
    """Point dnspython's resolver (which dkimpy and pyspf both use) at the
    configured server; "" keeps the system's."""
    global _configured
    import dns.resolver

    if _configured == (cfg.dns, cfg.dns_timeout_s):
        return
    if cfg.dns in ("", "system"):
        dns.resolver.default_resolver = None  # read /etc/resolv.conf again on first use
    else:
        host, _, port = cfg.dns.rpartition(":") if ":" in cfg.dns else (cfg.dns, "", "53")
        r = dns.resolver.Resolver(configure=False)
        r.nameservers = [host]
        r.port = int(port)
        r.timeout = r.lifetime = cfg.dns_timeout_s
        dns.resolver.default_resolver = r
    _configured = (cfg.dns, cfg.dns_timeout_s)


def authserv_id(cfg: Settings | None = None) -> str:
    cfg = cfg or settings()
    return (cfg.authserv_id or cfg.domain).lower()


def verify(raw: bytes, *, ip: str, helo: str, mail_from: str, cfg: Settings | None = None) -> str:
    """DKIM and SPF of one mail, as an Authentication-Results value. Never
    raises: a DNS failure is ``temperror``, which trusts nobody."""
    cfg = cfg or settings()
    parts = [authserv_id(cfg)]
    if cfg.dns == "off":
        return parts[0] + "; none (sender checks are off)"
    _resolver(cfg)
    parts.append(_spf(ip, helo, mail_from, cfg))
    parts.extend(_dkim(raw, cfg))
    return "; ".join(parts)


def _spf(ip: str, helo: str, mail_from: str, cfg: Settings) -> str:
    import spf

    domain = mail_from.rpartition("@")[2].lower()
    if not ip or not domain:
        return "spf=none"
    try:
        result, _ = spf.check2(i=ip, s=mail_from, h=helo or domain, timeout=cfg.dns_timeout_s,
                               querytime=cfg.dns_timeout_s * 3)
    except Exception as e:  # a library error is a failure to check, never a pass
        log.warning("SPF check of %s failed: %r", domain, e)
        result = "temperror"
    return f"spf={_word(result)} smtp.mailfrom={domain}"


def _dkim(raw: bytes, cfg: Settings) -> list[str]:
    """One result per DKIM signature (at most 5 checked: a mail cannot make pbem do more lookups)."""
    import dkim

    # the header block only, to count signatures cheaply
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    n = len(re.findall(rb"(?im)^dkim-signature\s*:", head))
    if n == 0:
        return ["dkim=none"]
    out = []
    for idx in range(min(n, 5)):
        try:
            d = dkim.DKIM(raw, timeout=int(max(1, cfg.dns_timeout_s)))
            ok = d.verify(idx=idx)
            domain = (d.domain or b"").decode("ascii", "replace").lower()
            out.append(f"dkim={'pass' if ok else 'fail'} header.d={domain or 'unknown'}")
        except dkim.DnsTimeoutError:
            out.append("dkim=temperror")
        except Exception as e:  # a malformed signature: it proves nothing
            out.append(f"dkim=permerror ({type(e).__name__})")
    return out


def _word(result: str) -> str:
    result = (result or "none").lower()
    return result if result in ("pass", "fail", "softfail", "neutral", "none", "temperror", "permerror") \
        else "permerror"


def passes_for(record: str | None, from_addr: str) -> bool:
    """Whether pbem's verdict says the From's domain sent the mail: an SPF
    pass for an envelope sender of the same organisation as the From, or a
    DKIM pass by such a domain (DMARC's relaxed alignment)."""
    from_domain = from_addr.rpartition("@")[2].lower()
    if not record or not from_domain:
        return False
    for clause in record.split(";")[1:]:
        m = re.match(r"\s*(dkim|spf)=pass\s+(?:header\.d|smtp\.mailfrom)=(\S+)", clause)
        if m and aligned(m.group(2).lower(), from_domain):
            return True
    return False


def failed_for(record: str | None) -> bool:
    """Whether a check failed outright (an SPF fail, a broken DKIM signature):
    the From is forged, whatever else."""
    return bool(record) and bool(re.search(r";\s*(spf=fail|dkim=fail)\b", record))


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment: the same domain, or one a subdomain of the other."""
    if not domain or not from_domain:
        return False
    return domain == from_domain or domain.endswith("." + from_domain) or from_domain.endswith("." + domain)


_AR_NAME = re.compile(rb"(?i)^authentication-results\s*:")
_AR_ID = re.compile(rb"(?i)^authentication-results\s*:\s*([^\s;]+)")


def strip_our_results(raw: bytes, ours: str) -> bytes:
    """The mail without Authentication-Results headers that claim to be ours
    (RFC 8601 §5: a receiver deletes them; a sender wrote them). Only the
    header block is looked at, field by field (a field may be folded onto
    several lines, even right after its colon)."""
    sep = raw.find(b"\r\n\r\n")
    sep = raw.find(b"\n\n") if sep < 0 else sep
    head, body = (raw, b"") if sep < 0 else (raw[:sep + 1], raw[sep + 1:])
    if not re.search(rb"(?im)^authentication-results\s*:", head):
        return raw
    fields: list[list[bytes]] = []
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1].append(line)  # a folded continuation of the field before
        else:
            fields.append([line])
    kept = []
    for field in fields:
        if _AR_NAME.match(field[0]):
            m = _AR_ID.match(b" ".join(part.strip() for part in field))
            if m and m.group(1).decode("ascii", "replace").lower() == ours.lower():
                continue
        kept.append(b"".join(field))
    return b"".join(kept) + body
