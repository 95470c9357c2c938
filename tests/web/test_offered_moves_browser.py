"""A move the page offers while a secret order is on file starts a new order: picked in Chromium
(at 1280x900 and 390x844), its preview says so before anything is sent, and what the new order
needs; the ending it suggests, typed as it is written (``C x; auto``), is accepted and replaces
the order on file. (tests/web/test_offered_moves.py sends every offer of many positions.)"""
from __future__ import annotations

import pytest

from pbem.services.core import games, moves
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import User
from tests.browser import sideways
from tests.web.conftest import make_user
from tests.web.gamepage import SIZES, page_for, site  # noqa: F401 (site)

pytestmark = pytest.mark.browser


def _planning_with_a_plan_on_file() -> tuple[int, int]:
    """A two-seat It's a Wonderful World in its first planning phase: Anna has sent her plan
    (auto), Boris has not. Returns the game and Anna's user."""
    anna, boris = make_user("anna@example.org", "Anna"), make_user("boris@example.org", "Boris")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, anna), "iaww", 2, {}, seed=5)
        tables.join(s, s.get(User, boris), g.id)
        gid = g.id
    while True:
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            if state.phase != "draft":
                break
            for seat in sorted(games.engine_for(g).to_move(state)):
                assert moves.submit_moves(s, gid, seat, ["pick 1"], source="web").ok
    with unit_of_work() as s:
        assert moves.submit_moves(s, gid, 0, ["auto"], source="web").ok
        assert moves.deciding_state(s, games.get(s, gid), 0)[1]  # Anna's page is in "replacing" mode
    return gid, anna


@pytest.mark.parametrize("size", SIZES)
def test_a_move_offered_over_an_order_on_file_says_it_starts_a_new_order(site, size):
    from playwright.sync_api import expect

    base, browser = site
    gid, anna = _planning_with_a_plan_on_file()
    page = page_for(browser, base, anna, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    pick = page.locator("#legal button.mv[value^='C ']").first
    move = pick.get_attribute("value")
    pick.click()
    expect(page.locator("#move-text")).to_have_value(move)
    refusal = page.locator("#preview .preview.error")
    expect(refusal).to_contain_text(f"{move} starts a new order in place of your order on file for this step (auto)")
    expect(refusal).to_contain_text("end it with done (or auto")
    expect(refusal.locator("code")).to_have_text([f"{move}; auto"])  # done is not legal with cards undecided
    assert sideways(page) == 0
    # the ending as the preview writes it, on one line: accepted, and it replaces the plan on file
    page.fill("#move-text", f"{move}; auto")
    expect(page.locator("#preview .preview.ok")).to_contain_text(move)
    page.click("#send")
    page.wait_for_load_state()
    expect(page.locator("#result .flash.ok")).to_contain_text(
        f"Applied: {move}; auto. It replaces your order on file for this step (auto)")
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert [m.notation for m in games._record(s, g.id, g.ply - 2)] == [move, "auto"]
