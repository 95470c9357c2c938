"""The archive in headless Chromium: a visitor finds a finished game in the archive
(the navigation's link, the search form), opens it, moves the replay slider and
switches the board to each seat's view and back to the public one."""
from __future__ import annotations

import pytest

from pbem.services.core import games
from pbem.store.db import unit_of_work
from tests.archive.play import finished_game, people
from tests.browser import axe
from tests.web.conftest import chromium, live  # noqa: F401 - the fixtures

pytestmark = pytest.mark.browser


def test_search_open_replay_and_see_each_seat(live, chromium):  # noqa: F811
    from playwright.sync_api import expect

    ann, bob, cleo = people("Ann", "Bob", "Cleo")
    squire = finished_game("squire", [ann, cleo], talk=False)
    finished_game("spyrium", [ann, bob], talk=False)
    with unit_of_work() as s:
        last = games.get(s, squire).ply

    page = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(20000)
    page.goto(live + "/")
    page.click("#nav-archive")
    page.wait_for_url("**/archive")
    expect(page.locator("#archive-results tr")).to_have_count(3)  # the header and two games
    assert axe(page) == []
    page.select_option("#archive-game", "squire")
    page.fill("#archive-player", "CLEO")
    page.click("#archive-go")
    rows = page.locator("#archive-results tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(1)).to_contain_text("Ann, Cleo")
    expect(page.locator("#archive-player")).to_have_value("CLEO")  # the search stays in the form
    page.click(f"#archive-results a[href='/games/{squire}']")
    page.wait_for_url(f"**/games/{squire}")
    expect(page.locator(".pill")).to_have_text("finished")

    board = page.locator("#board")
    expect(board).not_to_contain_text("Your card")  # a visitor's board: the public view
    page.locator("#ply-slider").fill("6")
    expect(page.locator("#ply-label")).to_have_text("6")
    with page.expect_response(lambda r: "/board?ply=6&seat=2" in r.url and r.status == 200):
        page.select_option("#view-seat", "2")  # Cleo's seat, at ply 6
    expect(board).to_contain_text("Your card")
    expect(board).to_contain_text("Cleo (you)")
    expect(page.locator("#viewing")).to_contain_text("Cleo")  # the header names the view shown
    page.click("#ply-back")
    expect(page.locator("#ply-label")).to_have_text("5")
    expect(board).to_contain_text("Cleo (you)")  # the seat chosen stays as the slider moves
    page.select_option("#view-seat", "1")
    expect(board).to_contain_text("Ann (you)")
    page.locator("#ply-slider").fill(str(last))  # the last ply, from Ann's seat (not the page's own board)
    expect(page.locator("#ply-label")).to_have_text(str(last))
    expect(board).to_contain_text("Ann (you)")
    page.select_option("#view-seat", "")  # back to the public view
    expect(board).not_to_contain_text("(you)")
    expect(page.locator("#viewing")).to_have_text("public view")
    assert axe(page) == []
