"""Board pictures, the mail's part: a board mail's HTML shows the seat's drawing as
an inline PNG (multipart/related, named by Content-ID), rendered with resvg
when the mail is delivered, once per distinct drawing; the plain text keeps
the text board; a player who reads text gets no picture; a burst of moves
makes board mails go without one; a drawing that cannot be rendered never
stops its mail.

The first test is the whole path: real SMTP into the receiver, a real
Celery worker, mails delivered to the maildir and read back as a mail
client gets them. With PBEM_SHOT_PREFIX set it keeps each game's PNG as it
arrived in docs/screenshots/mail/."""
from __future__ import annotations

import email
import json
import mailbox
import os
import re
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import select

from pbem import config, tasks
from pbem.mail import outbound, pictures
from pbem.services.core import games
from pbem.store import outbox as store_outbox
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Outbound, Picture, Seat, User
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, mail, outbox, process, seat_addr, wait_for
from tests.pngs import size as png_size

# what these tests read is the picture: at the width the product mails it (tests/conftest.py)
pytestmark = pytest.mark.mailed_pictures


SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "mail"


def _delivered(cfg, to: str) -> list[email.message.EmailMessage]:
    """The mails the maildir holds for ``to``, oldest first, parsed as a mail client parses them."""
    box = mailbox.Maildir(str(cfg.maildir), create=False)
    out = []
    for key in sorted(box.keys()):
        msg = email.message_from_bytes(box.get_bytes(key), policy=policy.default)
        if to in str(msg["To"]):
            out.append(msg)
    return out


def _picture_parts(msg) -> tuple[str, str, bytes]:
    """(html, text, png) of a board mail with a picture; asserts its structure."""
    assert msg.get_content_type() == "multipart/related", msg.get_content_type()
    assert msg.get_param("type") == "multipart/alternative"
    alternative, image = msg.get_payload()
    assert alternative.get_content_type() == "multipart/alternative"
    text_part, html_part = alternative.get_payload()
    assert image.get_content_type() == "image/png" and image.get_content_disposition() == "inline"
    cid = image["Content-ID"].strip("<>")
    html = html_part.get_content()
    img = re.search(r'<img[^>]*src="cid:([^"]+)"[^>]*>', html)
    assert img and img.group(1) == cid, "the HTML shows the attached picture"
    alt = re.search(r'alt="([^"]+)"', img.group(0)).group(1)
    assert len(alt) > 40, alt  # a descriptive alt: the board's title and what the drawing shows
    return html, text_part.get_content(), image.get_content()


GAMES = [("spyrium", "", "spyrium"), ("squire", " side=british", "squire-british"),
         ("squire", " side=world", "squire-world"), ("iaww", "", "iaww")]


@pytest.mark.parametrize("game,options,label", GAMES, ids=[g[2] for g in GAMES])
def test_a_board_mail_shows_the_seats_drawing_inline(sqlite_cfg, game, options, label):
    cfg = sqlite_cfg
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, mail("ann@x.test", CMD, f"REGISTER Ann\nNEW {game} players=2{options}"),
                         "ann@x.test", CMD) == 250
        gid = wait_for(lambda: _first(select(Game.id)))
        assert send_mail(cfg, mail("bob@x.test", CMD, f"REGISTER Bob\nJOIN {gid}"), "bob@x.test", CMD) == 250
        wait_for(lambda: _first(select(Game).where(Game.status == "running")))
        wait_for(lambda: {o.to_addr for o in outbox() if o.kind == "board" and o.status == "sent"}
                 >= {"ann@x.test", "bob@x.test"})
        for who in ("ann@x.test", "bob@x.test"):
            board = [m for m in _delivered(cfg, who) if m.get_content_type() == "multipart/related"][-1]
            html, text, png = _picture_parts(board)
            width, height = png_size(png)
            # the mail's layout (the narrow one: a tall column) at 2x; fewer pixels only for one too heavy
            assert width in {cfg.picture_width, cfg.picture_width * 3 // 4, cfg.picture_width // 2}, width
            assert 200 < height < 20_000, (width, height)
            shown = store_outbox.shown_width(store_outbox.picture_layout(game), cfg.picture_width)
            assert f'width="{shown}"' in re.search(r"<img[^>]*>", html).group(0)
            assert "ply 0" in text or "ply" in text  # the plain text keeps the text board
            size = len(board.as_bytes())
            assert size < 250_000, f"{label}: a board mail of {size} bytes"
            if os.environ.get("PBEM_SHOT_PREFIX") is not None and who == "ann@x.test":
                SHOTS.mkdir(parents=True, exist_ok=True)
                (SHOTS / f"{label}.png").write_bytes(png)
                (SHOTS / f"{label}.txt").write_text(
                    f"{label}: the start board mail to seat 0, as delivered: {size} bytes in all; the PNG "
                    f"{len(png)} bytes, {width}x{height} px; HTML part {len(html.encode())} bytes, text part "
                    f"{len(text.encode())} bytes\n")
        with unit_of_work() as s:
            people = {seat: seat_addr_user(s, gid, seat) for seat in (0, 1)}
        keys = {seat: _keys(who)[-1] for seat, who in people.items()}
        with unit_of_work() as s:  # the seat's own drawing: of its view, nothing else
            g = s.get(Game, gid)
            for seat, key in keys.items():
                view = games.view_for(s, g, seat)
                pic = s.get(Picture, key)
                assert json.loads(pic.view) == json.loads(json.dumps(view)) and pic.game == game
                assert pic.svg == pictures.draw(game, json.dumps(view))  # the mail's layout, of this view


def seat_addr_user(s, gid: int, seat: int) -> str:
    row = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one()
    return s.get(User, row.user_id).email


def _next_move(gid: int) -> tuple[int, str, str]:
    """The first seat to move, its first legal move, and its player's address."""
    with unit_of_work() as s:
        g = s.get(Game, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        seat = sorted(engine.to_move(state))[0]
        return seat, engine.format_move(state, seat, engine.legal_moves(state, seat)[0]), seat_addr_user(s, gid, seat)


def _keys(to: str) -> list[str]:
    return [o.picture_key for o in outbox(to) if o.picture_key]


def _first(q):
    with unit_of_work() as s:
        return s.exec(q).first()


def _spyrium_game() -> int:
    """A two-seat Spyrium game by mail, in process (no SMTP): Ann and Bob; its id."""
    process("ann@x.test", CMD, "REGISTER Ann")
    process("bob@x.test", CMD, "REGISTER Bob")
    process("ann@x.test", CMD, "NEW spyrium players=2")
    gid = _first(select(Game.id).order_by(Game.id.desc()))
    process("bob@x.test", CMD, f"JOIN {gid}")
    return gid


def test_the_same_board_is_drawn_once_and_rendered_once(sqlite_cfg):
    """Observers see one public board: one pictures row, one rendering for all of their mails."""
    gid = _spyrium_game()
    for who in ("cy@x.test", "di@x.test"):
        process(who, CMD, f"REGISTER {who[:2].title()}\nOBSERVE {gid}")
    seat, move, mover = _next_move(gid)  # the observers' next board: after this move
    process(mover, seat_addr(gid, seat), move)
    keys = {o.picture_key for o in outbox("cy@x.test") + outbox("di@x.test") if o.kind == "board"}
    assert len(keys) == 1 and None not in keys
    key = keys.pop()
    with unit_of_work() as s:
        assert s.exec(select(Picture).where(Picture.key == key)).one().png is None  # nothing rendered yet
    rows = [o for o in outbox() if o.picture_key == key]
    results = tasks.deliver_batch([o.id for o in rows])
    assert {v[0] for v in results.values()} == {"sent"}
    with unit_of_work() as s:
        pic = s.get(Picture, key)
        assert pic.png is not None and png_size(pic.png)[0] == config.settings().picture_width
        rendered = pic.rendered_at
    pictures._recent.clear()  # another process: the stored PNG, not a new rendering
    msg = outbound.build_message(rows[0], config.settings())
    assert msg.get_content_type() == "multipart/related"
    with unit_of_work() as s:
        assert s.get(Picture, key).rendered_at == rendered


def test_a_player_who_reads_text_gets_no_picture(sqlite_cfg):
    gid = _spyrium_game()
    with unit_of_work() as s:
        bob = s.exec(select(User).where(User.email == "bob@x.test")).one()
        bob.mail_format = "text"
        s.add(bob)
    seat, move, mover = _next_move(gid)
    process(mover, seat_addr(gid, seat), move)
    last = [o for o in outbox("bob@x.test")][-1]
    assert last.picture_key is None and last.body_html is None
    assert outbound.build_message(last, config.settings()).get_content_type() == "text/plain"
    assert [o for o in outbox("ann@x.test") if o.kind in ("board", "reply")][-1].picture_key


def test_a_burst_of_mail_sends_boards_without_pictures(sqlite_cfg):
    """More players' mail waiting than PBEM_PICTURE_BACKLOG: the boards go at once, complete, without a picture."""
    gid = _spyrium_game()
    config.set_settings(sqlite_cfg.with_(picture_backlog=3))
    store_outbox._backlog_seen, store_outbox._shed_until = (0.0, 0, 0), 0.0
    try:
        with unit_of_work() as s:
            for i in range(5):  # mail the receiver stored and no worker has taken yet
                s.add(Inbound(mail_from="x@x.test", rcpt_to=CMD, raw=b"Subject: x\r\n\r\nHELP\r\n",
                              message_id=f"<burst{i}@x.test>"))
        seat, move, mover = _next_move(gid)
        before = outbox()[-1].id
        process(mover, seat_addr(gid, seat), move)
        new = [o for o in outbox() if o.id > before]
        assert new and all(o.picture_key is None for o in new)
        assert all("cid:" not in (o.body_html or "") for o in new)
        assert any(o.kind == "board" and "<table" in (o.body_html or "") for o in new)  # the HTML board stays
    finally:
        config.set_settings(sqlite_cfg)
        store_outbox._backlog_seen, store_outbox._shed_until = (0.0, 0, 0), 0.0


def test_a_drawing_that_cannot_be_rendered_never_stops_its_mail(sqlite_cfg, caplog):
    gid = _spyrium_game()
    row = [o for o in outbox("bob@x.test") if o.picture_key][-1]
    with unit_of_work() as s:
        s.exec(update(Picture).where(Picture.key == row.picture_key).values(svg="<svg this is not", png=None))
    assert "Picture of the board of Spyrium" in row.body_html
    pictures._recent.clear()
    msg = outbound.build_message(row, config.settings())
    assert msg.get_content_type() == "multipart/alternative"  # no image part
    html = msg.get_payload()[1].get_payload(decode=True).decode()
    assert "cid:" not in html and "<table" in html
    assert "could not be drawn or rendered" in caplog.text


def test_pictures_off_sends_none(sqlite_cfg):
    config.set_settings(sqlite_cfg.with_(mail_pictures=False))
    try:
        _spyrium_game()
        assert not [o for o in outbox() if o.picture_key]
        with unit_of_work() as s:
            assert not list(s.exec(select(Picture)))
    finally:
        config.set_settings(sqlite_cfg)


def test_the_settings_read_and_refuse(sqlite_cfg):
    from pbem.config import load_settings

    cfg = load_settings({"PBEM_MAIL_PICTURES": "off", "PBEM_PICTURE_WIDTH": "600", "PBEM_PICTURE_BACKLOG": "0"})
    assert (cfg.mail_pictures, cfg.picture_width, cfg.picture_backlog) == (False, 600, 0)
    assert load_settings(cfg.to_env()).picture_width == 600
    with pytest.raises(ValueError, match="PBEM_PICTURE_WIDTH"):
        load_settings({"PBEM_PICTURE_WIDTH": "-5"})


def test_a_picture_queue_takes_the_picture_mails_and_its_workers_deliver_them(sqlite_cfg):
    """PBEM_PICTURE_QUEUE: the worker that applied the move delivers the mails without a picture at once and
    leaves the picture mails to the workers of that queue (production: a picture worker at a lower CPU
    priority), which render and deliver them."""
    from datetime import timedelta

    from pbem.mail import pipeline
    from pbem.store.models import utcnow
    from tests.mailtools import mail, store_inbound

    gid = _spyrium_game()
    cfg = sqlite_cfg.with_(picture_queue="pictures")
    config.set_settings(cfg)
    try:
        with unit_of_work() as s:
            bob = s.exec(select(User).where(User.email == "bob@x.test")).one()
            bob.mail_format = "text"
            s.add(bob)
        seat, move, mover = _next_move(gid)
        before = outbox()[-1].id
        to = seat_addr(gid, seat)
        iid = store_inbound(mail(mover, to, move), to, mover)
        assert pipeline.process_inbound(iid, deliver=tasks.deliver_inline) == "done"
        new = [o for o in outbox() if o.id > before]
        drawn = [o for o in new if o.picture_key]
        plain = [o for o in new if not o.picture_key]
        assert drawn and plain  # Ann's mail has a picture; Bob reads text
        assert all(o.status == "sent" for o in plain) and all(o.status == "queued" for o in drawn)
        with celery_worker(cfg, queues="pictures"):
            wait_for(lambda: all(o.status == "sent" for o in outbox() if o.id in {d.id for d in drawn}))
        ann = [m for m in _delivered(cfg, "ann@x.test") if m.get_content_type() == "multipart/related"]
        assert ann, "delivered with its picture"
        _picture_parts(ann[-1])
        # a picture mail that waited longer than PBEM_PICTURE_WAIT_S goes at once, without its picture
        late = drawn[0]
        with unit_of_work() as s:
            s.exec(update(Picture).where(Picture.key == late.picture_key).values(png=None))
        pictures._recent.clear()
        late.created_at = utcnow() - timedelta(seconds=cfg.picture_wait_s + 1)
        msg = outbound.build_message(late, cfg)
        assert msg.get_content_type() == "multipart/alternative"
        assert "cid:" not in msg.get_payload()[1].get_payload(decode=True).decode()
    finally:
        config.set_settings(sqlite_cfg)


def test_picture_mails_waiting_for_their_picture_bound_the_next_ones(sqlite_cfg):
    """More picture mails waiting for their picture than PBEM_PICTURE_BACKLOG (the picture workers are
    behind): new board mails go without one, so the rendering still owed stays bounded."""
    gid = _spyrium_game()
    config.set_settings(sqlite_cfg.with_(picture_backlog=1))
    store_outbox._backlog_seen, store_outbox._shed_until = (0.0, 0, 0), 0.0
    try:
        waiting = [o.id for o in outbox() if o.picture_key]
        assert len(waiting) >= 2
        with unit_of_work() as s:  # two picture mails nobody has rendered and sent yet
            s.exec(update(Outbound).where(Outbound.id.in_(waiting[:3])).values(status="queued"))
        seat, move, mover = _next_move(gid)
        before = outbox()[-1].id
        process(mover, seat_addr(gid, seat), move)
        new = [o for o in outbox() if o.id > before]
        assert new and all(o.picture_key is None for o in new)
    finally:
        config.set_settings(sqlite_cfg)
        store_outbox._backlog_seen, store_outbox._shed_until = (0.0, 0, 0), 0.0


def _english_names(game: str) -> set[str]:
    """The English names of ``game``'s components that no other language writes the same way."""
    import csv

    path = Path(games.__file__).resolve().parents[2] / "engine" / game / "data" / "names.csv"
    with path.open(encoding="utf-8", newline="") as f:
        return {r["en"] for r in csv.DictReader(f) if r["en"] not in (r["ru"], r["bg"], r["it"]) and len(r["en"]) > 3}


def test_the_drawing_speaks_its_readers_language_and_readers_of_one_language_share_it(sqlite_cfg):
    """A Russian reader's picture is drawn in Russian (its title, legends and card names), an
    English reader's in English: the language is part of the picture's key, so two Russian
    observers share one drawing and one rendering, and the alt text speaks the same language."""
    gid = _spyrium_game()
    for who, code in (("cy@x.test", "ru"), ("di@x.test", "ru"), ("ed@x.test", "en")):
        process(who, CMD, f"REGISTER {who[:2].title()}\nLANGUAGE {code}\nOBSERVE {gid}")
    seat, move, mover = _next_move(gid)
    process(mover, seat_addr(gid, seat), move)
    last = {who: [o for o in outbox(who) if o.kind == "board"][-1] for who in ("cy@x.test", "di@x.test", "ed@x.test")}
    assert last["cy@x.test"].picture_key == last["di@x.test"].picture_key != last["ed@x.test"].picture_key
    with unit_of_work() as s:
        ru, en = s.get(Picture, last["cy@x.test"].picture_key), s.get(Picture, last["ed@x.test"].picture_key)
        assert (ru.lang, en.lang) == ("ru", "en")
    results = tasks.deliver_batch([o.id for o in last.values()])
    assert {v[0] for v in results.values()} == {"sent"}
    with unit_of_work() as s:
        ru, en = s.get(Picture, ru.key), s.get(Picture, en.key)
        assert ru.png is not None and en.png is not None
        from pbem.engine.i18n import language

        with language("ru"):  # drawn in Russian (pictures.draw speaks the row's language itself)
            assert ru.svg == pictures.draw("spyrium", ru.view, "ru")
            assert ru.svg != pictures.draw("spyrium", ru.view, "en")
    ru_title = re.search(r"<title[^>]*>([^<]*)</title>", ru.svg).group(1)
    en_title = re.search(r"<title[^>]*>([^<]*)</title>", en.svg).group(1)
    assert re.search("[А-яЁё]", ru_title) and not re.search("[А-яЁё]", en_title), (ru_title, en_title)
    words = " ".join(re.findall(r">([^<]+)<", ru.svg))
    leaked = sorted(n for n in _english_names("spyrium") if re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", words))
    assert not leaked, leaked
    alt = re.search(r'alt="([^"]+)"', last["cy@x.test"].body_html).group(1)
    assert re.search("[А-яЁё]{4}", alt) and "Picture of the board" not in alt, alt
