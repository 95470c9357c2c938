"""Issue 17, the web's part: what each person may see and do on the site.
Each test fails on the code before the fix (c3af06e) and passes after; a
fresh app and database per test, real services, the Flask test client."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.services import games
from pbem.store.db import unit_of_work
from pbem.store.models import LoginToken, User
from tests.web.conftest import Browser, last_link, make_user


def _path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


# ---------------------------------------------------------------- item 6 (issue §8, §18): after login, only our own pages


@pytest.mark.parametrize("target", [
    "/%09/evil.example", "/%0a/evil.example", "/%0d%0a/evil.example", "//evil.example", "/\\evil.example",
    "/%5cevil.example", "https://evil.example/", "/%20/evil.example", "/%e2%80%8b/evil.example",
    "/games/1%0aSet-Cookie:%20x=1", "/%7f/evil.example", "javascript:alert(1)", "",
])
def test_login_never_sends_a_user_off_the_site(web, target):
    """The target of ``next`` is a path of this site or nothing: the login link lands on the
    dashboard, never on another host (a browser drops tabs and newlines: /<TAB>/evil.example was
    //evil.example) and never on a 500 after the one-time token is spent (a newline in it)."""
    make_user("ann@example.org", "Ann")
    b = web()
    assert b.get(f"/login?next={target}").status_code == 200
    r = b.post(f"/login?next={target}", {"email": "ann@example.org"}, page="/login")
    assert r.status_code == 200
    link = last_link("ann@example.org")
    r = b.post(_path(link), page=_path(link))
    assert r.status_code == 302, r.status_code
    assert r.headers["Location"] == "/me", r.headers["Location"]
    with unit_of_work() as s:  # the token is spent: the user is logged in, on our page
        assert all(t.used_at is not None for t in s.exec(select(LoginToken)))
    assert b.get("/me").status_code == 200


def test_login_keeps_a_same_site_next(web):
    make_user("ann@example.org", "Ann")
    b = web()
    b.post("/login?next=/games/3/manage?x=1", {"email": "ann@example.org"}, page="/login")
    link = last_link("ann@example.org")
    r = b.post(_path(link), page=_path(link))
    assert r.headers["Location"] == "/games/3/manage?x=1"


def test_safe_next_by_itself():
    from pbem.web.site import safe_next

    for good in ("/", "/me", "/games/12?ply=3", "/games/1/manage#log", "/a%2Fb"):
        assert safe_next(good) == good
    for bad in (None, "", "me", "//x", "/\t/x", "/\n/x", "/\r\n/x", "/\\x", "/ /x", "/\x00", "/\u200b/x",
                "/\u00e9", "http://x/", "/" + "a" * 3000, 5):
        assert safe_next(bad) is None, bad
