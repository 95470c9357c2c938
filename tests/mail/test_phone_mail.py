"""A board mail read on a phone: its picture is the narrow drawing (a portrait column 340
units wide, no text under 11), rendered at 2x (PBEM_PICTURE_WIDTH, 680 px) and shown 340 px wide, so that
in a 390-px mail view its text renders at 11 px or more; the alt text as before; the whole MIME message
under 250 KB, at the start and in the middle of a game of each title. The pictures' rows keep the layout
in their key: a row of the wide drawing (stored before) is never taken for the narrow one.

In Chromium the mail's HTML, its picture inlined as its client would show it, is measured at 390x844: the
picture's width on the screen times the drawing's smallest font size. With PBEM_SHOT_PREFIX set, the
figures and a screenshot of each mail at a phone's width go to docs/screenshots/mail/<game>-phone.*
(``PBEM_SHOT_PREFIX=1 pytest tests/mail/test_phone_mail.py``)."""
from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import pytest
from sqlmodel import select

from pbem import config
from pbem.engine.drawing import MIN_TEXT, NARROW_WIDTH
from pbem.mail import outbound, pictures
from pbem.store import outbox as store_outbox
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Outbound, Picture
from tests.mailtools import CMD, outbox, process, seat_addr

# what these tests read is the picture: at the width the product mails it (tests/conftest.py)
pytestmark = pytest.mark.mailed_pictures


SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "mail"
GAMES = [("spyrium", "", "spyrium"), ("squire", " side=british", "squire-british"),
         ("squire", " side=world", "squire-world"), ("iaww", "", "iaww")]
LIMIT = 250_000  # bytes of a whole board mail
MID = 12  # plies of the mid-game board mail


def _game(game: str, options: str) -> int:
    process("ann@x.test", CMD, "REGISTER Ann")
    process("bob@x.test", CMD, "REGISTER Bob")
    process("ann@x.test", CMD, f"NEW {game} players=2{options}")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    process("bob@x.test", CMD, f"JOIN {gid}")
    return gid


def _play(gid: int, plies: int) -> None:
    """``plies`` moves by mail, each the first legal move of the first seat to move."""
    from tests.mail.test_pictures import _next_move

    for _ in range(plies):
        seat, move, mover = _next_move(gid)
        process(mover, seat_addr(gid, seat), move)


def _board_mail(to: str) -> tuple[bytes, str, bytes, Outbound]:
    """The newest board mail to ``to`` with a picture, as sent: (the whole message, its HTML, the PNG, the row)."""
    row = [o for o in outbox(to) if o.picture_key and o.kind in ("board", "reply")][-1]
    msg = outbound.build_message(row, config.settings())
    assert msg.get_content_type() == "multipart/related", "sent with its picture"
    raw = outbound.flatten(msg, "\r\n")
    alternative, image = msg.get_payload()
    html = alternative.get_payload()[1].get_payload(decode=True).decode("utf-8")
    return raw, html, image.get_payload(decode=True), row


def _svg(key: str) -> str:
    with unit_of_work() as s:
        return s.get(Picture, key).svg


def _smallest_text(svg: str) -> float:
    return min(float(x) for x in re.findall(r'font-size="([\d.]+)"', svg))


def _view_width(svg: str) -> float:
    return float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))


@pytest.mark.parametrize("game,options,label", GAMES, ids=[g[2] for g in GAMES])
def test_a_board_mail_carries_the_narrow_picture_at_2x_under_250_kb(sqlite_cfg, game, options, label):
    gid = _game(game, options)
    figures = []
    for plies in (0, MID):
        _play(gid, plies)
        raw, html, png, row = _board_mail("ann@x.test")
        width = int.from_bytes(png[16:20], "big")
        img = re.search(r'<img[^>]*src="cid:[^"]+"[^>]*>', html).group(0)
        layout = store_outbox.picture_layout(game)
        assert layout == "narrow", f"{game} draws no narrow layout yet"
        svg = _svg(row.picture_key)
        assert _view_width(svg) == NARROW_WIDTH and _smallest_text(svg) >= MIN_TEXT
        # rendered at 2x (or fewer pixels for a drawing too tall for the mail), shown at 340 px
        assert width in {config.settings().picture_width * k // 4 for k in (4, 3, 2)}, width
        assert f'width="{NARROW_WIDTH}"' in img and f"max-width:{NARROW_WIDTH}px" in img.replace(" ", "")
        assert re.search(r'alt="Picture of the board of [^"]{20,}"', img), img
        assert len(raw) < LIMIT, f"{label}, ply {plies}: a board mail of {len(raw)} bytes"
        figures.append((plies, len(raw), len(png), width, int.from_bytes(png[20:24], "big")))
    if os.environ.get("PBEM_SHOT_PREFIX") is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / f"{label}-bytes.txt").write_text("".join(
            f"{label}: the board mail to seat 1 at ply {p}, as sent: {size} bytes in all; the PNG {n} bytes, "
            f"{w}x{h} px, shown {NARROW_WIDTH} px wide\n" for p, size, n, w, h in figures))


def test_a_wide_row_stored_before_is_never_taken_for_the_narrow_picture(sqlite_cfg):
    view = {"ply": 1, "names": ["Ann", "Bob"]}
    with unit_of_work() as s:
        wide = store_outbox.store_picture(s, "spyrium", view, "en")
        narrow = store_outbox.store_picture(s, "spyrium", view, "en", "narrow")
        again = store_outbox.store_picture(s, "spyrium", view, "en", "narrow")
    assert wide != narrow == again
    # the wide key is the one rows stored before the narrow layout have
    import hashlib

    data = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert wide == hashlib.sha256(f"spyrium\nen\n{data}".encode()).hexdigest()


def test_a_picture_too_heavy_for_the_mail_is_rendered_lighter():
    """A drawing whose first PNG passes the budget: without anti-aliasing, then fewer pixels."""
    rows = "".join(f'<text x="4" y="{12 + 13 * i}" font-size="11">{"word " * 12}{i}</text>'
                   f'<path d="M 0 {13 * i} L 340 {13 * i + 40}" stroke="#456" stroke-width="1.5"/>' for i in range(400))
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 340 5220" width="340" height="5220">'
           f'{rows}</svg>')
    first = pictures.render_png(svg, 680, quality="text-crisp")
    assert len(first) < len(pictures.render_png(svg, 680))  # (crisp text: fewer bytes)
    png, step = pictures.stepped_png(svg, 680, budget=len(first) - 1)
    assert step >= 1 and len(png) < len(first)
    assert pictures._is_width(png, 680) and not pictures._is_width(png, 600)
    png, step = pictures.stepped_png(svg, 680, budget=len(first) + 1)
    assert step == 0 and png == first


def _rows(count: int, mark: str = "") -> str:
    """A drawing of ``count`` rows of words and slanted lines (a board's kind of PNG), 340 units wide."""
    rows = "".join(f'<text x="4" y="{12 + 13 * i}" font-size="11">{mark}{"word " * 12}{i}</text>'
                   f'<path d="M 0 {13 * i} L 340 {13 * i + 40}" stroke="#456" stroke-width="1.5"/>'
                   for i in range(count))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 340 {13 * count + 20}" width="340" '
            f'height="{13 * count + 20}">{rows}</svg>')


def test_a_step_its_kind_of_drawing_cannot_fit_is_not_rendered_and_the_picture_is_the_same(monkeypatch):
    """Once a game's pictures have shown how many bytes a pixel takes, a drawing of that game whose first
    steps would surely be too heavy starts at the step that fits: the same PNG, one rendering."""
    kind = "a kind of drawing only this test draws"
    budget = 60_000  # these drawings' PNGs: at 680 px some 95 and 65 KB, at 510 px under 60 KB
    for mark in ("a ", "b "):  # two pictures of the kind, each step tried in turn
        assert pictures.stepped_png(_rows(40, mark), 680, budget, kind)[1] >= 2
    rendered = []
    real = pictures.render_png
    monkeypatch.setattr(pictures, "render_png", lambda svg, w, quality="smooth": rendered.append(w) or real(
        svg, w, quality=quality))
    taller = _rows(48, "c ")
    png, step = pictures.stepped_png(taller, 680, budget, kind)
    assert rendered == [680 * 3 // 4] and step == 2, rendered
    assert (png, step) == pictures.stepped_png(taller, 680, budget), "what trying every step gives"
    # a drawing of no known kind tries every step, as does a shorter one that may fit
    rendered.clear()
    pictures.stepped_png(_rows(40, "d "), 680, budget)
    assert rendered[:2] == [680, 680]
    rendered.clear()
    assert pictures.stepped_png(_rows(4, "e "), 680, budget, kind)[1] == 0 and rendered == [680]


def test_seats_whose_drawings_are_the_same_bytes_share_one_rendering_and_no_other(monkeypatch):
    rendered = []
    real = pictures.render_png
    monkeypatch.setattr(pictures, "render_png", lambda svg, w, quality="smooth": rendered.append(svg) or real(
        svg, w, quality=quality))
    seat, twin, other = _rows(6, "seat "), _rows(6, "seat "), _rows(6, "seaT ")
    first = pictures.mail_png(seat, 680)
    assert pictures.mail_png(twin, 680) is first and len(rendered) == 1
    assert pictures.mail_png(other, 680) != first and rendered == [seat, other], "one byte apart: its own"
    assert pictures.mail_png(seat, 680 // 2) != first and len(rendered) == 3, "another width: its own"


# ---------------------------------------------------------------- in a phone's mail view


@pytest.mark.browser
@pytest.mark.parametrize("game,options,label", GAMES, ids=[g[2] for g in GAMES])
def test_the_mail_picture_reads_at_11_px_on_a_phone(sqlite_cfg, game, options, label):
    from tests.browser import PHONE, chromium_browser

    gid = _game(game, options)
    _play(gid, MID)
    raw, html, png, row = _board_mail("ann@x.test")
    svg = _svg(row.picture_key)
    cid = re.search(r'src="cid:([^"]+)"', html).group(1)
    shown = html.replace(f"cid:{cid}", "data:image/png;base64," + base64.b64encode(png).decode("ascii"))
    with chromium_browser() as browser:
        page = browser.new_page(viewport=PHONE)
        page.set_content(shown)
        page.wait_for_function("document.querySelector('div.picture img').complete")
        box = page.evaluate("""() => { const i = document.querySelector('div.picture img');
            return [i.getBoundingClientRect().width, i.getBoundingClientRect().height, i.naturalWidth,
                    i.getBoundingClientRect().right - document.documentElement.clientWidth]; }""")
        text_px = _smallest_text(svg) * box[0] / _view_width(svg)
        if os.environ.get("PBEM_SHOT_PREFIX") is not None:  # (a game without its narrow drawing: "before")
            stem = f"{label}-phone" + ("" if store_outbox.picture_layout(game) == "narrow" else "-before")
            SHOTS.mkdir(parents=True, exist_ok=True)
            height = page.evaluate("document.documentElement.scrollHeight")
            page.screenshot(path=str(SHOTS / f"{stem}.png"), full_page=True,
                            clip={"x": 0, "y": 0, "width": PHONE["width"], "height": min(height, 3000)})
            (SHOTS / f"{stem}.txt").write_text(
                f"{label}: the board mail at ply {MID} in a {PHONE['width']}-px view: the picture shown "
                f"{box[0]:.0f}x{box[1]:.0f} px from a {box[2]}-px PNG ({len(png)} bytes); its smallest text "
                f"{_smallest_text(svg):g} units, {text_px:.1f} px on the screen; the whole mail {len(raw)} bytes\n")
        assert box[0] >= NARROW_WIDTH - 0.5, f"the picture is shown {box[0]} px wide on a 390-px phone"
        assert text_px >= MIN_TEXT - 0.01, f"its smallest text reads {text_px:.1f} px"
        assert box[3] <= 0, "the picture is cut at the right"  # (the engines' HTML boards may scroll)
