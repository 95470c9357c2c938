"""Web identity through the site, as the tester reproduced it: a
cookie copied before logout, "log out everywhere", a new address, a stranger
taking a name or an address, pages that told who has an account, and the
login's ``next``. Flask test client, real services, SQLite and PostgreSQL."""
from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import pytest
from sqlmodel import func, select

from pbem.store.db import unit_of_work
from pbem.store.models import LoginToken, Outbound, User, WebSession
from pbem.web import create_app
from tests.web.conftest import CSRF_RE, Browser, last_link, make_user


@pytest.fixture
def site(any_cfg):
    any_cfg.var_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(any_cfg)
    app.config["TESTING"] = True
    return lambda: Browser(app)


def _path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def _log_in_by_link(b: Browser, email: str) -> None:
    b.post("/login", {"email": email}, page="/login")
    link = _path(last_link(email))
    assert b.post(link, page=link).status_code == 302


def _flash(r, address: str) -> str:
    """The first flash message of a page, with ``address`` written ADDRESS."""
    return r.get_data(as_text=True).replace(address, "ADDRESS").split('role="status">')[1].split("<")[0]


def _copy(b: Browser) -> Browser:
    """Another browser holding a copy of ``b``'s session cookie (what a thief would take)."""
    thief = Browser(b.client.application)
    thief.client.set_cookie("session", b.client.get_cookie("session").value)
    return thief


# ---------------------------------------------------------------- item 1: sessions end


def test_logout_ends_the_session_for_a_copy_of_its_cookie_too(site):
    make_user("ann@example.org", "Ann")
    ann = site()
    _log_in_by_link(ann, "ann@example.org")
    thief = _copy(ann)
    assert thief.get("/me").status_code == 200
    ann.post("/logout", page="/me")
    assert ann.get("/me").status_code == 302 and thief.get("/me").status_code == 302
    with unit_of_work() as s:
        assert [r.ended_at is not None for r in s.exec(select(WebSession))] == [True]


def test_log_out_everywhere_ends_every_session_and_unused_link(site):
    make_user("ann@example.org", "Ann")
    laptop, phone = site(), site()
    _log_in_by_link(laptop, "ann@example.org")
    _log_in_by_link(phone, "ann@example.org")
    thief = _copy(phone)
    laptop.post("/login", {"email": "ann@example.org"}, page="/login")  # a link not yet opened
    unused = _path(last_link("ann@example.org"))
    page = laptop.get("/profile").get_data(as_text=True)
    assert "in 2 browsers or devices" in page and 'id="logout-everywhere"' in page
    r = laptop.post("/logout/everywhere", page="/profile", follow_redirects=True)
    assert "logged out everywhere: 2 sessions ended" in r.get_data(as_text=True)
    for b in (laptop, phone, thief):
        assert b.get("/me").status_code == 302
    assert site().post(unused, page="/login").status_code == 400
    # a visitor cannot log anyone out everywhere
    r = site().post("/logout/everywhere", page="/login")
    assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_a_new_address_is_proven_by_its_link_and_ends_every_session(site):
    uid = make_user("ann@example.org", "Ann")
    make_user("ben@example.org", "Ben")
    ann, other = site(), site()
    _log_in_by_link(ann, "ann@example.org")
    _log_in_by_link(other, "ann@example.org")
    # the same answer for an address with an account and one without
    answers = []
    for new in ("ben@example.org", "ann.new@example.org"):
        r = ann.post("/profile/address", {"email": new}, page="/profile", follow_redirects=True)
        answers.append(_flash(r, new))
    assert answers[0] == answers[1] and "your address changes when you open it" in answers[0]
    r = ann.post("/profile/address", {"email": "ann.new@@example.org"}, page="/profile", follow_redirects=True)
    assert "not an e-mail address" in r.get_data(as_text=True)
    with unit_of_work() as s:
        assert s.get(User, uid).email == "ann@example.org"  # nothing changes before the link is opened
    # the owner of ben@ opens the link meant to give Ben's address to Ann: refused, nothing changed
    ben_link = _path(last_link("ben@example.org"))
    r = site().post(ben_link, page=ben_link)
    assert r.status_code == 400 and "already has an account" in r.get_data(as_text=True)
    new_link = _path(last_link("ann.new@example.org"))
    opener = site()
    assert "Use this address" in opener.get(new_link).get_data(as_text=True)
    assert opener.post(new_link, page=new_link).status_code == 302
    with unit_of_work() as s:
        assert s.get(User, uid).email == "ann.new@example.org"
        told = s.exec(select(Outbound).where(Outbound.to_addr == "ann@example.org")
                      .order_by(Outbound.id.desc())).first()
    assert told.subject == "pbem: your address has changed" and "ann.new@example.org" in told.body_text
    assert ann.get("/me").status_code == 302 and other.get("/me").status_code == 302
    assert opener.get("/me").status_code == 200  # the link's opener is logged in, in a new session


# ---------------------------------------------------------------- item 3: one name per person


def test_a_stranger_cannot_take_a_players_name_on_the_profile(site):
    make_user("ann@example.org", "Ann")
    eve_id = make_user("eve@example.org", "Eve")
    eve = site()
    eve.login_as(eve_id)
    form = {"mail_format": "html", "notify": "every", "timezone": "UTC"}
    for name in ("Ann", "ann", "\u0410nn", "A\u200bnn", " ANN"):
        r = eve.post("/profile", {**form, "name": name}, page="/profile")
        html = r.get_data(as_text=True)
        assert r.status_code == 400 and "is taken" in html and " 2&#39; is free" in html, name
    with unit_of_work() as s:
        assert s.get(User, eve_id).name == "Eve"
    assert eve.post("/profile", {**form, "name": "Eve Q."}, page="/profile").status_code == 302


def test_a_squatter_typing_someone_elses_address_gets_no_account_and_no_name(site):
    squatter = site()
    r = squatter.post("/signup", {"email": "ann@example.org", "name": "Ann the Real"}, page="/signup")
    assert r.status_code == 200
    with unit_of_work() as s:
        assert s.exec(select(func.count()).select_from(User)).one() == 0
    owner = site()  # only the owner reads the link; she chooses her name
    link = _path(last_link("ann@example.org"))
    assert owner.post(link, {"name": "Ann"}, page=link).status_code == 302
    with unit_of_work() as s:
        assert [(u.email, u.name) for u in s.exec(select(User))] == [("ann@example.org", "Ann")]


def test_the_name_chosen_on_the_link_page_must_be_free(site):
    make_user("ann@example.org", "Ann")
    b = site()
    b.post("/signup", {"email": "eve@example.org"}, page="/signup")
    link = _path(last_link("eve@example.org"))
    r = b.post(link, {"name": "\u0430nn"}, page=link)
    assert r.status_code == 400 and "is taken" in r.get_data(as_text=True)
    assert b.post(link, {"name": "Eve"}, page=link).status_code == 302


# ---------------------------------------------------------------- item 4: nothing tells who has an account


def _main(r, email: str) -> str:
    html = r.get_data(as_text=True).replace(email, "<address>")
    return CSRF_RE.sub("", html.split("<main>")[1].split("</main>")[0])


def test_sign_up_and_login_answer_the_same_for_every_address(site):
    make_user("ann@example.org", "Ann")
    b = site()
    for route in ("/signup", "/login"):
        pages = set()
        for addr in ["ann@example.org"] * 4 + ["nobody@example.org"] * 4:
            r = b.post(route, {"email": addr}, page=route)
            assert r.status_code == 200
            pages.add(_main(r, addr))
        assert len(pages) == 1, route
    with unit_of_work() as s:  # three links each in the window: the rest were not sent, silently
        counts = {a: s.exec(select(func.count()).select_from(LoginToken).where(LoginToken.email == a)).one()
                  for a in ("ann@example.org", "nobody@example.org")}
    assert counts == {"ann@example.org": 3, "nobody@example.org": 3}


def test_links_are_capped_per_client_as_well_as_per_address(site):
    """One client asking /signup and /login for 40 addresses (it took seconds): pbem mails the first
    ten, then refuses the client with 429 and a page in its language, and sends nothing more; another
    client is not held back. Behind the deploy's proxy the client is the address the proxy appended
    to X-Forwarded-For, not what the visitor wrote there; an IPv6 client counts by its /64."""
    from pbem.services.identity import auth

    b = site()
    codes = []
    for i in range(40):
        route = ("/signup", "/login")[i % 2]
        r = b.post(route, {"email": f"victim{i}@example.org"}, page=route,
                   environ_base={"REMOTE_ADDR": "203.0.113.7"}, headers={"Accept-Language": "ru"})
        codes.append(r.status_code)
    with unit_of_work() as s:
        mailed = s.exec(select(func.count()).select_from(Outbound).where(Outbound.kind == "login")).one()
    print(f"\n40 addresses asked from one client: {mailed} links mailed, answers {codes[:12]}...")
    assert mailed == auth.LINKS_PER_CLIENT == 10
    assert codes[:10] == [200] * 10 and set(codes[10:]) == {429}
    assert "за последний час" in r.get_data(as_text=True)  # the refusal, in the visitor's language
    # another client, and a proxied one: each its own allowance (whatever X-Forwarded-For a visitor forges)
    other = site()
    r = other.post("/signup", {"email": "ann@example.org"}, page="/signup",
                   environ_base={"REMOTE_ADDR": "198.51.100.9"})
    assert r.status_code == 200
    for i in range(11):
        r = other.post("/signup", {"email": f"p{i}@example.org"}, page="/signup",
                       environ_base={"REMOTE_ADDR": "127.0.0.1"},
                       headers={"X-Forwarded-For": f"203.0.113.{i}, 2001:db8:1:2::{i + 1}"})
    assert r.status_code == 429  # eleven from one /64 behind the proxy, whatever they wrote before it
    with unit_of_work() as s:
        clients = set(s.exec(select(LoginToken.client)))
    assert clients == {"203.0.113.7", "198.51.100.9", "2001:db8:1:2::/64"}, clients


def test_an_invitation_answers_the_same_for_every_address(site):
    from pbem.services.lobby import tables

    uid = make_user("ann@example.org", "Ann")
    make_user("ben@example.org", "Ben")
    with unit_of_work() as s:
        gid = tables.create(s, s.get(User, uid), "spyrium", 3, seed=1).id
    ann = site()
    ann.login_as(uid)
    flashes = []
    for addr in ("ben@example.org", "nobody@example.org"):
        r = ann.post(f"/games/{gid}/invite", {"email": addr}, page=f"/games/{gid}", follow_redirects=True)
        flashes.append(_flash(r, addr))
    assert flashes[0] == flashes[1] == "Invitation sent to ADDRESS."


# ---------------------------------------------------------------- item 5: the login's next stays on the site


@pytest.mark.parametrize("target", [
    "/%09/evil.example", "/%0a/evil.example", "\\evil.example", "/\\evil.example", "%5C%5Cevil.example",
    "%2F%2Fevil.example", "/%2F/evil.example", "https:evil.example", "https:/evil.example", "//evil.example",
    "/%E2%81%84%E2%81%84evil.example", "%EF%BC%8F%EF%BC%8Fevil.example", "/\u0435vil", "/%C0%AFevil.example",
    "/%0d%0aLocation:%20https://evil.example", "///evil.example", "/%5C/evil.example",
])
def test_the_login_next_never_leaves_the_site(site, target):
    make_user("ann@example.org", "Ann")
    b = site()
    assert b.get(f"/login?next={target}").status_code == 200
    b.post(f"/login?next={target}", {"email": "ann@example.org"}, page="/login")
    link = _path(last_link("ann@example.org"))
    r = b.post(link, page=link)
    assert r.status_code == 302
    location = r.headers["Location"]
    # read as a browser reads it (WHATWG URL: tabs and newlines dropped, a backslash is a slash): our host
    as_browser = urljoin("https://pbem.test/me", re.sub(r"[\t\n\r]", "", location).replace("\\", "/"))
    assert urlsplit(as_browser).netloc == "pbem.test" and location.startswith("/"), location
    assert b.get("/me").status_code == 200  # the token spent, and the user logged in: no 500
