"""Browser test in headless Chromium: Anna creates a game with a password in the lobby;
Boris finds it there marked as needing one, is refused with a wrong word and joins with the
right one; Anna invites Vera, who signs up afterwards, finds the invitation in the lobby and
accepts it (no password needed): the game is full and starts. The pages pass axe."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Game, Seat
from tests.browser import axe
from tests.web.test_browser import sign_up

pytestmark = pytest.mark.browser


def test_joining_a_password_game_from_the_lobby(live, chromium):
    from playwright.sync_api import expect

    anna = sign_up(chromium, live, "Anna", "anna@example.org")
    boris = sign_up(chromium, live, "Boris", "boris@example.org")

    anna.click("text=Lobby")
    anna.select_option("#create-squire select[name=players]", "3")
    anna.select_option("#create-squire select[name=access]", "password")
    anna.fill("#create-squire input[name=password]", "heron7")
    anna.click("#create-squire button[type=submit]")
    anna.wait_for_url("**/games/*")
    gid = int(anna.url.rsplit("/", 1)[1])
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.access == "password" and "heron7" not in g.password_hash

    boris.goto(live + "/lobby")
    row = boris.locator(f"#open-{gid}")
    expect(row).to_contain_text("password")
    assert axe(boris) == []
    row.locator("input[name=password]").fill("Heron7")
    row.locator("button:has-text('Join')").click()
    boris.wait_for_url(f"**/games/{gid}")
    expect(boris.locator(".flash.error")).to_contain_text(f"That is not the password of game #{gid}")
    # the game's own page asks for it too
    boris.fill("#join-password", "heron7")
    boris.click("#join")
    expect(boris.locator(".flash.ok")).to_contain_text(f"You have seat 2 in game #{gid}.")
    with unit_of_work() as s:
        assert len(s.exec(select(Seat).where(Seat.game_id == gid)).all()) == 2

    # an invitation to an address with no account yet: it counts once Vera signs up
    anna.reload()
    anna.fill("input[name=email]", "vera@example.org")
    anna.click("button:has-text('Invite')")
    expect(anna.locator(".flash.ok")).to_contain_text("Invitation sent to vera@example.org")
    vera = sign_up(chromium, live, "Vera", "vera@example.org")
    vera.goto(live + "/lobby")
    invitation = vera.locator(f"#invitation-{gid}")
    expect(invitation).to_contain_text("Anna invites you")
    assert axe(vera) == []
    invitation.locator("button:has-text('Accept')").click()
    vera.wait_for_url(f"**/games/{gid}")
    expect(vera.locator(".flash.ok")).to_contain_text(f"in game #{gid}. The game has started!")  # (Squire draws seats)
    with unit_of_work() as s:
        assert s.get(Game, gid).status == "running"
