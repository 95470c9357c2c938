"""The board drawn on the game page, in headless Chromium at
1280x900 and 390x844: the drawing fits the column without sideways scrolling,
the zoom buttons scale it inside its own box, the Picture / Text toggle
shows the text board and back (remembered after a reload; without a script
both show), a click on an element of the drawing that offers moves fills the
move box and previews it (a menu when it offers several; nothing is sent),
the history slider and the live news bring the drawing of their ply, and
axe-core finds nothing serious.

The games' own drawings mark their elements with ``data-moves``; a test that
needs them skips while a game's drawing has none. The clicking is also
checked against a small drawing of this test's own, put in place of
Spyrium's for the length of one test: the app is served in this process
(tests/browser.py), so the page draws with it."""
from __future__ import annotations

import os

import pytest

from pbem.engine import get_game
from pbem.engine import drawing as d
from pbem.services.core import games, seating
from pbem.store.db import unit_of_work
from pbem.store.models import Game
from tests.browser import DESKTOP, PATIENCE_MS, PHONE, ROOT, axe, chromium_browser, serving, sideways
from tests.web.gamepage import SIZES, TITLES, page_for, people, play_first, played, site  # noqa: F401 (site)

pytestmark = pytest.mark.browser


def mover_of(gid: int, a: int, b: int) -> int:
    """The user whose seat is to move (a seating drawn at the start may have put Boris in seat 1)."""
    with unit_of_work() as s:
        g = s.get(Game, gid)
        seat = min(games.engine_for(g).to_move(games.state_at(s, g)))
        user = seating.seats(s, gid)[seat].user_id
        assert user in (a, b)
        return user


def ply_of(gid: int) -> int:
    with unit_of_work() as s:
        return s.get(Game, gid).ply


def tiny(view, moves=(), layout="wide") -> str:
    """A drawing of this test's own: the ply, one element offering the first move, one offering the
    next three (a menu); in the narrow layout the same, stacked in a column 340 units wide."""
    if layout == "narrow":
        return tiny_narrow(view, moves)
    svg = d.Svg(400, 240)
    svg.rect(0, 0, 400, 240, fill=d.PAPER)
    svg.text(20, 220, f"test drawing at ply {view['ply']}", size=16)
    if moves:
        svg.open(data_moves=d.moves_attr(moves[:1]), class_="one")
        svg.title(f"Play {moves[0]}")
        svg.rect(20, 20, 160, 120, fill=d.tint(0), stroke=d.colour(0))
        svg.text(30, 80, "one move", size=16)
        svg.close()
    if len(moves) >= 3:
        svg.open(data_moves=d.moves_attr(moves[1:4]), class_="several")
        svg.title("Several moves here")
        svg.rect(220, 20, 160, 120, fill=d.tint(1), stroke=d.colour(1))
        svg.text(230, 80, "several moves", size=16)
        svg.close()
    return svg.finish("A test drawing", "Two areas that offer moves, and the ply.")


def tiny_narrow(view, moves=()) -> str:
    svg = d.Svg(d.NARROW_WIDTH, 420, id_prefix="b")  # the wide one's ids: the page gives this one its own
    svg.rect(0, 0, d.NARROW_WIDTH, 420, fill=d.PAPER)
    svg.text(10, 400, f"test drawing at ply {view['ply']}", size=13)
    if moves:
        svg.open(data_moves=d.moves_attr(moves[:1]), class_="one")
        svg.title(f"Play {moves[0]}")
        svg.rect(10, 10, 320, 160, fill=d.tint(0), stroke=d.colour(0))
        svg.text(20, 90, "one move", size=d.MIN_TEXT)
        svg.close()
    if len(moves) >= 3:
        svg.open(data_moves=d.moves_attr(moves[1:4]), class_="several")
        svg.title("Several moves here")
        svg.rect(10, 190, 320, 160, fill=d.tint(1), stroke=d.colour(1))
        svg.text(20, 270, "several moves", size=14)
        svg.close()
    return svg.finish("A test drawing", "Two areas that offer moves, and the ply.")


# the drawing shown: a game that draws two layouts has both on the page, the CSS shows one by the width
SHOWN = "#drawing svg.board-drawing >> visible=true"
PICKS = "#drawing [data-moves] >> visible=true"


def shown(cls: str) -> str:
    """The selector of the shown drawing's pick of class ``cls``."""
    return f"#drawing .pick.{cls} >> visible=true"


@pytest.fixture
def tiny_spyrium(monkeypatch):
    monkeypatch.setattr(get_game("spyrium"), "draw_svg", tiny)


def geometry(page) -> dict:
    return page.evaluate("""() => {
        const box = document.getElementById('drawing');
        const svg = [...box.querySelectorAll('svg.board-drawing')].find(s => s.getBoundingClientRect().width > 0);
        const r = svg.getBoundingClientRect(), b = box.getBoundingClientRect();
        return {svg: r.width, svgH: r.height, box: box.clientWidth, left: r.left, right: r.right,
                boxLeft: b.left, scroll: box.scrollWidth, vw: document.documentElement.clientWidth}; }""")


# ---------------------------------------------------------------- fitting and zooming


@pytest.mark.parametrize("size", SIZES)
def test_the_drawing_fits_the_column_and_zooms_inside_its_box(site, size):
    base, browser = site
    a, b, _ = people()
    problems = []
    movers = {}  # a context for each mover, for all the games (one per game started a renderer each time)
    for name in TITLES:
        gid, _ = played(name, a, b, plies=4)
        uid = mover_of(gid, a, b)
        if uid not in movers:
            movers[uid] = page_for(browser, base, uid, SIZES[size])
        page = movers[uid]
        page.goto(f"{base}/games/{gid}")  # a new page load: at the column's width again (the zoom is not kept)
        page.wait_for_selector(SHOWN)
        g = geometry(page)
        if abs(g["svg"] - g["box"]) > 1 or g["right"] > g["vw"] or g["svgH"] < 50:
            problems.append(f"{name}: the drawing does not fit its column: {g}")
        if sideways(page):
            problems.append(f"{name}: the page scrolls {sideways(page)} px sideways")
        # + twice (from the keyboard): larger than the box, which scrolls; the page does not
        page.focus("#zoom-in")
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        z = geometry(page)
        if not (z["svg"] > g["svg"] * 1.4 and z["scroll"] > z["box"] + 10):
            problems.append(f"{name}: zoom in did not enlarge the drawing: {g} -> {z}")
        if sideways(page):
            problems.append(f"{name}: zoomed, the page scrolls {sideways(page)} px sideways")
        if page.get_attribute("#drawing", "tabindex") != "0":
            problems.append(f"{name}: the zoomed drawing's box cannot be scrolled from the keyboard")
        if page.inner_text("#zoom-level") != "150%":
            problems.append(f"{name}: the zoom level reads {page.inner_text('#zoom-level')}")
        page.click("#zoom-fit")
        if abs(geometry(page)["svg"] - g["svg"]) > 1:
            problems.append(f"{name}: fit did not bring the drawing back to the column")
        if page.get_attribute("#drawing", "tabindex") is not None:
            problems.append(f"{name}: the fitted drawing's box is a tab stop with nothing to scroll")
        page.click("#zoom-out")
        if not geometry(page)["svg"] < g["svg"] - 10:
            problems.append(f"{name}: zoom out did not shrink the drawing")
        # pinch-zoom is the browser's: nothing on the page forbids it
        blocked = page.evaluate("""() => [document.querySelector('meta[name=viewport]').content,
            getComputedStyle(document.getElementById('drawing')).touchAction,
            getComputedStyle(document.body).touchAction]""")
        if "user-scalable=no" in blocked[0] or "maximum-scale=1" in blocked[0] or "none" in blocked[1:]:
            problems.append(f"{name}: pinch-zoom is blocked: {blocked}")
    for page in movers.values():
        page.context.close()
    assert problems == [], "\n".join(problems)


# ---------------------------------------------------------------- picture or text


def test_the_toggle_shows_the_text_board_and_back_and_remembers(site):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=4)
    page = page_for(browser, base, a, DESKTOP)
    page.goto(f"{base}/games/{gid}")
    expect(page.locator(SHOWN)).to_be_visible()
    expect(page.locator("#board")).to_be_hidden()
    expect(page.locator("#show-picture")).to_have_attribute("aria-pressed", "true")

    page.click("#show-text")
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("#drawing")).to_be_hidden()
    expect(page.locator("#zoom")).to_be_hidden()
    expect(page.locator("#show-text")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#show-picture")).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(page.locator("#board")).to_be_visible()  # remembered
    expect(page.locator("#drawing")).to_be_hidden()

    # the history slider keeps the choice: the text board of the older ply
    page.locator("#ply-slider").fill("1")
    expect(page.locator("#ply-label")).to_have_text("1")
    page.wait_for_timeout(400)
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("#drawing")).to_be_hidden()

    page.click("#show-picture")
    expect(page.locator(SHOWN)).to_be_visible()
    expect(page.locator("#board")).to_be_hidden()
    page.reload()
    expect(page.locator(SHOWN)).to_be_visible()
    expect(page.locator("#board")).to_be_hidden()
    page.context.close()


def test_without_a_script_both_boards_show_the_picture_first(site):
    base, browser = site
    a, b, _ = people()
    gid, _ = played("iaww", a, b, plies=2)
    ctx = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = ctx.new_page()
    page.goto(f"{base}/games/{gid}")
    assert page.is_visible(SHOWN) and page.is_visible("#board") and not page.is_visible("#board-tools")
    top = page.evaluate("""() => [[...document.querySelectorAll('#drawing svg')]
                                      .find(s => s.getBoundingClientRect().width).getBoundingClientRect().top,
                                  document.getElementById('board').getBoundingClientRect().top]""")
    assert top[0] < top[1]
    assert sideways(page) == 0
    ctx.close()


# ---------------------------------------------------------------- a click picks a move


@pytest.mark.parametrize("name", TITLES)
def test_a_click_on_the_games_drawing_fills_the_move_box(site, name):
    """Every element of the game's own drawing that offers moves offers legal moves the page lists;
    a click on the first fills the move box (or opens the menu) and previews, without sending."""
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played(name, a, b, plies=4)
    page = page_for(browser, base, mover_of(gid, a, b), DESKTOP)
    page.goto(f"{base}/games/{gid}")
    page.wait_for_selector(SHOWN)
    picks = page.locator(PICKS)
    if picks.count() == 0:
        pytest.skip(f"{name}'s drawing marks no element with data-moves (still the stand-in text_board drawing)")
    listed = set(page.eval_on_selector_all("#legal button.mv", "bs => bs.map(b => b.value)"))
    offered = page.eval_on_selector_all("#drawing [data-moves]",
                                        "gs => gs.flatMap(g => JSON.parse(g.getAttribute('data-moves')))")
    assert set(offered) <= listed, set(offered) - listed
    moves = picks.first.evaluate("g => JSON.parse(g.getAttribute('data-moves'))")
    ply = ply_of(gid)
    picks.first.scroll_into_view_if_needed()
    picks.first.click()
    if len(moves) > 1:
        expect(page.locator(".pick-menu button.pick-mv")).to_have_count(len(moves))
        page.locator(".pick-menu button.pick-mv").first.click()
    expect(page.locator("#move-text")).to_have_value(moves[0])
    expect(page.locator("#preview .preview")).to_be_visible()
    assert ply_of(gid) == ply  # picked, not sent
    page.context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_click_on_a_drawing_picks_one_move_or_opens_a_menu_and_never_sends(site, tiny_spyrium, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    page = page_for(browser, base, mover_of(gid, a, b), SIZES[size])
    page.goto(f"{base}/games/{gid}")
    page.wait_for_selector(shown("one"))
    listed = page.eval_on_selector_all("#legal button.mv", "bs => bs.map(b => b.value)")
    why = dict(page.eval_on_selector_all("#legal button.mv", "bs => bs.map(b => [b.value, b.title])"))
    assert len(listed) >= 4
    ply = ply_of(gid)

    # one move: a click fills the box and previews it, as the list does
    page.click(shown("one"))
    expect(page.locator("#move-text")).to_have_value(listed[0])
    expect(page.locator("#preview .preview.ok")).to_contain_text(listed[0])

    # several: a menu, each move with its explanation; a pick fills the box
    page.click(shown("several"))
    items = page.locator(".pick-menu button.pick-mv")
    expect(items).to_have_count(3)
    for i, m in enumerate(listed[1:4]):
        expect(items.nth(i)).to_contain_text(m)
        if why.get(m):
            expect(items.nth(i)).to_contain_text(why[m][:30])
    assert page.evaluate("document.activeElement.classList.contains('pick-mv')")  # the menu takes the focus
    items.nth(1).click()
    expect(page.locator("#move-text")).to_have_value(listed[2])
    expect(page.locator("#preview .preview.ok")).to_contain_text(listed[2])
    expect(page.locator(".pick-menu")).to_have_count(0)
    assert sideways(page) == 0

    # from the keyboard: Enter on the one, Space on the several, Escape closes the menu
    page.fill("#move-text", "")
    page.focus(shown("one"))
    page.keyboard.press("Enter")
    expect(page.locator("#move-text")).to_have_value(listed[0])
    expect(page.locator("#preview .preview.ok")).to_contain_text(listed[0])  # (which then focuses Send)
    page.focus(shown("several"))
    page.keyboard.press(" ")
    expect(page.locator(".pick-menu button.pick-mv")).to_have_count(3)
    page.keyboard.press("Escape")
    expect(page.locator(".pick-menu")).to_have_count(0)
    assert page.evaluate("document.activeElement.classList.contains('several')")
    assert ply_of(gid) == ply  # nothing was sent

    # Send move still sends what the box holds
    page.click("#send")
    expect(page.locator(".flash.ok")).to_contain_text(f"Applied: {listed[0]}")
    assert ply_of(gid) == ply + 1
    page.context.close()


def test_the_history_and_the_live_news_bring_the_drawing_of_their_ply(site, tiny_spyrium):
    from playwright.sync_api import expect

    base, browser = site
    a, b, olga = people()
    gid, _ = played("spyrium", a, b, plies=2)
    page = page_for(browser, base, mover_of(gid, a, b), DESKTOP)
    page.goto(f"{base}/games/{gid}")
    drawing = page.locator(SHOWN)
    expect(drawing).to_contain_text("at ply 2")
    assert page.locator(PICKS).count() == 2

    page.locator("#ply-slider").fill("1")
    expect(drawing).to_contain_text("at ply 1")
    expect(page.locator("#drawing [data-moves]")).to_have_count(0)  # a past ply offers nothing (in either layout)
    page.click("#ply-back")
    expect(drawing).to_contain_text("at ply 0")
    page.click("#ply-fwd")
    page.click("#ply-fwd")
    expect(drawing).to_contain_text("at ply 2")
    expect(page.locator(PICKS)).to_have_count(2)  # the newest: the moves again

    # a move arrives (by the other seat, here through the services): the observer's page draws it
    watcher = page_for(browser, base, olga, DESKTOP)
    watcher.goto(f"{base}/games/{gid}")
    expect(watcher.locator(SHOWN)).to_contain_text("at ply 2")
    watcher.evaluate("window.__stay = 1")
    play_first(gid)
    expect(watcher.locator(SHOWN)).to_contain_text("at ply 3", timeout=PATIENCE_MS)
    assert watcher.evaluate("window.__stay") == 1  # no reload
    assert watcher.locator("#drawing [data-moves]").count() == 0  # an observer has nothing to pick
    watcher.context.close()
    page.context.close()


# ---------------------------------------------------------------- accessibility


@pytest.mark.parametrize("size", SIZES)
def test_the_page_with_its_drawing_has_no_serious_accessibility_finding(site, size, monkeypatch):
    from playwright.sync_api import expect

    base, browser = site
    a, b, olga = people()
    problems = []
    readers = {}  # a context for each reader, for all the games (one per game started a renderer each time)
    for name in TITLES:
        gid, _ = played(name, a, b, plies=4)
        for who, uid in (("player", mover_of(gid, a, b)), ("observer", olga)):
            if uid not in readers:
                readers[uid] = page_for(browser, base, uid, SIZES[size])
            page = readers[uid]
            page.goto(f"{base}/games/{gid}")
            page.wait_for_selector(SHOWN)
            expect(page.locator("#show-picture")).to_have_attribute("aria-pressed", "true")  # as a new reader sees it
            problems += [f"{name}, {who}, picture: {v}" for v in axe(page)]
            page.click("#show-text")
            problems += [f"{name}, {who}, text: {v}" for v in axe(page)]
            page.click("#show-picture")  # the picture again: the choice kept for the next game is the first
    for page in readers.values():
        page.context.close()
    # a drawing with elements to click, and its menu open
    monkeypatch.setattr(get_game("spyrium"), "draw_svg", tiny)
    gid, _ = played("spyrium", a, b, plies=2)
    page = page_for(browser, base, mover_of(gid, a, b), SIZES[size])
    page.goto(f"{base}/games/{gid}")
    page.click(shown("several"))
    page.wait_for_selector(".pick-menu")
    problems += [f"a drawing with moves, menu open: {v}" for v in axe(page)]
    labels = page.eval_on_selector_all("#board-tools button", "bs => bs.map(b => b.getAttribute('aria-label') || b.textContent)")
    assert all(x.strip() for x in labels) and len(labels) == 5
    page.context.close()
    assert problems == [], "\n".join(problems)


# ---------------------------------------------------------------- screenshots

SHOTS = ROOT / "docs" / "screenshots" / "boards"
SHOT_GAMES = (("spyrium", "", {}), ("squire", "british", {"side": "british"}), ("squire", "world", {"side": "world"}),
              ("iaww", "", {}))


@pytest.mark.skipif(not os.environ.get("PBEM_SHOT_PREFIX"), reason="PBEM_SHOT_PREFIX not set")
def test_board_screenshots(sqlite_cfg):
    """Each game's board on its page, desktop and phone, the whole drawing in the picture:
    docs/screenshots/boards/<game>[-<side>]-desktop.png and -phone.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    a, b, _ = people()
    with serving(sqlite_cfg) as base, chromium_browser() as browser:
        for name, side, options in SHOT_GAMES:
            gid, _ = played(name, a, b, plies=6, options=options)
            with unit_of_work() as s:
                assert all(games.get(s, gid).options.get(k) == v for k, v in options.items())
            stem = name + (f"-{side}" if side else "")
            for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                page = page_for(browser, base, mover_of(gid, a, b), viewport)
                page.goto(f"{base}/games/{gid}")
                page.wait_for_selector(SHOWN)
                page.wait_for_timeout(200)
                path = SHOTS / f"{stem}-{label}.png"
                page.locator("#boards").screenshot(path=str(path))  # the card: the whole drawing, however tall
                assert path.stat().st_size > 5000
                page.context.close()
