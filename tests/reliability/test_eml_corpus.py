"""The hostile and broken mail corpus (tests/fixtures/eml/), each file sent
over a real SMTP conversation into the receiver, then run through the real
pipeline: processed, answered with a clear error, or dropped without reply,
exactly as listed below — never a crash, never a wrong change to the game.

Every file is sent to a fresh two-seat game of the test game where Ann
(seat 0) is to move; the corpus writes its move as ``wait``."""
from __future__ import annotations

import smtplib
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.mail import pipeline
from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound, Seat
from tests.conftest import smtp_receiver
from tests.mailtools import ann_and_bob

EML = Path(__file__).resolve().parent.parent / "fixtures" / "eml"

# file -> (envelope sender, what happens, moves applied, text the reply must contain)
# what: "done" = processed and answered; "ignored" = dropped without a reply; "refused" = not read,
#       answered with the reason, kept as ignored;
#       a number = the receiver's refusal code (552 too big, 500 line too long)
CORPUS = {
    "gmail_alternative_qp.eml": ("ann@x.test", "done", 1, "OK"),
    "outlook_html_only_cp1252.eml": ("ann@x.test", "done", 1, "Merci"),  # the sign-off is not a move
    "outlook_related_inline_image.eml": ("ann@x.test", "done", 1, "OK"),
    "apple_mail_flowed.eml": ("ann@x.test", "done", 1, "OK"),
    "thunderbird_signature.eml": ("ann@x.test", "done", 1, "OK"),
    "iphone_base64.eml": ("ann@x.test", "done", 1, "OK"),
    "android_gmail_html_b64.eml": ("ann@x.test", "done", 1, "OK"),
    "yandex_koi8r_8bit.eml": ("ann@x.test", "done", 1, "OK"),
    "mailru_cp1251_base64_html.eml": ("ann@x.test", "done", 1, "OK"),
    "latin1_qp.eml": ("ann@x.test", "done", 1, "André"),
    "iso2022jp.eml": ("ann@x.test", "done", 1, "OK"),
    "unknown_charset.eml": ("ann@x.test", "done", 1, "OK"),
    "html_only_entities.eml": ("ann@x.test", "done", 1, "OK"),
    "attachment_mixed.eml": ("ann@x.test", "done", 1, "OK"),  # text in attachments is never read
    "forwarded_rfc822.eml": ("ann@x.test", "done", 1, "OK"),
    "forwarded_beside_html.eml": ("ann@x.test", "done", 1, "OK"),  # the forwarded mail's RESIGN is not run
    "html_hidden_text.eml": ("ann@x.test", "done", 1, "OK"),  # nor hidden HTML's RESIGN, NEWADDRESS, STOP
    "huge_body.eml": ("ann@x.test", 552, 0, None),
    "many_lines.eml": ("ann@x.test", "done", 0, "pbem reads at most"),
    "long_single_line.eml": ("ann@x.test", 500, 0, None),  # a 60 kB line breaks SMTP's 1000-octet limit
    "empty_body.eml": ("ann@x.test", "done", 0, "no moves or commands"),
    "nul_bytes.eml": ("ann@x.test", "done", 1, "OK"),
    "missing_message_id.eml": ("ann@x.test", "done", 1, "OK"),
    "missing_from.eml": ("ann@x.test", "ignored", 0, None),
    "missing_all_headers.eml": ("ann@x.test", "ignored", 0, None),
    "broken_headers.eml": ("ann@x.test", "done", 0, "This line has no colon"),  # headers end at the bad line
    "malformed_multipart_no_end.eml": ("ann@x.test", "done", 1, "OK"),
    "malformed_multipart_no_boundary.eml": ("ann@x.test", "done", 1, "OK"),
    "broken_base64.eml": ("ann@x.test", "done", 1, "OK"),  # decoded leniently, as clients do
    # nested deeper than any client writes (60 levels were read before, at a cost of depth x
    # lines: parse.MAX_DEPTH)
    "deep_nesting.eml": ("ann@x.test", "refused", 0, "MIME parts are nested more than 20 levels deep"),
    "deep_nesting_2000.eml": ("ann@x.test", "refused", 0, "MIME parts are nested more than 20 levels deep"),
    "from_nested_comments.eml": ("ann@x.test", "refused", 0, "From header nests comments 2000 levels deep"),
    "html_deep_nesting.eml": ("ann@x.test", "refused", 0, "HTML nests elements more than 255 levels deep"),
    "many_parts.eml": ("ann@x.test", "refused", 0, "it has more than 500 MIME parts"),
    "gmail_vacation_autoreply.eml": ("ann@x.test", "ignored", 0, None),
    "outlook_oof_autoreply.eml": ("ann@x.test", "ignored", 0, None),
    "precedence_auto_reply.eml": ("ann@x.test", "ignored", 0, None),
    "ooo_subject_only.eml": ("ann@x.test", "ignored", 0, None),  # no Microsoft header: the subject says it
    "risposta_automatica.eml": ("ann@x.test", "ignored", 0, None),
    "list_id_only.eml": ("ann@x.test", "ignored", 0, None),  # a list, without Precedence
    "second_auto_submitted.eml": ("ann@x.test", "ignored", 0, None),  # any Auto-Submitted but "no"
    "bounce_dsn_report.eml": ("", "ignored", 0, None),
    "bounce_plain_postmaster.eml": ("", "ignored", 0, None),
    # the token is the credential: the move counts, and the answer goes to the seat's owner, not to Eve
    "forged_from_on_seat.eml": ("eve@evil.test", "done", 1, "OK"),
    "html_script_injection.eml": ("ann@x.test", "done", 0, "write 'play N'"),
}


# sent to several addresses: tests/reliability/test_hostile_mail.py; to the command address: test_trust.py
ELSEWHERE = {"forged_from_on_command.eml", "two_seat_addresses.eml", "split_recipients.eml"}


def test_every_file_of_the_corpus_is_listed():
    assert {p.name for p in EML.glob("*.eml")} - ELSEWHERE == set(CORPUS)


def _send(cfg, raw: bytes, mail_from: str, rcpt: str) -> int:
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30) as c:
        c.ehlo("client.test")
        c.mail(mail_from)
        assert c.rcpt(rcpt)[0] == 250
        code, _ = c.data(raw)
        return code


@pytest.fixture
def small_limit_cfg(any_cfg):
    from pbem import config

    # the corpus is sent by a handful of senders in one burst: the per-sender
    # courtesy limit (tested in tests/manage) would answer it, not parse it
    cfg = any_cfg.with_(max_message_bytes=512 * 1024, inbound_rate=10_000)
    config.set_settings(cfg)
    return cfg


def test_corpus_over_smtp_through_the_pipeline(small_limit_cfg):
    cfg = small_limit_cfg
    seen_ids = set()
    with smtp_receiver(cfg):
        for name, (env_from, what, n_moves, needle) in CORPUS.items():
            gid, seat_addr = ann_and_bob()
            raw = (EML / name).read_bytes().replace(b"@@SEAT@@", seat_addr.encode()) \
                .replace(b"@@GAME@@", str(gid).encode())
            with unit_of_work() as s:
                before_in = len(list(s.exec(select(Inbound.id))))
                before_out = len(list(s.exec(select(Outbound.id))))
            code = _send(cfg, raw, env_from, seat_addr)
            with unit_of_work() as s:
                rows = list(s.exec(select(Inbound).order_by(Inbound.id)))[before_in:]
            if isinstance(what, int):
                assert code == what, name
                assert rows == [], name
                continue
            assert code == 250, name
            assert len(rows) == 1, name
            assert rows[0].message_id not in seen_ids, name
            seen_ids.add(rows[0].message_id)
            status = pipeline.process_inbound(rows[0].id)
            assert status == ("ignored" if what == "refused" else what), (name, status, rows[0].id)
            with unit_of_work() as s:
                moves = list(s.exec(select(Move).where(Move.game_id == gid)))
                g = s.get(Game, gid)
                new_out = list(s.exec(select(Outbound).order_by(Outbound.id)))[before_out:]
                replies = [o for o in new_out if o.kind == "reply"]
                assert len(moves) == n_moves == g.ply, (name, [m.notation for m in moves])
                assert all(m.notation == "wait" and m.seat == 0 for m in moves), name
                # the game itself is consistent with its record
                assert games.replay_state(s, g) == games.state_at(s, g)
                # nothing the sender did not write ran: no resignation, no new address (quoted, forwarded, hidden)
                seat0 = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one()
                assert not seat0.resigned and seat_addr.startswith(f"game-{gid}.{seat0.token}@"), name
            if what == "ignored":
                assert new_out == [], name
                continue
            assert len(replies) == 1, name
            reply = replies[0]
            assert reply.to_addr == "ann@x.test", name  # never to a forged From
            assert needle in reply.body_text, (name, reply.body_text[:2000])
            # nothing the sender wrote comes back as live HTML, and huge input is not echoed whole
            assert "<script" not in (reply.body_html or "").lower(), name
            assert len(reply.body_text) < 20_000, name
            # a second run of the same stored mail changes nothing
            assert pipeline.process_inbound(rows[0].id) == status
            with unit_of_work() as s:
                assert len(list(s.exec(select(Move).where(Move.game_id == gid)))) == n_moves
