"""The MIME of an outbox row: what build_message writes is what the
stdlib's compat32 policy writes (the fast header path changes no byte), and
it reads back to the row's texts."""
from __future__ import annotations

import email
import email.policy
import random
import string
from datetime import datetime, timezone

from pbem.config import load_settings
from pbem.mail.outbound import MAIL_POLICY, build_message
from pbem.store.models import Outbound

REF = email.policy.compat32


def test_header_folding_is_compat32_byte_for_byte():
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + " \t=?<>@.,;:\"()[]\\_-" + "  " + "éж"
    names = ["Subject", "To", "X-PBEM-Loop", "In-Reply-To", "List-Unsubscribe", "A"]
    for _ in range(3_000):
        name = rng.choice(names)
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 100)))
        for linesep in ("\n", "\r\n"):
            fast, ref = MAIL_POLICY.clone(linesep=linesep), REF.clone(linesep=linesep)
            assert fast.fold_binary(name, value) == ref.fold_binary(name, value), (name, value)
            assert fast.fold(name, value) == ref.fold(name, value), (name, value)


def _row(**kw) -> Outbound:
    base = dict(id=7, message_id="<pbem.0123456789abcdef01234567@pbem.test>", to_addr="anna@example.org",
                subject="[pbem #3 ply 12] Сквайр: your turn — a long subject that has to be folded over lines",
                body_text="Доска\n  ply 12\n-- \nfooter\n", body_html="<p>Доска <b>ply 12</b></p>",
                headers={"Reply-To": "g3.abc@pbem.test", "X-PBEM-Loop": "pbem.test",
                         "List-Unsubscribe": "<mailto:pbem@pbem.test?subject=STOP&body=STOP>",
                         "In-Reply-To": "<" + "x" * 90 + "@players.example>"},
                created_at=datetime(2026, 11, 22, 10, 0, tzinfo=timezone.utc))
    base.update(kw)
    return Outbound(**base)


def test_message_is_what_compat32_writes_and_reads_back():
    cfg = load_settings({"PBEM_DOMAIN": "pbem.test"})
    for row in (_row(), _row(body_html=None), _row(subject="plain ascii", to_addr="Зоя <zoya@example.org>")):
        msg = build_message(row, cfg)
        raw = msg.as_bytes()
        assert raw == msg.as_bytes(policy=REF)  # the same bytes as the stdlib's own folding
        assert raw == build_message(row, cfg).as_bytes()  # a re-delivery is the same mail
        back = email.message_from_bytes(raw, policy=email.policy.default)
        assert back["Subject"] == row.subject
        assert back["Message-ID"] == row.message_id
        assert back["In-Reply-To"].strip() == row.headers["In-Reply-To"]
        assert all(len(line) <= 998 for line in raw.split(b"\n"))
        assert back.get_body(("plain",)).get_content() == row.body_text
        if row.body_html:
            assert back.get_content_type() == "multipart/alternative"
            assert back.get_body(("html",)).get_content() == row.body_html
            assert len(list(back.iter_parts())) == 2



def test_text_parts_and_flattening_are_the_stdlib_bytes(monkeypatch):
    """_text_part is MIMEText(…, "utf-8") and flatten is as_bytes (maildir) or
    what smtplib.send_message transmits (relay), byte for byte, on random
    bodies: CRs, lone LFs, empty, long lines, "From " lines, any script."""
    import email.charset
    import io
    from email.generator import BytesGenerator
    from email.mime.text import MIMEText

    from pbem.mail.outbound import _text_part, flatten

    # MIMEText as the standard library makes it (UTF-8 bodies in base64), whatever ran before in this
    # process: apprise's e-mail plugin, once imported (push channels), makes it quoted-printable for the
    # whole process, and _text_part stays base64 by design
    monkeypatch.setitem(email.charset.CHARSETS, "utf-8", (email.charset.SHORTEST, email.charset.BASE64, "utf-8"))
    rng = random.Random(11)
    pieces = ["\n", "\r\n", "\r", "From here\n", ">From\n", " ", "ply 12", "Доска", "ω", "é", "\t", "x" * 200, ""]
    cfg = load_settings({"PBEM_DOMAIN": "pbem.test"})
    for k in range(600):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        for subtype in ("plain", "html"):
            ours = _text_part(body, subtype)
            ref = MIMEText(body, subtype, "utf-8", policy=MAIL_POLICY)
            assert ours.items() == ref.items() and ours.get_payload() == ref.get_payload(), body
        html = body if k % 3 else None
        msg = build_message(_row(body_text=body[::-1], body_html=html), cfg)
        assert flatten(msg) == msg.as_bytes(), body
        wire = io.BytesIO()  # smtplib.send_message's own flattening
        BytesGenerator(wire).flatten(msg, linesep="\r\n")
        assert flatten(msg, "\r\n", mangle_from=msg.policy.mangle_from_) == wire.getvalue(), body
