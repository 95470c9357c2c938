"""The game page on a phone, in headless Chromium at 390x844 and 1280x900: a phone opens on the
narrow drawing (a portrait column whose text renders at 11 CSS px or more at the default zoom, measured as
font-size x getScreenCTM's scale), a desktop on the wide one, and the one not shown is out of the page and
of the accessibility tree; in both a click on a part fills the move box, the zoom buttons zoom the whole,
the history slider and the live news bring the drawing of their ply; every part that may be picked is
marked at all times (a touch screen has no hover), more strongly under the mouse; the tab's title and icon
say when it is the reader's turn, and change when a poll brings a new board; axe-core finds nothing
serious.

Most of it is checked against the small drawing of tests/web/test_drawing_browser.py (which draws both
layouts), put in place of Spyrium's; the games' own narrow drawings are checked by
test_the_games_drawing_is_readable_on_a_phone_and_wide_on_a_desktop."""
from __future__ import annotations

import base64
import re

import pytest

from pbem.engine import get_game
from pbem.engine.drawing import MIN_TEXT, NARROW_WIDTH
from pbem.services.core import games, moves, seating
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from tests.browser import PATIENCE_MS, axe, sideways
from tests.web.gamepage import SIZES, TITLES, page_for, people, play_first, played, site  # noqa: F401 (site)
from tests.web.test_drawing_browser import PICKS, SHOWN, mover_of, ply_of, shown, tiny

pytestmark = pytest.mark.browser


@pytest.fixture
def tiny_spyrium(monkeypatch):
    monkeypatch.setattr(get_game("spyrium"), "draw_svg", tiny)


# what the page shows of its drawings: the layout shown, its viewBox, how many are shown, the text's sizes
SHOWN_JS = """() => {
    const box = document.getElementById('drawing');
    const all = [...box.querySelectorAll('svg.board-drawing')];
    const seen = all.filter(s => s.getBoundingClientRect().width > 0);
    const svg = seen[0];
    const texts = [];
    for (const t of svg ? svg.querySelectorAll('text, tspan') : []) {
        const words = [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
        if (!words) continue;
        const m = t.getScreenCTM();
        texts.push([parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b), words.slice(0, 30)]);
    }
    const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
    return {count: all.length, shown: seen.length, layout: svg ? svg.parentNode.className : '',
            viewBox: svg ? svg.getAttribute('viewBox') : '', width: svg ? svg.getBoundingClientRect().width : 0,
            hidden: all.filter(s => s !== svg).map(s => getComputedStyle(s.parentNode).display),
            texts: texts, twice: ids.filter((x, i) => ids.indexOf(x) !== i)};
}"""


def drawing_state(page) -> dict:
    return page.evaluate(SHOWN_JS)


def smallest(state: dict) -> tuple[float, str]:
    return min((round(px, 2), words) for px, words in state["texts"])


def test_the_tiny_drawers_layouts_are_what_the_protocol_asks():
    """The stand-in drawing draws what a game's narrow layout must be (tests/engine/layouts.py)."""
    from tests.engine.layouts import check_narrow

    view = {"ply": 3}
    listed = ["a 1", "b 2", "c 3", "d 4"]
    check_narrow(tiny(view, listed), tiny(view, listed, layout="narrow"))


# ---------------------------------------------------------------- which drawing, and everything working in it


@pytest.mark.parametrize("size", SIZES)
def test_a_phone_opens_on_the_narrow_drawing_and_a_desktop_on_the_wide_one(site, tiny_spyrium, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    page = page_for(browser, base, mover_of(gid, a, b), SIZES[size])
    page.goto(f"{base}/games/{gid}")
    page.wait_for_selector(SHOWN)
    st = drawing_state(page)
    want = "lay lay-narrow" if size == "phone" else "lay lay-wide"
    assert (st["count"], st["shown"], st["layout"]) == (2, 1, want), st
    assert st["hidden"] == ["none"], st  # display:none: out of the accessibility tree too
    assert st["twice"] == [], st
    assert sideways(page) == 0
    if size == "phone":
        assert st["viewBox"].split()[2] == str(NARROW_WIDTH)
        assert smallest(st)[0] >= MIN_TEXT - 0.01, smallest(st)
    else:
        assert st["viewBox"] == "0 0 400 240"
    problems = axe(page)

    # a click on a part of the shown drawing fills the move box
    listed = page.eval_on_selector_all("#legal button.mv", "bs => bs.map(b => b.value)")
    ply = ply_of(gid)
    page.click(shown("one"))
    expect(page.locator("#move-text")).to_have_value(listed[0])
    expect(page.locator("#preview .preview.ok")).to_contain_text(listed[0])
    page.click(shown("several"))
    expect(page.locator(".pick-menu button.pick-mv")).to_have_count(3)
    problems += [f"menu open: {v}" for v in axe(page)]
    page.locator(".pick-menu button.pick-mv").nth(2).click()
    expect(page.locator("#move-text")).to_have_value(listed[3])
    assert ply_of(gid) == ply

    # the zoom zooms the drawing shown, inside its box
    width = drawing_state(page)["width"]
    page.click("#zoom-in")
    page.click("#zoom-in")
    assert drawing_state(page)["width"] > width * 1.4 and sideways(page) == 0
    page.click("#zoom-fit")
    assert abs(drawing_state(page)["width"] - width) <= 1

    # the history slider brings the ply's drawing in the layout shown (that one only), nothing to pick; the
    # newest comes back
    page.locator("#ply-slider").fill("1")
    expect(page.locator(SHOWN)).to_contain_text("at ply 1")
    past = drawing_state(page)
    assert (past["count"], past["shown"], past["layout"], past["twice"]) == (1, 1, want, [])
    expect(page.locator("#drawing [data-moves]")).to_have_count(0)
    page.click("#ply-fwd")
    expect(page.locator(SHOWN)).to_contain_text("at ply 2")
    expect(page.locator(PICKS)).to_have_count(2)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("size", SIZES)
def test_the_live_news_brings_the_new_board_in_the_layout_shown(site, tiny_spyrium, size):
    from playwright.sync_api import expect

    base, browser = site
    a, b, olga = people()
    gid, _ = played("spyrium", a, b, plies=2)
    watcher = page_for(browser, base, olga, SIZES[size])
    watcher.goto(f"{base}/games/{gid}")
    expect(watcher.locator(SHOWN)).to_contain_text("at ply 2")
    watcher.evaluate("window.__stay = 1")
    play_first(gid)
    expect(watcher.locator(SHOWN)).to_contain_text("at ply 3", timeout=PATIENCE_MS)
    st = drawing_state(watcher)  # in the layout the screen shows, that one only
    assert st["layout"] == ("lay lay-narrow" if size == "phone" else "lay lay-wide") and st["count"] == 1
    assert watcher.evaluate("window.__stay") == 1


@pytest.mark.parametrize("name", TITLES)
def test_the_games_drawing_is_readable_on_a_phone_and_wide_on_a_desktop(site, name):
    """Each game's own drawings: on a 390-px phone the narrow one, no text under 11 CSS px at the default
    zoom; at 1280 px the wide one; and nothing serious for axe at either size."""
    base, browser = site
    a, b, olga = people()
    gid, _ = played(name, a, b, plies=4)
    problems = []
    for who, uid in (("player", mover_of(gid, a, b)), ("observer", olga)):
        # one context for the reader, its window set to each size before the page is loaded at it: a
        # context of its own for each size started a renderer of its own each time
        page = page_for(browser, base, uid, SIZES["desktop"])
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            page.goto(f"{base}/games/{gid}")
            page.wait_for_selector(SHOWN)
            st = drawing_state(page)
            if st["shown"] != 1 or st["twice"]:
                problems.append(f"{name}, {who}, {size}: {st['shown']} drawings shown, ids twice {st['twice'][:5]}")
            if size == "phone":
                if st["layout"] != "lay lay-narrow" or st["viewBox"].split()[2] != str(NARROW_WIDTH):
                    problems.append(f"{name}, {who}, phone: the drawing shown is {st['layout']!r} {st['viewBox']}")
                small = sorted((round(px, 2), w) for px, w in st["texts"] if px < MIN_TEXT - 0.01)
                if small:
                    problems.append(f"{name}, {who}, phone: {len(small)} texts under {MIN_TEXT} px: {small[:5]}")
            elif st["layout"] != "lay lay-wide":
                problems.append(f"{name}, {who}, desktop: the drawing shown is {st['layout']!r} {st['viewBox']}")
            if sideways(page):
                problems.append(f"{name}, {who}, {size}: the page scrolls {sideways(page)} px sideways")
            problems += [f"{name}, {who}, {size}: {v}" for v in axe(page)]
        page.context.close()
    assert problems == [], "\n".join(problems)


# ---------------------------------------------------------------- what may be picked, marked without hover

# how many pixels of two screenshots of one place differ, counted in the page (a canvas reads the PNGs)
DIFF_JS = """async ([a, b]) => {
    const pixels = async (png) => {
        const img = new Image();
        img.src = 'data:image/png;base64,' + png;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width; c.height = img.height;
        const x = c.getContext('2d');
        x.drawImage(img, 0, 0);
        return x.getImageData(0, 0, c.width, c.height).data;
    };
    const p = await pixels(a), q = await pixels(b);
    let n = 0;
    for (let i = 0; i < p.length; i += 4) {
        if (Math.abs(p[i] - q[i]) + Math.abs(p[i + 1] - q[i + 1]) + Math.abs(p[i + 2] - q[i + 2]) > 60) n++;
    }
    return n;
}"""
PAPER = (0xFB, 0xF8, 0xF1)  # pbem/engine/drawing.PAPER, under the drawings


def _luminance(rgb) -> float:
    def lin(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _rgb(css: str) -> tuple[int, int, int]:
    return tuple(int(float(x)) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3])


def outlines(page) -> list[dict]:
    """The outline of every pick of the drawing shown, as computed."""
    return page.eval_on_selector_all(PICKS, """gs => gs.map(g => { const s = getComputedStyle(g);
        return {style: s.outlineStyle, width: parseFloat(s.outlineWidth), colour: s.outlineColor}; })""")


def marked_pixels(page, locator) -> int:
    """How many pixels around a pick its marking changes: a screenshot of it as shown, against one with
    the marking taken away (the outline of an SVG element is drawn in its coordinates: thinner on a
    drawing shown smaller than its units)."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    clip = {"x": max(0, box["x"] - 4), "y": max(0, box["y"] - 4), "width": box["width"] + 8,
            "height": box["height"] + 8}
    marked = page.screenshot(clip=clip)
    handle = page.add_style_tag(content="#drawing .pick{outline:none !important}")
    bare = page.screenshot(clip=clip)
    handle.evaluate("s => s.remove()")
    return page.evaluate(DIFF_JS, [base64.b64encode(marked).decode("ascii"), base64.b64encode(bare).decode("ascii")])


@pytest.mark.parametrize("size", SIZES)
def test_every_part_that_may_be_picked_is_marked_without_hover(site, tiny_spyrium, size):
    base, browser = site
    a, b, olga = people()
    gid, _ = played("spyrium", a, b, plies=2)
    page = page_for(browser, base, mover_of(gid, a, b), SIZES[size])
    page.goto(f"{base}/games/{gid}")
    page.wait_for_selector(SHOWN)
    page.mouse.move(0, 0)
    marks = outlines(page)
    assert len(marks) == 2
    for m in marks:
        assert m["style"] == "dashed" and m["width"] >= 2, m
        assert contrast(_rgb(m["colour"]), PAPER) >= 4.5, m  # non-text contrast asks 3:1
        assert contrast(_rgb(m["colour"]), (0xDC, 0xEB, 0xF6)) >= 4.5  # on a player's tint too
    one = page.locator(shown("one"))
    still = marked_pixels(page, one)
    assert still > 100, f"the outline is not drawn: {still} pixels of its colour"
    # under the mouse: stronger (wider, solid, the accent colour)
    one.hover()
    hovered = page.locator(shown("one")).evaluate("g => { const s = getComputedStyle(g);"
                                                  " return [s.outlineStyle, parseFloat(s.outlineWidth)]; }")
    assert hovered[0] == "solid" and hovered[1] > marks[0]["width"], hovered
    # from the keyboard too
    page.mouse.move(0, 0)
    page.focus("#move-text")
    page.keyboard.press("Shift+Tab")  # back into the drawing, onto its last pick
    focused = page.evaluate("(() => { const g = document.activeElement; const s = getComputedStyle(g);"
                            " return [g.classList.contains('pick'), s.outlineStyle, parseFloat(s.outlineWidth)]; })()")
    if focused[0]:
        assert focused[1] == "solid" and focused[2] > marks[0]["width"], focused
    # nobody to pick for: nothing marked
    watcher = page_for(browser, base, olga, SIZES[size])
    watcher.goto(f"{base}/games/{gid}")
    watcher.wait_for_selector(SHOWN)
    assert outlines(watcher) == []


@pytest.mark.parametrize("size", SIZES)
def test_the_games_own_picks_are_marked_without_hover(site, size):
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
        page.goto(f"{base}/games/{gid}")
        page.wait_for_selector(SHOWN)
        page.mouse.move(0, 0)
        marks = outlines(page)
        if not marks:
            problems.append(f"{name}: the drawing shown marks nothing to pick")
        unmarked = [m for m in marks if m["style"] != "dashed" or m["width"] < 2]
        if unmarked:
            problems.append(f"{name}: {len(unmarked)} of {len(marks)} picks are not marked: {unmarked[:3]}")
        if marks and marked_pixels(page, page.locator(PICKS).first) < 40:
            problems.append(f"{name}: the first pick's outline is not drawn")
    for page in movers.values():
        page.context.close()
    assert problems == [], "\n".join(problems)


# ---------------------------------------------------------------- the tab's title and icon


def _tab(page) -> tuple[str, str]:
    return page.evaluate("[document.title, document.querySelector('link[rel=icon]').getAttribute('href')]")


@pytest.mark.parametrize("size,lang", [("desktop", "en"), ("phone", "en"), ("phone", "ru")])
def test_the_tab_says_your_turn_and_a_poll_changes_it(site, size, lang):
    from playwright.sync_api import expect

    base, browser = site
    a, b, _ = people()
    with unit_of_work() as s:
        for uid in (a, b):
            s.get(User, uid).language = lang
    gid, _ = played("squire", a, b, plies=2)
    turn = {"en": "Your turn — ", "ru": "Ваш ход — "}[lang]
    plain = f"Squire #{gid} · pbem" if lang == "en" else f"#{gid} · pbem"
    mover = mover_of(gid, a, b)
    waiting = b if mover == a else a
    pages = {}
    for uid in (mover, waiting):
        pages[uid] = page_for(browser, base, uid, SIZES[size])
        pages[uid].goto(f"{base}/games/{gid}")
        pages[uid].evaluate("window.__stay = 1")
    title, icon = _tab(pages[mover])
    assert title.startswith(turn) and title.endswith(f"#{gid} · pbem") and icon.endswith("/icon-turn.svg"), title
    title, icon = _tab(pages[waiting])
    assert not title.startswith(turn) and title.endswith(plain) and icon.endswith("/icon.svg"), title
    # the mover plays (here through the services) until the turn passes: each page learns it by its poll
    for _ in range(12):
        with unit_of_work() as s:
            g = s.get(Game, gid)
            engine = games.engine_for(g)
            state = games.state_at(s, g)
            seat = min(engine.to_move(state))
            now = seating.seats(s, gid)[seat].user_id
            if now != mover:
                break
            move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
            assert moves.submit_moves(s, gid, seat, [move], source="web").ok
    assert mover_of(gid, a, b) == waiting
    expect(pages[waiting]).to_have_title(re.compile("^" + re.escape(turn) + ".*" + re.escape(plain) + "$"),
                                         timeout=PATIENCE_MS)
    expect(pages[waiting].locator("link[rel=icon]")).to_have_attribute("href", "/static/icon-turn.svg")
    expect(pages[mover]).not_to_have_title(re.compile("^" + re.escape(turn)), timeout=PATIENCE_MS)
    expect(pages[mover].locator("link[rel=icon]")).to_have_attribute("href", "/static/icon.svg")
    assert _tab(pages[mover])[0].endswith(plain)
    for p in pages.values():
        assert p.evaluate("window.__stay") == 1  # no reload
        assert p.locator("link[rel=icon]").count() == 1


# ---------------------------------------------------------------- the winner's trophy


@pytest.mark.parametrize("size", SIZES)
def test_the_winners_trophy_is_drawn_without_an_emoji_font(site, size):
    base, browser = site
    a, b, _ = people()
    gid, _ = played("mini", a, b, plies=10, options={"hand": 1})
    page = page_for(browser, base, a, SIZES[size])
    page.goto(f"{base}/games/{gid}")
    trophy = page.locator("#scores svg.trophy").first
    box = trophy.bounding_box()
    assert box and box["width"] >= 14 and box["height"] >= 14, box
    assert "🏆" not in page.inner_text("#scores") and "winner" in page.inner_text("#scores")
    assert axe(page) == []
