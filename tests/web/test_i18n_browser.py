"""The language menu in a real browser (Debian's Chromium driven by
Playwright): a visitor whose browser speaks English switches the site to
Russian from the header, the choice holds from page to page, a sign-up then
makes a Russian account, and the logged-in user switches to Italian."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import User
from tests.web.conftest import last_link

pytestmark = pytest.mark.browser


def test_switching_the_language_from_the_menu(live, chromium):
    from playwright.sync_api import expect

    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.set_default_timeout(20000)
    page.goto(live + "/rules/spyrium")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("header")).to_contain_text("Lobby")

    page.select_option("#language-select", "ru")
    page.click("#language-go")
    page.wait_for_url("**/rules/spyrium")
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    expect(page.locator("header")).to_contain_text("Лобби")
    expect(page.locator("h2").first).to_have_text("Правила вкратце")

    # the choice holds on the next page, whatever the browser says
    page.click("header >> text=Лобби")
    page.wait_for_url("**/lobby")
    expect(page.locator("h1")).to_have_text("Лобби")
    expect(page.locator("#language-select")).to_have_value("ru")

    # a sign-up now makes a Russian account
    page.goto(live + "/signup")
    page.fill("input[name=email]", "olga@example.org")
    page.click("button:has-text('Прислать ссылку')")
    expect(page.locator("h1")).to_have_text("Проверьте почту")
    page.goto(last_link("olga@example.org"))
    page.fill("input[name=name]", "Ольга")
    page.click("#go")
    page.wait_for_url("**/me")
    expect(page.locator(".flash.ok")).to_contain_text("Добро пожаловать, Ольга!")
    with unit_of_work() as s:
        olga = s.exec(select(User).where(User.email == "olga@example.org")).one()
        assert olga.language == "ru"

    # logged in, the menu sets the account's own language
    page.select_option("#language-select", "it")
    page.click("#language-go")
    page.wait_for_url("**/me")
    expect(page.locator("html")).to_have_attribute("lang", "it")
    expect(page.locator("h1")).to_have_text("Le mie partite")
    with unit_of_work() as s:
        olga = s.exec(select(User).where(User.email == "olga@example.org")).one()
        assert (olga.language, olga.language_chosen) == ("it", True)
    page.goto(live + "/profile")
    expect(page.locator("#profile-language")).to_have_value("it")
    ctx.close()
