"""Nesting has a bound that no client reaches: the parser
stops parsing parts below parse.MAX_DEPTH (linear work, no recursion),
comments in a From are read without recursion, and what is too deep is
reported, never a RecursionError. The whole path, over SMTP with a worker,
is in tests/reliability/test_hostile_mail.py."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail import parse
from tests.reliability.test_fuzz import mime


def _nested(depth: int, inner: str = "Content-Type: text/plain\r\n\r\nwait\r\n") -> bytes:
    return ("From: Ann <ann@x.test>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n"
            + "".join(f"--b{i}\r\nContent-Type: multipart/mixed; boundary=\"b{i + 1}\"\r\n\r\n" for i in range(depth))
            + f"--b{depth}\r\n{inner}" + "".join(f"--b{i}--\r\n" for i in range(depth, -1, -1))).encode()


def test_parts_as_deep_as_the_bound_are_read():
    msg = parse.parse_message(_nested(parse.MAX_DEPTH - 1))
    assert parse.unreadable(msg) is None and parse.body_text(msg).strip() == "wait"


@pytest.mark.parametrize("depth", [parse.MAX_DEPTH, 2000, 20_000])
def test_deeper_parts_are_not_parsed_and_the_mail_says_why(depth):
    msg = parse.parse_message(_nested(depth))  # no RecursionError at any depth
    assert parse.unreadable(msg) == f"its MIME parts are nested more than {parse.MAX_DEPTH} levels deep"
    with pytest.raises(parse.Unreadable):
        parse.body_text(msg)
    assert parse.sender(msg) == "ann@x.test"  # the headers still read: the sender can be told


def test_forwarded_mails_nested_deeper_than_the_bound_are_not_parsed_either():
    raw = (b"From: ann@x.test\r\n" + b"Content-Type: message/rfc822\r\n\r\n" * 3000
           + b"Content-Type: text/plain\r\n\r\nx")
    assert parse.unreadable(parse.parse_message(raw)) is not None


@pytest.mark.parametrize("value, text, depth", [
    ("Ann <ann@x.test>", "Ann <ann@x.test>", 0),
    ("ann@x.test (Ann (at home))", "ann@x.test", 2),
    ('"Ann (not a comment)" <ann@x.test> (a \\) paren)', '"Ann (not a comment)" <ann@x.test>', 1),
    ("(((a)) b) <ann@x.test> (c", "<ann@x.test>", 3),  # unclosed: the rest is a comment
    ("(" * 5000 + ")" * 5000 + " <ann@x.test>", "<ann@x.test>", 5000),
])
def test_comments_are_read_without_recursion(value, text, depth):
    assert parse._uncomment(value) == (text, depth)


def test_a_from_with_comments_nested_too_deep_is_reported_and_its_address_still_read():
    deep = "(" * 2000 + "x" + ")" * 2000
    msg = parse.parse_message(f"From: Ann {deep} <ann@x.test>\r\nMessage-ID: {deep}<m@x>\r\n\r\nwait\r\n".encode())
    assert parse.sender(msg) == "ann@x.test"
    assert parse.unreadable(msg) == "its From header nests comments 2000 levels deep (at most 10 are read)"
    assert parse.header(msg, "Message-ID").endswith("<m@x>")  # kept as it came, not parsed recursively
    ok = parse.parse_message(b"From: Ann (at (home)) <ann@x.test>\r\n\r\nwait\r\n")
    assert parse.unreadable(ok) is None and parse.sender(ok) == "ann@x.test"


def test_html_deeper_than_libxml2_reads_is_reported_not_cut():
    with pytest.raises(parse.Unreadable, match="more than 255 levels deep"):
        parse.html_to_text("<div>" * 300 + "wait" + "</div>" * 300)
    assert parse.html_to_text("<div>" * 200 + "wait" + "</div>" * 200).strip() == "wait"


def test_header_values_longer_than_the_bound_never_reach_the_registry():
    """The header registry is quadratic in places (a 64 kB From
    of dots took 36 s); past parse.MAX_HEADER a structured value is kept as
    it came and an unstructured one is read up to the bound."""
    dots = "Ann " + ". " * 200_000 + "<ann@x.test>"
    words = " ".join(["=?utf-8?q?caf=C3=A9?="] * 50_000)
    msg = parse.parse_message(f"From: {dots}\r\nSubject: {words}\r\n\r\nwait\r\n".encode())
    assert parse.sender(msg) == "ann@x.test"
    assert parse.unreadable(msg) == "its From header is 400,016 characters long (at most 4,000 are read)"
    subject = parse.header(msg, "Subject")
    assert subject.startswith("cafécafé") and len(subject) < parse.MAX_HEADER


def test_more_parts_than_the_bound_are_not_parsed_and_the_headers_still_read():
    def mail(parts: int) -> bytes:
        return (b'From: Ann <ann@x.test>\r\nContent-Type: multipart/mixed; boundary="p"\r\n\r\n'
                + b"--p\r\nContent-Type: text/plain\r\n\r\nwait\r\n" * parts + b"--p--\r\n")

    assert parse.body_text(parse.parse_message(mail(parse.MAX_PARTS - 1))).startswith("wait")
    msg = parse.parse_message(mail(60_000))  # the parser stops at the bound
    assert parse.unreadable(msg) == f"it has more than {parse.MAX_PARTS} MIME parts"
    assert parse.sender(msg) == "ann@x.test"
    with pytest.raises(parse.Unreadable):
        parse.body_text(msg)


def test_lines_that_cannot_be_boundaries_are_not_checked_against_them():
    """The parser's per-line cost does not grow with the depth (_Lines): the
    boundary matchers are recognised, so a line not starting with '--'
    skips them, and the mail reads exactly as the standard library reads it
    (tests/mail/test_inbound_parse.py compares the readings)."""
    lines = parse._Lines()
    checked = []
    boundary = re.compile("(?P<sep>" + re.escape("--b1") + r")(?P<end>--)?$").match  # as feedparser builds it
    lines.push_eof_matcher(lambda line: checked.append(line) or boundary(line))
    assert lines._other_count == 1  # not recognised: checked against every line, as before
    lines.pop_eof_matcher()
    lines.push_eof_matcher(boundary)
    lines.push("x\n--b1\ny\n")
    assert (lines.readline(), lines.readline(), lines._other_count) == ("x\n", "", 0)  # '--b1' is the false EOF


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(mime(), st.binary(max_size=600), st.builds(
    lambda head, sep, body: head + sep + body, st.binary(max_size=200),
    st.sampled_from([b"\r\n\r\n", b"\n\n", b"\n\r\n"]), st.binary(max_size=300))))
def test_a_single_part_mail_reads_as_the_standard_parser_reads_it(raw):
    """parse._single_part takes the body as it came instead of line by line:
    the same headers, payload and defects as the standard parser's."""
    import email
    import email.policy

    fast = parse._single_part(raw)
    if fast is None:
        return
    slow = email.message_from_bytes(raw, policy=email.policy.compat32)
    assert fast.items() == slow.items() and fast._payload == slow._payload
    assert [type(d) for d in fast.defects] == [type(d) for d in slow.defects]
