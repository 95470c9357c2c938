"""Take-back on the game page, in headless Chromium at 1280x900
and 390x844: a move that keeps the turn (Spyrium's event, its choice still
pending) is taken back by clicking "Take back", then confirming; the result
shows by the move box, the board is as before, the move stays in the log
marked undone. The button is offered only while the rules allow it (not once
the turn has ended), and the page stays accessible and fits the phone."""
from __future__ import annotations

import json

import pytest
from sqlmodel import select

from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Move, Outbound, User
from tests.browser import DESKTOP, PHONE, axe, chromium_browser, serving, sideways
from tests.web.conftest import last_link, make_user

pytestmark = pytest.mark.browser


def _game() -> int:
    ann, bob = make_user("ann@example.org", "Ann"), make_user("bob@example.org", "Bob")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ann), "spyrium", 2, {}, seed=1)
        tables.join(s, s.get(User, bob), g.id)
        return g.id


def _log_in(browser, base: str, email: str, viewport: dict):
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    page.set_default_timeout(20000)
    page.goto(base + "/login")
    page.fill("input[name=email]", email)
    page.click("button:has-text('Mail me a login link')")
    page.wait_for_selector("#sent")
    page.goto(last_link(email))
    page.click("#go")
    page.wait_for_url("**/me")
    return page


def _axe_takeback(page) -> list[str]:
    """axe-core's serious and critical violations inside the take-back block (the rest of the
    page is another test's: the page as a whole is checked where it is redesigned)."""
    axe(page)  # loads axe-core into the page
    found = json.loads(page.evaluate(
        "async () => JSON.stringify(await axe.run(document.getElementById('takeback'), "
        "{resultTypes: ['violations']}))"))
    return [f"{v['id']}: {n['target']}" for v in found["violations"] if v.get("impact") in ("serious", "critical")
            for n in v["nodes"]]


def _fits(page, wide: int) -> bool:
    """The take-back block is as wide as the move box (no sideways scroll of its own) and makes the
    page no wider than it was."""
    return sideways(page) <= wide and page.evaluate(
        "() => { const e = document.getElementById('takeback'); return e.scrollWidth <= e.clientWidth && "
        "e.getBoundingClientRect().right <= document.getElementById('move').getBoundingClientRect().right + 1; }")


def _moves(gid: int) -> list[tuple[int, str, bool]]:
    with unit_of_work() as s:
        return [(m.ply, m.notation, m.undone) for m in s.exec(select(Move).where(Move.game_id == gid)
                                                               .order_by(Move.ply))]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_take_back_by_clicking_and_confirming(sqlite_cfg, viewport):
    from playwright.sync_api import expect

    gid = _game()
    with serving(sqlite_cfg) as base, chromium_browser() as browser:
        page = _log_in(browser, base, "ann@example.org", viewport)
        bob = _log_in(browser, base, "bob@example.org", viewport)
        page.goto(f"{base}/games/{gid}")
        expect(page.locator("#takeback")).to_have_count(0)  # no move yet: nothing to take back
        wide = sideways(page)  # the page's own width at this viewport (its layout is redesigned elsewhere)
        page.click("#legal button.mv[value='event']")  # a legal move fills the move box (nothing
        expect(page.locator("#move-text")).to_have_value("event")  # is sent by one click) ...
        page.click("#send")  # ... and is sent from there
        expect(page.locator(".flash.ok").first).to_contain_text("Applied: event")
        # offered, behind a confirmation: the first click only opens it
        box = page.locator("#move #takeback")
        expect(box).to_be_visible()
        confirm = box.locator("#takeback-confirm")
        expect(confirm).to_be_hidden()
        box.locator("summary").click()
        expect(confirm).to_be_visible()
        expect(confirm).to_have_text("Yes, take back ply 1")
        assert _axe_takeback(page) == [] and _fits(page, wide)
        assert _moves(gid) == [(1, "event", False)]
        bob.goto(f"{base}/games/{gid}")  # Bob looks on (the web shows the position live, as Rally the Troops)
        expect(bob.locator("#log tr")).to_contain_text(["event"])
        expect(bob.locator("#takeback")).to_have_count(0)  # nothing of his to take back
        confirm.click()
        page.wait_for_url(f"**/games/{gid}#takeback")
        # Bob's open page hears of it by itself: the notice in the thread, the log marks the move undone
        expect(bob.locator("#posts .post.notice").last).to_contain_text("Ann took back their move at ply 1 (event)")
        expect(bob.locator("#log tr.undone")).to_have_count(1)
        result = page.locator("#takeback [role=status]")
        expect(result).to_contain_text("Taken back: your move at ply 1, event")
        assert result.is_visible() and result.bounding_box()["y"] < viewport["height"]  # by the move box, in view
        assert _moves(gid) == [(1, "event", True)]
        expect(page.locator("#log tr.undone")).to_have_count(1)
        expect(page.locator("#legal button.mv[value='event']")).to_have_count(1)  # the board as before: event again
        expect(page.locator("#takeback details")).to_have_count(0)
        assert _axe_takeback(page) == [] and _fits(page, wide)
        page.reload()  # the result is shown once
        expect(page.locator("#takeback")).to_have_count(0)
        # a whole turn: no take-back offered once it has ended, and Bob was told of it in one mail
        page.click("#legal button.mv[value='event']")
        expect(page.locator("#move-text")).to_have_value("event")
        page.click("#send")
        expect(page.locator("#takeback summary")).to_be_visible()
        page.click("#legal button.mv[value='adv']")
        expect(page.locator("#move-text")).to_have_value("adv")
        page.click("#send")
        expect(page.locator(".flash.ok").first).to_contain_text("Applied: adv")
        expect(page.locator("#takeback")).to_have_count(0)
        with unit_of_work() as s:
            boards = list(s.exec(select(Outbound).where(Outbound.to_addr == "bob@example.org",
                                                        Outbound.kind == "board")))
        assert len(boards) == 1 and "Ann played: event; adv" in boards[0].body_text
