"""A practice game's page in headless Chromium, at 1280x900 and 390x844: the Hint button under the
move box is a plain form (the click posts it, the page comes back with the search's moves in view of
the box), the practice mark in the heading, and no serious axe-core finding nor sideways scrolling on
the page with a hint shown, the other seat's page, and the lobby's create form with its practice box."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Hint, Seat
from tests.browser import axe, sideways
from tests.web.gamepage import SIZES, page_for, people, site  # noqa: F401 (site)

pytestmark = pytest.mark.browser


def _practice(a: int, b: int) -> tuple[int, int, int]:
    """A running Squire practice game of Anna and Boris: its id, the user to move and the other."""
    from pbem.services.lobby import tables
    from pbem.store.models import User

    with unit_of_work() as s:
        g = tables.create(s, s.get(User, a), "squire", 2, {}, seed=4, hints=True)
        tables.join(s, s.get(User, b), g.id)
        seat = min(games.engine_for(g).to_move(games.state_at(s, g)))
        mover = s.exec(select(Seat).where(Seat.game_id == g.id, Seat.seat == seat)).one().user_id
        return g.id, mover, b if mover == a else a


@pytest.mark.parametrize("size", SIZES)
def test_the_hint_button_and_the_practice_pages(site, size):
    base, browser = site
    a, b, _olga = people()
    gid, mover, other = _practice(a, b)
    problems = []
    page = page_for(browser, base, mover, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    assert page.locator("#practice").is_visible()
    page.click("#hint")
    page.wait_for_selector("#hint-moves")
    shown = page.locator("#hint-moves code").all_inner_texts()
    with unit_of_work() as s:
        assert [c["move"] for c in s.exec(select(Hint).where(Hint.game_id == gid)).one().choices] == shown
        assert s.get(Game, gid).ply == 0  # a hint plays nothing
    problems += [f"the seat's page: {v}" for v in axe(page)]
    if sideways(page):
        problems.append(f"the seat's page scrolls {sideways(page)} px sideways")
    page.goto(f"{base}/lobby")
    problems += [f"the lobby: {v}" for v in axe(page)]
    page.context.close()
    page = page_for(browser, base, other, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    assert "used a hint at ply 0" in page.locator("#hints").inner_text()
    assert page.locator("#hint-moves").count() == 0 and page.locator("#hint").count() == 0
    problems += [f"the other seat's page: {v}" for v in axe(page)]
    page.context.close()
    assert problems == [], "\n".join(problems)
