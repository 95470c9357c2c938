"""Notifications on the web: the profile's Notifications card (channels, their
kinds and mode, a test message, quiet hours, the digest hour) and a game's
table channel on its Manage page, through the real forms (CSRF and all)."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem import config
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Notification, NotifyChannel, User
from pbem.web import create_app
from tests.web.conftest import Browser, make_user

HOOK = "json://127.0.0.1:9/hook"


@pytest.fixture
def site(sqlite_cfg):
    cfg = sqlite_cfg.with_(http_allow=("127.0.0.1/32",))
    config.set_settings(cfg)
    app = create_app(cfg)
    app.config["TESTING"] = True
    return app


def logged_in(app, email="ann@x.test", name="Ann") -> Browser:
    b = Browser(app)
    b.login_as(make_user(email, name))
    return b


def page(b: Browser, path="/profile") -> str:
    return b.get(path).get_data(as_text=True)


def test_a_channel_added_on_the_profile_gets_a_test_message_and_is_listed_masked(site):
    b = logged_in(site)
    assert "Notifications" in page(b) and 'id="channel-add"' in page(b)
    r = b.post("/profile/channels", {"url": "discord://1234/SeCrEt-ToKeN", "label": "Our server"}, page="/profile")
    assert r.status_code == 303
    html = page(b)
    assert "Channel added (Discord)" in html
    assert "1. Discord «Our server»" in html and "SeCrEt-ToKeN" not in html
    assert "nothing delivered yet" in html
    with unit_of_work() as s:
        ch = s.exec(select(NotifyChannel)).one()
        assert [n.kind for n in s.exec(select(Notification))] == ["test"]
    b.post("/profile/channels/1", {"events": ["turn", "talk"], "mode": "digest"}, page="/profile")
    with unit_of_work() as s:
        ch = s.get(NotifyChannel, ch.id)
        assert (ch.events, ch.mode) == (["turn", "talk"], "digest")
    assert "Channel 1 saved: your turn, table talk and private messages to you." in page(b)
    b.post("/profile/channels/1/test", {}, page="/profile")
    assert "A test message is on its way to channel 1." in page(b)
    b.post("/profile/channels/1/remove", {}, page="/profile")
    assert "Channel 1 removed." in page(b)
    with unit_of_work() as s:
        assert s.exec(select(NotifyChannel)).all() == []


@pytest.mark.parametrize("url, said", [
    ("", "a notification address is missing"),
    ("https://example.com/hook", "pbem cannot send to https://example.com/..."),
    ("mailto://ann@x.test", "pbem cannot send to mailto://x.test/..."),
])
def test_a_refused_address_says_why_with_an_example_and_adds_nothing(site, url, said):
    b = logged_in(site)
    b.post("/profile/channels", {"url": url}, page="/profile")
    html = page(b)
    assert said in html and "for example ntfy://ntfy.sh/my-pbem-topic" in html
    with unit_of_work() as s:
        assert s.exec(select(NotifyChannel)).all() == []


def test_quiet_hours_and_the_digest_hour_are_saved_and_a_half_filled_pair_refused(site):
    b = logged_in(site)
    b.post("/profile/notification-hours", {"quiet_from": "22", "quiet_until": "7", "digest_hour": "8"},
           page="/profile")
    assert "Notification hours saved." in page(b)
    with unit_of_work() as s:
        u = s.exec(select(User)).one()
        assert (u.quiet_from, u.quiet_until, u.digest_hour) == (22, 7, 8)
    b.post("/profile/notification-hours", {"quiet_from": "3", "quiet_until": "", "digest_hour": ""}, page="/profile")
    assert "quiet hours need both hours" in page(b)
    with unit_of_work() as s:
        u = s.exec(select(User)).one()
        assert (u.quiet_from, u.quiet_until, u.digest_hour) == (22, 7, 8)  # unchanged
    html = page(b)
    assert '<option value="22" selected>22:00</option>' in html


def test_someone_elses_channel_number_is_nobodys(site):
    ann = logged_in(site)
    ann.post("/profile/channels", {"url": HOOK}, page="/profile")
    bob = logged_in(site, "bob@x.test", "Bob")
    bob.post("/profile/channels/1/remove", {}, page="/profile")
    assert "you have no notification channel yet" in page(bob)
    with unit_of_work() as s:
        assert len(s.exec(select(NotifyChannel)).all()) == 1


def test_the_creator_sets_tests_and_removes_the_table_channel_on_the_manage_page(site):
    ann = logged_in(site)
    with unit_of_work() as s:
        u = s.exec(select(User)).one()
        g = tables.create(s, u, "mini", 2, {}, seed=5)
        gid = g.id
    manage = f"/games/{gid}/manage"
    assert 'id="table-channel"' in page(ann, manage)
    r = ann.post(manage, {"action": "table-set", "text": HOOK}, page=manage)
    assert r.status_code == 302
    html = page(ann, manage)
    assert "the game is posted to its table channel (JSON webhook)" in html
    assert "json://127.0.0.1:9/hook" in html
    ann.post(manage, {"action": "table-test"}, page=manage)
    with unit_of_work() as s:
        assert [n.kind for n in s.exec(select(Notification))] == ["test", "test"]
    bob = logged_in(site, "bob@x.test", "Bob")
    assert 'id="table-channel"' not in page(bob, manage)  # only the creator sees it
    r = bob.post(manage, {"action": "table-off"}, page=manage)
    assert r.status_code == 400 and "only the creator of game" in r.get_data(as_text=True)
    ann.post(manage, {"action": "table-off"}, page=manage)
    with unit_of_work() as s:
        assert s.exec(select(NotifyChannel)).all() == []
