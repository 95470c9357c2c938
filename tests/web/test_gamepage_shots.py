"""Phone screenshots of each game's page (390x844), seen by the seat to move,
saved to /tmp/shots/<PBEM_SHOT_PREFIX>-<game>.png when PBEM_SHOT_PREFIX is
set (the game-page review compares before and after; nothing is committed)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser import PHONE, chromium_browser, serving
from tests.web.gamepage import TITLES, page_for, people, played

pytestmark = pytest.mark.browser


@pytest.mark.skipif(not os.environ.get("PBEM_SHOT_PREFIX"), reason="PBEM_SHOT_PREFIX not set")
def test_phone_screenshots(sqlite_cfg):
    prefix = os.environ["PBEM_SHOT_PREFIX"]
    out = Path("/tmp/shots")
    out.mkdir(parents=True, exist_ok=True)
    a, b, _ = people()
    with serving(sqlite_cfg) as base, chromium_browser() as browser:
        for name in TITLES:
            gid, to_move = played(name, a, b, plies=6, talk=3)
            page = page_for(browser, base, a if 0 in to_move else b, PHONE)
            page.goto(f"{base}/games/{gid}")
            page.wait_for_selector("#boards")  # the drawing and the text board
            page.screenshot(path=str(out / f"{prefix}-{name}.png"), full_page=True)
            page.context.close()
