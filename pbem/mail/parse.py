"""MIME to text: any structure, charset and transfer encoding; text/plain
preferred, HTML converted to text (inscriptis keeps table layout readable)."""
from __future__ import annotations

import email
import email.feedparser
import email.headerregistry
import email.policy
import re
from email.message import Message
from email.parser import BytesParser
from email.utils import parseaddr

from pbem.engine.base import SPACES
from pbem.store.outbox import MARKER

ENCODING_FALLBACKS = ("utf-8", "cp1251", "koi8-r", "latin-1")
# C0 controls but tab and newline, DEL and lone surrogates: never meaningful in a
# move, and PostgreSQL refuses NUL in text columns (hostile-mail hardening)
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
# quoted older mails in HTML: Gmail, Apple/Thunderbird <blockquote>, Yahoo, Thunderbird's attribution
HTML_QUOTE_XPATH = ("//blockquote | //*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
                    " | //*[contains(@class, 'yahoo_quoted')] | //*[contains(@class, 'moz-cite-prefix')]")
# signatures the clients mark as such (Gmail, Thunderbird, Outlook on the web and new Outlook, Apple's
# and Yahoo's): a name, a title and a phone number are never moves
HTML_SIGNATURE_XPATH = ("//*[contains(@class, 'gmail_signature') or contains(@class, 'moz-signature')"
                        " or @id='Signature' or @id='x_Signature' or contains(@id, 'signature_bookmark')"
                        " or contains(@class, 'yahoo-signature') or @id='AppleMailSignature']")
# where a quoted mail begins that the client did not put in a container: Outlook's header block
# (desktop, OWA, new Outlook; OWA prefixes quoted ids with x_) and our own marker at the top of every
# mail pbem sends. It and everything after it in the document is the older mail.
HTML_CUT_XPATH = ("//*[contains(@id, 'divRplyFwdMsg') or contains(@id, 'appendonsend')"
                  " or contains(@id, 'pbem-mark') or contains(@class, 'pbem-mark')]")
# an element the reader never sees: display:none, visibility:hidden, zero font size, zero opacity, zero height
_HIDDEN_STYLE_RE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden|"
                              r"font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?|opacity\s*:\s*0(?:\.0+)?|"
                              r"max-height\s*:\s*0(?:px)?)\s*(?:!important)?\s*(?:;|$)", re.I)
# spaces that are not ' ', and invisible characters, as phones and word processors write them
_SPACES = str.maketrans(SPACES)

HEADER_CACHE = "_pbem_headers"  # attribute of a parsed Message: lower-cased name -> its text, once read
_MODERN = email.policy.default
# headers whose modern class is plain unstructured text: an ASCII value without encoded words reads
# the same as the modern parser reads it, so it need not go through the (slow) header registry
_UNSTRUCTURED = (email.headerregistry.UnstructuredHeader, email.headerregistry.UniqueUnstructuredHeader)


class Unreadable(ValueError):
    """A mail pbem will not read, and why: nested deeper or
    built of more parts than any mail client writes. The sender is answered
    with the reason."""


MAX_DEPTH = 20  # nested MIME parts read at most (a real client nests four or five; a forward attached in a
# forward adds three or four)
MAX_PARTS = 500  # MIME parts read at most (a mail with a hundred attachments has a hundred and two)
MAX_COMMENT_DEPTH = 10  # nested comments in the From read at most (a client writes one level, if any)
MAX_HEADER = 4000  # characters of a header value read at most (a long References line is under 2,000)
UNPARSED = "_pbem_unparsed"  # attribute of a parsed Message: why its body was not parsed whole, or None


class _Opaque(Message):
    """A part nested deeper than MAX_DEPTH: its body is kept as it is, never
    parsed into parts."""

    def get_content_type(self) -> str:
        return "application/octet-stream"


class _TooManyParts(Exception):
    pass


_BOUNDARY_PATTERN = "(?P<sep>" + re.escape("--")


class _Lines(email.feedparser.BufferedSubFile):
    """The parser's line buffer, which checks every line against the
    boundary of every enclosing multipart (its "false EOF" matchers): a
    line can only be a boundary if it starts with "--", so other lines skip
    the checks, unless a matcher of another kind (the empty line ending a
    message/delivery-status block) is in force. The cost of a line no
    longer grows with the depth it is at."""

    def __init__(self) -> None:
        super().__init__()
        self._others = []  # per matcher on the stack: True if it is not a boundary's
        self._other_count = 0

    def push_eof_matcher(self, pred) -> None:
        # a boundary's matcher is the match of the pattern the parser builds for it (feedparser: '(?P<sep>' +
        # re.escape('--' + boundary) ...); anything else is checked against every line, as the stdlib does
        other = not getattr(getattr(pred, "__self__", None), "pattern", "").startswith(_BOUNDARY_PATTERN)
        self._others.append(other)
        self._other_count += other
        super().push_eof_matcher(pred)

    def pop_eof_matcher(self):
        self._other_count -= self._others.pop()
        return super().pop_eof_matcher()

    def readline(self):
        if self._lines and not self._other_count and not self._lines[0].startswith("--"):
            return self._lines.popleft()
        return super().readline()


class _BoundedParser(email.feedparser.BytesFeedParser):
    """The standard library's parser with bounds on nesting and on parts.
    Unbounded, it recurses once per level (2,000 levels: RecursionError)
    and checks every line against the boundary of every enclosing multipart
    (depth x lines: minutes of CPU for a 2 MiB mail at depth 900). A part
    deeper than MAX_DEPTH is made an opaque leaf, so neither grows past the
    bound (and a line that cannot be a boundary is not checked against
    them: _Lines); past MAX_PARTS parts it stops (a second each for the
    58,000 parts of a 2 MiB mail). ``unparsed`` says which, if any."""

    def __init__(self) -> None:
        self.unparsed: str | None = None
        self.parts = 0  # the root and every part
        self._msgstack: list[Message] = []  # FeedParser's own stack, read by the factory below
        super().__init__(_factory=self._part, policy=email.policy.compat32)
        self.parts = 0  # not the factory's trial call
        self._input = _Lines()  # before the first feed: the parse generator reads it from here on

    def _part(self, policy=email.policy.compat32) -> Message:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise _TooManyParts
        if len(self._msgstack) > MAX_DEPTH:  # the enclosing parts
            self.unparsed = f"its MIME parts are nested more than {MAX_DEPTH} levels deep"
            return _Opaque(policy)
        return Message(policy)


_HEADER_END_RE = re.compile(rb"\r?\n\r?\n")


def _headers_only(raw: bytes) -> Message:
    """The header block of a mail, without reading its body (the parser would
    read it line by line): up to the first empty line, where the parser
    itself finds the end of the headers (or earlier, at a line that is not
    a header)."""
    end = _HEADER_END_RE.search(raw)
    return BytesParser(policy=email.policy.compat32).parsebytes(raw[:end.end()] if end else raw, headersonly=True)


def parse_message(raw: bytes) -> Message:
    """The MIME structure, parsed with the compat32 policy (its headers are
    kept as the strings they came as), at most MAX_DEPTH parts deep and
    MAX_PARTS parts in all (``unreadable`` then says why the mail is not
    read; its headers are read all the same). Headers are read by
    ``header`` and ``header_values``, which decode only what is asked for,
    the way the modern policy reads it (encoded words, address lists,
    folding): the header registry is slow, and most of a real mail's header
    block (Received, DKIM-Signature, ...) is never read."""
    parser = _BoundedParser()
    try:
        msg = _single_part(raw)
        if msg is None:
            parser.feed(raw)
            msg = parser.close()
    except _TooManyParts:
        msg = _headers_only(raw)
        parser.unparsed = f"it has more than {MAX_PARTS} MIME parts"
    setattr(msg, HEADER_CACHE, {})
    setattr(msg, UNPARSED, parser.unparsed)
    return msg


def _single_part(raw: bytes) -> Message | None:
    """A mail of one part (neither multipart nor message/*), as the parser
    reads it, without reading the body line by line (a million empty lines
    took 0.3 s): the header block is parsed, and the rest is the body as it
    came. None for any other mail."""
    end = _HEADER_END_RE.search(raw)
    if end is None:
        return None
    parser = _BoundedParser()
    parser.feed(raw[:end.end()])
    msg = parser.close()
    if msg.is_multipart() or msg.get_content_maintype() in ("multipart", "message"):
        return None
    # what the parser gives: the block's lines after the headers (if a line that is not a header ended
    # them), then every line after it, as it came (the stored payload: get_payload() would decode it)
    msg.set_payload((msg._payload or "") + raw[end.end():].decode("ascii", "surrogateescape"))
    return msg


def unreadable(msg: Message) -> str | None:
    """Why the mail is not read, or None: its parts or the comments of its
    From nest deeper than any client writes, or its From is longer than
    MAX_HEADER: a mail built to make the reader work without end. Its headers
    are read all the same, so the sender can be told."""
    if getattr(msg, UNPARSED, None):
        return getattr(msg, UNPARSED)
    value = header(msg, "From")
    depth = _uncomment(value[:MAX_HEADER])[1]
    if depth > MAX_COMMENT_DEPTH:
        return f"its From header nests comments {depth} levels deep (at most {MAX_COMMENT_DEPTH} are read)"
    if len(value) > MAX_HEADER:
        return f"its From header is {len(value):,} characters long (at most {MAX_HEADER:,} are read)"
    return None


_COMMENT_SYNTAX_RE = re.compile(r'\\.|["()]', re.S)


def _uncomment(value: str) -> tuple[str, int]:
    """``value`` without its comments (RFC 5322: parenthesised, nested,
    with quoted pairs; not inside a quoted string), and the deepest nesting
    of them. One pass over the special characters: linear, never recursive
    (the email package's readers recurse once per level)."""
    if "(" not in value:
        return value, 0
    out: list[str] = []
    depth = deepest = start = 0
    quoted = False
    for m in _COMMENT_SYNTAX_RE.finditer(value):
        ch = m.group(0)
        if ch[0] == "\\" or (quoted and ch != '"'):
            continue
        if ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "(":
            if depth == 0:
                out.append(value[start:m.start()])
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                start = m.end()
    if depth == 0:
        out.append(value[start:])
    return " ".join("".join(out).split()), deepest


_DOT_ATOM = r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*"
_ADDR = _DOT_ATOM + r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
# the plainest shapes of the structured headers every mail has, which the modern policy reads as
# they are written (tests/mail/test_inbound_parse checks it against the registry)
_PLAIN = {
    "from": re.compile(rf"(?:[A-Za-z0-9]+(?: [A-Za-z0-9]+)* <{_ADDR}>|{_ADDR})"),
    "message-id": re.compile(rf"<{_ADDR}>"),
}


def _modern_text(name: str, value: str) -> str:
    """The text of one stored header value as the modern policy reads it.
    Not of a value longer than MAX_HEADER (the registry's parsers are
    quadratic in places: a 64 kB From of dots took 36 s, a Subject of 16,000
    encoded words 3 s): of unstructured text, the first MAX_HEADER
    characters are read; a structured value is kept as it came, as is one
    with comments nested deeper than a client writes (the registry recurses
    once per level)."""
    unstructured = issubclass(_MODERN.header_factory[name], _UNSTRUCTURED)  # type: ignore[index]
    if len(value) > MAX_HEADER:
        if not unstructured:
            return _unfold(value)
        value = value[:value.rfind(" ", 0, MAX_HEADER) if " " in value[:MAX_HEADER] else MAX_HEADER]
    if "(" in value and not unstructured and _uncomment(value)[1] > MAX_COMMENT_DEPTH:
        return _unfold(value)
    if value.isascii() and "=?" not in value:
        plain = _PLAIN.get(name.lower())
        if plain is not None and plain.fullmatch(value):
            return value
        if unstructured:
            return _unfold(value)  # as header_fetch_parse unfolds it
    return str(_MODERN.header_fetch_parse(name, value))


def _unfold(value: str) -> str:
    return value.replace("\r", "").replace("\n", "")


def header_values(msg: Message, name: str) -> list[str]:
    """Every value of a top-level header, as the modern policy reads it
    (a value it cannot read is left out)."""
    key, out = name.lower(), []
    for k, v in msg.raw_items():
        if k.lower() == key:
            try:
                out.append(_modern_text(k, v) if isinstance(v, str) else str(v))
            except Exception:
                continue
    return out


def message_id(raw: bytes) -> str:
    """The Message-ID of a raw mail, reading its header block only (the
    receiver needs nothing else before it answers 250)."""
    try:
        return header(_headers_only(raw), "Message-ID")
    except Exception:
        return ""


def from_address(raw: bytes) -> str:
    """The From address of a raw mail, as the pipeline reads it (``sender``),
    reading its header block only (the sender check needs nothing else)."""
    try:
        return sender(_headers_only(raw))
    except Exception:
        return ""


def header(msg: Message, name: str) -> str:
    """The first value of a header, whitespace collapsed; '' when absent or unreadable."""
    cache = getattr(msg, HEADER_CACHE, None)
    key = name.lower()
    if cache is not None and key in cache:
        return cache[key]
    value = None
    try:
        for k, v in msg.raw_items():
            if k.lower() == key:
                value = _modern_text(k, v) if isinstance(v, str) else str(v)
                break
    except Exception:  # the modern reading failed: the value as compat32 reads it
        try:
            value = msg.get(name)
        except Exception:
            value = None
    try:
        text = " ".join(str(value).split()) if value is not None else ""
    except Exception:
        text = ""
    if cache is not None:
        cache[key] = text
    return text


def sender(msg: Message) -> str:
    value = header(msg, "From")
    if len(value) > MAX_HEADER:  # refused (unreadable): no client writes one; whose it is may end it, "<...>"
        start = value.rfind("<", len(value) - MAX_HEADER)
        value = value[start:] if start >= 0 else ""
    if "(" in value:  # comments: read without them (parseaddr recurses once per nesting level)
        value = _uncomment(value)[0]
    return parseaddr(value)[1].strip().lower()


def unflow(text: str, delsp: bool) -> str:
    """Undo format=flowed (RFC 3676): a line ending in a space continues on
    the next line of the same quote depth (with DelSp=yes that space was
    added by the client and goes); space-stuffing is removed; the signature
    separator "-- " is never flowed."""
    out: list[str] = []
    buf: str | None = None
    depth_of_buf = 0

    def flush() -> None:
        nonlocal buf
        if buf is not None:
            out.append((">" * depth_of_buf + " " if depth_of_buf else "") + buf)
            buf = None

    for line in text.split("\n"):
        line = line.rstrip("\r")
        body = line.lstrip(">")
        depth = len(line) - len(body)
        if body.startswith(" "):
            body = body[1:]
        flowed = body.endswith(" ") and body != "-- "
        if flowed and delsp:
            body = body[:-1]
        if buf is not None and depth == depth_of_buf:
            buf += body
        else:
            flush()
            buf, depth_of_buf = body, depth
        if not flowed:
            flush()
    flush()
    return "\n".join(out)


def _decode(part: Message) -> str:
    text = _decode_raw(part)
    if part.get_content_type() == "text/plain" and str(part.get_param("format", "")).lower() == "flowed":
        text = unflow(text.replace("\r\n", "\n"), str(part.get_param("delsp", "")).lower() == "yes")
    return text


def _decode_raw(part: Message) -> str:
    if part.get_content_maintype() == "text":
        try:  # what the modern policy's content manager gives for a text part
            content = part.get_payload(decode=True)
            charset = part.get_param("charset", "ASCII")
            return content.decode(charset, "replace")
        except Exception:
            pass
    payload = part.get_payload(decode=True)
    if payload is None:
        p = part.get_payload()
        return p if isinstance(p, str) else ""
    charset = part.get_content_charset() or ""
    for enc in ((charset,) if charset else ()) + ENCODING_FALLBACKS:
        try:
            return payload.decode(enc)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("utf-8", "replace")


def html_to_text(html: str) -> str:
    """HTML to readable text, without the quoted older mail (an HTML-only
    reply has no '>' lines to recognise it by): quote containers become a
    single '>' line (so a bottom-posted reply below one is still read, see
    quotes.strip_reply), and from where an uncontained quote begins
    (HTML_CUT_XPATH) the rest of the document goes. Raises Unreadable for
    HTML nested deeper than libxml2 reads."""
    import lxml.html
    from inscriptis import get_text

    parser = lxml.html.HTMLParser()
    try:
        doc = lxml.html.document_fromstring(html, parser=parser)
    except Exception:  # lxml refuses some garbage: convert it as it is
        doc = None
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        # libxml2 stops at 256 levels and drops the rest of the document: what the sender wrote there
        # would vanish without a word
        raise Unreadable("its HTML nests elements more than 255 levels deep")
    if doc is not None:
        try:
            html = _seen_html(doc)
        except Exception:  # as it is
            pass
    try:
        return get_text(html)
    except Exception:
        return re.sub(r"<[^>]+>", " ", html)


def _seen_html(doc) -> str:
    """The document without the quoted older mail, what the sender's client
    never showed them, and the signature."""
    import lxml.html

    for el in doc.xpath(HTML_QUOTE_XPATH):
        parent = el.getparent()
        if parent is None:
            continue
        stand_in = lxml.html.Element("div")
        stand_in.text = ">"
        stand_in.tail = el.tail
        parent.replace(el, stand_in)
    for el in doc.xpath("//*[@hidden] | //*[@style] | //script | //style | //template"):
        if el.getparent() is not None and (el.tag in ("script", "style", "template") or el.get("hidden") is not None
                                           or _HIDDEN_STYLE_RE.search(el.get("style") or "")):
            el.drop_tree()  # what the sender's client never showed them is not theirs to have written
    for el in doc.xpath(HTML_SIGNATURE_XPATH):
        if el.getparent() is not None:
            el.drop_tree()
    cut = doc.xpath(HTML_CUT_XPATH)
    if cut:
        el = cut[0]
        if "pbem-mark" in (el.get("id") or "") + " " + (el.get("class") or ""):
            # our marker stays as a line of its own: what a client wrote right above it (a header block of its
            # own, an older mail's summary) is quoted too, and the text reader finds it by the marker
            mark = lxml.html.Element("div")
            mark.text = MARKER
            el.addprevious(mark)
        _cut_from(el)
    return lxml.html.tostring(doc, encoding="unicode")


def _cut_from(el) -> None:
    """Remove ``el`` and everything after it in document order."""
    node = el
    while True:
        parent = node.getparent()
        if parent is None:
            break
        for sib in list(node.itersiblings()):
            parent.remove(sib)
        node.tail = None
        node = parent
    parent = el.getparent()
    if parent is not None:
        parent.remove(el)


MAX_TEXT = 512 * 1024  # characters of a part read at most: a reply is short, a quote is cut anyway


def _own_parts(msg: Message):
    """The leaf parts of the mail the sender wrote, in order: never inside a
    mail attached or forwarded beside the sender's own text (a message/* part
    of a multipart), which the sender did not write and may not have read.
    Walked without recursion; the parser made nothing deeper than MAX_DEPTH."""
    stack = [(msg, 0, False)]
    while stack:
        part, depth, in_multipart = stack.pop()
        if in_multipart and part.get_content_maintype() == "message":
            continue  # beside the sender's own text: a forwarded or attached mail
        if part.is_multipart():
            payload = part.get_payload()
            if depth <= MAX_DEPTH and isinstance(payload, list):
                inside = in_multipart or part.get_content_maintype() == "multipart"
                stack.extend((p, depth + 1, inside) for p in reversed(payload))
            continue
        yield part


def body_text(msg: Message) -> str:
    """The readable text of a mail: the first inline text/plain part, else the
    first text/html part converted to text, else ''. Raises Unreadable for a
    mail nested deeper than pbem reads."""
    if getattr(msg, UNPARSED, None):
        raise Unreadable(getattr(msg, UNPARSED))
    plain = html = None
    for part in _own_parts(msg):
        ctype = part.get_content_type()
        disp = str(part.get("Content-Disposition") or "").lower()
        if disp.startswith("attachment"):
            continue
        if ctype.startswith("multipart/") and isinstance(part.get_payload(), str):
            ctype = "text/plain"  # a multipart without a boundary: its body is all there is
        if ctype == "text/plain" and plain is None:
            plain = _decode(part)
        elif ctype == "text/html" and html is None:
            html = _decode(part)
    if plain is not None and plain.strip():
        text = plain[:MAX_TEXT]
    elif html:
        text = html_to_text(html[:MAX_TEXT])
    else:
        text = plain or ""
    return CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n")).translate(_SPACES)
