"""Browser tests in headless Chromium (Debian's, driven by Playwright): two
people sign up, log in through the link mailed to them (read from the
outbox), create and join a game, play by clicking a legal move and talk in
the thread, each seeing the other's actions without reloading. Also saves
the screenshots of each game's page under docs/screenshots/."""
from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from tests.browser import serving
from tests.web.conftest import last_link
from tests.web.gamepage import played

pytestmark = pytest.mark.browser

DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
def shots(tmp_path):
    """Where the game-page screenshots go: docs/screenshots/ when
    PBEM_SAVE_SCREENSHOTS=1 (to refresh the committed ones), else a temp dir
    (so an ordinary test run leaves the work tree clean)."""
    import os

    return DOCS_SHOTS if os.environ.get("PBEM_SAVE_SCREENSHOTS") == "1" else tmp_path


def sign_up(browser, base: str, name: str, email: str, **context):
    ctx = browser.new_context(viewport={"width": 1360, "height": 900}, **context)
    page = ctx.new_page()
    page.set_default_timeout(20000)
    page.goto(base + "/")
    page.click("text=Sign up — no password needed")
    page.fill("input[name=email]", email)
    page.click("button:has-text('Send me the link')")
    page.wait_for_selector("#sent")
    page.goto(last_link(email))  # the name is chosen by whoever holds the address, on the link's page
    page.fill("input[name=name]", name)
    page.click("#go")
    page.wait_for_url("**/me")
    assert name in page.inner_text("header")
    return page


def test_two_players_sign_up_create_join_move_and_talk(live, chromium, shots):
    from playwright.sync_api import expect

    anna = sign_up(chromium, live, "Anna", "anna@example.org")
    boris = sign_up(chromium, live, "Boris", "boris@example.org")

    # Anna creates a two-player Spyrium game
    anna.click("text=Lobby")
    anna.select_option("#create-spyrium select[name=players]", "2")
    anna.click("#create-spyrium button[type=submit]")
    anna.wait_for_url("**/games/*")
    gid = int(anna.url.rsplit("/", 1)[1])
    expect(anna.locator(".pill")).to_have_text("open")

    # Boris joins from the lobby; the game is full and starts
    boris.goto(live + "/lobby")
    boris.click("button:has-text('Join')")
    boris.wait_for_url(f"**/games/{gid}")
    expect(boris.locator(".pill")).to_have_text("running")

    # Anna's open page notices the start by itself (no reload by her)
    expect(anna.locator(".pill")).to_have_text("running")
    with unit_of_work() as s:
        g = s.get(Game, gid)
        first_seat = min(games.engine_for(g).to_move(games.state_at(s, g)))
    mover, other = (anna, boris) if first_seat == 0 else (boris, anna)
    mover.reload()
    mover.wait_for_selector("#legal button.mv")
    move = mover.locator("#legal button.mv").first.get_attribute("value")
    mover.click(f"#legal button.mv[value='{move}']")  # picked, previewed, not sent yet
    expect(mover.locator("#preview .preview.ok")).to_contain_text(move)
    mover.click("#send")
    expect(mover.locator(".flash.ok")).to_contain_text(f"Applied: {move}")

    # the other player sees the move in the thread and on the board without reloading
    other.evaluate("window.__stay = 1")
    expect(other.locator("#posts .post.move")).to_contain_text(move)
    expect(other.locator("#cur-ply")).to_have_text("1")
    other.wait_for_selector("#legal button.mv")
    assert other.evaluate("window.__stay") == 1
    with unit_of_work() as s:
        assert s.get(Game, gid).ply == 1

    # Boris writes in the thread; Anna's page shows it without a reload
    anna.evaluate("window.__stay = 2")
    boris.fill("#post-body", "Nice opening, Anna <b>really</b>")
    boris.click("#post-send")
    expect(boris.locator("#posts")).to_contain_text("Nice opening")
    expect(anna.locator("#posts .post").first).to_contain_text("Nice opening, Anna <b>really</b>")  # newest first
    assert anna.evaluate("window.__stay") == 2

    # the history slider shows the board before the move
    anna.reload()
    anna.locator("#ply-slider").fill("0")
    expect(anna.locator("#ply-label")).to_have_text("0")

    shots.mkdir(parents=True, exist_ok=True)
    anna.locator("#ply-slider").fill("1")
    expect(anna.locator("#ply-label")).to_have_text("1")
    anna.wait_for_timeout(300)  # let the board fragment paint
    shooter = other  # the seat to move now: its page shows the legal moves
    shooter.reload()
    shooter.screenshot(path=str(shots / "spyrium.png"), full_page=True)

    # the other two games, a few plies in, from Anna's seat
    with unit_of_work() as s:
        a = s.exec(select(User).where(User.email == "anna@example.org")).one()
        b = s.exec(select(User).where(User.email == "boris@example.org")).one()
    for name in ("squire", "iaww"):
        gid2, to_move = _played_game(name, a.id, b.id, plies=6)
        shooter = anna if 0 in to_move else boris
        shooter.goto(f"{live}/games/{gid2}")
        shooter.wait_for_selector("#boards")  # the drawing and the text board
        shooter.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    assert all((shots / f"{n}.png").stat().st_size > 20000 for n in ("spyrium", "squire", "iaww"))


def _played_game(name: str, a: int, b: int, plies: int) -> tuple[int, list[int]]:
    """tests/web/gamepage.played, and Boris says whose move it is in the thread."""
    gid, to_move = played(name, a, b, plies, talk=0)
    with unit_of_work() as s:
        from pbem.services.core import thread

        with_boris = f"Your move, {'Anna' if 0 in to_move else 'Boris'}!"
        thread.post(s, games.get(s, gid), s.get(User, b), "Good game so far. " + with_boris)
    return gid, to_move


@pytest.fixture
def live_tls(tmp_path):
    """The site over HTTPS, as deployed (PBEM_BASE_URL https://...: Secure cookie, HSTS, and
    Flask-WTF's strict Referer check on every form), with a throwaway certificate."""
    import subprocess

    from tests.conftest import installed, make_settings

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    cfg0 = make_settings(tmp_path)
    with installed(cfg0.with_(base_url=f"https://127.0.0.1:{cfg0.web_port}")) as cfg, \
            serving(cfg, ssl_context=(str(cert), str(key))) as url:
        yield url


def test_forms_work_over_https(live_tls, chromium):
    """Over HTTPS Flask-WTF also wants a same-site Referer on every POST; the page's own
    Referrer-Policy must let the browser send one (the scan found every form refused: 'no-referrer')."""
    from playwright.sync_api import expect

    page = sign_up(chromium, live_tls, "Anna", "anna@example.org", ignore_https_errors=True)
    ctx = page.context
    cookie = next(c for c in ctx.cookies() if c["name"] == "session")
    assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    page.goto(live_tls + "/lobby")
    page.select_option("#create-spyrium select[name=players]", "2")
    page.click("#create-spyrium button[type=submit]")
    page.wait_for_url("**/games/*")
    page.fill("#post-body", "hello over https")
    page.click("#post-send")
    expect(page.locator("#posts")).to_contain_text("hello over https")
    ctx.close()
