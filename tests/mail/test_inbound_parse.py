"""parse.py reads a mail's structure with the compat32 policy and decodes
only the headers asked for, the modern way (the modern policy's
header registry was the biggest single cost of a worker). What the pipeline
reads must not change: every test here compares the reading with the one of
the modern policy as the pipeline used it before (kept below as the oracle),
on the hostile corpus and on random MIME trees."""
from __future__ import annotations

import email
import email.parser
import email.policy
from email.message import EmailMessage, Message
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail import parse
from tests.reliability.test_fuzz import HEADER_VALUES, mime

EML = Path(__file__).resolve().parent.parent / "fixtures" / "eml"
NAMES = ("From", "Subject", "Message-ID", "Auto-Submitted", "Precedence", "X-Auto-Response-Suppress",
         "X-MS-Exchange-Inbox-Rules-Loop", "X-PBEM-Loop", "X-Autoreply", "X-Autorespond", "To", "Received",
         "Content-Type", "X-Extra")


# ---------------------------------------------------------------- the oracle: the modern policy, as before


def _old_message(raw: bytes) -> Message:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        for k in msg.keys():
            msg.get(k)
            msg.get_all(k)
        return msg
    except Exception:
        return _compat32(raw)


def _compat32(raw: bytes) -> Message:
    try:
        return email.message_from_bytes(raw, policy=email.policy.compat32)
    except RecursionError:  # nested past the recursion limit: its headers alone
        return email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)


def _old_header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _old_decode(part: Message) -> str:
    """The oracle's decoding, with what pbem's reading of replies adds on top of it:
    format=flowed undone (RFC 3676)."""
    text = _old_decode_raw(part)
    if part.get_content_type() == "text/plain" and str(part.get_param("format", "")).lower() == "flowed":
        text = parse.unflow(text.replace("\r\n", "\n"), str(part.get_param("delsp", "")).lower() == "yes")
    return text


def _old_decode_raw(part: Message) -> str:
    try:
        if isinstance(part, EmailMessage):
            content = part.get_content()
            if isinstance(content, str):
                return content
    except Exception:
        pass
    payload = part.get_payload(decode=True)
    if payload is None:
        p = part.get_payload()
        return p if isinstance(p, str) else ""
    charset = part.get_content_charset() or ""
    for enc in ((charset,) if charset else ()) + parse.ENCODING_FALLBACKS:
        try:
            return payload.decode(enc)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("utf-8", "replace")


def _old_body_text(msg: Message) -> str:
    plain = html = None
    for part in parse._own_parts(msg):  # only the sender's own parts: not inside a forwarded mail, not too deep
        ctype = part.get_content_type()
        disp = (part.get("Content-Disposition") or "").lower()
        if disp.startswith("attachment"):
            continue
        if ctype.startswith("multipart/") and isinstance(part.get_payload(), str):
            ctype = "text/plain"
        if ctype == "text/plain" and plain is None:
            plain = _old_decode(part)
        elif ctype == "text/html" and html is None:
            html = _old_decode(part)
    if plain is not None and plain.strip():
        text = plain[:parse.MAX_TEXT]
    elif html:
        text = parse.html_to_text(html[:parse.MAX_TEXT])
    else:
        text = plain or ""
    # no-break and zero-width spaces read as the spaces they stand for
    return parse.CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n")).translate(parse._SPACES)


def _old_reading(raw: bytes, text: bool = True) -> dict:
    msg = _old_message(raw)
    try:
        auth = [" ".join(str(v).split()) for v in (msg.get_all("Authentication-Results") or [])]
    except Exception:
        auth = []
    return {"headers": {n: _old_header(msg, n) for n in NAMES}, "auth": auth,
            "type": msg.get_content_type(), "text": _old_body_text(msg) if text else None}


def _reading(raw: bytes) -> dict:
    msg = parse.parse_message(raw)
    try:
        text = parse.body_text(msg)
    except parse.Unreadable:  # too deep: refused, not read otherwise
        text = None
    return {"headers": {n: parse.header(msg, n) for n in NAMES},
            "auth": [" ".join(v.split()) for v in parse.header_values(msg, "Authentication-Results")],
            "type": msg.get_content_type(), "text": text}


def _same_reading(raw: bytes) -> None:
    """As before, where the modern parser could read every header (any mail a
    real client writes). Where one header made it raise, the old code read the
    whole mail with compat32: its ASCII headers still read the same (the
    pipeline never reads Content-Type as text), but 8-bit ones now decode
    instead of turning into replacement characters, and the body is decoded
    the way every other mail is, no longer by the accident of a broken header."""
    new = _reading(raw)
    old = _old_reading(raw, text=new["text"] is not None)  # a mail too deep to read: its headers still read
    if isinstance(_old_message(raw), EmailMessage):
        assert new == old
        return
    assert isinstance(new["text"], str) or new["text"] is None  # None: refused as too deep
    stored = _compat32(raw)
    for name in NAMES:
        value = stored.get(name)
        if name != "Content-Type" and (value is None or (isinstance(value, str) and value.isascii())):
            assert new["headers"][name] == old["headers"][name], name


# ---------------------------------------------------------------- the comparisons


def test_the_corpus_reads_as_before():
    files = sorted(EML.glob("*.eml"))
    assert len(files) >= 30
    for f in files:  # as they are sent (tests/reliability/test_eml_corpus.py): the placeholders filled in
        raw = (f.read_bytes().replace(b"@@SEAT2@@", b"game-4.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@pbem.test")
               .replace(b"@@SEAT@@", b"game-3.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@pbem.test").replace(b"@@GAME@@", b"3"))
        _same_reading(raw)


def test_headers_read_as_the_modern_parser_reads_them():
    raw = ("From: =?utf-8?q?Zo=C3=AB?= <zoe@example.org>\r\nTo: g3.abc@pbem.test\r\n"
           "Subject: Re:  [pbem #3 ply 4]\r\n  folded\r\nMessage-ID: <a@b>\r\nReceived: from x by y; garbage(\r\n"
           "Precedence: bulk\r\nX-Extra: 1\r\nX-Extra: 2\r\n"
           "Authentication-Results: mx.pbem.test;\r\n dkim=pass header.d=example.org\r\n"
           "Authentication-Results: =?utf-8?q?other?=; spf=pass\r\n\r\nplay 5\r\n").encode()
    _same_reading(raw)
    msg = parse.parse_message(raw)
    assert parse.header(msg, "from") == "Zoë <zoe@example.org>"
    assert parse.header(msg, "Subject") == "Re: [pbem #3 ply 4] folded"
    assert parse.header(msg, "X-Extra") == "1" and parse.header(msg, "Auto-Submitted") == ""
    assert parse.header_values(msg, "Authentication-Results")[1] == "other; spf=pass"


ASCII_VALUES = st.text(st.characters(min_codepoint=1, max_codepoint=127, blacklist_characters="\r\n"),
                       max_size=80)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(ASCII_VALUES, ASCII_VALUES, st.sampled_from(["Subject", "Auto-Submitted", "Precedence", "X-Autoreply"]),
       st.booleans())
def test_plain_ascii_headers_skip_the_registry_and_read_the_same(value, other, name, fold):
    """The short cut for ASCII unstructured values (no registry) against the registry itself."""
    body = f"{value}\r\n {other}" if fold else value
    raw = f"From: a@x.test\r\n{name}: {body}\r\n\r\nplay 5\r\n".encode()
    _same_reading(raw)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mime(), HEADER_VALUES, HEADER_VALUES)
def test_random_mime_reads_as_before(part, subject, frm):
    raw = f"From: {frm}\r\nSubject: {subject}\r\nMIME-Version: 1.0\r\n".encode("utf-8", "surrogatepass") + part
    _same_reading(raw)


@settings(max_examples=300)
@given(st.binary(max_size=2000))
def test_random_bytes_read_as_before(raw):
    _same_reading(raw)


WORD = st.text(st.sampled_from("abcXYZ019_+-."), min_size=1, max_size=8)
ADDR = st.builds(lambda a, b, c: f"{a}@{b}.{c}", WORD, WORD, WORD)


@settings(max_examples=400)
@given(st.one_of(ADDR, st.builds(lambda n, a: f"{n} <{a}>", st.text(st.sampled_from("Ab9 ."), max_size=12), ADDR),
                 st.builds(lambda a: f"<{a}>", ADDR)),
       st.sampled_from(["From", "Message-ID"]))
def test_plain_addresses_and_ids_skip_the_registry_and_read_the_same(value, name):
    """The short cut for the plainest From and Message-ID against the registry
    itself, on values of that alphabet that are plain and that are not."""
    try:
        expected = str(email.policy.default.header_fetch_parse(name, value))
    except Exception:  # the registry itself fails on some ('. <a@b.c>'): the short cut never takes those
        assert not parse._PLAIN[name.lower()].fullmatch(value)
    else:
        assert parse._modern_text(name, value) == expected
    raw = f"{name}: {value}\r\n\r\nplay 5\r\n".encode()
    _same_reading(raw)
