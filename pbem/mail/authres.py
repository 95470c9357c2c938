"""Authentication-Results values (RFC 8601), read and judged: pbem's own
verdict on a mail (senders.py) and the one our MX's milters wrote are both
kept in this form (``Inbound.auth``), and both are read here.

The syntax is read as the RFC writes it, not as one milter happens to
write it: comments anywhere (nested, with quoted pairs), quoted strings
(which may hold ``;`` or ``(``), an optional version after the
authserv-id, ``none`` for no result, several results, each a method (with
an optional ``/version``), a result, an optional ``reason=`` and
properties ``ptype.property=value`` in any order, with spaces around
``=`` and ``.``. For example OpenDMARC's ``mx.example.org; dmarc=pass
(p=none dis=none) header.from=x.test``, OpenDKIM's ``mx.example.org;
dkim=pass (2048-bit key; unprotected) header.d=x.test header.i=@x.test
header.b="AbC"``, or rspamd's one field with dkim, spf and dmarc."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_VALUE = 16_384  # characters of a value read (a header block is bounded; this keeps one field so)


@dataclass
class Result:
    method: str  # "dkim", "spf", "dmarc", ... (lower case, without its version)
    result: str  # "pass", "fail", "none", ... (lower case)
    props: dict[str, str] = field(default_factory=dict)  # "header.d" -> "x.test" (keys lower case)
    reason: str = ""


def parse(value: str | None) -> tuple[str, list[Result]]:
    """The authserv-id (lower case) and the results of one value; ("", [])
    for one that cannot be read. Never raises."""
    if not value:
        return "", []
    try:
        tokens = _tokens(uncomment(value[:MAX_VALUE]))
    except ValueError:
        return "", []
    if not tokens or tokens[0] in (";", "="):
        return "", []
    serv, rest = _unquote(tokens[0]).lower(), tokens[1:]
    if rest and rest[0].isdigit():  # authres-version
        rest = rest[1:]
    groups: list[list[str]] = [[]]
    for t in rest:
        if t == ";":
            groups.append([])
        else:
            groups[-1].append(t)
    results = []
    for g in groups[1:]:  # what comes before the first ";" is the id (and its version)
        r = _result(g)
        if r is not None:
            results.append(r)
    return serv, results


def _result(tokens: list[str]) -> Result | None:
    """One resinfo: method = result [reason = value] [ptype.property = value ...]."""
    pairs, i = [], 0
    while i < len(tokens):
        if i + 2 < len(tokens) and tokens[i + 1] == "=":
            pairs.append((tokens[i], tokens[i + 2]))
            i += 3
        else:
            i += 1  # "none", or a stray word: skipped
    if not pairs:
        return None
    method, result = pairs[0]
    if method in ("=", ";") or result in ("=", ";"):
        return None
    r = Result(method.split("/", 1)[0].strip().lower(), _unquote(result).lower())
    for key, value in pairs[1:]:
        key = key.replace(" ", "").lower()
        if key == "reason":
            r.reason = _unquote(value)
        elif "." in key:
            r.props.setdefault(key, _unquote(value))
    return r


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|;|=|[^\s;="]+')


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for t in _TOKEN.findall(text):
        # "header . d" (spaces around the dot) is one key
        if out and (t.startswith(".") or out[-1].endswith(".")) and out[-1] not in ("=", ";") and t not in ("=", ";"):
            out[-1] += t
        else:
            out.append(t)
    return out


def uncomment(text: str) -> str:
    """The text with its comments made spaces; quoted strings kept as they are."""
    out, depth, i, n = [], 0, 0, len(text)
    quoted = False
    while i < n:
        c = text[i]
        if c == "\\" and (quoted or depth):
            if not depth:
                out.append(text[i:i + 2])
            i += 2
            continue
        if quoted:
            out.append(c)
            quoted = c != '"'
        elif c == "(":
            depth += 1
            if depth > 50:
                raise ValueError("comments nested too deep")
        elif c == ")" and depth:
            depth -= 1
            if not depth:
                out.append(" ")
        elif depth:
            pass
        else:
            out.append(c)
            quoted = c == '"'
        i += 1
    return "".join(out)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value.strip('"')


def domain_of(value: str) -> str:
    """The domain of a property's value: ``x.test``, ``ann@x.test``, ``@x.test``."""
    return value.rpartition("@")[2].strip().strip(".").lower()


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment (DMARC): the same domain, or one a subdomain of the other."""
    if not domain or not from_domain:
        return False
    return domain == from_domain or domain.endswith("." + from_domain) or from_domain.endswith("." + domain)


def _domain(r: Result) -> str:
    """The domain a result speaks for: DKIM's signing domain, SPF's envelope sender, DMARC's From."""
    if r.method == "dkim":
        return domain_of(r.props.get("header.d") or r.props.get("header.i", ""))
    if r.method == "spf":
        return domain_of(r.props.get("smtp.mailfrom", ""))
    if r.method == "dmarc":
        return domain_of(r.props.get("header.from", ""))
    return ""


def passes_for(value: str | None, from_addr: str) -> bool:
    """Whether the verdict says the From's domain sent the mail: a DKIM or
    SPF pass for a domain aligned with the From's (DMARC's relaxed
    alignment), or a DMARC pass for the From's domain itself. Anything else
    (none, neutral, temperror, permerror, a pass for another domain) proves
    nothing, and a DMARC fail for the From's domain undoes any pass."""
    from_domain = domain_of(from_addr)
    if not from_domain:
        return False
    results = parse(value)[1]
    if any(r.method == "dmarc" and r.result == "fail" and _domain(r) in ("", from_domain) for r in results):
        return False  # the From's domain says this mail is not its own, whatever else passed
    for r in results:
        if r.result != "pass":
            continue
        d = _domain(r)
        if (r.method == "dmarc" and d == from_domain) or (r.method in ("dkim", "spf") and aligned(d, from_domain)):
            return True
    return False


def failed_for(value: str | None, from_addr: str = "") -> bool:
    """Whether the verdict says the From is forged: a DMARC fail for the
    From's domain, an SPF fail, or a DKIM fail of a signature by the From's
    domain (by any, when the From is not given) -- unless DMARC passed."""
    results = parse(value)[1]
    from_domain = domain_of(from_addr)
    if any(r.method == "dmarc" and r.result == "pass" and (not from_domain or _domain(r) == from_domain)
           for r in results):
        return False
    for r in results:
        if r.result != "fail":
            continue
        if r.method == "spf":
            return True
        if r.method == "dmarc" and (not from_domain or _domain(r) in ("", from_domain)):
            return True
        if r.method == "dkim" and (not from_domain or aligned(_domain(r), from_domain)):
            return True
    return False
