"""Security headers on every page."""
import pytest


@pytest.mark.parametrize("path", ["/", "/lobby", "/rules/spyrium", "/login", "/outbox", "/healthz"])
def test_security_headers(app, path):
    r = app.test_client().get(path)
    assert r.status_code in (200, 302) if path != "/healthz" else r.status_code == 503  # no beat runs here
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"
    # login links carry tokens in their path: a Referer says our origin only (and one is needed:
    # Flask-WTF checks it on every form post over HTTPS, tests/web/test_browser.py)
    assert r.headers["Referrer-Policy"] == "strict-origin"
    assert "Strict-Transport-Security" not in r.headers  # only when the site is served over https


def test_over_https_the_session_cookie_is_secure_and_hsts_is_sent(tmp_path):
    from pbem.web import create_app
    from tests.conftest import installed, make_settings

    with installed(make_settings(tmp_path, base_url="https://pbem.test")) as cfg:
        r = create_app(cfg).test_client().get("/login", base_url="https://pbem.test")
        assert r.status_code == 200
        cookie = r.headers["Set-Cookie"]  # the login form put its CSRF secret in the session
        assert cookie.startswith("session=") and "; Secure" in cookie and "; HttpOnly" in cookie
        assert "SameSite=Lax" in cookie
        assert r.headers["Strict-Transport-Security"] == "max-age=31536000"
