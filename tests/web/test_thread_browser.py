"""The game thread worth reading, in headless Chromium at 1280x900 and 390x844: a finished solo game's
moves folded into a handful of lines beside its talk (each opens on its moves, without a script too);
Talk / Moves / All switching at once and kept after a reload and on another login; a notice and a
private post marked in words and colour; the newest talk in view as the thread opens; the live news
folded and filtered like the page; axe-core's serious and critical findings at none."""
from __future__ import annotations

import pytest

from sqlmodel import select

from pbem.services.core import games, moves, seating, thread
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Post, User
from tests.browser import PATIENCE_MS, axe, sideways
from tests.mailtools import wait_for
from tests.web.gamepage import SIZES, context, page_for, people, played, site  # noqa: F401 (site)
from tests.web.test_thread_page import solo_finished

pytestmark = pytest.mark.browser


def newest_talk_in_view(page) -> bool:
    """Whether the thread's newest talk is in the viewport once the thread is scrolled to (as a reader, or
    the #thread anchor, does), with nothing scrolled inside the thread's own box."""
    return page.evaluate("""() => {
        const box = document.getElementById('posts');
        if (box.scrollHeight > box.clientHeight + 1 && box.scrollTop !== 0) return false;
        document.getElementById('thread').scrollIntoView({block: 'start'});
        const talk = box.querySelector('.post.talk');
        const r = talk.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""")


@pytest.mark.parametrize("size", SIZES)
def test_a_finished_solo_game_is_a_handful_of_lines_and_its_talk(site, size):
    from playwright.sync_api import expect

    base, browser = site
    a = people()[0]
    gid = solo_finished(a)
    page = page_for(browser, base, a, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    folds = page.locator("#posts > details.fold")
    n = folds.count()
    assert 4 <= n <= 14, n
    assert page.locator("#posts .post.move:visible").count() == 0  # folded: one line a round's step
    expect(page.locator("#posts > .post.talk").first).to_contain_text("That was close")
    assert newest_talk_in_view(page)
    # a line says who moved and how many moves, and opens on them
    first = folds.first
    expect(first.locator("summary")).to_contain_text("Anna")
    expect(first.locator("summary")).to_contain_text("move")
    first.locator("summary").click()
    assert first.locator(".post.move:visible").count() >= 1
    expect(first.locator(".post.move").first).to_contain_text("played")
    assert sideways(page) == 0
    assert axe(page) == []


@pytest.mark.parametrize("size", SIZES)
def test_talk_moves_or_all_switches_at_once_and_is_kept(site, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=12, talk=3)
    page = page_for(browser, base, a, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    page.evaluate("window.__stay = 1")
    talk, folds = page.locator("#posts .post.talk"), page.locator("#posts > details.fold")
    expect(folds.first).to_be_visible()
    page.click("#thread-show button[value=talk]")
    expect(folds.first).to_be_hidden()
    expect(talk.first).to_be_visible()
    expect(page.locator("#thread-show button[value=talk]")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("window.__stay") == 1  # no reload
    page.click("#thread-show button[value=moves]")
    expect(talk.first).to_be_hidden()
    expect(folds.first).to_be_visible()
    page.click("#thread-show button[value=talk]")
    page.wait_for_timeout(300)

    def saved() -> bool:  # kept with the account (the script saved it in the background)
        with unit_of_work() as s:
            return s.get(User, a).thread_filter == "talk"

    wait_for(saved, timeout=PATIENCE_MS / 1000)
    page.reload()
    expect(folds.first).to_be_hidden()
    expect(talk.first).to_be_visible()
    other = page_for(browser, base, a, SIZES["phone" if size == "desktop" else "desktop"])  # another device
    other.goto(f"{base}/games/{gid}")
    expect(other.locator("#thread-show button[value=talk]")).to_have_attribute("aria-pressed", "true")
    expect(other.locator("#posts > details.fold").first).to_be_hidden()
    # without the page's script the buttons post the choice and the page comes back at its thread
    plain = context(browser, base, a, SIZES[size]).new_page()
    plain.route("**/game.js", lambda route: route.abort())
    plain.goto(f"{base}/games/{gid}")
    plain.click("#thread-show button[value=all]")
    plain.wait_for_url(f"**/games/{gid}#thread")
    expect(plain.locator("#posts > details.fold").first).to_be_visible()
    with unit_of_work() as s:
        assert s.get(User, a).thread_filter == "all"
    # a visitor's choice is the address
    visitor = page_for(browser, base, None, SIZES[size])
    visitor.goto(f"{base}/games/{gid}")
    visitor.click("#thread-show button[value=moves]")
    expect(visitor.locator("#posts .post.talk").first).to_be_hidden()
    visitor.reload()
    expect(visitor.locator("#thread-show button[value=moves]")).to_have_attribute("aria-pressed", "true")
    assert axe(page) == [] and axe(visitor) == []


@pytest.mark.parametrize("size", SIZES)
def test_a_notice_and_a_private_post_stand_out(site, size):
    base, browser = site
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=4, talk=2)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        thread.post(s, g, None, "The game master extended every deadline by a day.", kind="notice", source="system")
        thread.post(s, g, s.get(User, b), "A word between us", to_seat=seating.seat_of(s, gid, a).seat)
        thread.post(s, g, s.get(User, b), "Back to the table")
    page = page_for(browser, base, a, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    notice = page.locator("#posts .post.notice").first
    private = page.locator("#posts .post.private").first
    plain = page.locator("#posts .post.talk:not(.private)").first
    assert notice.locator(".mark").inner_text() == "Notice" and private.locator(".mark").inner_text() == "Private"
    colour = "el => getComputedStyle(el).borderLeftColor + ' ' + getComputedStyle(el).backgroundColor"
    looks = {notice.evaluate(colour), private.evaluate(colour), plain.evaluate(colour)}
    assert len(looks) == 3  # each its own colour
    assert newest_talk_in_view(page)
    assert axe(page) == []
    # in the reader's language
    with unit_of_work() as s:
        s.get(User, a).language = "it"
    page.reload()
    assert page.locator("#posts .post.notice .mark").first.inner_text() == "Avviso"
    assert page.locator("#posts .post.private .mark").first.inner_text() == "Privato"


@pytest.mark.parametrize("size", SIZES)
def test_live_news_keeps_the_folding_and_the_filter(site, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=3, talk=1)
    watcher = page_for(browser, base, a, SIZES[size])
    watcher.goto(f"{base}/games/{gid}")
    watcher.evaluate("window.__stay = 1")
    folds = watcher.locator("#posts > details.fold")
    before = folds.count()
    with unit_of_work() as s:  # two moves of the same turn or round, then talk
        g = s.get(Game, gid)
        engine = games.engine_for(g)
        for _ in range(2):
            g = games.get(s, gid)
            state = games.state_at(s, g)
            seat = min(engine.to_move(state))
            text = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
            assert moves.submit_moves(s, gid, seat, [text], source="web").ok
    expect(watcher.locator("#posts .post.move").first).to_contain_text("ply 5", timeout=PATIENCE_MS)
    with unit_of_work() as s:
        total = len(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "move")).all())
    assert watcher.locator("#posts .post.move").count() == total == 5
    assert folds.count() <= before + 2 and watcher.locator("#posts > .post.move").count() == 0
    top = folds.first
    n = top.locator(".fold-moves > .post").count()
    expect(top.locator(".fold-count")).to_contain_text(str(n))
    expect(top.locator(".fold-plies")).to_contain_text("5")  # the newest move's ply is the line's last
    watcher.click("#thread-show button[value=talk]")
    with unit_of_work() as s:
        thread.post(s, s.get(Game, gid), s.get(User, b), "Your turn, friend")
    expect(watcher.locator("#posts > .post.talk").first).to_contain_text("Your turn, friend", timeout=PATIENCE_MS)
    expect(watcher.locator("#posts > .post.talk").first).to_be_visible()
    expect(folds.first).to_be_hidden()
    assert newest_talk_in_view(watcher)
    assert watcher.evaluate("window.__stay") == 1
    assert axe(watcher) == []
