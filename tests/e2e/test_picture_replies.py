"""Board mails carry their drawing as an inline image, and
players answer them from their clients, which quote the HTML with its
``<img src="cid:…">`` and, in the clients that keep inline images in a
reply (Outlook, Apple Mail, Gmail, Samsung, Yandex), attach the PNG again
as a ``multipart/related`` part. Every such answer must still be read as
the player meant it: exactly the typed move applied, once, no ERROR.

A two-player Spyrium game by mail, on the embedded defaults: each mail goes
over a real SMTP conversation into the receiver and through a real Celery
worker; each player answers the latest mail pbem really sent them that
shows their board with its picture."""
from __future__ import annotations

import email
import re
from email import policy
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart

import pytest
from sqlmodel import func, select

from pbem.services.core import games as gsvc
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Move, Outbound, Seat, User
from tests import mailclients as mc
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, PATIENCE, mail, wait_for


# what these tests read is the picture: at the width the product mails it (tests/conftest.py)
pytestmark = pytest.mark.mailed_pictures


def _reattached(raw: bytes, png: bytes, cid: str) -> bytes:
    """The reply as a client that keeps the quoted mail's inline image sends it: its body and the image
    under one multipart/related (the body's own structure unchanged)."""
    msg = email.message_from_bytes(raw)
    body = email.message_from_bytes(raw)
    for k in list(body.keys()):
        if not k.lower().startswith("content-"):
            del body[k]
    related = MIMEMultipart("related")
    for k, v in msg.items():
        if not k.lower().startswith("content-") and k.lower() != "mime-version":
            related[k] = v
    related.attach(body)
    image = MIMEImage(png, "png")
    image["Content-ID"] = f"<{cid}>"
    image.add_header("Content-Disposition", "inline", filename="image001.png")
    related.attach(image)
    return re.sub(rb"\r?\n", b"\r\n", related.as_bytes())  # on the wire as the clients send it: CRLF


# (label, builder, re-attaches the picture); each builder: (original, player, answer, seed) -> raw bytes
CLIENTS = [
    ("outlook desktop de, HTML only", lambda o, p, a, s: mc.outlook_html(o, p, a, loc="de", seed=s), True),
    ("gmail en, top", lambda o, p, a, s: mc.gmail(o, p, a, loc="en", seed=s), True),
    ("apple mail fr, iphone", lambda o, p, a, s: mc.apple(o, p, a, loc="fr", iphone=True, seed=s), True),
    ("thunderbird ru, flowed, bottom", lambda o, p, a, s: mc.thunderbird(o, p, a, loc="ru", seed=s), False),
    ("samsung email, phone", lambda o, p, a, s: mc.samsung(o, p, a, seed=s), True),
    ("yandex web", lambda o, p, a, s: mc.yandex(o, p, a, seed=s), True),
    ("outlook web it", lambda o, p, a, s: mc.outlook_html(o, p, a, loc="it", variant="owa", seed=s), True),
    ("k9 de, phone", lambda o, p, a, s: mc.k9(o, p, a, loc="de", seed=s), False),
    ("gmail android es, bottom", lambda o, p, a, s: mc.gmail(o, p, a, loc="es", style="bottom", mobile=True,
                                                            seed=s), True),
    ("proton", lambda o, p, a, s: mc.proton(o, p, a, seed=s), False),
]


def _delivered_png(cfg, row: Outbound) -> tuple[bytes, str]:
    """The picture of ``row`` as it was delivered to the maildir, and its Content-ID."""
    import mailbox

    box = mailbox.Maildir(str(cfg.maildir), create=False)
    for key in box.keys():
        msg = email.message_from_bytes(box.get_bytes(key), policy=policy.default)
        if msg["Message-ID"] == row.message_id:
            image = msg.get_payload()[1]
            return image.get_content(), image["Content-ID"].strip("<>")
    raise AssertionError(f"{row.message_id} not delivered")


def test_replies_to_picture_mails_from_every_client(sqlite_cfg):
    cfg = sqlite_cfg
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, mail("ann@x.test", CMD, "REGISTER Ann\nNEW spyrium players=2"), "ann@x.test", CMD) == 250
        gid = wait_for(lambda: _one(select(Game.id)))
        assert send_mail(cfg, mail("bob@x.test", CMD, f"REGISTER Bob\nJOIN {gid}"), "bob@x.test", CMD) == 250
        wait_for(lambda: _one(select(Game).where(Game.status == "running")))
        for n, (label, build, reattach) in enumerate(CLIENTS):
            with unit_of_work() as s:
                g = s.get(Game, gid)
                engine = gsvc.engine_for(g)
                state = gsvc.state_at(s, g)
                seat = sorted(engine.to_move(state))[0]
                move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
                user = s.get(User, s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one().user_id)
                ply = g.ply
            # the latest mail that shows this player the board, with its picture, once delivered
            row = wait_for(lambda: _latest_picture_mail(user.email, ply))
            assert re.search(r'<img[^>]*src="cid:', row.body_html)
            orig = mc.Original.from_outbound(row, cfg.command_address)
            raw = build(orig, mc.Player(user.name, user.email), mc.Answer([move]), f"pic-{n}")
            if reattach:
                png, cid = _delivered_png(cfg, row)
                raw = _reattached(raw, png, cid)
            moves_before = _count(Move, Move.game_id == gid)
            sent_id = email.message_from_bytes(raw)["Message-ID"].strip()
            assert send_mail(cfg, raw, user.email, orig.reply_to) == 250
            receipt = wait_for(lambda: _answered(user.email, sent_id), timeout=PATIENCE)
            assert _count(Move, Move.game_id == gid) == moves_before + 1, (label, receipt.body_text[:600])
            assert not re.search(r"^\s*ERROR\b", receipt.body_text, re.M), (label, receipt.body_text[:800])


def _latest_picture_mail(to: str, ply: int) -> Outbound | None:
    with unit_of_work() as s:
        row = s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.picture_key.is_not(None),
                                            Outbound.kind.in_(("board", "reply")))
                     .order_by(Outbound.id.desc())).first()
        if row is None or row.status != "sent" or f"ply {ply}" not in row.body_text:
            return None
        return row


def _answered(to: str, message_id: str) -> Outbound | None:
    """pbem's answer to the player's mail ``message_id``."""
    with unit_of_work() as s:
        rows = s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.kind == "reply"))
        return next((r for r in rows if (r.headers or {}).get("In-Reply-To") == message_id), None)


def _one(q):
    with unit_of_work() as s:
        return s.exec(q).first()


def _count(model, *where) -> int:
    with unit_of_work() as s:
        return s.exec(select(func.count()).select_from(model).where(*where)).one()
