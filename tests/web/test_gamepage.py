"""The game page for slow play, in headless Chromium at 1280x900
and 390x844: a move's result in view (and the typed text kept when it is
refused), a legal move previewed before it is sent, the thread at its newest,
no sideways scrolling, a paused game that says so, live news by long poll
(and by the plain polling it falls back to), the ranking and replay of a
finished game, and axe-core's serious and critical findings on every kind
of game page."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.services.core import games, seating, thread
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from tests.browser import DESKTOP, PATIENCE_MS, PHONE, axe, sideways
from tests.web.gamepage import SIZES, page_for, people, played, site  # noqa: F401 (site)

pytestmark = pytest.mark.browser


def in_view(page, selector: str) -> bool:
    """Whether the element comes inside the viewport with no scrolling by the test. The browser scrolls
    to a page's #fragment when the page has loaded, which can be after the element's text is there, so
    this waits for the page's own scroll (on a busy machine as long as any other wait) rather than
    reading one instant."""
    from playwright.sync_api import TimeoutError as Timeout

    try:
        page.wait_for_function("""sel => { const e = document.querySelector(sel);
            if (!e) return false;
            const r = e.getBoundingClientRect();
            return r.height > 0 && r.top >= -1 && r.bottom <= window.innerHeight + 1; }""",
                               arg=selector, timeout=PATIENCE_MS)
    except Timeout:
        return False
    return True


def mover_of(gid: int, a: int, b: int) -> int:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        return a if 0 in games.engine_for(g).to_move(games.state_at(s, g)) else b


def ply_of(gid: int) -> int:
    with unit_of_work() as s:
        return s.get(Game, gid).ply


@pytest.mark.parametrize("size", SIZES)
def test_a_refused_move_keeps_its_text_and_a_picked_move_is_previewed_then_sent(site, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=4)
    page = page_for(browser, base, mover_of(gid, a, b), SIZES[size])
    page.goto(f"{base}/games/{gid}")
    assert sideways(page) == 0

    # typed nonsense: the preview says why before anything is sent ...
    page.fill("#move-text", "zzz nonsense")
    expect(page.locator("#preview .preview.error")).to_contain_text("Not accepted")
    # ... and sent anyway, the refusal is in view at once, the text still in the box
    page.click("#send")
    page.wait_for_load_state()
    expect(page.locator("#result .flash.error")).to_contain_text("zzz")
    assert in_view(page, "#result .flash.error")
    expect(page.locator("#move-text")).to_have_value("zzz nonsense")
    assert ply_of(gid) == 4

    # a legal move is picked: it goes into the box with what it does, and nothing is sent yet
    first = page.locator("#legal button.mv").first
    move = first.get_attribute("value")
    first.click()
    expect(page.locator("#move-text")).to_have_value(move)
    expect(page.locator("#preview .preview.ok")).to_contain_text(move)
    page.wait_for_timeout(300)
    assert ply_of(gid) == 4
    page.click("#send")
    page.wait_for_load_state()
    expect(page.locator("#result .flash.ok")).to_contain_text(f"Applied: {move}")
    assert in_view(page, "#result .flash.ok")
    assert ply_of(gid) == 5
    assert sideways(page) == 0


def test_without_script_a_picked_move_is_previewed_by_the_server(site):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    page = page_for(browser, base, mover_of(gid, a, b), PHONE)
    page.route("**/game.js", lambda route: route.abort())  # the page as it works with no script at all
    page.goto(f"{base}/games/{gid}")
    first = page.locator("#legal button.mv").first
    move = first.get_attribute("value")
    first.click()
    page.wait_for_url("**pick=*")
    expect(page.locator("#move-text")).to_have_value(move)
    expect(page.locator("#preview .preview.ok")).to_contain_text(move)
    assert ply_of(gid) == 2
    page.click("#send")
    expect(page.locator("#result .flash.ok")).to_contain_text(f"Applied: {move}")
    assert in_view(page, "#result .flash.ok") and ply_of(gid) == 3


@pytest.mark.parametrize("size", SIZES)
def test_the_thread_opens_at_its_newest_post_and_pages_back(site, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("iaww", a, b, plies=2, talk=45)
    page = page_for(browser, base, a, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    expect(page.locator("#posts .post").first).to_contain_text("Post 45:")
    shown = page.locator("#posts .post").count()
    assert shown <= 30
    page.click("#older")
    expect(page.locator("#posts")).to_contain_text("Post 1:")
    assert page.locator("#older").count() == 0 and page.locator("#posts .post").count() > shown
    assert sideways(page) == 0


def _pause(gid: int, on: bool = True) -> None:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        g.paused = on
        s.add(g)


@pytest.mark.parametrize("size", SIZES)
def test_a_paused_game_says_so_and_offers_no_moves(site, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    _pause(gid)
    page = page_for(browser, base, mover_of(gid, a, b), SIZES[size])
    page.goto(f"{base}/games/{gid}")
    expect(page.locator("#status .pill")).to_have_text("paused")
    expect(page.locator("#now")).to_contain_text("Paused")
    expect(page.locator("#paused")).to_be_visible()
    assert page.locator("#move-form").count() == 0 and page.locator("#legal").count() == 0
    assert in_view(page, "#now")


def test_a_finished_game_shows_the_ranking_and_replays(site):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=1000)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.status == "finished", g.status
        winners = [seating.names(s, gid)[i] for i in g.outcome["winners"]]
    page = page_for(browser, base, None, DESKTOP)
    page.goto(f"{base}/games/{gid}")
    expect(page.locator("#scores table.ranking")).to_contain_text(winners[0])
    expect(page.locator("#now")).to_contain_text("won")
    page.click("#ply-play")
    expect(page.locator("#ply-label")).to_have_text("2", timeout=PATIENCE_MS)
    page.click("#ply-play")  # stops
    page.click("#ply-fwd")
    expect(page.locator("#ply-label")).not_to_have_text("2")


@pytest.mark.parametrize("mode", ["push", "poll"])
def test_a_second_browser_sees_moves_and_posts_without_reloading(site, mode):
    """The event stream (push) tells at once; the fallback (plain polling, ?live=poll) within seconds."""
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=2)
    mover = mover_of(gid, a, b)
    other = b if mover == a else a
    suffix = "?live=poll" if mode == "poll" else ""
    watcher = page_for(browser, base, other, DESKTOP)
    visitor = page_for(browser, base, None, PHONE)
    for p in (watcher, visitor):
        if mode == "poll":  # the pages' clocks, moved on to their next poll instead of waiting for it
            p.clock.install()
        p.goto(f"{base}/games/{gid}{suffix}")

    def next_poll():
        # a polling page asks 5 s after it loads or after news, then 1.5 times later each time nothing came;
        # its timer, whichever it is now, is due within 12 s
        for p in (watcher, visitor):
            if mode == "poll":
                p.clock.fast_forward(12_000)
    for p in (watcher, visitor):
        p.evaluate("window.__stay = 1")
        assert p.evaluate("window.pbemLive().mode") == mode
    player = page_for(browser, base, mover, PHONE)
    player.goto(f"{base}/games/{gid}")
    player.locator("#legal button.mv").first.click()
    expect(player.locator("#preview .preview.ok")).to_be_visible()
    player.click("#send")
    expect(player.locator("#result .flash.ok")).to_contain_text("Applied")
    next_poll()
    for p in (watcher, visitor):
        expect(p.locator("#cur-ply")).to_have_text("3", timeout=PATIENCE_MS)
        expect(p.locator("#posts .post.move").first).to_contain_text("ply 3")
        expect(p.locator("#ply-max")).to_have_text("3")
    with unit_of_work() as s:
        thread.post(s, s.get(Game, gid), s.get(User, mover), "Your turn, friend")
    next_poll()
    for p in (watcher, visitor):
        expect(p.locator("#posts .post").first).to_contain_text("Your turn, friend", timeout=PATIENCE_MS)
        assert p.evaluate("window.__stay") == 1
        assert p.evaluate("window.pbemLive().mode") == mode
        # pushed: the news came on the page's event stream, still open (polled: none was opened)
        assert p.evaluate("window.pbemLive().streaming") == (mode == "push")


def _finished(a: int, b: int) -> int:
    gid, _ = played("spyrium", a, b, plies=1000, seed=12)
    return gid


@pytest.mark.parametrize("size", SIZES)
def test_no_serious_accessibility_finding_nor_sideways_scroll(site, size):
    base, browser = site
    a, b, olga = people()
    running, _ = played("squire", a, b, plies=6, talk=3)
    paused, _ = played("iaww", a, b, plies=3, talk=2)
    _pause(paused)
    finished = _finished(a, b)
    with unit_of_work() as s:  # a taken-back move in the log (its line is struck through)
        from pbem.store.models import Move

        m = s.exec(select(Move).where(Move.game_id == running).order_by(Move.ply.desc())).first()
        m.undone = True
        s.add(m)
    problems = []
    for who, uid in (("player", a), ("observer", olga), ("visitor", None)):
        page = page_for(browser, base, uid, SIZES[size])
        for gid, state in ((running, "running"), (paused, "paused"), (finished, "finished")):
            page.goto(f"{base}/games/{gid}")
            page.wait_for_selector("#boards")  # the drawing and the text board
            problems += [f"{state} game, {who}: {v}" for v in axe(page)]
            if sideways(page):
                problems.append(f"{state} game, {who}: scrolls {sideways(page)} px sideways")
        for url in (f"/games/{running}/history", "/rules/squire/cards", "/rules/spyrium/cards", "/rules/iaww/cards"):
            assert page.goto(base + url).status == 200, url
            problems += [f"{url}, {who}: {v}" for v in axe(page)]
            if sideways(page):
                problems.append(f"{url}, {who}: scrolls {sideways(page)} px sideways")
        page.context.close()
    assert problems == [], '\n'.join(problems)


def test_a_hidden_tab_asks_nothing_and_catches_up_when_shown(site):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    page = page_for(browser, base, a, DESKTOP)
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "thread.json" in r.url else None)
    page.clock.install()  # its clock runs as any, and is moved on while the tab is hidden
    page.goto(f"{base}/games/{gid}")
    page.wait_for_timeout(800)
    page.evaluate("""() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
                             document.dispatchEvent(new Event('visibilitychange')); }""")
    with unit_of_work() as s:  # answers the poll in flight; no new one is asked while hidden
        thread.post(s, s.get(Game, gid), s.get(User, b), "while you were away")
    expect(page.locator("#posts .post").first).to_contain_text("while you were away", timeout=PATIENCE_MS)
    page.wait_for_timeout(500)
    before = len(asked)
    page.clock.fast_forward(30_000)  # half a minute hidden: a hidden tab asks once a minute
    page.wait_for_timeout(500)
    assert len(asked) == before
    with unit_of_work() as s:
        thread.post(s, s.get(Game, gid), s.get(User, b), "and again")
    page.evaluate("""() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});
                             document.dispatchEvent(new Event('visibilitychange')); }""")
    expect(page.locator("#posts .post").first).to_contain_text("and again", timeout=PATIENCE_MS)
