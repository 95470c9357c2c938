"""Screenshots for the note on languages: per language, the PNG a board mail carries (drawn in the
reader's language, rendered as delivery renders it) and the game page as a player of that language
sees it in headless Chromium, with a dispute notice in the thread. Written to docs/screenshots/i18n/
when PBEM_SHOT_PREFIX is set (the page's own assertions run every time it is)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.config import settings
from pbem.mail import pictures
from pbem.services.core import games, notify
from pbem.services.referee import disputes
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, Picture, User
from tests.browser import DESKTOP, chromium_browser, serving
from tests.web.gamepage import page_for, people, played

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "i18n"
# a game per language, each in the language of one of its seats
CASES = [("ru", "squire", {"side": "world"}), ("bg", "iaww", {}), ("it", "spyrium", {})]
TITLE = {"ru": "Сквайр", "bg": "Един прекрасен свят", "it": "Spyrium"}


@pytest.mark.skipif(not os.environ.get("PBEM_SHOT_PREFIX"), reason="PBEM_SHOT_PREFIX not set")
def test_language_screenshots(sqlite_cfg):
    SHOTS.mkdir(parents=True, exist_ok=True)
    a, b, _ = people()
    with serving(sqlite_cfg) as base, chromium_browser() as browser:
        for lang, name, options in CASES:
            with unit_of_work() as s:
                for uid in (a, b):
                    u = s.get(User, uid)
                    u.language, u.language_chosen = lang, True
                    s.add(u)
            gid, to_move = played(name, a, b, plies=8, talk=1, options=options)
            with unit_of_work() as s:
                disputes.open_dispute(s, s.get(User, b), gid, 2, "…")
                g = games.get(s, gid)
                notify.queue_boards(s, g, notify.started_headline(s, g))
                row = s.exec(select(Outbound).where(Outbound.to_addr == "anna@example.org", Outbound.kind == "board")
                             .order_by(Outbound.id.desc())).first()
                pic = s.get(Picture, row.picture_key)
                assert pic.lang == lang
                png = pictures.render_png(pictures.draw(pic.game, pic.view, pic.lang), settings().picture_width)
            (SHOTS / f"{lang}-{name}-mail.png").write_bytes(png)
            page = page_for(browser, base, a, DESKTOP)
            page.goto(f"{base}/games/{gid}")
            page.wait_for_selector("#boards")
            html = page.content()
            assert f'lang="{lang}"' in html and TITLE[lang] in html
            assert not re.search(r"score_parts|royal_coins|empire_cubes", html)
            page.screenshot(path=str(SHOTS / f"{lang}-{name}-page.png"), full_page=False)
            page.context.close()
