"""Nesting has a bound that no client reaches (issue 18 §2): the parser
stops parsing parts below parse.MAX_DEPTH (linear work, no recursion),
comments in a From are read without recursion, and what is too deep is
reported, never a RecursionError. The whole path, over SMTP with a worker,
is in tests/reliability/test_hostile_mail.py."""
from __future__ import annotations

import pytest

from pbem.mail import parse


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
    raw = b"From: ann@x.test\r\n" + b"Content-Type: message/rfc822\r\n\r\n" * 3000 + b"Content-Type: text/plain\r\n\r\nx"
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
