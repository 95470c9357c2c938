"""Chat notifications as a player meets them, in a real browser (Debian's Chromium
driven by Playwright): a channel added on the profile page gets its test
message, carried by a real Celery worker on Redis and Apprise's real
request to a local ntfy server; the card then says it works, its kinds are
changed, and the page has no serious accessibility fault."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import NotifyChannel
from tests.browser import axe, serving
from tests.conftest import celery_worker
from tests.mailtools import PATIENCE, wait_for
from tests.push.conftest import allow_receivers, receivers  # noqa: F401 (a fixture)
from tests.web.conftest import chromium  # noqa: F401 (a fixture)
from tests.web.test_browser import sign_up

pytestmark = pytest.mark.browser


def test_a_channel_added_on_the_profile_gets_its_test_message(sqlite_cfg, on_redis, receivers, chromium):
    from playwright.sync_api import expect

    cfg = on_redis(allow_receivers(sqlite_cfg))
    with serving(cfg) as base, celery_worker(cfg):
        page = sign_up(chromium, base, "Ann", "ann@example.org")
        page.goto(base + "/profile")
        expect(page.locator("#notifications-h")).to_have_text("Notifications")
        page.fill("#channel-add input[name=url]", receivers.url("ntfy"))
        page.fill("#channel-add input[name=label]", "my phone")
        page.click("#channel-add button")
        expect(page.locator(".flash.ok")).to_contain_text("Channel added (ntfy)")
        expect(page.locator("#channel-1 h3")).to_have_text("1. ntfy «my phone»")

        [req] = wait_for(lambda: receivers.messages("ntfy"), timeout=PATIENCE)  # the worker delivered it
        assert req.json["title"] == "pbem: a test message"
        assert "your turn, deadline reminders, a game starts, a game ends" in req.json["message"]
        assert cfg.base_url + "/profile" in req.json["message"]
        page.reload()
        expect(page.locator("#channel-1-status")).to_have_text("working")

        page.uncheck("#channel-1 input[value=reminder]")
        page.check("#channel-1 input[value=talk]")
        page.click("#channel-1 form >> button:has-text('Save')")
        expect(page.locator(".flash.ok")).to_contain_text("Channel 1 saved")
        with unit_of_work() as s:
            assert s.exec(select(NotifyChannel)).one().events == ["turn", "start", "end", "talk"]

        page.fill("#channel-add input[name=url]", "http://example.com/hook")
        page.click("#channel-add button")
        expect(page.locator(".flash.error")).to_contain_text("pbem cannot send to http://example.com/...")
        assert axe(page) == []
