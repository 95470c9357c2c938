"""Fuzzing (Hypothesis) over every notation parser, the command splitter and
the MIME-to-text step: any input either gives a result or the documented
error, never a crash. Budget: profile ``ci`` (default) or ``long``."""
from __future__ import annotations

import random
from email.message import EmailMessage

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.engine import GAMES, MoveError, validate_options
from pbem.mail import commands
from pbem.store.addresses import parse_recipient, parse_subject_tag, redact
from pbem.mail.parse import body_text, parse_message
from pbem.mail.quotes import strip_reply
from tests.minigame import MINI

ALL = dict(GAMES, mini=MINI)


def _positions(game, players: int, n: int = 6, seed: int = 3):
    """A few positions along one random game: the start, the middle, late."""
    rng = random.Random(seed)
    state = game.initial_state(players, seed, validate_options(game, players, {}))
    out = []
    for ply in range(400):
        seats = game.to_move(state)
        if not seats:
            break
        if ply % 15 == 0:
            out.append(state)
        seat = rng.choice(sorted(seats))
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    return (out + [state])[:n]


POSITIONS = {name: _positions(g, max(g.min_players, min(3, g.max_players))) for name, g in sorted(ALL.items())}


def _notation_like(game, state):
    """Words the notation uses: legal moves cut apart and glued at random."""
    words = set()
    for seat in game.to_move(state) or [0]:
        for m in game.legal_moves(state, seat)[:60]:
            words.update(game.format_move(state, seat, m).replace(",", " , ").split())
    return sorted(words) or ["x"]


@pytest.mark.parametrize("name", sorted(ALL))
@given(data=st.data())
def test_parse_move_never_crashes(name, data):
    game = ALL[name]
    state = data.draw(st.sampled_from(POSITIONS[name]))
    seats = sorted(game.to_move(state)) or [0]
    seat = data.draw(st.sampled_from(seats + [0]))
    words = _notation_like(game, state)
    text = data.draw(st.one_of(
        st.text(max_size=80),
        st.lists(st.one_of(st.sampled_from(words), st.text(max_size=4)), max_size=8).map(" ".join),
    ))
    try:
        move = game.parse_move(state, seat, text)
    except MoveError as e:
        assert str(e)  # a human reason
        return
    # it parsed: then it formats, and applying it is legal or a MoveError
    game.format_move(state, seat, move)
    try:
        game.apply(state, seat, move)
    except MoveError:
        pass


@given(st.text(max_size=2000))
def test_split_lines_never_crashes(text):
    lines = commands.split_lines(text)
    for line in lines:
        assert line.raw and line.raw == line.raw.strip()
        assert (line.command is None) == bool(line.moves) or line.command is not None
        assert all(m and m == m.strip() and ";" not in m for m in line.moves)
        if line.command:
            assert line.command in commands.ACCOUNT_COMMANDS
    commands.parse_options([w for ln in lines for w in ln.args])
    commands.parse_game_id([w for ln in lines for w in ln.args])


@given(st.binary(max_size=4000))
def test_mime_to_text_on_random_bytes(raw):
    text = body_text(parse_message(raw))
    assert isinstance(text, str) and "\x00" not in text and "\r" not in text
    strip_reply(text)


HEADER_VALUES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
CHARSETS = st.sampled_from(["utf-8", "koi8-r", "cp1251", "latin-1", "iso-2022-jp", "utf-16", "ascii", "x-bogus"])
CTE = st.sampled_from(["7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "bogus"])
CTYPES = st.sampled_from(["text/plain", "text/html", "application/octet-stream", "multipart/alternative",
                          "multipart/mixed", "message/rfc822", "text/enriched"])


@st.composite
def mime(draw, depth=0):
    """A MIME tree with random types, charsets, encodings and bodies, and
    hand-broken headers now and then."""
    ctype = draw(CTYPES)
    if depth >= 2 and ctype.startswith(("multipart", "message")):
        ctype = "text/plain"
    head = [f"Content-Type: {ctype}; charset={draw(CHARSETS)}"]
    if draw(st.booleans()):
        head.append(f"Content-Transfer-Encoding: {draw(CTE)}")
    if draw(st.booleans()):
        head.append(f"Content-Disposition: {draw(st.sampled_from(['inline', 'attachment', 'bogus;;']))}")
    if ctype.startswith("multipart"):
        b = draw(st.sampled_from(["b1", "==x==", "", "b1"]))
        head[0] = f'Content-Type: {ctype}; boundary="{b}{depth}"'
        parts = draw(st.lists(mime(depth=depth + 1), max_size=3))
        body = b"".join(b"--" + f"{b}{depth}".encode() + b"\r\n" + p + b"\r\n" for p in parts)
        if draw(st.booleans()):
            body += b"--" + f"{b}{depth}".encode() + b"--\r\n"
    elif ctype == "message/rfc822":
        body = b"Subject: inner\r\n" + draw(mime(depth=depth + 1))
    else:
        text = draw(st.text(max_size=300))
        body = draw(st.one_of(st.just(text.encode("utf-8", "surrogatepass")), st.binary(max_size=300)))
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


@given(mime(), HEADER_VALUES, HEADER_VALUES)
def test_mime_to_text_on_random_mime(part, subject, frm):
    raw = f"From: {frm}\r\nSubject: {subject}\r\nMIME-Version: 1.0\r\n".encode("utf-8", "surrogatepass") + part
    msg = parse_message(raw)
    text = body_text(msg)
    assert isinstance(text, str) and "\x00" not in text
    strip_reply(text)


@given(st.text(max_size=200), st.text(max_size=50), st.booleans())
def test_address_parsers_never_crash_and_redact_hides_tokens(text, around, upper):
    parse_recipient(text, "pbem.test", "pbem")
    parse_subject_tag(text)
    from pbem.services.core.seating import new_token

    token = new_token()
    addr = f"game-12.{token}@pbem.test"
    line = f"{around}{addr.upper() if upper else addr}{around}"
    assert token not in redact(line).lower()


def test_a_well_formed_mail_still_reads_right():
    m = EmailMessage()
    m["From"] = "a@x.test"
    m.set_content("play 5\n\nOn Sun pbem <game-1.abc@pbem.test> wrote:\n> old")
    assert strip_reply(body_text(parse_message(m.as_bytes()))).text == "play 5"
